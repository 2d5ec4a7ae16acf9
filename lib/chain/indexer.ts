/**
 * The chain indexer of one chain: follows the ERC-5564 Announcer's events of the configured
 * scheme into the registry (PROTOCOL.md sections 6 and 7, API.md `CHAINS` / `CHAIN_RPC_URL` /
 * `INDEXER_*`). A server following several chains runs one per chain (lib/server/chain.ts), each
 * with its own key, so cursor, checkpoints, backoff and lease are per chain: a slow or dead RPC
 * stalls only its chain, and two instances may lead different chains.
 *
 * One tick, repeated:
 * 1. take or renew the lease (`acquireIndexerLease`): of several instances sharing a registry,
 *    one indexes a chain at a time; when it dies its lease lapses after `INDEXER_LEASE_MS` and
 *    another takes over from the block where the registry says it stopped. While the tick runs
 *    the lease is renewed every third of `INDEXER_LEASE_MS`, so a tick slowed by its provider
 *    keeps its work instead of finding the lease lapsed at commit;
 * 2. check the newest checkpoint (the hash of the last indexed block) against the chain; when a
 *    reorganisation replaced it, walk the checkpoints back to the newest block both agree on and
 *    rewind the registry to it (`rewindIndexedRange`: rows of the removed blocks are undone).
 *    Each committed range leaves a checkpoint for its last block and one for every block its
 *    events sit in (`blockHashes`), so the walk stops at the fork point itself: by hash chaining
 *    every block at or below a matching checkpoint is unchanged, and every row above it sits in
 *    a block whose checkpoint no longer matches;
 * 3. fetch the announcements of the next range, at most `INDEXER_MAX_BLOCK_RANGE` blocks, ending
 *    at most `INDEXER_CONFIRMATIONS` blocks behind the head, through the SDK's
 *    `fetchAnnouncements` (ranges shrink when the provider refuses them; transient faults are
 *    retried; no block is ever skipped). The range's last block is read before and after the
 *    fetch: a different hash means the chain moved under the fetch, and the range is read again;
 * 4. commit events, new cursor and checkpoint in one transaction fenced by the lease
 *    (`commitIndexedRange`): a crash between two ticks loses and duplicates nothing, and an
 *    instance whose lease lapsed cannot write. While it commits, the next range is already read
 *    (its checks of step 3 happen when the next tick takes it), so the provider and the
 *    database work at the same time.
 * Any failure (provider down, database down, lease lost) ends the tick; the next one starts over
 * from the registry's state after a backoff that grows to a minute. Nothing is skipped, ever.
 *
 * Scheme backfill. The cursor is named by this format's scheme id (`indexerKey`), and deployments
 * older than ERC-8441 followed that id alone: when `ANNOUNCER_SCHEME_IDS` gains an id (3), the
 * cursor is already past blocks whose events of that id were never read. So every followed id
 * other than the one naming the cursor has a cursor of its own (`backfillKey`), and at start a
 * backfill reads that id alone from where its cursor stopped (the start block the first time) up
 * to where the main cursor stood when the backfill began: the main indexer, following every id,
 * covers the blocks from there on. Rows are unique by (chain_id, tx_hash, log_index), so a block
 * read twice stores nothing twice. The backfill has its own lease (one instance does it) and no
 * rewinds of its own: its blocks are below the main cursor, whose checkpoints catch a
 * reorganisation there and rewind every scheme's rows (`rewindIndexedRange` is per chain, not
 * per scheme), after which the main indexer reads them again with every id. Each start reads
 * again, for the added ids, what the main cursor passed since the backfill last ran (a few
 * `eth_getLogs` of one topic when restarts are frequent), and it mends the blocks an instance with
 * the old setting indexed during a rolling upgrade. A deployment that followed every id from its
 * first start has no backfill cursor then, so its second start reads the added ids once from the
 * start block up to the main cursor: every block of its first run again, one topic, in the
 * background, storing nothing twice.
 */
import { fetchAnnouncements, type ChainAnnouncement } from '@wraith-pq/sdk/evm';
import type { ChainConfig } from '../config.ts';
import { log } from '../http/log.ts';
import { IndexerLeaseLostError, type ChainEvent, type IndexerCheckpoint, type IndexerState, type RegistryStore } from '../registry/store.ts';
import { chainErrorSummary, createChainClients, type ChainClients } from './rpc.ts';

/** Longest pause after repeated failures. */
const MAX_BACKOFF_MS = 60_000;
const FIRST_BACKOFF_MS = 500;

