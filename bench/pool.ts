/**
 * Issue 6: worker-pool scaling in Node (worker_threads), 1 vs 2 workers on the same batches,
 * interleaved rounds. Scaling shows only when the other core is idle (TOOLCHAIN.md).
 */
import { createScanPool, createStealthPayment, generateKeys, type Announcement } from '../sdk/src/index.ts';
import { nodeScanWorkerSpawner } from '../tests/helpers/scan-worker-node.ts';
import { formatRate, median, type Measurement } from './harness.ts';

export async function benchPool(): Promise<Measurement[]> {
  const keys = generateKeys();
  const random = new Uint8Array(20_000 * 1088);
  for (let off = 0; off < random.length; off += 65_536) crypto.getRandomValues(random.subarray(off, off + 65_536));
  // Byte rows, as streamed binary pages decode to: parsing stays off the (serial) main thread.
  const rows: Announcement[] = Array.from({ length: 20_000 }, (_, i) => {
    const c = random.subarray(i * 1088, (i + 1) * 1088);
    return { id: i + 1, ephemeralKey: c, viewTag: c[0]! };
  });
  const mine = createStealthPayment(keys.metaAddress);
  rows[10_000] = { id: 10_001, ephemeralKey: mine.ephemeralCiphertext, viewTag: mine.viewTag };
  const spawn = await nodeScanWorkerSpawner();
  const pools = [await createScanPool(keys, { spawn, size: 1 }), await createScanPool(keys, { spawn, size: 2 })];
  try {
    for (const pool of pools) await pool.scan(rows.slice(0, 2000)); // warm-up
    const samples: number[][] = [[], []];
    for (let round = 0; round < 5; round++) {
      for (const [i, pool] of pools.entries()) {
        const started = performance.now();
        const { discoveries } = await pool.scan(rows);
        samples[i]!.push((rows.length * 1000) / (performance.now() - started));
        if (discoveries.length !== 1) throw new Error('pool scan found the wrong payments');
      }
    }
    const out = pools.map((pool, i) => ({ name: `pool of ${pool.size} (${pool.kernel})`, opsPerSecond: median(samples[i]!), unit: 'ann/s', samples: samples[i]! }));
    console.log('\n## Worker pool scaling (Node worker_threads, 20,000 byte rows, median of 5)\n');
    console.log('| measure | rate | vs 1 worker |\n|---|---:|---:|');
    for (const row of out) console.log(`| ${row.name} | ${formatRate(row.opsPerSecond)} ann/s | ${(row.opsPerSecond / out[0]!.opsPerSecond).toFixed(2)}x |`);
    return out;
  } finally {
    pools.forEach((p) => p.close());
  }
}
