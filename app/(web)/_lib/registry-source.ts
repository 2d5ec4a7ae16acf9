/**
 * The registry as a page source for `scanRegistry`: binary pages walked by the `after_id`
 * cursor, several requests in flight, until a short page says the end is reached.
 * @module
 */
import type { RegistryAnnouncement, RegistryPageSource } from '@wraith-pq/sdk';
import { announcementPage } from './api';

/**
 * Rows per request: the server's largest binary page (5.5 MB), so a million announcements take
 * 200 requests, not 1,000.
 */
export const PAGE_SIZE = 5000;

/**
 * Requests in flight. Chromium receives one response body far slower than Node does; three at
 * once brought its transport of a 200,000-row registry from about 4.4 s to 3.2 s on the benchmark
 * machine (BENCHMARKS.md), and the next pages keep arriving while one is scanned.
 */
export const REQUESTS_IN_FLIGHT = 3;

/**
 * Request cursors are predicted: ids are mostly consecutive, so the page after cursor `c`
 * usually ends at `c + PAGE_SIZE`. Where ids skip (rows a reorganisation removed), a page ends
 * further on and overlaps the next one: rows already handed on are dropped, and the next request
 * starts from the furthest id seen, so the prediction catches up. Nothing is missed: a full page
 * from cursor `c` ends at or after `c + PAGE_SIZE` and after every end seen before it, and each
 * later cursor is at most the larger of those, so the pages cover the registry without holes.
 * The walk stops at the first short page, the end.
 */
export function readAheadPages(
  fetchPage: (afterId: number, limit: number, signal?: AbortSignal) => Promise<RegistryAnnouncement[]>,
  pageSize = PAGE_SIZE,
  inFlightLimit = REQUESTS_IN_FLIGHT,
): RegistryPageSource<RegistryAnnouncement> {
  return async function* ({ afterId, signal }) {
    const inFlight: Promise<RegistryAnnouncement[]>[] = [];
    let nextCursor = afterId;
    const request = () => {
      const page = fetchPage(nextCursor, pageSize, signal);
      // A read-ahead that is never awaited (the end came first, or the scan was cancelled) must not surface as an unhandled rejection.
      page.catch(() => {});
      inFlight.push(page);
      nextCursor += pageSize;
    };
    for (let i = 0; i < inFlightLimit; i++) request();
    let handedOn = afterId;
    for (;;) {
      const page = await inFlight.shift()!;
      const full = page.length === pageSize;
      if (full) {
        nextCursor = Math.max(nextCursor, page[page.length - 1]!.id);
        request();
      }
      const fresh = page[0] !== undefined && page[0].id <= handedOn ? page.filter((a) => a.id > handedOn) : page;
      if (fresh.length > 0) {
        handedOn = fresh[fresh.length - 1]!.id;
        yield fresh;
      }
      if (!full) return;
    }
  };
}

/** The registry of this server, read ahead. */
export const registryPages = readAheadPages(announcementPage);