/** What /health reports about this instance's indexer of one chain. */
export type IndexerStatus = {
  /** The chain's name (`chain` of its rows) and EIP-155 id. */
  name: string;
  chainId: number;
  /** True while this instance holds the lease and indexes. */
  leader: boolean;
  /** Last block whose announcements are in the registry (this instance's view), null before the first range. */
  indexedBlock: number | null;
  /** Newest chain head this instance has read, null before the first read. */
  headBlock: number | null;
  /** Consecutive failed ticks (0 when the last one worked) and the last failure, in words without values. */
  failures: number;
  lastError: string | null;
  /** Unix ms of the last successful tick. */
  lastSuccessAt: number | null;
};

export type Indexer = {
  status(): IndexerStatus;
  /** Finish the tick under way, release the lease, stop. */
  stop(): Promise<void>;
  /** Resolves when the registry covers the chain up to `block` (tests, benchmarks). */
  waitForBlock(block: number, timeoutMs?: number): Promise<void>;
  /**
   * Resolves when the backfill of every followed scheme id other than the cursor's is done (or
   * there was none to do), or when the indexer stopped first (tests, operations).
   */
  backfilled(): Promise<void>;
};

export type StartIndexerOptions = {
  store: RegistryStore;
  config: ChainConfig;
  /** The EIP-155 id the chain's RPC answered (rows carry it). */
  chainId: number;
  /** Timeout of each RPC call (UPSTREAM_TIMEOUT_MS). */
  timeoutMs: number;
  /** Names this instance in the lease (default: a random id). */
  owner?: string;
  clients?: ChainClients;
};

/** What a backfill indexer reads: its own cursor and lease, some scheme ids, up to a block. */
type BackfillScope = { key: string; schemeIds: readonly bigint[]; untilBlock: number };

/**
 * The lease and cursor key: one indexer state per chain, Announcer and scheme. Chain names are
 * unique (lib/config.ts), so every followed chain has its own key; a one-chain deployment keeps
 * the key it had before `CHAINS` existed and resumes where it stopped.
 */
export function indexerKey(config: Pick<ChainConfig, 'name' | 'announcer' | 'schemeId'>): string {
  return `${config.name}:${config.announcer.toLowerCase()}:${config.schemeId}`;
}

/** The cursor and lease key of the backfill of scheme `schemeId` (see the module's notes): named by that id. */
export function backfillKey(config: Pick<ChainConfig, 'name' | 'announcer'>, schemeId: bigint): string {
  return indexerKey({ ...config, schemeId });
}

/** The followed scheme ids that need a backfill: all but the one naming the cursor. */
export function backfillSchemeIds(config: Pick<ChainConfig, 'schemeId' | 'schemeIds'>): bigint[] {
  return config.schemeIds.filter((id) => id !== config.schemeId);
}

/** Start indexing in the background, and the backfill of scheme ids added since the cursor began. */
export function startIndexer(options: StartIndexerOptions): Indexer {
  const indexer = runIndexer(options);
  const stopped = new AbortController();
  const backfills: Indexer[] = [];
  const done = (async () => {
    const ids = backfillSchemeIds(options.config);
    if (ids.length === 0) return;
    const until = await mainCursor(options, stopped.signal);
    if (until === null) return; // stopped before the registry answered
    // The main cursor never moved (a new deployment): it reads every id from the start block.
    if (until <= options.config.startBlock) return;
    for (const schemeId of ids) {
      if (stopped.signal.aborted) return;
      const key = backfillKey(options.config, schemeId);
      log('info', 'scheme backfill: reading blocks the cursor passed before this scheme id was followed', { chain: options.config.name, chain_id: options.chainId, scheme_id: Number(schemeId), until_block: until - 1 });
      const backfill = runIndexer(options, { key, schemeIds: [schemeId], untilBlock: until - 1 });
      backfills.push(backfill);
      await backfill.backfilled();
      await backfill.stop(); // releases its lease
    }
  })();
  return {
    ...indexer,
    async stop() {
      stopped.abort();
      await Promise.all([indexer.stop(), ...backfills.map((b) => b.stop())]);
      await done.catch(() => undefined);
    },
    backfilled: () => done,
  };
}

/**
 * Where the main cursor stands (its next block; the start block when it never ran), read once
 * the registry answers (retried with a growing pause); null when stopped first.
 */
async function mainCursor(options: StartIndexerOptions, signal: AbortSignal): Promise<number | null> {
  let pause = FIRST_BACKOFF_MS;
  while (!signal.aborted) {
    try {
      return (await options.store.indexerStatus(indexerKey(options.config))).nextBlock ?? options.config.startBlock;
    } catch {
      await sleep(pause, signal);
      pause = Math.min(MAX_BACKOFF_MS, pause * 2);
    }
  }
  return null;
}

