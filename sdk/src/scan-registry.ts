/**
 * Streaming scan of a whole registry: an async generator of batches that carries resume state,
 * so an app can show progress, cancel, and continue later from a saved cursor. Memory stays
 * bounded by three pages whatever the registry size: the next two are fetched while one is
 * scanned, and pages are dropped once scanned.
 *
 * The source yields pages of announcements in id order, starting after a given id (the
 * registry's `after_id` cursor pagination). The cursor of a batch is the id of its last
 * announcement: pass it back as `fromCursor` to resume exactly after it. A source of several
 * chains' own announcements (`chainAnnouncementPages({ chains })`, `cursorPerChain`) has ids that
 * grow within each chain only: the scan then keeps a cursor per chain (`cursors`, resumed with
 * `fromCursors`). A Wraith registry needs no such thing: its ids span every chain it follows.
 * @module
 */
import { parseAnnouncement, type AnnouncementInput, type MalformedAnnouncement } from './announcement.ts';
import { InvalidArgumentError } from './errors.ts';
import type { ScanPool } from './scan-pool.ts';
import { createScanner, type CreateScannerOptions, type Discovery, type ScanKeys } from './scanner.ts';

/** Pages requested beyond the one being scanned (memory: at most READ_AHEAD + 1 pages). */
const READ_AHEAD = 2;

/**
 * Where a scan of several chains stands: for each chain (EIP-155 id), the id of its last row
 * scanned (`chainCursor(block, logIndex)` for chain announcements). Plain JSON: save it as is.
 */
export type ChainCursors = Readonly<Record<number, number>>;

/**
 * A page of registry rows in ascending id order. A source of several chains'
 * announcements (`chainAnnouncementPages({ chains })`) sets `cursorPerChain`: its ids grow
 * within each chain only, so `scanRegistry` keeps one cursor per chain (`cursors`, resumed with
 * `fromCursors`) and passes them as `afterIds`.
 */
export type RegistryPageSource<A> = ((request: { afterId: number; afterIds?: ChainCursors; signal?: AbortSignal }) => AsyncIterable<A[]> | Iterable<A[]>) & {
  readonly cursorPerChain?: boolean;
};

export type ScanProgress = {
  /** Announcements scanned so far in this run. */
  scanned: number;
  discoveries: number;
  /** Malformed rows skipped so far in this run (see `ScanBatch.malformed`). */
  malformed: number;
  /** Resume point: id of the last announcement scanned. */
  cursor: number;
  /** Sources of several chains: the resume point of each chain (pass as `fromCursors`). */
  cursors?: ChainCursors;
  /** Announcements per second since the run started. */
  rate: number;
};

/**
 * `strict` holds with a pool too: a page with a malformed row then throws, whatever the pool's
 * own `strict`.
 */
export type ScanRegistryOptions = CreateScannerOptions & {
  /** Scan pages on a worker pool (same results, same order) instead of this thread. */
  pool?: ScanPool;
  /** Resume after this announcement id (a cursor from an earlier batch). Default 0: from the start. */
  fromCursor?: number;
  /**
   * Sources of several chains (`cursorPerChain`): resume each chain after its cursor (a batch's
   * `cursors`); chains not named start from their beginning. Default: every chain from its start.
   */
  fromCursors?: ChainCursors;
  /** Abort the scan between pages; the generator then throws the signal's reason. */
  signal?: AbortSignal;
  onProgress?: (progress: ScanProgress) => void;
};

export type ScanBatch<A> = {
  /** Payments found in this page. */
  discoveries: Discovery<A>[];
  /** Announcements scanned in this page. */
  scanned: number;
  /**
   * Malformed rows of this page (at most 100; `progress.malformed` counts them all), with the
   * index each has among the page's scanned rows, as discoveries' `index`.
   */
  malformed: MalformedAnnouncement[];
  /** Id of the last announcement of this page: resume with `fromCursor: cursor`. */
  cursor: number;
  /**
   * Sources of several chains: each chain's cursor after this page (every chain's, not only the
   * page's): resume with `fromCursors: cursors`. `cursor` alone cannot resume them.
   */
  cursors?: ChainCursors;
  /** Running totals of this run. */
  progress: ScanProgress;
};

