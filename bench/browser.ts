/**
 * Issue 6 in the browser: 100,000 announcements scanned in Chromium inside Web Workers (the SDK's
 * scan pool; the worker entry bundled from sdk/src/scan-worker.ts), timed inside the page. The
 * registry is made in the page: random ciphertexts with random view tags (1 in 256 matches a tag
 * and takes the full check, as foreign announcements do) plus 10 honest payments.
 */
import { bundleForBrowser } from '../tests/helpers/browser-bundle.ts';
import { launchChromium } from '../tests/helpers/chromium.ts';
import type { Measurement } from './harness.ts';
import { formatRate } from './harness.ts';

export async function benchBrowser(): Promise<Measurement[]> {
  const n = Number(process.env.BROWSER_N ?? 100_000);
  const [main, worker] = await Promise.all([
    bundleForBrowser(new URL('../sdk/src/index.ts', import.meta.url), { globalName: 'Wraith', minify: true }),
    bundleForBrowser(new URL('../sdk/src/scan-worker.ts', import.meta.url), { minify: true }),
  ]);
  const browser = await launchChromium();
  // The same page twice: as is (the WebAssembly SIMD kernel), and served with a CSP that forbids
  // compiling WebAssembly, where the SDK falls back to the TypeScript kernel.
  const scanInPage = async (csp?: string) => {
    const page = await browser.newPage();
    const headers: Record<string, string> = csp ? { 'Content-Security-Policy': csp } : {};
    await page.route('https://wallet.test/', (route) => route.fulfill({ contentType: 'text/html', headers, body: '<!doctype html><title>bench</title>' }));
    await page.route('https://wallet.test/scan-worker.js', (route) => route.fulfill({ contentType: 'text/javascript', headers, body: worker }));
    await page.goto('https://wallet.test/');
    await page.addScriptTag({ content: main });
    // tsx keeps function names by wrapping them in __name(...); the serialised function needs it.
    await page.addScriptTag({ content: 'window.__name = (f) => f;' });
    const results = await page.evaluate(async (n) => {
      const W = (globalThis as any).Wraith;
      const keys = W.generateKeys();
      const rows: any[] = [];
      const honestAt = new Set(Array.from({ length: 10 }, (_, i) => Math.floor(((i + 0.5) * n) / 10)));
      const pool = new Uint8Array(n * 1088);
      for (let off = 0; off < pool.length; off += 65536) crypto.getRandomValues(pool.subarray(off, Math.min(pool.length, off + 65536)));
      for (let i = 0; i < n; i++) {
        if (honestAt.has(i)) {
          const p = W.createStealthPayment(keys.metaAddress);
          rows.push({ id: i + 1, ephemeralKey: p.ephemeralCiphertext, viewTag: p.viewTag });
        } else {
          const c = pool.subarray(i * 1088, (i + 1) * 1088);
          rows.push({ id: i + 1, ephemeralKey: c, viewTag: c[0] });
        }
      }
      const out: Record<string, number | string> = {};
      for (const size of [1, 2]) {
        const scanPool = await W.createScanPool(keys, { size, spawn: () => new Worker('/scan-worker.js') });
        await scanPool.scan(rows.slice(0, 2000)); // warm up the workers' JIT and WASM
        const started = performance.now();
        const result = await scanPool.scan(rows);
        const ms = performance.now() - started;
        scanPool.close();
        out[`ms${size}`] = ms;
        out[`found${size}`] = result.discoveries.length;
        out.kernel = scanPool.kernel;
      }
      return out;
    }, n);
    await page.close();
    return results;
  };
  try {
    const measured = [await scanInPage(), await scanInPage("default-src 'self'; script-src 'self' 'unsafe-inline'; worker-src 'self'")];
    const rows: (Measurement & { found: unknown })[] = measured.flatMap((results) =>
      [1, 2].map((size) => ({
        name: `Chromium (${results.kernel} kernel), ${n.toLocaleString()} announcements, ${size} Web Worker${size > 1 ? 's' : ''}`,
        opsPerSecond: (n * 1000) / (results[`ms${size}`] as number),
        unit: 'ann/s',
        samples: [results[`ms${size}`] as number],
        found: results[`found${size}`],
      })),
    );
    console.log(`\n## Browser scan (Chromium ${browser.version()})\n`);
    console.log('| measure | time | rate | found |\n|---|---:|---:|---:|');
    for (const row of rows) console.log(`| ${row.name} | ${(row.samples[0]! / 1000).toFixed(2)} s | ${formatRate(row.opsPerSecond)} ann/s | ${row.found} of 10 |`);
    if (measured[0]!.kernel !== 'wasm' || measured[1]!.kernel !== 'typescript') throw new Error('the browser bench ran other kernels than it says');
    if (rows.some((row) => row.found !== 10)) throw new Error('the browser scan missed or invented payments');
    return rows.map(({ found: _found, ...row }) => row);
  } finally {
    await browser.close();
  }
}

/**
 * Issue 25: scheme-3 (ERC-8441) rows in one Chromium Web Worker (the SDK's pool of 1, WASM
 * kernel), timed inside the page: 1,024 foreign payments (64 distinct ones, repeated) and one of
 * the recipient's, after a warm-up batch. Run from `npm run bench -- sdk`, beside the Node rows.
 */
export async function benchScheme3Browser(): Promise<Measurement[]> {
  const [main, worker] = await Promise.all([
    bundleForBrowser(new URL('../sdk/src/index.ts', import.meta.url), { globalName: 'Wraith', minify: true }),
    bundleForBrowser(new URL('../sdk/src/scan-worker.ts', import.meta.url), { minify: true }),
  ]);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.route('https://wallet.test/', (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>bench</title>' }));
    await page.route('https://wallet.test/scan-worker.js', (route) => route.fulfill({ contentType: 'text/javascript', body: worker }));
    await page.goto('https://wallet.test/');
    await page.addScriptTag({ content: main });
    await page.addScriptTag({ content: 'window.__name = (f) => f;' });
    const result = await page.evaluate(async () => {
      const W = (globalThis as any).Wraith;
      const identity = W.generateKeys();
      const other = W.erc8441KeysOf(W.generateKeys()).metaAddress;
      const distinct = Array.from({ length: 64 }, () => W.createStealthPayment(other));
      const rows = Array.from({ length: 1024 }, (_, i) => distinct[i % 64]);
      rows[512] = W.createStealthPayment(W.erc8441KeysOf(identity).metaAddress);
      const pool = await W.createScanPool(identity, { size: 1, spawn: () => new Worker('/scan-worker.js') });
      const warm = await pool.scan(rows); // warm-up; the payment is reported once per pool
      const started = performance.now();
      const timed = await pool.scan(rows);
      const ms = performance.now() - started;
      pool.close();
      return { ms, found: warm.discoveries.length, kernel: pool.kernel, erc8441: timed.stats.erc8441 };
    });
    if (result.found !== 1 || result.erc8441 !== 1024 || result.kernel !== 'wasm') throw new Error(`the browser scheme-3 scan went wrong: ${JSON.stringify(result)}`);
    return [{ name: `scheme-3 scan, Chromium ${browser.version()}, one Web Worker (${result.kernel}), 1,024 rows a batch`, opsPerSecond: (1024 * 1000) / result.ms, unit: 'rows/s', samples: [result.ms] }];
  } finally {
    await browser.close();
  }
}
