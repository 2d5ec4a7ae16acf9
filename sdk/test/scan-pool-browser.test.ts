/**
 * In-browser scanning: the pool runs the scan in real Web Workers in Chromium (the worker entry
 * sdk/src/scan-worker.ts bundled as its own script), with the same results as Node's one thread:
 * with the WebAssembly SIMD kernel, and with the TypeScript kernel it falls back to on a page
 * whose Content-Security-Policy forbids compiling WebAssembly.
 */
import { describe, expect, it } from 'vitest';
import { bundleForBrowser } from '../../tests/helpers/browser-bundle.ts';
import { bytesToHex, createScanner, createStealthPayment, generateKeys } from '../src/index.ts';
import { launchChromium, skipBrowser } from '../../tests/helpers/chromium.ts';
import type { Browser, Page } from 'playwright-core';

// A page and worker served with this policy may not compile WebAssembly ('wasm-unsafe-eval' is
// missing), so `auto` must fall back to the TypeScript kernel, with the same results.
const NO_WASM_CSP = "default-src 'self'; script-src 'self' 'unsafe-inline'; worker-src 'self'";

/**
 * Chromium on a page of https://wallet.test/ with the SDK loaded as `Wraith` and the worker
 * script at /scan-worker.js, both served with `csp` when given. The caller closes the browser.
 */
