/**
 * The Scan page's read-ahead over the registry (app/(web)/_lib/registry-source.ts): several
 * requests in flight with predicted cursors must still hand the scanner every row after the
 * cursor exactly once, in order, whatever gaps the ids have (rows removed by reorganisations).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RegistryAnnouncement } from '@wraith-pq/sdk';
import { readAheadPages } from '../../app/(web)/_lib/registry-source.ts';

/** A registry holding `ids` (ascending), served the way the server pages it. */
function registry(ids: number[]) {
  const requested: number[] = [];
  const fetchPage = async (afterId: number, limit: number) => {
    requested.push(afterId);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 3)); // answers arrive out of order
    return ids.filter((id) => id > afterId).slice(0, limit).map((id) => ({ id }) as RegistryAnnouncement);
  };
  return { fetchPage, requested };
}

async function walk(fetchPage: Parameters<typeof readAheadPages>[0], afterId: number, pageSize: number, inFlight: number) {
  const pages: number[][] = [];
  for await (const page of readAheadPages(fetchPage, pageSize, inFlight)({ afterId })) pages.push(page.map((a) => a.id));
  return pages;
}

describe('the Scan page reading the registry ahead', () => {
  it('hands on every row after the cursor once and in order, with consecutive ids, gaps or both', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 120 }), // steps between ids: 1 is consecutive
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 4 }),
        async (steps, afterId, pageSize, inFlight) => {
          const ids: number[] = [];
          for (const step of steps) ids.push((ids.at(-1) ?? 0) + step);
          const pages = await walk(registry(ids).fetchPage, afterId, pageSize, inFlight);
          expect(pages.flat()).toEqual(ids.filter((id) => id > afterId));
          expect(pages.every((page) => page.length > 0)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps three requests in flight at predicted cursors over consecutive ids', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => i + 1);
    const { fetchPage, requested } = registry(ids);
    const pages = await walk(fetchPage, 0, 5, 3);
    expect(pages).toEqual([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15], [16, 17, 18, 19, 20], [21, 22, 23, 24, 25]]);
    // Each full page's arrival sends the next request; the short sixth page ends the walk.
    expect(requested).toEqual([0, 5, 10, 15, 20, 25, 30, 35]);
  });

  it('catches up after a gap instead of re-reading it page by page', async () => {
    const ids = [...Array.from({ length: 5 }, (_, i) => i + 1), ...Array.from({ length: 20 }, (_, i) => 1001 + i)];
    const { fetchPage, requested } = registry(ids);
    expect((await walk(fetchPage, 0, 5, 3)).flat()).toEqual(ids);
    // Cursors 0, 5 and 10 go out at once, and 15 when the first page arrives. Once the page after
    // 5 shows the jump to 1001, every later cursor starts from the furthest id seen.
    expect(requested.slice(0, 4)).toEqual([0, 5, 10, 15]);
    expect(requested.slice(4).every((cursor) => cursor >= 1005)).toBe(true);
    expect(requested.length).toBeLessThanOrEqual(10);
  });

  it('passes a failed request on to the scan, which then stops (and resumes from its cursor later)', async () => {
    const fetchPage = async (afterId: number, limit: number) => {
      if (afterId >= 10) throw new Error('The server could not be reached.');
      return Array.from({ length: limit }, (_, i) => ({ id: afterId + i + 1 }) as RegistryAnnouncement);
    };
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const page of readAheadPages(fetchPage, 5, 3)({ afterId: 0 })) seen.push(...page.map((a) => a.id));
      })(),
    ).rejects.toThrow('could not be reached');
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
