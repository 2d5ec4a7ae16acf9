/**
 * The Scan page's walk over the registry (app/(web)/_lib/registry-source.ts): the page fetches
 * binary pages, several requests in flight at predicted cursors, and hands them in order to the
 * worker's queue, which decodes them. Together they must give the scanner every row after the
 * cursor exactly once, in order, whatever gaps the ids have (rows removed by reorganisations),
 * with no more pages waiting in the worker than allowed.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { decodeAnnouncementPage, encodeAnnouncementPage } from '@wraith-pq/sdk';
import { pageQueue, pumpRegistryPages, type PageMessage } from '../../app/(web)/_lib/registry-source.ts';

const CIPHERTEXT = new Uint8Array(1088);
const later = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 3));

/** A registry holding `ids` (ascending), serving binary pages the way the server does. */
function registry(ids: number[], failFrom = Number.POSITIVE_INFINITY) {
  const requested: number[] = [];
  const fetchPage = async (afterId: number, limit: number) => {
    requested.push(afterId);
    await later(); // answers arrive out of order
    if (afterId >= failFrom) throw new Error('The server could not be reached.');
    const rows = ids.filter((id) => id > afterId).slice(0, limit);
    const bytes = encodeAnnouncementPage(rows.map((id) => ({ id, timestamp: 0, viewTag: 0, ephemeralKey: CIPHERTEXT })));
    return bytes.slice().buffer;
  };
  return { fetchPage, requested };
}

/**
 * The page and its worker, as the Scan page wires them: messages cross asynchronously, the
 * worker reports each page it takes and how far it has scanned.
 */
async function walk(fetchPage: (afterId: number, limit: number) => Promise<ArrayBuffer>, afterId: number, pageSize: number, inFlight: number, queued = 2) {
  const pages: number[][] = [];
  let delivery = Promise.resolve(); // postMessage keeps the order of messages
  let waiting = 0;
  let mostWaiting = 0;
  const queue = pageQueue(decodeAnnouncementPage, () => {
    waiting--;
    void later().then(() => pump.consumed());
  });
  const stop = new AbortController();
  const pump = pumpRegistryPages({
    fetchPage,
    send: (message: PageMessage) => {
      if (message.type === 'page') mostWaiting = Math.max(mostWaiting, ++waiting);
      delivery = delivery.then(later).then(() => queue.push(message));
    },
    fromCursor: afterId,
    signal: stop.signal,
    describe: (cause) => (cause as Error).message,
    pageSize,
    inFlight,
    queued,
  });
  try {
    for await (const page of queue.source({ afterId })) {
      pages.push(page.map((a) => a.id));
      const cursor = page.at(-1)!.id;
      void later().then(() => pump.seen(cursor));
      await later(); // scanning takes a while
    }
  } finally {
    stop.abort(); // as the Scan page does when a run ends, however it ends
    await pump.done;
  }
  return { pages, mostWaiting };
}

