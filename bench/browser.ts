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
