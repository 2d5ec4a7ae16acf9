/**
 * The process's followed chains (API.md `CHAINS`, or the one-chain shorthand `CHAIN_RPC_URL`):
 * per chain its RPC clients, its EIP-155 id and its indexer (lib/chain/indexer.ts), started at
 * boot and stopped, releasing its lease, on shutdown.
 *
 * The id is read from each RPC (`eth_chainId`) at start-up, and boot waits for it a short while
 * ({@link STARTUP_ID_WAIT_MS}): two chains answering one id, or an RPC answering another id than
 * its entry's `chain_id`, stop the server with a message naming the entries (never a URL: RPC
 * URLs carry API keys). An RPC that does not answer in that time does not hold up the others or
 * the server: it is asked again in the background with a growing pause (up to a minute) and
 * /health reports it (`chain_id: null` and the error, status `degraded`) until it answers; then
 * its indexer starts. If a late answer collides with a chain already followed, or contradicts
 * the entry's `chain_id`, that chain alone is not indexed and /health says why, since a running
 * server is not stopped for it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startIndexer, type Indexer, type IndexerStatus } from '../chain/indexer.ts';
import { chainErrorSummary, createChainClients, type ChainClients } from '../chain/rpc.ts';
import type { ChainConfig } from '../config.ts';
import { HttpError, validationError } from '../http/errors.ts';
import { log } from '../http/log.ts';
import { getConfig } from './config.ts';
import { checkGasless } from './gasless-check.ts';
import { getRegistry } from './registry.ts';
import { onShutdown } from './shutdown.ts';
import { peekProcessSingleton, processSingleton } from './singleton.ts';

const CHAINS_SLOT = 'chains';

/** How long boot waits for every RPC's chain id before it goes on without the silent ones. */
export const STARTUP_ID_WAIT_MS = 5_000;
/** Pauses between chain-id reads of an RPC that did not answer: from this, growing to a minute. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;
/** Pause before trying again to open a registry that would not open. */
const REGISTRY_RETRY_MS = 5_000;

/** One followed chain, as this process sees it. */
export type FollowedChain = {
  readonly config: ChainConfig;
  readonly clients: ChainClients;
  /** The id the RPC answered; before that, the entry's `chain_id` if it has one, else undefined. */
  chainId: number | undefined;
  /** True once the RPC answered its id and it was accepted. */
  identified: boolean;
  /** True when the id it answered late was refused (taken by another chain, or not its `chain_id`): never indexed. */
  refused: boolean;
  /** Running once the id is known and the registry opened. */
  indexer: Indexer | undefined;
  /** Why the chain is not (yet) indexed: the id read failing, or an id refused; null otherwise. */
  problem: string | null;
};

/** A start-up refusal: the message names entries and ids, never URLs. */
export class ChainIdentityError extends Error {
  override name = 'ChainIdentityError';
}

type Chains = { chains: FollowedChain[]; stopped: boolean; started: Promise<void> | undefined };

/** The followed chains of the configuration, created (not started) on first use. */
function chainsState(): Chains {
  return processSingleton<Chains>(CHAINS_SLOT, () => {
    const config = getConfig();
    return {
      chains: config.chains.map((chain) => ({
        config: chain,
        clients: createChainClients(chain.rpcUrl, config.upstreamTimeoutMs),
        chainId: chain.chainId,
        identified: false,
        refused: false,
        indexer: undefined,
        problem: null,
      })),
      stopped: false,
      started: undefined,
    };
  });
}

/** Every followed chain, in configuration order (empty without `CHAINS` / `CHAIN_RPC_URL`). */
export function followedChains(): readonly FollowedChain[] {
  return chainsState().chains;
}

/**
 * The followed chain of EIP-155 id `chainId`, or undefined when this server does not follow it.
 * A chain whose RPC has not answered yet is found by its entry's `chain_id` when it has one.
 * @example
 * const chain = followedChainById(8453);
 * if (chain === undefined) throw new HttpError(422, 'CHAIN_NOT_FOLLOWED', ...);
 * const receipt = await chain.clients.receipt(hash);
 */
export function followedChainById(chainId: number): FollowedChain | undefined {
  return chainsState().chains.find((chain) => chain.chainId === chainId && !chain.refused);
}

