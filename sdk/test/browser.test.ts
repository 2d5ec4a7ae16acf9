/**
 * The SDK is isomorphic: it bundles for the browser with no Node built-ins and the whole protocol
 * round trip runs in Chromium, with results identical to Node's.
 */
import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { launchChromium, skipBrowser } from '../../tests/helpers/chromium.ts';

const sdkEntry = new URL('../src/index.ts', import.meta.url).pathname;
const vectors = JSON.parse(readFileSync(new URL('./vectors.shared.json', import.meta.url), 'utf8')).cases;

async function bundleForBrowser() {
  return build({
    entryPoints: [sdkEntry],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'Wraith',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
}

describe('browser build', () => {
  it('bundles for platform "browser" without any Node built-in', async () => {
    const result = await bundleForBrowser(); // fails to resolve node:* or fs/crypto/buffer imports on this platform
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((p) => p.endsWith('sdk/src/scanner.ts'))).toBe(true);
    expect(inputs.filter((p) => /^node:|(^|\/)(fs|path|crypto|buffer|worker_threads)$/.test(p))).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/require\(["'](node:)?(fs|crypto|buffer|path)["']\)/);
    expect(code).not.toMatch(/\bprocess\.env\b/);
  });

  it.skipIf(skipBrowser)('runs the vectors and a keys → pay → scan → spend round trip in Chromium', async () => {
    const code = (await bundleForBrowser()).outputFiles[0]!.text;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto('about:blank');
      await page.addScriptTag({ content: code });
      const out = await page.evaluate((cases) => {
        const W = (globalThis as any).Wraith;
        const hex = W.bytesToHex;
        const vectorResults = cases.map((v: any) => {
          const keys = W.generateKeys({ spendingSecret: v.input.spending_secret, viewingSeed: v.input.viewing_seed });
          const pay = W.createStealthPayment(keys.metaAddress, { message: v.input.encapsulation_message });
          const { discoveries } = W.scanAnnouncements(keys, [{ id: 1, ephemeral_key: hex(pay.ephemeralCiphertext), view_tag: pay.viewTag }]);
          return { meta: hex(keys.metaAddress), address: pay.stealthAddress, sui: pay.stealthSuiAddress, sk: hex(discoveries[0].stealthSecretKey) };
        });
        const alice = W.generateKeys();
        const bob = W.generateKeys();
        const toAlice = W.createStealthPayment('st:eth:0x' + hex(alice.metaAddress));
        const toBob = W.createStealthPayment(bob.metaAddress);
        const rows = [toBob, toAlice].map((p: any, i: number) => ({ id: i + 1, ephemeral_key: hex(p.ephemeralCiphertext), view_tag: p.viewTag }));
        const found = W.scanAnnouncements(alice, rows).discoveries;
        let legacyCode = '';
        try {
          W.decodeMetaAddress('01' + '00'.repeat(2368));
        } catch (e: any) {
          legacyCode = e.code;
        }
        return {
          vectorResults,
          found: found.map((d: any) => ({ id: d.announcement.id, address: d.stealthAddress })),
          expected: toAlice.stealthAddress,
          legacyCode,
          isNode: typeof (globalThis as any).process !== 'undefined',
        };
      }, vectors);
      expect(out.isNode).toBe(false);
      expect(out.vectorResults).toEqual(
        vectors.map((v: any) => ({
          meta: v.keys.meta_address,
          address: v.payment.stealth_address,
          sui: v.payment.stealth_sui_address,
          sk: v.spend.stealth_sk,
        })),
      );
      expect(out.found).toEqual([{ id: 2, address: out.expected }]);
      expect(out.legacyCode).toBe('LEGACY_META_ADDRESS');
    } finally {
      await browser.close();
    }
  });
});
