/**
 * ERC-8441 in the browser: the SDK bundled for browsers (esbuild, platform "browser") runs the 25
 * public vectors in Chromium with the results Node gives, and a wallet page scans a registry that
 * holds both schemes in one pass: its binary page served from the page's origin, read by the SDK's
 * client, every scheme-3 and scheme-1000 payment of the identity found with its note and one-time
 * key, no foreign or forged row reported.
 */
import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { bundleForBrowser } from '../../tests/helpers/browser-bundle.ts';
import { launchChromium, skipBrowser } from '../../tests/helpers/chromium.ts';
import {
  announcementMetadata,
  bytesToHex,
  createStealthPayment,
  encodeAnnouncementPage,
  erc8441KeysOf,
  generateKeys,
  type RegistryAnnouncement,
} from '../src/index.ts';
import { runErc8441Vectors, type VectorInputs } from './erc8441/vector-checks.ts';

const rows = (file: string) => JSON.parse(readFileSync(new URL(`./erc8441/${file}`, import.meta.url), 'utf8')).vectors;
const inputs: VectorInputs = {
  section1: rows('section-1.json'),
  section2: rows('section-2.json'),
  acvpTcId88Dk: (JSON.parse(readFileSync(new URL('./fixtures/acvp-ml-kem-768-decap-tcid88.json', import.meta.url), 'utf8')) as { dk: string }).dk,
};

describe('ERC-8441 vectors in Node (the same checks the browser runs)', () => {
  it('pass 25 of 25', () => {
    const results = runErc8441Vectors(inputs);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results).toHaveLength(25);
  });
});

describe.skipIf(skipBrowser)('ERC-8441 in Chromium', () => {
  it('runs the 25 public vectors in the browser bundle: 25 of 25 pass, as in Node', async () => {
    const code = await bundleForBrowser(new URL('./erc8441/vector-checks.ts', import.meta.url), { globalName: 'Vectors' });
    expect(code).not.toMatch(/require\(["'](node:)?(fs|crypto|buffer|path)["']\)/);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto('about:blank');
      await page.addScriptTag({ content: code });
      const out = await page.evaluate((given) => ({ results: (globalThis as any).Vectors.runErc8441Vectors(given), isNode: typeof (globalThis as any).process !== 'undefined' }), inputs);
      expect(out.isNode).toBe(false);
      expect(out.results.filter((r: { ok: boolean }) => !r.ok)).toEqual([]);
      expect(out.results.map((r: { id: string }) => r.id)).toEqual(runErc8441Vectors(inputs).map((r) => r.id));
      expect(out.results).toHaveLength(25);
    } finally {
      await browser.close();
    }
  });

  it('scans a registry holding both schemes in one pass: its scheme-3 and scheme-1000 payments found with notes and keys, foreign and forged rows not', async () => {
    const identity = generateKeys();
    const scheme3 = erc8441KeysOf(identity);
    const stranger = generateKeys();
    const paid = (meta: Uint8Array, amount: bigint | null, stealthAddress?: string) => {
      const payment = createStealthPayment(meta);
      const metadata = amount === null ? null : announcementMetadata(payment, { amount, chainId: 8453n }).subarray(1);
      return { payment, row: { ephemeralKey: payment.ephemeralCiphertext, viewTag: payment.viewTag, stealthAddress: stealthAddress ?? payment.stealthAddress, schemeId: payment.schemeId, metadata, chainId: 8453 } };
    };
    const mine3 = paid(scheme3.metaAddress, 300n);
    const mine1000 = paid(identity.metaAddress, 1000n);
    const mine3NoNote = paid(scheme3.metaAddress, null);
    const forged = paid(scheme3.metaAddress, 9n, `0x${'ab'.repeat(20)}`); // the identity's announcement at an address that is not its own
    const entries = [paid(erc8441KeysOf(stranger).metaAddress, 1n), mine3, paid(stranger.metaAddress, 2n), forged, mine1000, mine3NoNote];
    const registry: RegistryAnnouncement[] = entries.map((e, i) => ({ ...e.row, id: i + 1, timestamp: 1_700_000_000 + i, txHash: `0x${(i + 1).toString(16).padStart(64, '0')}` }) as RegistryAnnouncement);
    const pageBytes = encodeAnnouncementPage(registry);
    const emptyPage = encodeAnnouncementPage([]);
    expect([mine3.payment.schemeId, mine1000.payment.schemeId]).toEqual([3, 1000]);

    const code = await bundleForBrowser(new URL('../src/index.ts', import.meta.url), { globalName: 'Wraith' });
    const browser = await launchChromium();
    const served: string[] = [];
    try {
      const page = await browser.newPage();
      await page.route('https://wallet.test/', (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>scan</title>' }));
      await page.route('https://wallet.test/api/v1/registry/announcements?*', (route) => {
        const url = new URL(route.request().url());
        served.push(`${url.searchParams.get('after_id')}:${route.request().headers()['accept']}`);
        const body = url.searchParams.get('after_id') === '0' ? pageBytes : emptyPage;
        return route.fulfill({ status: 200, contentType: 'application/octet-stream', body: Buffer.from(body) });
      });
      await page.goto('https://wallet.test/');
      await page.addScriptTag({ content: code });
      const out = await page.evaluate(
        async ({ spendingSecret, viewingSeed }) => {
          const W = (globalThis as any).Wraith;
          const keys = W.generateKeys({ spendingSecret, viewingSeed });
          const client = W.createClient({ baseUrl: 'https://wallet.test' });
          const found: any[] = [];
          let batches = 0;
          let stats: any;
          for await (const batch of W.scanRegistry(client.announcementPages, keys)) {
            batches++;
            found.push(...batch.discoveries);
            stats = batch.stats ?? stats;
          }
          return {
            batches,
            stats: stats === undefined ? null : JSON.parse(JSON.stringify(stats, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))),
            found: found.map((d) => ({
              id: d.announcement.id,
              schemeId: d.schemeId,
              address: d.stealthAddress,
              amount: d.note?.amount?.toString() ?? null,
              noteStatus: d.noteStatus,
              key: W.bytesToHex(d.stealthSecretKey),
            })),
          };
        },
        { spendingSecret: bytesToHex(identity.spendingSecretKey), viewingSeed: bytesToHex(identity.viewingSeed) },
      );
      expect(served[0]).toMatch(/^0:application\/octet-stream/);
      // One page, one batch: both schemes in a single pass of the scanner.
      expect(out.batches).toBe(1);
      // The scanner reports discoveries in batch order whatever their scheme; sorted by id all the
      // same, so the comparison does not rest on that order.
      out.found.sort((a: any, b: any) => a.id - b.id);
      expect(out.found.map((d: any) => [d.id, d.schemeId, d.address, d.amount])).toEqual([
        [2, 3, mine3.payment.stealthAddress, '300'],
        [5, 1000, mine1000.payment.stealthAddress, '1000'],
        [6, 3, mine3NoNote.payment.stealthAddress, null],
      ]);
      // The same scan in Node gives the same keys.
      const { createScanner } = await import('../src/index.ts');
      const inNode = createScanner(identity).scan(registry).discoveries.sort((a, b) => a.index - b.index);
      expect(out.found.map((d: any) => d.key)).toEqual(inNode.map((d) => bytesToHex(d.stealthSecretKey!)));
      // Each key the browser found controls its address (viem derives the address on its own).
      for (const d of out.found) expect(privateKeyToAccount(`0x${d.key.replace(/^0x/, '')}`).address).toBe(d.address);
    } finally {
      await browser.close();
    }
  });
});