/** What a request's chain is for, in the words of the refusals {@link chainNamedBy} gives. */
export type ChainPurpose = {
  /** The 422 when `chain_id` names a chain not followed, given the ids followed ("8453, 10" or "no chain"). */
  notFollowed: (followed: string) => string;
  /** The 422 when this server follows no chain at all. */
  noChain: string;
  /** The `chain_id` issue when several are followed and the request names none. */
  several: string;
};

/**
 * The followed chain a request acts on (API.md "Several chains"): the one its `chain_id` names
 * (422 CHAIN_NOT_FOLLOWED when this server does not follow it), or the only one when it names
 * none; a server following several needs the request to say which (400 VALIDATION_ERROR).
 * @example
 * const chain = chainNamedBy(query.chain_id, { notFollowed: (f) => `... (it follows ${f}).`, noChain: '...', several: 'is required: ...' });
 */
export function chainNamedBy(chainId: number | undefined, purpose: ChainPurpose): FollowedChain {
  // A chain whose RPC answered an id it was refused for is not followed: never its default.
  const chains = followedChains().filter((chain) => !chain.refused);
  if (chainId !== undefined) {
    const chain = followedChainById(chainId);
    if (chain !== undefined) return chain;
    const followed = chains.flatMap((c) => (c.chainId === undefined ? [] : [c.chainId]));
    throw new HttpError(422, 'CHAIN_NOT_FOLLOWED', purpose.notFollowed(followed.join(', ') || 'no chain'), {
      details: [{ path: 'chain_id', issue: 'is not a chain this server follows' }],
    });
  }
  if (chains.length === 1) return chains[0]!;
  if (chains.length === 0) throw new HttpError(422, 'CHAIN_NOT_FOLLOWED', purpose.noChain, { details: [{ path: 'chain_id', issue: 'this server follows no chain' }] });
  throw validationError([{ path: 'chain_id', issue: purpose.several }]);
}

/** The RPC clients of the followed chain of id `chainId`, or undefined when it is not followed. */
export function chainClientsById(chainId: number): ChainClients | undefined {
  return followedChainById(chainId)?.clients;
}

/**
 * Read every chain's id and start the indexers (boot, once per process). Resolves when every RPC
 * answered or {@link STARTUP_ID_WAIT_MS} passed; the silent ones keep being asked in the background.
 * @throws {ChainIdentityError} when two chains answer one id or an RPC contradicts its `chain_id`.
 */
