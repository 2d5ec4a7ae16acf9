import { afterAll, describe, expect, it } from 'vitest';
import {
  bytesToHex,
  createScanner,
  createScanPool,
  createStealthPayment,
  generateKeys,
  KeyMismatchError,
  type Announcement,
  type AnnouncementRecord,
  type Discovery,
  type ScanPool,
  scanRegistry,
  arrayPageSource,
  connectScanWorker,
  InvalidArgumentError,
  WraithError,
} from '../src/index.ts';
import { Worker } from 'node:worker_threads';
import { nodeScanWorkerSpawner } from '../../tests/helpers/scan-worker-node.ts';
import { noteBatch, noteFieldsOf } from './note-announcements.ts';

const keys = generateKeys();
const other = generateKeys();
const mine = new Set([0, 1, 150, 299, 300, 598]);
const rows: AnnouncementRecord[] = Array.from({ length: 600 }, (_, i) => {
  if (i === 77) return { id: i, ephemeral_key: 'not hex', view_tag: 1 };
  const p = createStealthPayment(mine.has(i) ? keys.metaAddress : other.metaAddress);
  return { id: i, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag };
});
const comparable = (d: Discovery<AnnouncementRecord | Announcement>) => ({
  id: d.announcement.id,
  index: d.index,
  address: d.stealthAddress,
  sui: d.stealthSuiAddress,
  p: d.stealthSecretKey && bytesToHex(d.stealthSecretKey),
  k: d.sharedSecret && bytesToHex(d.sharedSecret),
});

const pools: ScanPool[] = [];
afterAll(() => pools.forEach((p) => p.close()));

/**
 * A spawn of real workers that counts the slices and rows sent to each; worker 0 answers `lateMs`
 * late when given (it stands for a worker sharing its core with other work).
 */
async function countingSpawn(lateMs = 0) {
  const spawnReal = await nodeScanWorkerSpawner();
  const sent = { rows: 0, slices: 0, rowsByWorker: [] as number[], slicesByWorker: [] as number[] };
  let made = 0;
  const spawn = () => {
    const id = made++;
    const worker = spawnReal();
    sent.rowsByWorker[id] = 0;
    sent.slicesByWorker[id] = 0;
    return {
      postMessage(message: { type: string; indices?: Uint32Array }, transfer?: ArrayBuffer[]) {
        if (message.type === 'scan') {
          sent.rows += message.indices!.length;
          sent.rowsByWorker[id]! += message.indices!.length;
          sent.slices++;
          sent.slicesByWorker[id]!++;
        }
        worker.postMessage(message, transfer);
      },
      terminate: () => worker.terminate(),
      on(event: 'message' | 'error', listener: (value: unknown) => void) {
        worker.on(event, id === 0 && lateMs > 0 && event === 'message' ? (value) => setTimeout(() => listener(value), lateMs) : listener);
      },
    };
  };
  return { spawn, sent };
}

