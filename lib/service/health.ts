/**
 * GET /health (INTERFACE.md 4.7, API.md "Several chains"): the process is alive, whether the
 * registry answers, and for every followed chain how far its indexer got (indexed block, head,
 * lag), whether this instance holds its lease, and its RPC's current failure.
 *
 * A registry that cannot be opened, reports itself unhealthy or does not answer within
 * {@link HEALTH_TIMEOUT_MS} makes the report `degraded` with HTTP 503, so a load balancer takes
 * the instance out of rotation instead of sending it publishes that would fail. A chain whose RPC
 * fails makes it `degraded` with HTTP 200: reads, scans and the other chains still work.
 */
import packageJson from '../../package.json';
import { log } from '../http/log.ts';
import type { HealthResponse } from '../schemas/health.ts';
import { getConfig } from '../server/config.ts';
import { chainStatuses } from '../server/chain.ts';
import { getRegistry, registryKindOf } from '../server/registry.ts';
import { indexerKey } from '../chain/indexer.ts';
import { withinTimeout } from '../chain/rpc.ts';
import type { RegistryStore } from '../registry/store.ts';

/** A health probe must answer quickly even when the database hangs. */
export const HEALTH_TIMEOUT_MS = 3000;

export type HealthReport = { httpStatus: 200 | 503; body: HealthResponse };

export async function healthReport(): Promise<HealthReport> {
  const base = { version: packageJson.version, uptime_seconds: Math.floor(process.uptime()) };
  const kind = registryKindOf(getConfig().registryUrl);
  try {
    const store = await withinTimeout(() => getRegistry(), HEALTH_TIMEOUT_MS);
    const health = await withinTimeout(() => store.health(), HEALTH_TIMEOUT_MS);
    if (!health.ok) throw new Error(health.error ?? 'the store reports itself unhealthy');
    const count = await withinTimeout(() => store.count(), HEALTH_TIMEOUT_MS);
    const chains = await withinTimeout(() => chainsReport(store), HEALTH_TIMEOUT_MS);
    return {
      httpStatus: 200,
      body: {
        status: chains.some((chain) => chain.error !== null) ? 'degraded' : 'ok',
        ...base,
        announcements_count: count,
        registry: { kind: store.kind, ok: true },
        chains,
        chain: legacyChain(chains),
      },
    };
  } catch (error) {
    log('warn', 'registry unhealthy', { error: error instanceof Error ? error.message : String(error) });
    return {
      httpStatus: 503,
      body: { status: 'degraded', ...base, announcements_count: null, registry: { kind, ok: false }, chains: [], chain: null },
    };
  }
}

/**
 * Each followed chain's progress. The indexed block comes from the registry (the instance that
 * holds the chain's lease may be another one); the head, the lease and the failure from this
 * instance's own indexer of that chain (a standing-by indexer reads the head too).
 */
async function chainsReport(store: RegistryStore): Promise<HealthResponse['chains']> {
  return Promise.all(
    chainStatuses().map(async ({ chain, indexer }) => {
      const { config } = chain;
      const shared = await store.indexerStatus(indexerKey(config));
      const indexedBlock = shared.nextBlock === null || shared.nextBlock <= config.startBlock ? null : shared.nextBlock - 1;
      const headBlock = indexer?.headBlock ?? null;
      return {
        name: config.name,
        chain_id: chain.identified ? (chain.chainId ?? null) : null,
        indexed_block: indexedBlock,
        head_block: headBlock,
        lag_blocks: headBlock === null || indexedBlock === null ? null : Math.max(0, headBlock - indexedBlock),
        indexing: indexer?.leader ?? false,
        error: chain.problem ?? indexer?.lastError ?? null,
      };
    }),
  );
}

/** The first chain in the shape `chain` had before `chains` (kept for one-chain clients). */
function legacyChain(chains: HealthResponse['chains']): HealthResponse['chain'] {
  const first = chains[0];
  if (first === undefined) return null;
  const { chain_id: _, ...rest } = first;
  return { ...rest, ok: first.error === null };
}
