/**
 * Issue 6: worker-pool scaling in Node (worker_threads): the scanner on this thread (one core),
 * then pools of 1 and 2 workers, and a pool of 1 worker in which this thread scans too
 * (`useCallingThread`, the setting for Node on 2 cores), on the same 100,000 byte rows,
 * interleaved rounds. Scaling shows only when the other core is idle (TOOLCHAIN.md).
 */
import { createScanner, createScanPool, createStealthPayment, generateKeys, type Announcement, type ScanResult } from '../sdk/src/index.ts';
import { nodeScanWorkerSpawner } from '../tests/helpers/scan-worker-node.ts';
import { formatRate, median, type Measurement } from './harness.ts';

const ROWS = 100_000;
const ROUNDS = 11;

export async function benchPool(): Promise<Measurement[]> {
  const keys = generateKeys();
  const random = new Uint8Array(ROWS * 1088);
  for (let off = 0; off < random.length; off += 65_536) crypto.getRandomValues(random.subarray(off, off + 65_536));
  // Byte rows, as streamed binary pages decode to: parsing stays off the (serial) main thread.
  const rows: Announcement[] = Array.from({ length: ROWS }, (_, i) => {
    const c = random.subarray(i * 1088, (i + 1) * 1088);
    return { id: i + 1, ephemeralKey: c, viewTag: c[0]! };
  });
  const mine = createStealthPayment(keys.metaAddress);
  rows[ROWS / 2] = { id: ROWS / 2 + 1, ephemeralKey: mine.ephemeralCiphertext, viewTag: mine.viewTag };
  const spawn = await nodeScanWorkerSpawner();
  const pools = [
    { pool: await createScanPool(keys, { spawn, size: 1 }), also: '' },
    { pool: await createScanPool(keys, { spawn, size: 2 }), also: '' },
    { pool: await createScanPool(keys, { spawn, size: 1, useCallingThread: true }), also: ' + this thread (useCallingThread)' },
  ];
  const scanner = createScanner(keys);
  const cases: { name: string; scan: (batch: Announcement[]) => Promise<ScanResult<Announcement>> | ScanResult<Announcement> }[] = [
    { name: 'this thread, no pool (one core)', scan: (batch) => scanner.scan(batch) },
    ...pools.map(({ pool, also }) => ({ name: `pool of ${pool.size} (${pool.kernel})${also}`, scan: (batch: Announcement[]) => pool.scan(batch) })),
  ];
  try {
    // Warm-up: a fresh worker runs its WebAssembly on V8's baseline tier until the optimising
    // tier has compiled the hot functions, which takes a few full batches.
    for (let round = 0; round < 3; round++) for (const c of cases) await c.scan(rows);
    const samples: number[][] = cases.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of cases.entries()) {
        const started = performance.now();
        const { discoveries } = await c.scan(rows);
        samples[i]!.push((rows.length * 1000) / (performance.now() - started));
        if (discoveries.length !== 1 || discoveries[0]!.index !== ROWS / 2) throw new Error('pool scan found the wrong payments');
      }
    }
    const out = cases.map((c, i) => ({ name: c.name, opsPerSecond: median(samples[i]!), unit: 'ann/s', samples: samples[i]! }));
    console.log(`\n## Worker pool scaling (Node worker_threads, ${ROWS.toLocaleString()} byte rows a batch, median of ${ROUNDS})\n`);
    // Besides the ratio of the medians, the median of the per-round ratios: each round runs every
    // case back to back, so this one is less moved by the VM's speed drifting between rounds.
    const paired = (i: number) => median(samples[i]!.map((rate, round) => rate / samples[0]![round]!));
    console.log('| measure | rate | vs one core | vs one core, paired rounds | vs pool of 1 |\n|---|---:|---:|---:|---:|');
    for (const [i, row] of out.entries()) {
      const vsOne = (row.opsPerSecond / out[0]!.opsPerSecond).toFixed(2);
      console.log(`| ${row.name} | ${formatRate(row.opsPerSecond)} ann/s | ${vsOne}x | ${paired(i).toFixed(2)}x | ${(row.opsPerSecond / out[1]!.opsPerSecond).toFixed(2)}x |`);
    }
    return out;
  } finally {
    pools.forEach(({ pool }) => pool.close());
  }
}
