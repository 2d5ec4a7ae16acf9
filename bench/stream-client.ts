/**
 * The client half of bench/stream.ts, in a fresh process so its peak RSS is the scanner's alone:
 * reads {url, keys, fetchOnly} on stdin, streams every binary page into scanRegistry on a pool of
 * 2 workers (STREAM_WORKERS sets another size), or with `fetchOnly` only fetches and decodes the
 * pages, and prints one JSON line {seconds, scanned, peakRss, found}.
 */
import os from 'node:os';
import { createScanPool, decodeAnnouncementPage, hexToBytes, scanRegistry, type RegistryAnnouncement, type RegistryPageSource } from '../sdk/src/index.ts';
import { nodeScanWorkerSpawner } from '../tests/helpers/scan-worker-node.ts';

const PAGE = 1000;
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, keys: hex, fetchOnly } = JSON.parse(input) as { url: string; keys: Record<string, string>; fetchOnly?: boolean };
const keys = { viewingSecretKey: hexToBytes(hex.viewingSecretKey!), spendingPublicKey: hexToBytes(hex.spendingPublicKey!), spendingSecretKey: hexToBytes(hex.spendingSecretKey!) };

const pool = await createScanPool(keys, { spawn: await nodeScanWorkerSpawner(), size: Number(process.env.STREAM_WORKERS ?? Math.min(2, os.cpus().length)) });
try {
  const source: RegistryPageSource<RegistryAnnouncement> = async function* ({ afterId, signal }) {
    let cursor = afterId;
    for (;;) {
      const response = await fetch(`${url}/api/v1/registry/announcements?after_id=${cursor}&limit=${PAGE}`, {
        headers: { accept: 'application/octet-stream' },
        ...(signal ? { signal } : {}),
      });
      if (!response.ok) throw new Error(`page after ${cursor}: HTTP ${response.status}`);
      const rows = decodeAnnouncementPage(new Uint8Array(await response.arrayBuffer()));
      if (rows.length === 0) return;
      yield rows;
      cursor = rows[rows.length - 1]!.id;
      if (rows.length < PAGE) return;
    }
  };
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const started = performance.now();
  const found = new Map<number, string>();
  let scanned = 0;
  if (fetchOnly) {
    for await (const page of source({ afterId: 0 })) scanned += page.length;
  } else {
    for await (const batch of scanRegistry(source, keys, { pool })) {
      scanned += batch.scanned;
      for (const d of batch.discoveries) found.set(d.announcement.id, d.stealthAddress);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  console.log(JSON.stringify({ seconds, scanned, peakRss, found: [...found] }));
} finally {
  pool.close();
}