/** A spawn of workers that start, then throw `message` on their first scan. */
const crashingWorker = (message: string) => () =>
  new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.on('message', (m) => {
       if (m.type === 'init') parentPort.postMessage({ type: 'ready', kernel: 'wasm' });
       else throw new Error(${JSON.stringify(message)});
     });`,
    { eval: true },
  );

describe('scan worker pool (Node worker_threads)', () => {
  it.each([1, 2, 3])('with %i workers finds the same discoveries in the same order with the same stats as one thread', async (size) => {
    const pool = await createScanPool(keys, { spawn: await nodeScanWorkerSpawner(), size });
    pools.push(pool);
    const single = createScanner(keys).scan(rows);
    const parallel = await pool.scan(rows);
    expect(parallel.discoveries.map(comparable)).toEqual(single.discoveries.map(comparable));
    expect(parallel.discoveries.map((d) => d.announcement.id)).toEqual([...mine]);
    const { durationMs: _a, rate: _b, ...singleStats } = single.stats;
    const { durationMs: _c, rate: _d, ...parallelStats } = parallel.stats;
    expect(parallelStats).toEqual(singleStats);
    expect(parallel.discoveries[0]!.announcement).toBe(rows[0]); // the caller's own object
  });

  it('scans view-only, returning shared secrets and no spend keys', async () => {
    const viewOnly = { viewingSecretKey: keys.viewingSecretKey, spendingPublicKey: keys.spendingPublicKey };
    const pool = await createScanPool(viewOnly, { spawn: await nodeScanWorkerSpawner(), size: 2 });
    pools.push(pool);
    const { discoveries } = await pool.scan(rows);
    expect(discoveries.map(comparable)).toEqual(createScanner(viewOnly).scan(rows).discoveries.map(comparable));
    expect(discoveries.every((d) => d.stealthSecretKey === undefined && d.sharedSecret?.length === 32)).toBe(true);
  });

  it('handles several batches, an empty batch and fewer announcements than workers', async () => {
    const pool = await createScanPool(keys, { spawn: await nodeScanWorkerSpawner(), size: 3 });
    pools.push(pool);
    expect((await pool.scan([])).discoveries).toEqual([]);
    expect((await pool.scan(rows.slice(0, 2))).discoveries.map((d) => d.index)).toEqual([0, 1]);
    expect((await pool.scan(rows.slice(290, 310))).discoveries.map((d) => d.announcement.id)).toEqual([299, 300]);
  });

  it('streams a registry through scanRegistry on the pool with the same batches as one thread', async () => {
    const pool = await createScanPool(keys, { spawn: await nodeScanWorkerSpawner(), size: 2 });
    pools.push(pool);
    const summarize = async (options: Parameters<typeof scanRegistry>[2]) => {
      const out = [];
      for await (const b of scanRegistry(arrayPageSource(rows, 128), keys, options)) out.push([b.cursor, b.scanned, b.discoveries.map((d) => d.index)]);
      return out;
    };
    expect(await summarize({ pool })).toEqual(await summarize({}));
  });

  it('splits a large batch into slices across the workers and still matches one thread, malformed rows included', async () => {
    // 9,000 rows: several slices per worker, so the calling thread waits for workers to hand
    // buffers back before it packs more.
    const large: (AnnouncementRecord | Announcement)[] = Array.from({ length: 9000 }, (_, i) => {
      const c = crypto.getRandomValues(new Uint8Array(1088));
      return { id: i, ephemeralKey: c, viewTag: c[0]! };
    });
    for (const at of [0, 2047, 2048, 4095, 6000, 8999]) {
      const p = createStealthPayment(keys.metaAddress);
      large[at] = { id: at, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag };
    }
    large[2049] = { id: 2049, ephemeralKey: new Uint8Array(1088), viewTag: 0 }; // all zero
    large[7000] = { id: 7000, ephemeralKey: new Uint8Array(12), viewTag: 0 }; // too short
    const pool = await createScanPool(keys, { spawn: await nodeScanWorkerSpawner(), size: 2 });
    pools.push(pool);
    const single = createScanner(keys).scan(large);
    for (let round = 0; round < 2; round++) {
      const parallel = await pool.scan(large); // the second round refills buffers the workers handed back
      expect(parallel.discoveries.map((d) => d.index)).toEqual([0, 2047, 2048, 4095, 6000, 8999]);
      expect(parallel.discoveries.map((d) => bytesToHex(d.stealthSecretKey!))).toEqual(single.discoveries.map((d) => bytesToHex(d.stealthSecretKey!)));
      expect(parallel.stats).toMatchObject({ totalScanned: 9000, malformed: 2, discoveries: 6, viewTagMatches: single.stats.viewTagMatches });
    }
  });

  it('sends more slices to a fast worker than to a slow one, with the same results as one thread', async () => {
    // Worker 0 answers 300 ms late: it stands for a worker sharing its core with other work.
    const { spawn, sent } = await countingSpawn(300);
    const sliced = sent.slicesByWorker;
    const large: Announcement[] = Array.from({ length: 30 * 2048 }, (_, i) => {
      const c = crypto.getRandomValues(new Uint8Array(1088));
      return { id: i, ephemeralKey: c, viewTag: c[0]! };
    });
    for (const at of [5, 30_000, 61_000]) {
      const p = createStealthPayment(keys.metaAddress);
      large[at] = { id: at, ephemeralKey: p.ephemeralCiphertext, viewTag: p.viewTag };
    }
    const pool = await createScanPool(keys, { spawn, size: 2 });
    pools.push(pool);
    const parallel = await pool.scan(large);
    expect(parallel.discoveries.map((d) => d.index)).toEqual([5, 30_000, 61_000]);
    expect(parallel.stats.viewTagMatches).toBe(createScanner(keys).scan(large).stats.viewTagMatches);
    expect(sliced[0]! + sliced[1]!).toBe(30);
    expect(sliced[1]!).toBeGreaterThan(2 * sliced[0]!); // round robin would give each 15
  }, 60_000);

  describe('useCallingThread: the calling thread scans too', () => {
    const large: (AnnouncementRecord | Announcement)[] = Array.from({ length: 20_000 }, (_, i) => {
      const c = crypto.getRandomValues(new Uint8Array(1088));
      return { id: i, ephemeralKey: c, viewTag: c[0]! };
    });
    for (const at of [0, 511, 512, 2047, 2048, 9000, 15_000, 19_999]) {
      const p = createStealthPayment(keys.metaAddress);
      large[at] = { id: at, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag };
    }
    large[513] = { id: 513, ephemeralKey: new Uint8Array(1088), viewTag: 0 }; // all zero
    large[12_000] = { id: 12_000, ephemeral_key: 'zz', view_tag: 3 }; // not hex
    const single = createScanner(keys).scan(large);
    const { durationMs: _a, rate: _b, ...singleStats } = single.stats;

    it.each([1, 2])('with %i workers finds the same discoveries in the same order with the same stats, and both the workers and the calling thread scan', async (size) => {
      const { spawn, sent } = await countingSpawn();
      const pool = await createScanPool(keys, { spawn, size, useCallingThread: true });
      pools.push(pool);
      expect(pool.size).toBe(size);
      for (let round = 0; round < 2; round++) {
        const parallel = await pool.scan(large);
        expect(parallel.discoveries.map(comparable)).toEqual(single.discoveries.map(comparable));
        expect(parallel.discoveries.map((d) => d.index)).toEqual([0, 511, 512, 2047, 2048, 9000, 15_000, 19_999]);
        expect(parallel.discoveries[1]!.announcement).toBe(large[511]);
        const { durationMs: _c, rate: _d, ...parallelStats } = parallel.stats;
        expect(parallelStats).toEqual(singleStats);
      }
      // Well-formed rows (19,998 a round) the workers got; the calling thread scanned the rest.
      expect(sent.rows).toBeGreaterThan(0);
      expect(sent.rows).toBeLessThan(0.95 * 2 * 19_998);
      // Between its pieces the calling thread heard back from the workers and refilled their
      // queues: without that they would get only their first SLICES_IN_FLIGHT (2) slices a round.
      // Whether an answer arrives before the calling thread's next piece depends on the machine's
      // load, so a busy machine gets a few more rounds to show it.
      let rounds = 2;
      while (sent.slices <= 2 * rounds * size && rounds < 8) {
        await pool.scan(large);
        rounds++;
      }
      expect(sent.slices).toBeGreaterThan(2 * rounds * size);
    }, 120_000);

    it('keeps batch order when a slow worker answers after the calling thread has scanned later rows', async () => {
      const { spawn, sent } = await countingSpawn(200);
      const pool = await createScanPool(keys, { spawn, size: 1, useCallingThread: true });
      pools.push(pool);
      const parallel = await pool.scan(large);
      expect(parallel.discoveries.map(comparable)).toEqual(single.discoveries.map(comparable));
      expect(parallel.stats.malformed).toBe(2);
      expect(sent.slices).toBeGreaterThan(0);
      expect(sent.rows).toBeLessThan(19_998); // the calling thread scanned some
    }, 60_000);

    it.each([1, 2])('spreads a batch of 1,000 rows over the calling thread and all %i workers, with the same results as one thread', async (size) => {
      const { spawn, sent } = await countingSpawn();
      const pool = await createScanPool(keys, { spawn, size, useCallingThread: true });
      pools.push(pool);
      const small = large.slice(0, 1000);
      const expected = createScanner(keys).scan(small);
      const parallel = await pool.scan(small);
      expect(parallel.discoveries.map(comparable)).toEqual(expected.discoveries.map(comparable));
      expect(parallel.discoveries.map((d) => d.index)).toEqual([0, 511, 512]);
      expect(parallel.stats.malformed).toBe(1);
      expect(sent.rowsByWorker).toHaveLength(size);
      for (const rows of sent.rowsByWorker) expect(rows).toBeGreaterThan(0);
      expect(sent.rows).toBeLessThan(999); // 999 well-formed rows: the calling thread scanned some
    }, 60_000);

    it('rejects with SCAN_WORKER_FAILED when a worker crashes, instead of waiting forever', async () => {
      const pool = await createScanPool(keys, { spawn: crashingWorker('crash'), size: 1, useCallingThread: true });
      pools.push(pool);
      await expect(pool.scan(large)).rejects.toMatchObject({ code: 'SCAN_WORKER_FAILED' });
    });

    it('defaults to one worker fewer than the cores, and refuses a non-boolean', async () => {
      const spawn = await nodeScanWorkerSpawner();
      const sized = async (cores: number, useCallingThread: boolean) => {
        const original = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
        Object.defineProperty(globalThis, 'navigator', { value: { hardwareConcurrency: cores }, configurable: true });
        try {
          const pool = await createScanPool(keys, { spawn, useCallingThread });
          pool.close();
          return pool.size;
        } finally {
          if (original) Object.defineProperty(globalThis, 'navigator', original);
          else delete (globalThis as { navigator?: unknown }).navigator;
        }
      };
      expect(await sized(3, true)).toBe(2);
      expect(await sized(1, true)).toBe(1);
      expect(await sized(3, false)).toBe(3);
      await expect(createScanPool(keys, { spawn, useCallingThread: 'yes' as unknown as boolean })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('useCallingThread'),
      });
    });
  });

  it('rejects a scan that is running when the pool is closed, and every later scan, instead of waiting forever', async () => {
    const pool = await createScanPool(keys, { spawn: await nodeScanWorkerSpawner(), size: 2 });
    const running = pool.scan(rows);
    pool.close();
    await expect(running).rejects.toMatchObject({ code: 'SCAN_WORKER_FAILED' });
    await expect(pool.scan(rows)).rejects.toMatchObject({ code: 'SCAN_WORKER_FAILED' });
  });

  it('rejects with SCAN_WORKER_FAILED when a worker crashes, without repeating what the worker said', async () => {
    const crashing = crashingWorker('secret detail from inside the worker');
    const pool = await createScanPool(keys, { spawn: crashing, size: 1 });
    pools.push(pool);
    const error = await pool.scan(rows).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WraithError);
    expect(error).toMatchObject({ code: 'SCAN_WORKER_FAILED' });
    expect(String((error as Error).message)).not.toContain('secret detail');
    await expect(pool.scan(rows)).rejects.toMatchObject({ code: 'SCAN_WORKER_FAILED' });
  });

  it('refuses mismatched keys before starting any worker', async () => {
    let spawned = 0;
    const spawn = await nodeScanWorkerSpawner();
    await expect(
      createScanPool({ ...keys, spendingSecretKey: other.spendingSecretKey }, { spawn: () => (spawned++, spawn()) }),
    ).rejects.toBeInstanceOf(KeyMismatchError);
    expect(spawned).toBe(0);
  });
});

describe('scan worker pool: sealed notes and announced addresses (PROTOCOL.md sections 7-8)', () => {
  const batch = noteBatch(40);

  it.each([
    ['2 workers', { size: 2 }],
    ['1 worker and the calling thread', { size: 1, useCallingThread: true }],
  ] as const)('with %s opens the same notes and flags the same addresses as one thread, without handing out the shared secret', async (_name, options) => {
    const pool = await createScanPool(batch.keys, { spawn: await nodeScanWorkerSpawner(), ...options });
    pools.push(pool);
    const { discoveries } = await pool.scan(batch.rows);
    expect(noteFieldsOf(discoveries)).toEqual(batch.expected);
    expect(noteFieldsOf(discoveries)).toEqual(noteFieldsOf(createScanner(batch.keys).scan(batch.rows).discoveries));
    for (const d of discoveries) {
      expect('sharedSecret' in d).toBe(false);
      expect(d.stealthSecretKey).toHaveLength(32);
    }
  });

  it('view-only, opens the same notes and hands over the shared secret', async () => {
    const viewOnly = { viewingSecretKey: batch.keys.viewingSecretKey, spendingPublicKey: batch.keys.spendingPublicKey };
    const pool = await createScanPool(viewOnly, { spawn: await nodeScanWorkerSpawner(), size: 2 });
    pools.push(pool);
    const { discoveries } = await pool.scan(batch.rows);
    expect(noteFieldsOf(discoveries)).toEqual(batch.expected);
    expect(discoveries.every((d) => d.sharedSecret?.length === 32 && d.stealthSecretKey === undefined)).toBe(true);
  });

  it('streams notes through scanRegistry on the pool', async () => {
    const pool = await createScanPool(batch.keys, { spawn: await nodeScanWorkerSpawner(), size: 2 });
    pools.push(pool);
    const found = [];
    for await (const b of scanRegistry(arrayPageSource(batch.rows, 100), batch.keys, { pool })) found.push(...b.discoveries);
    expect(found.map((d) => [d.announcement.id, d.noteStatus, d.note, d.stealthAddressMismatch])).toEqual(
      [...batch.expected].map(([index, e]) => [batch.rows[index]!.id, e.noteStatus, e.note, e.stealthAddressMismatch]),
    );
  });
});

describe('connectScanWorker', () => {
  it("refuses Node's parentPort off a worker thread (null) with a typed error that says where to call it", () => {
    const error = (() => {
      try {
        connectScanWorker(null);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).message).toContain('worker_threads');
  });
});
