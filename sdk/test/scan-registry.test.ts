import { describe, expect, it } from 'vitest';
import {
  arrayPageSource,
  bytesToHex,
  createStealthPayment,
  generateKeys,
  scanRegistry,
  type AnnouncementRecord,
  type RegistryPageSource,
  type ScanProgress,
} from '../src/index.ts';
import { noteBatch } from './note-announcements.ts';

const keys = generateKeys();
const others = [generateKeys(), generateKeys()];
const mine = new Set([2, 250, 251, 777, 1200]);
const registry: AnnouncementRecord[] = Array.from({ length: 1200 }, (_, i) => {
  const id = i + 1;
  const p = createStealthPayment(mine.has(id) ? keys.metaAddress : others[id % 2]!.metaAddress);
  return { id, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag, tx_hash: `0x${id}` };
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('scanRegistry', () => {
  it('scans every page once and finds exactly the recipient\'s payments, with cursors at page ends', async () => {
    const batches = await collect(scanRegistry(arrayPageSource(registry, 100), keys));
    expect(batches).toHaveLength(12);
    expect(batches.map((b) => b.cursor)).toEqual(Array.from({ length: 12 }, (_, i) => (i + 1) * 100));
    expect(batches.flatMap((b) => b.discoveries.map((d) => d.announcement.id))).toEqual([...mine]);
    expect(batches.at(-1)!.progress).toMatchObject({ scanned: 1200, discoveries: 5, cursor: 1200 });
  });

  it('cancels between pages with the signal, and resuming from the saved cursor finds the rest exactly once', async () => {
    const controller = new AbortController();
    const found: number[] = [];
    let saved = 0;
    await expect(async () => {
      for await (const batch of scanRegistry(arrayPageSource(registry, 100), keys, { signal: controller.signal })) {
        found.push(...batch.discoveries.map((d) => d.announcement.id as number));
        saved = batch.cursor;
        if (batch.cursor >= 300) controller.abort(new Error('user cancelled'));
      }
    }).rejects.toThrow('user cancelled');
    expect(saved).toBe(300);
    expect(found).toEqual([2, 250, 251]);

    const resumed = await collect(scanRegistry(arrayPageSource(registry, 100), keys, { fromCursor: saved }));
    expect(resumed.flatMap((b) => b.discoveries.map((d) => d.announcement.id))).toEqual([777, 1200]);
    expect(resumed.at(-1)!.progress.scanned).toBe(900);
  });

  it('does not rescan rows a source returns again after the cursor', async () => {
    const stubborn: RegistryPageSource<AnnouncementRecord> = function* () {
      for (let i = 0; i < registry.length; i += 400) yield registry.slice(i, i + 400); // ignores afterId
    };
    const batches = await collect(scanRegistry(stubborn, keys, { fromCursor: 500 }));
    expect(batches.reduce((n, b) => n + b.scanned, 0)).toBe(700);
    expect(batches.flatMap((b) => b.discoveries.map((d) => d.announcement.id))).toEqual([777, 1200]);
  });

  it('reports monotonic progress with a rate', async () => {
    const progress: ScanProgress[] = [];
    await collect(scanRegistry(arrayPageSource(registry, 300), keys, { onProgress: (p) => progress.push(p) }));
    expect(progress.map((p) => p.scanned)).toEqual([300, 600, 900, 1200]);
    expect(progress.every((p) => p.rate > 0)).toBe(true);
  });

  it('passes afterId and the signal to an async source', async () => {
    const requests: { afterId: number; hasSignal: boolean }[] = [];
    const source: RegistryPageSource<AnnouncementRecord> = async function* ({ afterId, signal }) {
      requests.push({ afterId, hasSignal: signal instanceof AbortSignal });
      yield registry.filter((r) => r.id > afterId).slice(0, 50);
    };
    const batches = await collect(scanRegistry(source, keys, { fromCursor: 1150, signal: new AbortController().signal }));
    expect(requests).toEqual([{ afterId: 1150, hasSignal: true }]);
    expect(batches[0]!.discoveries.map((d) => d.announcement.id)).toEqual([1200]);
  });

  it('asks the source for the next two pages while it scans the current one, and no further', async () => {
    const events: string[] = [];
    const source: RegistryPageSource<AnnouncementRecord> = async function* () {
      for (let page = 0; page < 5; page++) {
        events.push(`fetch ${page + 1}`);
        yield registry.slice(page * 100, (page + 1) * 100);
      }
    };
    for await (const batch of scanRegistry(source, keys)) events.push(`batch ending at ${batch.cursor}`);
    expect(events).toEqual([
      'fetch 1', 'fetch 2', 'fetch 3',
      'batch ending at 100', 'fetch 4',
      'batch ending at 200', 'fetch 5',
      'batch ending at 300', 'batch ending at 400', 'batch ending at 500',
    ]);
  });

  it('closes the source when the caller stops early, and a failing read-ahead is not an unhandled rejection', async () => {
    let closed = false;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const source: RegistryPageSource<AnnouncementRecord> = async function* () {
        try {
          yield registry.slice(0, 100);
          throw new Error('network down'); // the read-ahead of page 2
        } finally {
          closed = true;
        }
      };
      for await (const batch of scanRegistry(source, keys)) {
        expect(batch.cursor).toBe(100);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(closed).toBe(true);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('throws the source\'s error when the caller keeps reading', async () => {
    const source: RegistryPageSource<AnnouncementRecord> = async function* () {
      yield registry.slice(0, 100);
      throw new Error('network down');
    };
    await expect(collect(scanRegistry(source, keys))).rejects.toThrow('network down');
  });

  it('refuses a negative or fractional cursor before scanning', async () => {
    await expect(collect(scanRegistry(arrayPageSource(registry), keys, { fromCursor: -1 }))).rejects.toThrow(/fromCursor/);
    await expect(collect(scanRegistry(arrayPageSource(registry), keys, { fromCursor: 1.5 }))).rejects.toThrow(/fromCursor/);
  });
});

describe('scanRegistry with sealed notes and announced addresses (PROTOCOL.md sections 7-8)', () => {
  const batch = noteBatch(5);

  it('opens the notes of the payments it finds page by page, the same as one batch scan, and keeps no shared secret', async () => {
    const found = (await collect(scanRegistry(arrayPageSource(batch.rows, 16), batch.keys))).flatMap((b) => b.discoveries);
    expect(found.map((d) => d.announcement.id)).toEqual([...batch.expected.keys()].map((index) => batch.rows[index]!.id));
    expect(found.map((d) => [d.noteStatus, d.note, d.stealthAddressMismatch, d.stealthAddress])).toEqual(
      [...batch.expected.values()].map((e) => [e.noteStatus, e.note, e.stealthAddressMismatch, e.stealthAddress]),
    );
    expect(found.some((d) => 'sharedSecret' in d)).toBe(false);
  });

  it('resuming from a saved cursor still opens the notes after it', async () => {
    const cursor = batch.rows[Math.floor(batch.rows.length / 2)]!.id!;
    const found = (await collect(scanRegistry(arrayPageSource(batch.rows, 16), batch.keys, { fromCursor: cursor }))).flatMap((b) => b.discoveries);
    const after = [...batch.expected].filter(([index]) => batch.rows[index]!.id! > cursor);
    expect(after.length).toBeGreaterThan(0);
    expect(found.map((d) => [d.announcement.id, d.noteStatus, d.note])).toEqual(after.map(([index, e]) => [batch.rows[index]!.id, e.noteStatus, e.note]));
  });

  describe('with a source of several chains (cursorPerChain)', () => {
    // Two chains whose ids (chain cursors) overlap: id 5 exists on both.
    const rows = [
      ...[3, 5, 9].map((id) => ({ ...registry[id]!, id, chainId: 10 })),
      ...[1, 5, 7].map((id) => ({ ...registry[id + 100]!, id, chainId: 8453 })),
    ];
    const pages = [[rows[0]!, rows[1]!], [rows[3]!, rows[4]!], [rows[2]!], [rows[5]!]];
    /** Ignores afterIds, as a careless source would: the scan itself must not rescan. */
    const source = Object.assign(() => pages, { cursorPerChain: true }) as RegistryPageSource<(typeof rows)[number]>;

    it('keeps one cursor per chain, so rows with equal ids on two chains are each scanned once', async () => {
      const batches = await collect(scanRegistry(source, keys));
      expect(batches.reduce((n, b) => n + b.scanned, 0)).toBe(6);
      expect(batches.map((b) => b.cursors)).toEqual([{ 10: 5 }, { 10: 5, 8453: 5 }, { 10: 9, 8453: 5 }, { 10: 9, 8453: 7 }]);
      expect(batches.at(-1)!.progress.cursors).toEqual({ 10: 9, 8453: 7 });
    });

    it('resumes every chain after its saved cursor (saved as JSON), and starts a chain it has no cursor for from the beginning', async () => {
      const saved = JSON.parse(JSON.stringify({ 10: 5 }));
      const batches = await collect(scanRegistry(source, keys, { fromCursors: saved }));
      expect(batches.reduce((n, b) => n + b.scanned, 0)).toBe(4); // chain 10: id 9; chain 8453: 1, 5, 7
      expect(batches.at(-1)!.cursors).toEqual({ 10: 9, 8453: 7 });
    });

    it('refuses malformed saved cursors, and fromCursors with a one-cursor source', async () => {
      for (const bad of [{ abc: 1 }, { 0: 1 }, { 10: -1 }, { 10: 1.5 }, [1] as unknown as Record<number, number>]) {
        await expect(scanRegistry(source, keys, { fromCursors: bad }).next()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      }
      await expect(scanRegistry(arrayPageSource(registry), keys, { fromCursors: { 10: 1 } }).next()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });
  });
});