/** One indexer loop: the main one (every followed id, the main cursor) or a backfill (`scope`). */
function runIndexer(options: StartIndexerOptions, scope?: BackfillScope): Indexer {
  const { store, config, chainId } = options;
  const key = scope?.key ?? indexerKey(config);
  const schemeIds = scope?.schemeIds ?? config.schemeIds;
  const owner = options.owner ?? `wraith-${globalThis.crypto.randomUUID()}`;
  const clients = options.clients ?? createChainClients(config.rpcUrl, options.timeoutMs);
  const controller = new AbortController();
  const status: IndexerStatus = { name: config.name, chainId, leader: false, indexedBlock: null, headBlock: null, failures: 0, lastError: null, lastSuccessAt: null };
  const logFields = scope === undefined ? { chain: config.name, chain_id: chainId } : { chain: config.name, chain_id: chainId, backfill: schemeIds.map(Number).join(',') };
  /** A backfill's end: resolved when its cursor passed `untilBlock` (then its loop ends). */
  let markBackfilled = () => {};
  const backfilled = new Promise<void>((resolve) => (markBackfilled = resolve));
  const waiters = new Set<{ block: number; resolve: () => void }>();

  const wake = () => {
    for (const waiter of waiters) {
      if (status.indexedBlock !== null && status.indexedBlock >= waiter.block) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };

  /**
   * One tick; returns how long to wait before the next, and the failure of a standing-by
   * instance's head read (reported, but it must not slow the instance's watch on the lease).
   */
  async function tick(): Promise<{ pause: number; failure?: unknown }> {
    const state = await store.acquireIndexerLease(key, owner, config.leaseMs);
    if (state === null) {
      if (status.leader) log('info', 'indexer standing by: another instance holds the lease', { ...logFields, key });
      status.leader = false;
      // Check again well before the holder's lease could lapse unnoticed.
      const pause = Math.min(config.pollMs, Math.floor(config.leaseMs / 3));
      // The head, so that /health of a standing-by instance still shows the lag and a dead RPC.
      try {
        status.headBlock = Number(await clients.blockNumber());
        return { pause };
      } catch (failure) {
        return { pause, failure };
      }
    }
    // A backfill says so in its own words: "indexer leading" names where the main cursor resumed.
    if (!status.leader) log('info', scope === undefined ? 'indexer leading' : 'scheme backfill leading', { ...logFields, key, next_block: state.nextBlock ?? config.startBlock });
    status.leader = true;
    const renewal = keepLease();
    try {
      return { pause: await lead(state) };
    } finally {
      renewal.stop();
    }
  }

  /**
   * Renew the lease every third of its length while a tick runs: a slow provider (retries,
   * timeouts) must not let it lapse under a tick that would then throw its work away. Renewing
   * is taking it again (`acquireIndexerLease` by its holder); a renewal that finds it taken
   * ends nothing by itself: the tick's fenced commit is refused and the loop reports it.
   */
  function keepLease(): { stop(): void } {
    const timer = setInterval(() => {
      store.acquireIndexerLease(key, owner, config.leaseMs).catch(() => undefined); // a failed renewal shows at commit
    }, Math.max(1, Math.floor(config.leaseMs / 3)));
    return { stop: () => clearInterval(timer) };
  }

  /** Whether rows stored before rows carried chain ids were given this chain's id (once per start). */
  let legacyLabelled = false;

  /** The rest of a tick, holding the lease. */
  async function lead(state: IndexerState): Promise<number> {
    if (!legacyLabelled && scope === undefined) {
      // A registry written when a server followed one chain: its chain rows get this chain's id
      // when they carry its name (idempotent; the store says how many it labelled).
      const labelled = await store.labelLegacyChainRows(config.name, chainId);
      if (labelled > 0) log('info', 'rows indexed before chain ids labelled with this chain', { ...logFields, labelled });
      legacyLabelled = true;
    }
    const nextBlock = state.nextBlock ?? config.startBlock;
    status.indexedBlock = nextBlock - 1 >= config.startBlock ? nextBlock - 1 : null;
    // While catching up, the head last read is still far enough ahead to say where this range
    // ends (a head only moves on; a reorganisation is caught by the hash checks below): it is
    // read again only when the range could reach it.
    if (knownHead === undefined || nextBlock + config.maxBlockRange - 1 > knownHead - config.confirmations) {
      knownHead = Number(await clients.blockNumber());
    }
    const head = knownHead;
    status.headBlock = head;
    const target = Math.min(head - config.confirmations, scope?.untilBlock ?? Number.POSITIVE_INFINITY);
    if (scope !== undefined && nextBlock > scope.untilBlock) {
      log('info', 'scheme backfill done', { ...logFields, through_block: scope.untilBlock });
      controller.abort(); // the loop ends; stop() releases the lease
      markBackfilled();
      return 0;
    }
    // Caught up: watch the newest indexed block for a reorganisation until there is more to read.
    if (nextBlock > target) {
      knownHead = undefined;
      return (await undoReorganisation(state)) ? 0 : config.pollMs;
    }
    const toBlock = Math.min(target, nextBlock + config.maxBlockRange - 1);

    // The range read ahead during the last commit, when it is this one; else read it now.
    const read = readAhead !== undefined && readAhead.fromBlock === nextBlock && readAhead.toBlock === toBlock ? readAhead : readRange(nextBlock, toBlock);
    readAhead = undefined;
    const { before, fetched } = await read.result;
    // Both after the fetch, so at once: the hash of the range's last block again, and the newest
    // checkpoint against the chain.
    const [after, reorganised] = await Promise.all([clients.blockHash(toBlock), undoReorganisation(state)]);
    // The range must extend the blocks already indexed; if a reorganisation replaced the newest of
    // them, it is undone now and the next tick reads the range again.
    if (reorganised) {
      knownHead = undefined;
      return 0;
    }
    // The chain moved under the fetch: read the range again rather than store a mix of two forks.
    if (before !== after) return 0;

    const events = fetched.announcements.map((announcement) => toChainEvent(announcement, chainId));
    // Read the next range while this one is stored: the provider and the database work at once.
    if (toBlock < target) {
      readAhead = readRange(toBlock + 1, Math.min(target, toBlock + config.maxBlockRange));
      readAhead.result.catch(() => undefined); // its error is seen when (if) the next tick uses it
      // An embedded SQLite commits on this thread and holds it until done: let the read reach the
      // provider first, so the node assembles the next answer while this range is stored.
      await readAhead.requested.catch(() => undefined);
    }
    const result = await store.commitIndexedRange(key, owner, { chainId, fromBlock: nextBlock, toBlock, toBlockHash: after, blockHashes: eventBlockHashes(fetched.announcements, toBlock), events, schemeIds: schemeIds.map(Number) });
    if (fetched.skipped > 0 || events.length > 0) {
      log('info', 'indexed announcements', {
        ...logFields,
        from_block: nextBlock,
        to_block: toBlock,
        stored: result.inserted,
        completed: result.completed,
        already_stored: result.existing,
        skipped: fetched.skipped,
      });
    }
    status.indexedBlock = toBlock;
    wake();
    return toBlock < target ? 0 : config.pollMs;
  }

  /** The newest head read (refreshed when a range could reach it and whenever caught up). */
  let knownHead: number | undefined;

  type RangeRead = {
    fromBlock: number;
    toBlock: number;
    result: Promise<{ before: string; fetched: Awaited<ReturnType<typeof fetchAnnouncements>> }>;
    /** Settles once the `eth_getLogs` request has gone out (a turn of the event loop after the first hash read). */
    requested: Promise<void>;
  };
  let readAhead: RangeRead | undefined;

  /** The hash of the range's last block, then its announcements (tick checks the hash again after). */
  function readRange(fromBlock: number, toBlock: number): RangeRead {
    let markRequested = () => {};
    const requested = new Promise<void>((resolve) => (markRequested = resolve));
    const result = (async () => {
      const before = await clients.blockHash(toBlock).finally(() => setImmediate(markRequested));
      const fetched = await fetchAnnouncements({
        client: clients.logs,
        fromBlock: BigInt(fromBlock),
        toBlock: BigInt(toBlock),
        schemeId: schemeIds,
        announcer: config.announcer,
        maxBlockRange: BigInt(config.maxBlockRange),
        chain: config.name,
        signal: controller.signal,
        retry: { timeoutMs: options.timeoutMs },
      });
      return { before, fetched };
    })();
    return { fromBlock, toBlock, result, requested };
  }

  /**
   * Compare the newest checkpoint with the chain; on a mismatch rewind to the newest checkpoint
   * the chain still has (or to before the start block when none is left). True when it rewound.
   */
  async function undoReorganisation(state: IndexerState): Promise<boolean> {
    // A backfill's blocks are below the main cursor, whose checkpoints catch a reorganisation
    // there and rewind every scheme's rows of the chain (see the module's notes).
    if (scope !== undefined) return false;
    const newest = state.checkpoints.at(-1);
    if (newest === undefined || (await clients.blockHash(newest.blockNumber)) === newest.blockHash) return false;
    let forkBlock = config.startBlock - 1;
    for (let i = state.checkpoints.length - 2; i >= 0; i--) {
      const checkpoint = state.checkpoints[i]!;
      if ((await clients.blockHash(checkpoint.blockNumber)) === checkpoint.blockHash) {
        forkBlock = checkpoint.blockNumber;
        break;
      }
    }
    const { removed } = await store.rewindIndexedRange(key, owner, forkBlock, chainId);
    log('warn', 'chain reorganisation: indexed blocks undone', { ...logFields, after_block: forkBlock, undone_from: newest.blockNumber, removed });
    status.indexedBlock = forkBlock >= config.startBlock ? forkBlock : null;
    return true;
  }

  /** Say truly why a commit was refused: another instance holds the lease now, or it lapsed and is free. */
  async function reportLostLease(): Promise<void> {
    const holder = await store.indexerStatus(key).catch(() => undefined);
    if (holder === undefined) {
      log('warn', 'indexer lease lost; its holder is unknown (registry unreachable)', { ...logFields, key });
    } else if (holder.owner !== null && holder.owner !== owner && (holder.leaseExpiresAt ?? 0) > Date.now()) {
      log('warn', 'indexer lease lost: another instance took over', { ...logFields, key, holder: holder.owner });
    } else {
      log('warn', 'indexer lease lapsed during a tick (no other instance holds it); taking it again', { ...logFields, key });
    }
  }

  const running = (async () => {
    let backoff = FIRST_BACKOFF_MS;
    while (!controller.signal.aborted) {
      let pause: number;
      try {
        const outcome = await tick();
        pause = outcome.pause;
        if (outcome.failure === undefined) {
          status.failures = 0;
          status.lastError = null;
          status.lastSuccessAt = Date.now();
          backoff = FIRST_BACKOFF_MS;
        } else {
          status.failures++;
          status.lastError = chainErrorSummary(outcome.failure);
        }
      } catch (error) {
        if (controller.signal.aborted) break;
        knownHead = undefined; // a chain rolled back below it must not leave ranges past its head
        if (error instanceof IndexerLeaseLostError) {
          status.leader = false;
          await reportLostLease();
          pause = 0;
        } else {
          status.failures++;
          status.lastError = chainErrorSummary(error);
          log('warn', 'indexer tick failed; retrying', { ...logFields, error: status.lastError, failures: status.failures, retry_in_ms: backoff });
          pause = backoff;
          // Exponential with jitter, so instances that failed together do not retry together.
          backoff = Math.min(MAX_BACKOFF_MS, Math.round(backoff * (1.5 + Math.random())));
        }
      }
      if (pause > 0) await sleep(pause, controller.signal);
    }
  })();

  return {
    status: () => ({ ...status }),
    async stop() {
      controller.abort();
      await running;
      for (const waiter of waiters) waiter.resolve();
      waiters.clear();
      if (status.leader) await store.releaseIndexerLease(key, owner).catch(() => undefined);
      status.leader = false;
      markBackfilled();
    },
    backfilled: () => backfilled,
    waitForBlock(block, timeoutMs = 30_000) {
      if (status.indexedBlock !== null && status.indexedBlock >= block) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter = { block, resolve: () => (clearTimeout(timer), resolve()) };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`the indexer did not reach block ${block} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
  };
}

/**
 * The checkpoints a range leaves besides its last block: the hash of every block its events sit
 * in (from the logs), ascending, so a reorganisation finds its fork point (see the module's notes).
 */
export function eventBlockHashes(announcements: readonly ChainAnnouncement[], toBlock: number): IndexerCheckpoint[] {
  const hashes = new Map<number, string>();
  for (const a of announcements) if (a.blockNumber < toBlock) hashes.set(a.blockNumber, a.blockHash);
  return [...hashes].sort(([a], [b]) => a - b).map(([blockNumber, blockHash]) => ({ blockNumber, blockHash }));
}

/** The registry's form of a decoded Announcer event of chain `chainId`. */
export function toChainEvent(announcement: ChainAnnouncement, chainId: number): ChainEvent {
  return {
    chainId,
    ephemeralKey: announcement.ephemeralKey,
    viewTag: announcement.viewTag,
    txHash: announcement.txHash,
    logIndex: announcement.logIndex,
    blockNumber: announcement.blockNumber,
    timestamp: announcement.timestamp,
    stealthAddress: announcement.stealthAddress,
    metadata: announcement.metadata,
    chain: announcement.chain ?? null,
    schemeId: announcement.schemeId,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
