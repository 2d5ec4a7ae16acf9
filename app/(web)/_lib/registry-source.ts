/**
 * The registry as the Scan page reads it: binary pages fetched on the page's thread, several
 * requests in flight, and handed (transferred, not copied) in cursor order to the scan worker,
 * which decodes and scans them (registry-scan-worker.ts).
 *
 * Why the fetching is not in the worker (issue 17): a thread that scans does not read the
 * responses coming in meanwhile, and Chromium stops receiving a response whose buffer is not
 * read. With the worker doing both, a 200,000-row scan took the time of the transport plus that
 * of decoding and scanning; with the page's thread receiving while the worker scans, it took
 * about 10% less, in every one of seven back-to-back pairs (BENCHMARKS.md). The page's thread
 * only moves bytes: no decoding, no keys.
 * @module
 */
import type { RegistryAnnouncement, RegistryPageSource } from '@wraith-pq/sdk';

/**
 * Rows per request: the server's largest binary page (5.5 MB), so a million announcements take
 * 200 requests, not 1,000.
 */
export const PAGE_SIZE = 5000;

/**
 * Requests in flight. Chromium receives one response body far slower than Node does; three at
 * once brought its transport of a 200,000-row registry from about 4.4 s to 3.2 s on the benchmark
 * machine (BENCHMARKS.md).
 */
export const REQUESTS_IN_FLIGHT = 3;

/**
 * Pages handed to the worker and not yet taken off its queue, at most. With the requests in
 * flight here and the pages `scanRegistry` holds while it scans and reads ahead, about eight
 * pages (44 MB) are in memory at most, however large the registry.
 */
export const PAGES_QUEUED = 2;

/** What the page sends the worker about the registry, in order. */
export type PageMessage =
  /** A binary page (`application/octet-stream` of GET /api/v1/registry/announcements). */
  | { type: 'page'; bytes: ArrayBuffer }
  /** No more pages: the last one was short. */
  | { type: 'end' }
  /** Fetching failed: the scan stops after the pages sent before this. */
  | { type: 'fetch-failed'; message: string };

export type RegistryPump = {
  /** The worker took a page off its queue: another may be sent. */
  consumed(): void;
  /** The worker has scanned up to this id: later requests start there at least. */
  seen(cursor: number): void;
  /** Settles once the last message is sent (the end, a failure) or the signal aborted. */
  done: Promise<void>;
};

/** Rows a binary page says it holds (its header's count); 0 for bytes too short to have one. */
function pageCount(bytes: ArrayBuffer): number {
  return bytes.byteLength >= 8 ? new DataView(bytes).getUint32(4, true) : 0;
}

/**
 * Walk the registry after `fromCursor` and send its pages in order.
 *
 * Request cursors are predicted: ids are mostly consecutive, so the page after cursor `c` usually
 * ends at `c + pageSize`. Where ids skip (rows a reorganisation removed), a page ends further on
 * and overlaps the next one; the worker drops rows it has already scanned, and once it reports
 * how far it got (`seen`), later requests start from there, so the prediction catches up. Nothing
 * is missed: a full page from cursor `c` ends at or after `c + pageSize`, and every cursor is at
 * most the furthest end of the pages before it. The walk stops at the first short page.
 */
export function pumpRegistryPages(options: {
  fetchPage: (afterId: number, limit: number, signal: AbortSignal) => Promise<ArrayBuffer>;
  send: (message: PageMessage, transfer: Transferable[]) => void;
  fromCursor: number;
  signal: AbortSignal;
  /** The one-line message a failed request shows. */
  describe: (cause: unknown) => string;
  pageSize?: number;
  inFlight?: number;
  queued?: number;
}): RegistryPump {
  const { fetchPage, send, signal, describe, pageSize = PAGE_SIZE, inFlight: inFlightLimit = REQUESTS_IN_FLIGHT, queued = PAGES_QUEUED } = options;
  const inFlight: Promise<ArrayBuffer>[] = [];
  // Requests still in flight when the walk ends (the end came first, a request failed, the scan
  // was cancelled) are aborted, not left downloading.
  const requests = new AbortController();
  let nextCursor = options.fromCursor;
  let sent = 0;
  let taken = 0;
  let wake: (() => void) | null = null;
  const wakeUp = () => {
    wake?.();
    wake = null;
  };
  const onAbort = () => {
    requests.abort();
    wakeUp();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const request = () => {
    const page = fetchPage(nextCursor, pageSize, requests.signal);
    // A read-ahead that is never awaited (the end came first, or the scan was cancelled) must not surface as an unhandled rejection.
    page.catch(() => {});
    inFlight.push(page);
    nextCursor += pageSize;
  };
  const walk = async () => {
    try {
      for (let i = 0; i < inFlightLimit; i++) request();
      for (;;) {
        while (sent - taken >= queued && !signal.aborted) await new Promise<void>((resolve) => (wake = resolve));
        if (signal.aborted) return;
        const bytes = await inFlight.shift()!;
        if (signal.aborted) return;
        const full = pageCount(bytes) === pageSize;
        if (full) request();
        send({ type: 'page', bytes }, [bytes]);
        sent++;
        if (!full) {
          send({ type: 'end' }, []);
          return;
        }
      }
    } catch (cause) {
      if (!signal.aborted) send({ type: 'fetch-failed', message: describe(cause) }, []);
    } finally {
      requests.abort();
      signal.removeEventListener('abort', onAbort);
    }
  };
  return {
    consumed() {
      taken++;
      wakeUp();
    },
    seen(cursor) {
      nextCursor = Math.max(nextCursor, cursor);
    },
    done: walk(),
  };
}

/**
 * The worker's side: pages pushed as they arrive, read by `scanRegistry` as a page source.
 * `onTake` is called as each page leaves the queue (the page then sends another); rows at or
 * before the furthest id already handed on (overlapping pages) are dropped.
 */
export function pageQueue(decode: (bytes: Uint8Array) => RegistryAnnouncement[], onTake: () => void): {
  push(message: PageMessage): void;
  source: RegistryPageSource<RegistryAnnouncement>;
} {
  const queue: PageMessage[] = [];
  let wake: (() => void) | null = null;
  return {
    push(message) {
      queue.push(message);
      wake?.();
    },
    source: async function* ({ afterId, signal }) {
      let handedOn = afterId;
      for (;;) {
        while (queue.length === 0) {
          signal?.throwIfAborted();
          await new Promise<void>((resolve) => {
            const done = () => {
              signal?.removeEventListener('abort', done);
              resolve();
            };
            wake = done;
            signal?.addEventListener('abort', done, { once: true });
          });
          wake = null;
        }
        signal?.throwIfAborted();
        const message = queue.shift()!;
        if (message.type === 'end') return;
        if (message.type === 'fetch-failed') throw new Error(message.message);
        onTake();
        const page = decode(new Uint8Array(message.bytes));
        const fresh = page[0] !== undefined && page[0].id <= handedOn ? page.filter((a) => a.id > handedOn) : page;
        if (fresh.length > 0) {
          handedOn = fresh[fresh.length - 1]!.id;
          yield fresh;
        }
      }
    },
  };
}