/**
 * The registry id of a row, if it has one. Registry ids start at 1; rows without one (payments,
 * the `/stealth/create` announcement with id 0, not yet published, junk) are scanned wherever they
 * appear and never move the cursor.
 */
function idOf(announcement: AnnouncementInput): number | undefined {
  const id = (announcement as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/**
 * Scan a registry page by page. Pages may hold rows in any form of `AnnouncementInput`;
 * malformed rows are skipped and listed in each batch's `malformed` (or thrown with `strict`).
 *
 * @example
 * const controller = new AbortController();
 * for await (const batch of scanRegistry(client.announcementPages, keys, { fromCursor: saved, signal: controller.signal })) {
 *   found.push(...batch.discoveries);
 *   for (const { index, reason } of batch.malformed) console.warn(`row ${index} of the page skipped: ${reason}`);
 *   saveCursor(batch.cursor);
 *   progressBar.update(batch.progress.scanned);
 * }
 */
export async function* scanRegistry<A extends AnnouncementInput>(
  source: RegistryPageSource<A>,
  keys: ScanKeys,
  options: ScanRegistryOptions = {},
): AsyncGenerator<ScanBatch<A>, ScanProgress> {
  const { fromCursor = 0, fromCursors, signal, onProgress, pool, ...scannerOptions } = options;
  if (!Number.isSafeInteger(fromCursor) || fromCursor < 0) throw new InvalidArgumentError('fromCursor', 'must be a non-negative integer');
  if (typeof source !== 'function') throw new InvalidArgumentError('source', 'must be a function returning pages of announcements');
  const perChain = source.cursorPerChain === true;
  if (fromCursors !== undefined && !perChain) throw new InvalidArgumentError('fromCursors', 'is for sources of several chains (chainAnnouncementPages with chains); use fromCursor');
  const cursors: Record<number, number> = perChain ? parseChainCursors(fromCursors ?? {}) : {};
  const scanner = pool ? undefined : createScanner(keys, scannerOptions);
  const strict = scannerOptions.strict === true;
  const scan = (page: A[]) => (scanner ? scanner.scan(page) : pool!.scan(page));
  const started = performance.now();
  const progress: ScanProgress = { scanned: 0, discoveries: 0, malformed: 0, cursor: fromCursor, ...(perChain ? { cursors: { ...cursors } } : {}), rate: 0 };
  signal?.throwIfAborted();
  const pages = iteratePages(source({ afterId: fromCursor, ...(perChain ? { afterIds: { ...cursors } } : {}), ...(signal ? { signal } : {}) }));
  // A source that ignores afterId (e.g. a plain array of pages) must not rescan what was done.
  const isFresh = perChain
    ? (a: A) => {
        const chainId = chainIdOf(a);
        return chainId === undefined || (idOf(a) ?? Number.POSITIVE_INFINITY) > (cursors[chainId] ?? 0);
      }
    : (a: A) => (idOf(a) ?? Number.POSITIVE_INFINITY) > progress.cursor;
  try {
    // Pages are requested READ_AHEAD ahead of the one being scanned, so fetching (network,
    // server) overlaps scanning and the server is not left idle while the scanner finishes.
    const ahead: Promise<IteratorResult<A[]>>[] = [];
    const requestNext = () => {
      const next = pages.next();
      next.catch(() => undefined); // awaited in turn, or dropped when the scan stops
      ahead.push(next);
    };
    for (let i = 0; i < READ_AHEAD; i++) requestNext();
    for (;;) {
      const { value: page, done } = await ahead.shift()!;
      if (done) break;
      signal?.throwIfAborted();
      requestNext();
      const fresh = page.filter(isFresh);
      if (fresh.length === 0) continue;
      const { discoveries, malformed, stats } = await scan(fresh);
      // A pool made without `strict`: throw as this thread's scanner would have.
      if (strict && malformed.length > 0) parseAnnouncement(fresh[malformed[0]!.index]!, `announcements[${malformed[0]!.index}]`);
      const lastId = idOf(fresh[fresh.length - 1]!);
      if (lastId !== undefined) progress.cursor = lastId;
      if (perChain) {
        for (const a of fresh) {
          const chainId = chainIdOf(a);
          const id = idOf(a);
          if (chainId !== undefined && id !== undefined && id > (cursors[chainId] ?? 0)) cursors[chainId] = id;
        }
        progress.cursors = { ...cursors };
      }
      progress.scanned += stats.totalScanned;
      progress.discoveries += discoveries.length;
      progress.malformed += stats.malformed;
      const elapsed = performance.now() - started;
      progress.rate = elapsed > 0 ? (progress.scanned * 1000) / elapsed : 0;
      onProgress?.({ ...progress });
      yield { discoveries, scanned: stats.totalScanned, malformed, cursor: progress.cursor, ...(perChain ? { cursors: { ...cursors } } : {}), progress: { ...progress } };
    }
  } finally {
    // Stopped early (break, error, abort): let the source release what it holds.
    void pages.return?.(undefined)?.catch(() => undefined);
  }
  return { ...progress };
}

/** The chain id of a row (sources of several chains tag every row), if it has one. */
function chainIdOf(announcement: AnnouncementInput): number | undefined {
  const chainId = (announcement as { chainId?: unknown } | null | undefined)?.chainId;
  return typeof chainId === 'number' && Number.isSafeInteger(chainId) && chainId > 0 ? chainId : undefined;
}

/** A copy of saved per-chain cursors, checked (JSON gives the chain ids as text keys). */
function parseChainCursors(saved: ChainCursors): Record<number, number> {
  if (typeof saved !== 'object' || saved === null || Array.isArray(saved)) throw new InvalidArgumentError('fromCursors', 'must be an object of chain id → cursor');
  const out: Record<number, number> = {};
  for (const [key, cursor] of Object.entries(saved)) {
    const chainId = Number(key);
    if (!Number.isSafeInteger(chainId) || chainId < 1) throw new InvalidArgumentError('fromCursors', `has a key that is not a chain id: ${JSON.stringify(key)}`);
    if (!Number.isSafeInteger(cursor) || cursor < 0) throw new InvalidArgumentError(`fromCursors.${chainId}`, 'must be a non-negative integer');
    out[chainId] = cursor;
  }
  return out;
}

/** One async iterator over a sync or async iterable of pages. */
function iteratePages<A>(pages: AsyncIterable<A[]> | Iterable<A[]>): AsyncIterator<A[]> {
  if (typeof (pages as AsyncIterable<A[]>)[Symbol.asyncIterator] === 'function') return (pages as AsyncIterable<A[]>)[Symbol.asyncIterator]();
  if (typeof (pages as Iterable<A[]>)[Symbol.iterator] === 'function') {
    const iterator = (pages as Iterable<A[]>)[Symbol.iterator]();
    return {
      next: async () => iterator.next(),
      return: async (value?: unknown) => iterator.return?.(value) ?? { done: true, value: undefined },
    };
  }
  throw new InvalidArgumentError('source', 'must return an iterable of pages');
}

/**
 * A page source over an in-memory list (ascending ids), `pageSize` rows a page. Rows without a
 * registry id (payments, the id-0 announcement of a `/stealth/create` response) are in every run,
 * as `scanRegistry` scans them wherever they appear.
 */
export function arrayPageSource<A extends AnnouncementInput>(announcements: readonly A[], pageSize = 1000): RegistryPageSource<A> {
  return function* ({ afterId }) {
    const rest = announcements.filter((a) => (idOf(a) ?? Number.POSITIVE_INFINITY) > afterId);
    for (let i = 0; i < rest.length; i += pageSize) yield rest.slice(i, i + pageSize);
  };
}