async function openWalletPage(csp?: string): Promise<{ browser: Browser; page: Page }> {
  const [main, worker] = await Promise.all([
    bundleForBrowser(new URL('../src/index.ts', import.meta.url), { globalName: 'Wraith' }),
    bundleForBrowser(new URL('../src/scan-worker.ts', import.meta.url)),
  ]);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const headers: Record<string, string> = csp ? { 'Content-Security-Policy': csp } : {};
    await page.route('https://wallet.test/', (route) => route.fulfill({ contentType: 'text/html', headers, body: '<!doctype html><title>scan</title>' }));
    await page.route('https://wallet.test/scan-worker.js', (route) => route.fulfill({ contentType: 'text/javascript', headers, body: worker }));
    await page.goto('https://wallet.test/');
    await page.addScriptTag({ content: main });
    return { browser, page };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

describe('scan pool in Chromium Web Workers', () => {
  it.skipIf(skipBrowser).each([
    ['the WebAssembly SIMD kernel', 'wasm', undefined],
    ['the TypeScript kernel (a CSP without wasm-unsafe-eval)', 'typescript', NO_WASM_CSP],
  ])('finds the same payments with %s in Web Workers as one thread in Node', async (_name, kernel, csp) => {
    const keys = generateKeys();
    const other = generateKeys();
    const mine = new Set([5, 400, 999]);
    const rows = Array.from({ length: 1000 }, (_, i) => {
      const p = createStealthPayment(mine.has(i) ? keys.metaAddress : other.metaAddress);
      return { id: i, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag };
    });
    const expected = createScanner(keys).scan(rows).discoveries.map((d) => [d.announcement.id, d.stealthAddress, bytesToHex(d.stealthSecretKey!)]);
    const { browser, page } = await openWalletPage(csp);
    try {
      const out = await page.evaluate(
        async ({ rows, keys }) => {
          const W = (globalThis as any).Wraith;
          const hex = W.hexToBytes;
          const scanKeys = { viewingSecretKey: hex(keys.dk), spendingPublicKey: hex(keys.B), spendingSecretKey: hex(keys.b) };
          let spawned = 0;
          const pool = await W.createScanPool(scanKeys, { size: 2, spawn: () => (spawned++, new Worker('/scan-worker.js')) });
          const result = await pool.scan(rows);
          pool.close();
          const onPage = W.scanAnnouncements(scanKeys, rows);
          return {
            kernel: pool.kernel,
            pageKernel: W.effectiveKernel(),
            spawned,
            found: result.discoveries.map((d: any) => [d.announcement.id, d.stealthAddress, W.bytesToHex(d.stealthSecretKey)]),
            foundOnPage: onPage.discoveries.map((d: any) => [d.announcement.id, d.stealthAddress, W.bytesToHex(d.stealthSecretKey)]),
            scanned: result.stats.totalScanned,
          };
        },
        { rows, keys: { dk: bytesToHex(keys.viewingSecretKey), B: bytesToHex(keys.spendingPublicKey), b: bytesToHex(keys.spendingSecretKey) } },
      );
      expect(out.kernel).toBe(kernel);
      expect(out.pageKernel).toBe(kernel);
      expect(out.spawned).toBe(2);
      expect(out.scanned).toBe(1000);
      expect(out.found).toEqual(expected);
      expect(out.foundOnPage).toEqual(expected);
    } finally {
      await browser.close();
    }
  });

  // A page has no setImmediate: between its pieces the calling thread yields through a
  // MessageChannel, the path Node never takes.
  it.skipIf(skipBrowser)('with useCallingThread, the page scans rows too and the pool still finds the same payments in batch order', async () => {
    const keys = generateKeys();
    const mine = [0, 700, 3000, 5999];
    const honest = mine.map((at) => {
      const p = createStealthPayment(keys.metaAddress);
      return { id: at, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag };
    });
    const expected = createScanner(keys).scan(honest).discoveries.map((d) => [d.announcement.id, d.stealthAddress, bytesToHex(d.stealthSecretKey!)]);
    const { browser, page } = await openWalletPage();
    try {
      const out = await page.evaluate(
        async ({ honest, keys }) => {
          const W = (globalThis as any).Wraith;
          const hex = W.hexToBytes;
          const scanKeys = { viewingSecretKey: hex(keys.dk), spendingPublicKey: hex(keys.B), spendingSecretKey: hex(keys.b) };
          // 6,000 rows of random bytes (never a discovery), the honest payments at their ids.
          const rows: any[] = Array.from({ length: 6000 }, (_, i) => {
            const c = crypto.getRandomValues(new Uint8Array(1088));
            return { id: i, ephemeralKey: c, viewTag: c[0] };
          });
          for (const row of honest) rows[row.id] = row;
          let sentToWorker = 0;
          const spawn = () => {
            const w = new Worker('/scan-worker.js');
            const post = w.postMessage.bind(w);
            w.postMessage = (message: any, transfer?: any) => {
              if (message.type === 'scan') sentToWorker += message.indices.length;
              post(message, transfer);
            };
            return w;
          };
          const pool = await W.createScanPool(scanKeys, { size: 1, useCallingThread: true, spawn });
          const result = await pool.scan(rows);
          pool.close();
          const onPage = W.scanAnnouncements(scanKeys, rows);
          const view = (d: any) => [d.announcement.id, d.stealthAddress, W.bytesToHex(d.stealthSecretKey)];
          return {
            kernel: pool.kernel,
            sentToWorker,
            found: result.discoveries.map(view),
            indices: result.discoveries.map((d: any) => d.index),
            foundOnPage: onPage.discoveries.map(view),
            stats: [result.stats.totalScanned, result.stats.malformed, result.stats.viewTagMatches],
            statsOnPage: [onPage.stats.totalScanned, onPage.stats.malformed, onPage.stats.viewTagMatches],
          };
        },
        { honest, keys: { dk: bytesToHex(keys.viewingSecretKey), B: bytesToHex(keys.spendingPublicKey), b: bytesToHex(keys.spendingSecretKey) } },
      );
      expect(out.kernel).toBe('wasm');
      expect(out.found).toEqual(expected);
      expect(out.indices).toEqual(mine);
      expect(out.foundOnPage).toEqual(expected);
      expect(out.stats).toEqual(out.statsOnPage);
      // Both scanned: the worker got some rows, the page scanned the rest itself.
      expect(out.sentToWorker).toBeGreaterThan(0);
      expect(out.sentToWorker).toBeLessThan(6000);
    } finally {
      await browser.close();
    }
  });
});
