/**
 * Issue 17: the Scan page end to end, as a user meets it, against the SDK in Node on the same
 * server in the same run.
 *
 * N announcements (default 200,000; SCAN_PAGE_N=1000000 for a million) are seeded into the real
 * server's SQLite registry (bench/seed-registry.ts: random foreign rows and 10 honest payments to
 * one recipient; SCAN_PAGE_ROWS=chain stores them as chain events, with a stealth address each). The recipient's keystore is placed in the browser's storage, the keys unlocked
 * on the Scan page, and each round times, in Chromium, "Start scan" (or "Scan again from the
 * start") to "Scan complete", and in Node (a fresh process, bench/stream-client.ts with
 * STREAM_WORKERS=0) `scanRegistry(client.announcementPages, keys)` on one thread. Rounds alternate
 * who goes first (the first round's first scan meets the freshly started server). Both must find
 * exactly the 10 payments. Target: the page within 1.3x of Node. For reference each round also
 * times the same binary pages fetched in the page and nothing else: the browser's own transport,
 * which no page can beat. Chromium is driven over its DevTools pipe without network recording
 * (bench/cdp-pipe.ts), as a user's browser runs. Needs `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bytesToHex, sealKeys } from '../sdk/src/index.ts';
import { startServer, temporaryDirectory } from '../tests/helpers/server.ts';
import { REQUESTS_IN_FLIGHT } from '../app/(web)/_lib/registry-source.ts';
import { launchPipeChromium } from './cdp-pipe.ts';
import { median, type Measurement } from './harness.ts';
import { seedRegistry } from './seed-registry.ts';

const PASSWORD = 'bench password';

/** DOM helpers for driving the page through `Runtime.evaluate` (bench/cdp-pipe.ts). */
const PAGE_HELPERS = `window.__wraith = {
  waitFor(find, timeout = 60000) {
    return new Promise((resolve, reject) => {
      const deadline = performance.now() + timeout;
      const poll = () => {
        const found = find();
        if (found) return resolve(found);
        if (performance.now() > deadline) return reject(new Error('timed out waiting for ' + find));
        setTimeout(poll, 5);
      };
      poll();
    });
  },
  button(name) { return [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === name && !b.disabled) ?? null; },
  labelled(text) { const label = [...document.querySelectorAll('label')].find((l) => l.textContent.trim() === text); return label ? document.getElementById(label.htmlFor) : null; },
  fill(input, value) {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  },
};`;

