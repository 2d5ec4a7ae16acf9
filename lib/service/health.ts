/**
 * GET /health (INTERFACE.md 4.7): the process is alive, whether the registry answers, and with
 * `CHAIN_RPC_URL` how far the chain indexer got (indexed block, head, lag).
 *
 * A registry that cannot be opened, reports itself unhealthy or does not answer within
 * {@link HEALTH_TIMEOUT_MS} makes the report `degraded` (HTTP 503), so a load balancer takes the
 * instance out of rotation instead of sending it publishes that would fail.
 */
import packageJson from '../../package.json';
import { log } from '../http/log.ts';
import type { HealthResponse } from '../schemas/health.ts';
import { getConfig } from '../server/config.ts';
import { runningIndexer } from '../server/chain.ts';
import { getRegistry, registryKindOf } from '../server/registry.ts';
import { indexerKey } from '../chain/indexer.ts';
import type { RegistryStore } from '../registry/store.ts';

/** A health probe must answer quickly even when the database hangs. */
export const HEALTH_TIMEOUT_MS = 3000;

export type HealthReport = { httpStatus: 200 | 503; body: HealthResponse };

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function healthReport(): Promise<HealthReport> {
  const base = { version: packageJson.version, uptime_seconds: Math.floor(process.uptime()) };
  const kind = registryKindOf(getConfig().registryUrl);
  try {
    const store = await withTimeout(getRegistry(), HEALTH_TIMEOUT_MS);
    const health = await withTimeout(store.health(), HEALTH_TIMEOUT_MS);
    if (!health.ok) throw new Error(health.error ?? 'the store reports itself unhealthy');
    const count = await withTimeout(store.count(), HEALTH_TIMEOUT_MS);
    const chain = await withTimeout(chainReport(store), HEALTH_TIMEOUT_MS);
    return {
      httpStatus: 200,
      body: { status: 'ok', ...base, announcements_count: count, registry: { kind: store.kind, ok: true }, chain },
    };
  } catch (error) {
    log('warn', 'registry unhealthy', { error: error instanceof Error ? error.message : String(error) });
    return {
      httpStatus: 503,
      body: { status: 'degraded', ...base, announcements_count: null, registry: { kind, ok: false }, chain: null },
    };
  }
}

/**
 * The indexer's progress. The indexed block comes from the registry (the instance that holds the
 * lease may be another one); the head and failures from this instance's own indexer. A failing
 * chain does not make the instance `degraded`: reads and scans still work.
 */
async function chainReport(store: RegistryStore): Promise<HealthResponse['chain']> {
  const chain = getConfig().chain;
  if (chain === undefined) return null;
  const indexer = runningIndexer()?.status();
  const shared = await store.indexerStatus(indexerKey(chain));
  const indexedBlock = shared.nextBlock === null || shared.nextBlock <= chain.startBlock ? null : shared.nextBlock - 1;
  const headBlock = indexer?.headBlock ?? null;
  return {
    name: chain.name,
    indexed_block: indexedBlock,
    head_block: headBlock,
    lag_blocks: headBlock === null || indexedBlock === null ? null : Math.max(0, headBlock - indexedBlock),
    indexing: indexer?.leader ?? false,
    ok: indexer === undefined || indexer.failures < 3,
    error: indexer?.lastError ?? null,
  };
}
