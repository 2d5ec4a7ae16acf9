/**
 * Streaming scan of a whole registry: an async generator of batches that carries resume state,
 * so an app can show progress, cancel, and continue later from a saved cursor. Memory stays
 * bounded by three pages whatever the registry size: the next two are fetched while one is
 * scanned, and pages are dropped once scanned.
 *
 * The source yields pages of announcements in id order, starting after a given id (the
 * registry's `after_id` cursor pagination). The cursor of a batch is the id of its last
 * announcement: pass it back as `fromCursor` to resume exactly after it.
 * @module
 */
import type { AnnouncementInput } from './announcement.ts';
import { InvalidArgumentError } from './errors.ts';
import type { ScanPool } from './scan-pool.ts';
import { createScanner, type CreateScannerOptions, type Discovery, type ScanKeys } from './scanner.ts';

/** Pages requested beyond the one being scanned (memory: at most READ_AHEAD + 1 pages). */
const READ_AHEAD = 2;

/** A page of registry rows in ascending id order. */
export type RegistryPageSource<A> = (request: { afterId: number; signal?: AbortSignal }) => AsyncIterable<A[]> | Iterable<A[]>;

export type ScanProgress = {
  /** Announcements scanned so far in this run. */
  scanned: number;
  discoveries: number;
  /** Resume point: id of the last announcement scanned. */
  cursor: number;
  /** Announcements per second since the run started. */
  rate: number;
};

export type ScanRegistryOptions = CreateScannerOptions & {
  /** Scan pages on a worker pool (same results, same order) instead of this thread. */
  pool?: ScanPool;
  /** Resume after this announcement id (a cursor from an earlier batch). Default 0: from the start. */
  fromCursor?: number;
  /** Abort the scan between pages; the generator then throws the signal's reason. */
  signal?: AbortSignal;
  onProgress?: (progress: ScanProgress) => void;
};

export type ScanBatch<A> = {
  /** Payments found in this page. */
  discoveries: Discovery<A>[];
  /** Announcements scanned in this page. */
  scanned: number;
  /** Id of the last announcement of this page: resume with `fromCursor: cursor`. */
  cursor: number;
  /** Running totals of this run. */
  progress: ScanProgress;
};

function idOf(announcement: AnnouncementInput): number | undefined {
  const id = (announcement as { id?: unknown }).id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : undefined;
}

/**
 * Scan a registry page by page.
 *
 * @example
 * const controller = new AbortController();
 * for await (const batch of scanRegistry(client.announcementPages, keys, { fromCursor: saved, signal: controller.signal })) {
 *   found.push(...batch.discoveries);
 *   saveCursor(batch.cursor);
 *   progressBar.update(batch.progress.scanned);
 * }
 */
export async function* scanRegistry<A extends AnnouncementInput>(
  source: RegistryPageSource<A>,
  keys: ScanKeys,
  options: ScanRegistryOptions = {},
): AsyncGenerator<ScanBatch<A>, ScanProgress> {
  const { fromCursor = 0, signal, onProgress, pool, ...scannerOptions } = options;
  if (!Number.isSafeInteger(fromCursor) || fromCursor < 0) throw new InvalidArgumentError('fromCursor', 'must be a non-negative integer');
  if (typeof source !== 'function') throw new InvalidArgumentError('source', 'must be a function returning pages of announcements');
  const scanner = pool ? undefined : createScanner(keys, scannerOptions);
  const scan = (page: A[]) => (scanner ? scanner.scan(page) : pool!.scan(page));
  const started = performance.now();
  const progress: ScanProgress = { scanned: 0, discoveries: 0, cursor: fromCursor, rate: 0 };
  signal?.throwIfAborted();
  const pages = iteratePages(source({ afterId: fromCursor, ...(signal ? { signal } : {}) }));
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
      // A source that ignores afterId (e.g. a plain array of pages) must not rescan what was done.
      const fresh = page.filter((a) => (idOf(a) ?? Number.POSITIVE_INFINITY) > progress.cursor);
      if (fresh.length === 0) continue;
      const { discoveries, stats } = await scan(fresh);
      const lastId = idOf(fresh[fresh.length - 1]!);
      if (lastId !== undefined) progress.cursor = lastId;
      progress.scanned += stats.totalScanned;
      progress.discoveries += discoveries.length;
      const elapsed = performance.now() - started;
      progress.rate = elapsed > 0 ? (progress.scanned * 1000) / elapsed : 0;
      onProgress?.({ ...progress });
      yield { discoveries, scanned: stats.totalScanned, cursor: progress.cursor, progress: { ...progress } };
    }
  } finally {
    // Stopped early (break, error, abort): let the source release what it holds.
    void pages.return?.(undefined)?.catch(() => undefined);
  }
  return { ...progress };
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

/** A page source over an in-memory list (ascending ids), `pageSize` rows a page. */
export function arrayPageSource<A extends AnnouncementInput>(announcements: readonly A[], pageSize = 1000): RegistryPageSource<A> {
  return function* ({ afterId }) {
    const rest = announcements.filter((a) => (idOf(a) ?? 0) > afterId);
    for (let i = 0; i < rest.length; i += pageSize) yield rest.slice(i, i + pageSize);
  };
}
