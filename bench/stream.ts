/**
 * Issue 6 end to end: N announcements (default 1,000,000) in the real server's SQLite registry,
 * streamed as binary cursor pages (GET /api/v1/registry/announcements?after_id&limit=5000,
 * Accept: application/octet-stream, through the SDK client's `announcementPages`) into the SDK's
 * scanRegistry on a worker pool (2 threads), measuring wall time, rate and the client's peak RSS:
 * a first scan against the freshly started server, the pages fetched without scanning, and a
 * second scan against the warm server. The registry is seeded with SQL (random 1088-byte
 * ciphertexts with random tags, plus 10 honest payments to the scanning key), not through HTTP.
 * Needs `npm run build` first. `STREAM_N=100000 npm run bench stream` for less; PAGE=1000 for
 * smaller pages, STREAM_WORKERS for another pool size.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bytesToHex } from '../sdk/src/index.ts';
import { startServer, temporaryDirectory } from '../tests/helpers/server.ts';
import type { Measurement } from './harness.ts';
import { formatRate } from './harness.ts';
import { seedRegistry } from './seed-registry.ts';

export async function benchStream(): Promise<Measurement[]> {
  const n = Number(process.env.STREAM_N ?? 1_000_000);
  const dir = temporaryDirectory('wraith-stream-');
  const url = `file:${dir.path}/registry.db`;
  const seedStart = performance.now();
  const { keys: seededKeys, honest } = await seedRegistry(url, n);
  console.log(`\nseeded ${n.toLocaleString()} announcements in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
  const server = await startServer({ env: { REGISTRY_URL: url, RATE_LIMIT_RPS: '0', LOG_LEVEL: 'warn' } });
  try {
    type ClientResult = { seconds: number; scanned: number; peakRss: number; found: [number, string][] };
    const runClient = (fetchOnly: boolean): ClientResult => {
      const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./stream-client.ts', import.meta.url))], {
        input: JSON.stringify({
          url: server.url,
          fetchOnly,
          keys: { viewingSecretKey: bytesToHex(seededKeys.viewingSecretKey), spendingPublicKey: bytesToHex(seededKeys.spendingPublicKey), spendingSecretKey: bytesToHex(seededKeys.spendingSecretKey) },
        }),
        encoding: 'utf8',
        maxBuffer: 64 * 2 ** 20,
      });
      if (child.status !== 0) throw new Error(`stream client failed:\n${child.stderr}`);
      return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as ClientResult;
    };
    // A scan against the freshly started server, the pages alone (fetch and decode, no scan: what
    // the server delivers by itself), then the scan again against the now warm server.
    const cold = runClient(false);
    const pagesOnly = runClient(true);
    const result = runClient(false);
    const correctly = (run: ClientResult) => {
      const found = new Map(run.found);
      return found.size === honest.size && [...honest].every(([id, a]) => found.get(id) === a);
    };
    const correct = correctly(cold) && correctly(result);
    console.log(`\n## Streaming scan: ${n.toLocaleString()} announcements, real server → binary pages of ${process.env.PAGE ?? 5000} rows → ${process.env.STREAM_WORKERS ?? 2}-worker pool\n`);
    console.log('| measure | value |\n|---|---:|');
    console.log(`| end to end, first scan after the server started | ${cold.seconds.toFixed(1)} s, ${formatRate(cold.scanned / cold.seconds)} ann/s |`);
    console.log(`| the same pages fetched and decoded, not scanned | ${pagesOnly.seconds.toFixed(1)} s, ${formatRate(pagesOnly.scanned / pagesOnly.seconds)} ann/s |`);
    console.log(`| end to end, scanning again (warm server) | ${result.seconds.toFixed(1)} s, ${formatRate(result.scanned / result.seconds)} ann/s |`);
    console.log(`| client peak RSS (fresh process, incl. worker threads; largest of the two scans) | ${Math.round(Math.max(cold.peakRss, result.peakRss) / 2 ** 20)} MB |`);
    console.log(`| found the ${honest.size} honest payments, nothing else | ${correct ? 'yes' : 'NO'} |`);
    if (!correct) throw new Error('streaming scan found the wrong set of payments');
    return [
      { name: 'stream scan end-to-end, first scan', opsPerSecond: cold.scanned / cold.seconds, unit: 'ann/s', samples: [cold.seconds] },
      { name: 'stream scan end-to-end, warm server', opsPerSecond: result.scanned / result.seconds, unit: 'ann/s', samples: [result.seconds] },
      { name: 'stream scan client peak RSS (MB)', opsPerSecond: Math.max(cold.peakRss, result.peakRss) / 2 ** 20, unit: 'MB', samples: [] },
      { name: 'stream pages fetched and decoded only', opsPerSecond: pagesOnly.scanned / pagesOnly.seconds, unit: 'ann/s', samples: [pagesOnly.seconds] },
    ];
  } finally {
    await server.stop();
    dir.remove();
  }
}