describe('the Scan page walking the registry', () => {
  it('hands on every row after the cursor once and in order, with consecutive ids, gaps or both', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 120 }), // steps between ids: 1 is consecutive
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        async (steps, afterId, pageSize, inFlight, queued) => {
          const ids: number[] = [];
          for (const step of steps) ids.push((ids.at(-1) ?? 0) + step);
          const { pages, mostWaiting } = await walk(registry(ids).fetchPage, afterId, pageSize, inFlight, queued);
          expect(pages.flat()).toEqual(ids.filter((id) => id > afterId));
          expect(pages.every((page) => page.length > 0)).toBe(true);
          expect(mostWaiting).toBeLessThanOrEqual(queued);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps three requests in flight at predicted cursors over consecutive ids', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => i + 1);
    const { fetchPage, requested } = registry(ids);
    const { pages } = await walk(fetchPage, 0, 5, 3);
    expect(pages).toEqual([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15], [16, 17, 18, 19, 20], [21, 22, 23, 24, 25]]);
    // Each full page's arrival sends the next request; the short sixth page ends the walk.
    expect(requested).toEqual([0, 5, 10, 15, 20, 25, 30, 35]);
  });

  it('catches up after a gap instead of re-reading it page by page', async () => {
    const ids = [...Array.from({ length: 5 }, (_, i) => i + 1), ...Array.from({ length: 40 }, (_, i) => 1001 + i)];
    const { fetchPage, requested } = registry(ids);
    expect((await walk(fetchPage, 0, 5, 3)).pages.flat()).toEqual(ids);
    // Cursors 0, 5 and 10 go out at once. Once the worker reports the jump to 1001, later
    // cursors start from the furthest id it has scanned.
    expect(requested.slice(0, 3)).toEqual([0, 5, 10]);
    expect(requested.filter((cursor) => cursor < 1000).length).toBeLessThanOrEqual(8);
    expect(requested.length).toBeLessThanOrEqual(20);
  });

  it('passes a failed request on to the scan, which stops after the pages before it (and resumes from its cursor later)', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    const seen: number[] = [];
    await expect(
      (async () => {
        const queue = pageQueue(decodeAnnouncementPage, () => pump.consumed());
        const pump = pumpRegistryPages({
          fetchPage: registry(ids, 10).fetchPage,
          send: (message) => queue.push(message),
          fromCursor: 0,
          signal: new AbortController().signal,
          describe: (cause) => (cause as Error).message,
          pageSize: 5,
          inFlight: 3,
        });
        for await (const page of queue.source({ afterId: 0 })) seen.push(...page.map((a) => a.id));
      })(),
    ).rejects.toThrow('could not be reached');
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('stops fetching when the scan is cancelled, and aborts the requests in flight', async () => {
    const served = registry(Array.from({ length: 1000 }, (_, i) => i + 1));
    const requested: number[] = [];
    const aborted: number[] = [];
    // The first two pages come at once; later ones are still downloading when the scan is cancelled.
    const fetchPage = (afterId: number, limit: number, signal: AbortSignal) => {
      requested.push(afterId);
      if (afterId < 10) return served.fetchPage(afterId, limit);
      return new Promise<ArrayBuffer>((_, reject) =>
        signal.addEventListener('abort', () => {
          aborted.push(afterId);
          reject(new DOMException('aborted', 'AbortError'));
        }),
      );
    };
    const cancel = new AbortController();
    const sent: PageMessage[] = [];
    const pump = pumpRegistryPages({ fetchPage, send: (m) => sent.push(m), fromCursor: 0, signal: cancel.signal, describe: String, pageSize: 5, inFlight: 3, queued: 2 });
    // Nothing is taken from the queue: two pages are sent, then the walk waits.
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(requested).toEqual([0, 5, 10, 15, 20]); // three at first, one more as each full page came
    cancel.abort();
    await pump.done;
    pump.consumed();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(aborted).toEqual([10, 15, 20]);
    expect(requested).toEqual([0, 5, 10, 15, 20]);
    expect(sent.map((m) => m.type)).toEqual(['page', 'page']);
  });

  it('aborts the read-ahead requests once the end has come', async () => {
    const served = registry(Array.from({ length: 12 }, (_, i) => i + 1));
    const aborted: number[] = [];
    const fetchPage = (afterId: number, limit: number, signal: AbortSignal) => {
      if (afterId < 15) return served.fetchPage(afterId, limit);
      return new Promise<ArrayBuffer>((_, reject) => signal.addEventListener('abort', () => (aborted.push(afterId), reject(new DOMException('aborted', 'AbortError')))));
    };
    const sent: PageMessage[] = [];
    const pump = pumpRegistryPages({ fetchPage, send: (m) => sent.push(m), fromCursor: 0, signal: new AbortController().signal, describe: String, pageSize: 5, inFlight: 4, queued: 10 });
    await pump.done;
    expect(sent.map((m) => m.type)).toEqual(['page', 'page', 'page', 'end']);
    // Cursors 15 (of the first four) and 20 and 25 (sent as pages 0 and 5 came full) were still out.
    expect(aborted).toEqual([15, 20, 25]);
  });
});