export async function benchScanPage(): Promise<Measurement[]> {
  const n = Number(process.env.SCAN_PAGE_N ?? 200_000);
  const rounds = Number(process.env.SCAN_PAGE_ROUNDS ?? 2);
  const dir = temporaryDirectory('wraith-scan-page-');
  const url = `file:${dir.path}/registry.db`;
  const seeded = performance.now();
  const chainEvents = process.env.SCAN_PAGE_ROWS === 'chain';
  const { keys, honest } = await seedRegistry(url, n, { chainEvents });
  console.log(`\nseeded ${n.toLocaleString()} announcements in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  const envelope = await sealKeys(keys, PASSWORD, { iterations: 100_000 });
  const server = await startServer({ env: { REGISTRY_URL: url, RATE_LIMIT_RPS: '0', LOG_LEVEL: 'warn' } });
  const page = await launchPipeChromium();
  try {
    await page.addInitScript(
      `if (window.localStorage.getItem('wraith.keystore.v1') === null) window.localStorage.setItem('wraith.keystore.v1', ${JSON.stringify(envelope)});` +
        `window.addEventListener('error', (e) => (window.__pageErrors ??= []).push(String(e.message)));`,
    );
    await page.goto(`${server.url}/scan`);
    await page.evaluate(`${PAGE_HELPERS}; 0`);
    await page.evaluate(`(async () => {
      await __wraith.waitFor(() => __wraith.labelled('Keystore password'));
      __wraith.fill(__wraith.labelled('Keystore password'), ${JSON.stringify(PASSWORD)});
      __wraith.button('Unlock').click();
      await __wraith.waitFor(() => __wraith.button('Start scan'));
    })()`);

    // Timed in the page itself: the click to the first frame that shows the outcome.
    const scanPage = async (): Promise<number> => {
      // Every round is a first scan: full pages are immutable, so a rescan in the same browser
      // would read them from the HTTP cache (timed once, after the rounds).
      await page.clearHttpCache();
      const result = await page.evaluate<{ ms: number; text: string; scanned: number; found: number; addresses: string[] }>(`(async () => {
        const button = __wraith.button('Scan again from the start') ?? __wraith.button('Start scan');
        const started = performance.now();
        button.click();
        // Done when the outcome shows and so do the payments it found (React may paint the two in separate frames).
        const count = (id) => Number(document.querySelector('[data-testid="' + id + '"]').textContent.replace(/,/g, ''));
        const found = () => count('found-count');
        const outcomeNotice = () => [...document.querySelectorAll('.notice')].find((n) => /Scan complete|The scan stopped|Scan cancelled/.test(n.textContent));
        // The previous round's outcome goes first (React renders the click's updates a moment later).
        await __wraith.waitFor(() => !outcomeNotice());
        let seen = 0;
        const outcome = await __wraith.waitFor(() => {
          const notice = outcomeNotice();
          if (!notice) return null;
          seen ||= performance.now();
          return found() > 0 || performance.now() - seen > 2000 ? notice : null;
        }, 600000);
        const ms = performance.now() - started;
        return {
          ms,
          text: outcome.textContent,
          scanned: count('scanned-count'),
          found: found(),
          addresses: [...document.querySelectorAll('[data-testid="discovery-address"]')].map((e) => e.textContent),
        };
      })()`);
      // Every row checked, as the Node scan must: a page that skipped rows could still find the payments.
      if (!result.text.includes('Scan complete') || result.scanned !== n || result.found !== honest.size || result.addresses.sort().join() !== [...honest.values()].sort().join()) {
        throw new Error(`the Scan page ended with "${result.text}", ${result.scanned} rows checked and ${result.found} payments, expected ${n} rows and the ${honest.size} seeded`);
      }
      return result.ms / 1000;
    };
    const scanNode = (): number => {
      const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./stream-client.ts', import.meta.url))], {
        input: JSON.stringify({
          url: server.url,
          keys: { viewingSecretKey: bytesToHex(keys.viewingSecretKey), spendingPublicKey: bytesToHex(keys.spendingPublicKey), spendingSecretKey: bytesToHex(keys.spendingSecretKey) },
        }),
        env: { ...process.env, STREAM_WORKERS: '0' },
        encoding: 'utf8',
        maxBuffer: 64 * 2 ** 20,
      });
      if (child.status !== 0) throw new Error(`the Node scan failed:\n${child.stderr}`);
      const result = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { seconds: number; scanned: number; found: [number, string][] };
      const found = new Map(result.found);
      if (result.scanned !== n || found.size !== honest.size || [...honest].some(([id, address]) => found.get(id) !== address)) {
        throw new Error(`the Node scan saw ${result.scanned} rows and ${found.size} payments`);
      }
      return result.seconds;
    };

    // The browser's own transport, for reference: the same binary pages fetched in the page
    // (fetch + arrayBuffer, 5,000 rows a request, `inFlight` requests at a time as the Scan page
    // sends them), nothing decoded or scanned.
    const fetchOnly = async (inFlight: number): Promise<number> => {
      const ms = await page.evaluate<number>(`(async () => {
        const started = performance.now();
        let next = 0;
        let end = Infinity;
        const walker = async () => {
          while (next < end) {
            const after = next;
            next += 5000; // the seeded ids are 1..N
            const response = await fetch('/api/v1/registry/announcements?after_id=' + after + '&limit=5000', { headers: { accept: 'application/octet-stream' }, cache: 'no-store' });
            const count = new DataView(await response.arrayBuffer()).getUint32(4, true);
            if (count < 5000) end = Math.min(end, after);
          }
        };
        await Promise.all(Array.from({ length: ${inFlight} }, walker));
        return performance.now() - started;
      })()`);
      return ms / 1000;
    };
    const fetchSeconds: number[] = [];
    const fetchParallelSeconds: number[] = [];
    const pageSeconds: number[] = [];
    const nodeSeconds: number[] = [];
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        pageSeconds.push(await scanPage());
        nodeSeconds.push(scanNode());
      } else {
        nodeSeconds.push(scanNode());
        pageSeconds.push(await scanPage());
      }
      fetchSeconds.push(await fetchOnly(1));
      fetchParallelSeconds.push(await fetchOnly(REQUESTS_IN_FLIGHT));
    }
    const errors = await page.evaluate<string[] | null>('window.__pageErrors ?? null');
    if (errors) throw new Error(`the Scan page reported errors: ${errors.join('; ')}`);
    const ratio = median(pageSeconds) / median(nodeSeconds);
    console.log(`\n## Scan page end to end: ${n.toLocaleString()} announcements${chainEvents ? ' (chain events)' : ''}, real server (SQLite), ${page.version} (no DevTools network recording)\n`);
    console.log(`| round | Scan page | SDK in Node, one thread | page / Node | Chromium fetch alone, 1 / ${REQUESTS_IN_FLIGHT} at a time (reference) |\n|---|---:|---:|---:|---:|`);
    for (let round = 0; round < rounds; round++) {
      const first = round === 0 ? ' (page first, server just started)' : round % 2 === 0 ? ' (page first)' : ' (Node first)';
      console.log(`| ${round + 1}${first} | ${pageSeconds[round]!.toFixed(2)} s | ${nodeSeconds[round]!.toFixed(2)} s | ${(pageSeconds[round]! / nodeSeconds[round]!).toFixed(2)}x | ${fetchSeconds[round]!.toFixed(2)} s / ${fetchParallelSeconds[round]!.toFixed(2)} s |`);
    }
    console.log(`| median | ${median(pageSeconds).toFixed(2)} s | ${median(nodeSeconds).toFixed(2)} s | ${ratio.toFixed(2)}x (target <= 1.3x: ${ratio <= 1.3 ? 'met' : 'NOT met'}) | ${median(fetchSeconds).toFixed(2)} s / ${median(fetchParallelSeconds).toFixed(2)} s (page / fetch alone at ${REQUESTS_IN_FLIGHT}: ${(median(pageSeconds) / median(fetchParallelSeconds)).toFixed(2)}x) |`);
    return [
      { name: `Scan page end to end, ${n.toLocaleString()} announcements`, opsPerSecond: n / median(pageSeconds), unit: 'ann/s', samples: pageSeconds },
      { name: `SDK in Node end to end, one thread, ${n.toLocaleString()} announcements`, opsPerSecond: n / median(nodeSeconds), unit: 'ann/s', samples: nodeSeconds },
    ];
  } finally {
    await page.close();
    await server.stop();
    dir.remove();
  }
}
