/**
 * The client half of bench/stream.ts, in a fresh process so its peak RSS is the scanner's alone:
 * reads {url, keys, fetchOnly} on stdin, streams every binary page (the SDK client's
 * `announcementPages`, 5,000 rows a page unless PAGE says otherwise) into scanRegistry on a pool of
 * 2 workers (STREAM_WORKERS sets another size; 0: no pool, the scan on this one thread), or with
 * `fetchOnly` only fetches and decodes the pages, and prints one JSON line {seconds, scanned, peakRss, found}.
 */
import os from 'node:os';
import { createClient, createScanPool, hexToBytes, scanRegistry } from '../sdk/src/index.ts';
import { nodeScanWorkerSpawner } from '../tests/helpers/scan-worker-node.ts';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, keys: hex, fetchOnly } = JSON.parse(input) as { url: string; keys: Record<string, string>; fetchOnly?: boolean };
const keys = { viewingSecretKey: hexToBytes(hex.viewingSecretKey!), spendingPublicKey: hexToBytes(hex.spendingPublicKey!), spendingSecretKey: hexToBytes(hex.spendingSecretKey!) };

const workers = Number(process.env.STREAM_WORKERS ?? Math.min(2, os.cpus().length));
const pool = workers === 0 ? undefined : await createScanPool(keys, { spawn: await nodeScanWorkerSpawner(), size: workers });
try {
  // The SDK client's page source: binary pages of its default (largest) size, or PAGE rows.
  const client = createClient({ baseUrl: url });
  const pageSize = process.env.PAGE ? { pageSize: Number(process.env.PAGE) } : {};
  const source: typeof client.announcementPages = (params) => client.announcementPages({ ...params, ...pageSize });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const started = performance.now();
  const found = new Map<number, string>();
  let scanned = 0;
  if (fetchOnly) {
    for await (const page of source()) scanned += page.length;
  } else {
    for await (const batch of scanRegistry(source, keys, pool ? { pool } : {})) {
      scanned += batch.scanned;
      for (const d of batch.discoveries) found.set(d.announcement.id, d.stealthAddress);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  console.log(JSON.stringify({ seconds, scanned, peakRss, found: [...found] }));
} finally {
  pool?.close();
}