export function startChains(): Promise<void> {
  const state = chainsState();
  if (state.started !== undefined) return state.started;
  if (state.chains.length === 0) return (state.started = Promise.resolve());
  onShutdown(CHAINS_SLOT, async () => {
    state.stopped = true;
    await Promise.all(state.chains.map((chain) => chain.indexer?.stop()));
  });
  state.started = (async () => {
    const reads = state.chains.map(async (chain) => {
      try {
        return await chain.clients.chainId();
      } catch (error) {
        chain.problem = `RPC unreachable: ${chainErrorSummary(error)}`;
        return undefined;
      }
    });
    const answered = await Promise.race([Promise.all(reads), sleep(STARTUP_ID_WAIT_MS, undefined, { ref: false })]);
    const ids = answered ?? (await Promise.all(reads.map((read) => Promise.race([read, Promise.resolve(undefined)]))));
    // Refusals first, all at once, before anything starts.
    const problems: string[] = [];
    const seen = new Map<number, string>();
    state.chains.forEach((chain, i) => {
      const id = ids[i];
      if (id === undefined) return;
      if (chain.config.chainId !== undefined && chain.config.chainId !== id) {
        problems.push(`${chain.config.name}: its RPC answers chain id ${id}, but its entry says chain_id ${chain.config.chainId}`);
      }
      const other = seen.get(id);
      if (other !== undefined) problems.push(`${other} and ${chain.config.name}: both RPCs answer chain id ${id} (one chain listed twice?)`);
      seen.set(id, chain.config.name);
    });
    if (problems.length > 0) throw new ChainIdentityError(`Invalid chains (CHAINS / CHAIN_RPC_URL):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    // Gasless settings of the chains that answered: a paymaster without code or a bundler without
    // EntryPoint v0.8 stops the server like a contradicted chain id (lib/server/gasless-check.ts).
    const checks = await Promise.all(
      state.chains.map((chain, i) => {
        const id = ids[i];
        return id === undefined ? undefined : checkGasless(chain.config, chain.clients, id, STARTUP_ID_WAIT_MS);
      }),
    );
    const refusals = checks.flatMap((check) => check?.refusals ?? []);
    if (refusals.length > 0) throw new ChainIdentityError(`Invalid gasless settings (CHAINS gasless):\n${refusals.map((p) => `  - ${p}`).join('\n')}`);
    for (const warning of checks.flatMap((check) => check?.warnings ?? [])) log('warn', 'gasless settings not checked', { error: warning });
    state.chains.forEach((chain, i) => {
      const id = ids[i];
      if (id !== undefined) identified(state, chain, id);
      else {
        log('warn', 'chain RPC did not answer its chain id at start-up; retrying in the background', { chain: chain.config.name, error: chain.problem });
        void identifyLater(state, chain, reads[i]!);
      }
    });
  })();
  return state.started;
}

/** Accept the id `chainId` for `chain` and start its indexer. */
function identified(state: Chains, chain: FollowedChain, chainId: number): void {
  chain.chainId = chainId;
  chain.identified = true;
  chain.problem = null;
  log('info', 'chain identified', { chain: chain.config.name, chain_id: chainId });
  void startChainIndexer(state, chain, chainId);
}

/** Keep asking a silent RPC for its id; check the answer against the chains already followed. */
async function identifyLater(state: Chains, chain: FollowedChain, first: Promise<number | undefined>): Promise<void> {
  let id = await first;
  let pause = FIRST_RETRY_MS;
  while (id === undefined && !state.stopped) {
    await sleep(pause, undefined, { ref: false });
    pause = Math.min(MAX_RETRY_MS, pause * 2);
    if (state.stopped) return;
    try {
      id = await chain.clients.chainId();
    } catch (error) {
      chain.problem = `RPC unreachable: ${chainErrorSummary(error)}`;
    }
  }
  if (id === undefined || state.stopped) return;
  const other = state.chains.find((c) => c !== chain && c.identified && c.chainId === id);
  if (chain.config.chainId !== undefined && chain.config.chainId !== id) {
    chain.problem = `refused: its RPC answers chain id ${id}, but its entry says chain_id ${chain.config.chainId}`;
  } else if (other !== undefined) {
    chain.problem = `refused: its RPC answers chain id ${id}, which ${other.config.name} already follows`;
  } else {
    identified(state, chain, id);
    // Too late to stop the server: the refusals are logged as errors (GET /api/v1/chains still lists them).
    const { refusals, warnings } = await checkGasless(chain.config, chain.clients, id, STARTUP_ID_WAIT_MS);
    for (const refusal of refusals) log('error', 'gasless settings cannot work', { error: refusal });
    for (const warning of warnings) log('warn', 'gasless settings not checked', { error: warning });
    return;
  }
  chain.refused = true;
  log('error', 'chain not indexed', { chain: chain.config.name, chain_id: id, error: chain.problem });
}

/** Start the indexer of an identified chain; a registry that does not open is tried again. */
async function startChainIndexer(state: Chains, chain: FollowedChain, chainId: number): Promise<void> {
  const config = getConfig();
  while (!state.stopped) {
    try {
      const store = await getRegistry();
      if (state.stopped) return;
      chain.indexer = startIndexer({ store, config: chain.config, chainId, clients: chain.clients, timeoutMs: config.upstreamTimeoutMs });
      log('info', 'chain indexer started', { chain: chain.config.name, chain_id: chainId, start_block: chain.config.startBlock, confirmations: chain.config.confirmations });
      return;
    } catch {
      await sleep(REGISTRY_RETRY_MS, undefined, { ref: false });
    }
  }
}

/** What /health shows of one chain from this process: the indexer's status, or why there is none. */
export type ChainStatus = { chain: FollowedChain; indexer: IndexerStatus | undefined };

/** Every followed chain's status (none before boot started them). */
export function chainStatuses(): ChainStatus[] {
  const state = peekProcessSingleton<Chains>(CHAINS_SLOT);
  return (state?.chains ?? []).map((chain) => ({ chain, indexer: chain.indexer?.status() }));
}

