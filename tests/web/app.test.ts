/**
 * The web app, driven like a person in Chromium against the real server (tests/web/harness.ts):
 * receive → publish under an ENS name → send to the name → announce → scan finds the payment
 * and its revealed key controls the address; cancel and resume of a long scan; the keystore's
 * wrong-password message; no request ever carries a secret key; screenshots of every page at
 * desktop and mobile widths (test-results/screenshots/).
 *
 * Skipped without Chromium unless REQUIRE_BROWSER=1. Needs a production build (`npm test` builds).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, createStealthPayment, generateKeys, hexToBytes, openKeys } from '@wraith-pq/sdk';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBrowser } from '../helpers/chromium.ts';
import { http } from '../helpers/server.ts';
import { createKeys, findRecipient, openAdvanced, PASSWORD, requestsCarrying as requestsCarryingAny, scanOutcome, unlock } from './flows.ts';
import { screenshots, startWebHarness, type WebHarness } from './harness.ts';

let h: WebHarness;
beforeAll(async () => {
  if (!skipBrowser) h = await startWebHarness();
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

function randomHex(bytes: number): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The EVM address a secp256k1 secret key controls: keccak256(X || Y)[12..32]. */
function evmAddressOfSecret(secretHex: string): string {
  const uncompressed = secp256k1.getPublicKey(hexToBytes(secretHex), false);
  return `0x${bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12))}`;
}

const count = async (page: Page, testId: string) => Number((await page.getByTestId(testId).textContent())!.replace(/,/g, ''));

/** Every recorded request (URL, headers, body), checked for the hex of each secret. */
const requestsCarrying = (secrets: Uint8Array[]) => requestsCarryingAny(h.requests, secrets);

async function publishForeign(n: number): Promise<void> {
  const queue = Array.from({ length: n }, (_, i) => i);
  const worker = async () => {
    while (queue.pop() !== undefined) {
      const response = await http(h.server, '/api/v1/registry/announcements', {
        body: { ephemeral_key: randomHex(1088), view_tag: Math.floor(Math.random() * 256), tx_hash: `0x${randomHex(32)}`, chain: 'ethereum' },
      });
      if (response.status !== 201) throw new Error(`seeding failed: ${response.status} ${response.text}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

describe.skipIf(skipBrowser)('the web app in Chromium', () => {
  it('takes a payment from receive to a name, through send, to a scan whose revealed key controls the address', { timeout: 180_000 }, async () => {
    // The recipient: home, keys, backup, publication.
    const { page: alice } = await h.newPage();
    const home = await alice.goto('/');
    expect(home!.headers()['content-security-policy']).toContain("default-src 'self'");
    await alice.getByRole('link', { name: 'HTTP API reference' }).waitFor();
    await screenshots(alice, 'home');
    // The SDK reference is served by this server (generated from the SDK's TSDoc by the build).
    await alice.getByRole('link', { name: 'SDK reference' }).click();
    await alice.getByRole('heading', { name: /@wraith-pq\/sdk/ }).first().waitFor();
    expect(await alice.content()).toContain('createStealthPayment');
    await screenshots(alice, 'sdk-docs');
    await alice.goto('/receive');
    await alice.getByRole('button', { name: 'Generate keys' }).waitFor();
    await screenshots(alice, 'receive-start');

    const { metaAddress, envelope, link } = await createKeys(alice);
    await alice.getByRole('button', { name: 'Copy payment link' }).click();
    await alice.getByText('Copied').waitFor();
    expect(await alice.evaluate(() => navigator.clipboard.readText())).toBe(link);
    const record = (await alice.getByTestId('text-record').textContent())!;
    expect(record).toMatch(/^ipfs:\/\/b[a-z2-7]+$/);
    expect(link.endsWith(record.slice('ipfs://'.length))).toBe(true);
    await alice.getByRole('img', { name: 'QR code of your payment link' }).waitFor();
    await screenshots(alice, 'receive');

    // The recipient writes the record into the name (on the chain: no UI for that here).
    await h.chain.register('alice-web.eth');
    await h.chain.setText('alice-web.eth', 'stealth-meta', record);

    // The sender: resolve the name, make a one-time address in the browser (Advanced: paid elsewhere), announce it.
    const { page: bob } = await h.newPage();
    await findRecipient(bob, 'alice-web.eth');
    await openAdvanced(bob);
    await bob.getByRole('button', { name: 'Make a one-time address' }).click();
    await bob.getByLabel('Amount paid (optional)').fill('0.25 ETH');
    const stealthAddress = (await bob.getByTestId('stealth-address').textContent())!;
    expect(stealthAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await bob.getByTestId('stealth-sui-address').textContent()).toMatch(/^0x[0-9a-f]{64}$/);
    const txHash = `0x${randomHex(32)}`;
    await bob.getByLabel('Transaction hash').fill(txHash);
    await bob.getByRole('button', { name: 'Publish announcement' }).click();
    await bob.getByTestId('announcement-id').waitFor();
    await screenshots(bob, 'send');
    // The payment was created in the browser, not by the server's create endpoint.
    expect(h.requests.filter((r) => r.url.includes('/api/v1/stealth/'))).toEqual([]);

    // The recipient, later (a reload locks the keys): unlock, scan, reveal.
    await alice.goto('/scan');
    await screenshots(alice, 'scan-locked');
    // Unlocking starts the scan.
    await unlock(alice);
    expect(await scanOutcome(alice)).toContain('Scan complete');
    // The workers run the SDK's WebAssembly kernel: the scan worker's CSP allows it (said under "Technical details").
    expect(await alice.getByTestId('scan-kernel').textContent()).toContain('WebAssembly SIMD');
    const found = alice.getByTestId('discovery');
    expect(await found.count()).toBe(1);
    expect(await found.getByTestId('discovery-address').textContent()).toBe(stealthAddress);
    await expect.poll(() => found.textContent()).toContain('0.25 ETH');
    expect(await found.textContent()).toContain('ethereum');
    expect(await alice.getByTestId('spending-key').count()).toBe(0); // hidden until asked for, under Advanced
    await found.getByText('Advanced: this payment').click();
    await found.getByRole('button', { name: 'Reveal spending key' }).click();
    const stealthKey = (await alice.getByTestId('spending-key').textContent())!;
    expect(stealthKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(evmAddressOfSecret(stealthKey)).toBe(stealthAddress.toLowerCase());
    await screenshots(alice, 'scan');

    // After a reload the key is derived again from the announcement, identically.
    await alice.reload();
    await unlock(alice);
    expect(await scanOutcome(alice)).toContain('Scan complete');
    const pagesBefore = h.requests.filter((r) => r.url.includes('/api/v1/registry/announcements')).length;
    await alice.getByTestId('discovery').getByText('Advanced: this payment').click();
    await alice.getByTestId('discovery').getByRole('button', { name: 'Reveal spending key' }).click();
    expect(await alice.getByTestId('spending-key').textContent()).toBe(stealthKey);
    // From the announcement the scan saved in this browser: the server is not asked which one is ours.
    expect(h.requests.filter((r) => r.url.includes('/api/v1/registry/announcements')).length).toBe(pagesBefore);

    // No request from any page carried a secret: the recipient's keys (from the backup file) or the payment's key.
    const keys = await openKeys(envelope, PASSWORD);
    expect(bytesToHex(keys.metaAddress)).toBe(metaAddress.slice(2));
    const secrets = [keys.spendingSecretKey, keys.viewingSecretKey, hexToBytes(stealthKey)];
    if ('viewingSeed' in keys) secrets.push(keys.viewingSeed);
    expect(h.requests.length).toBeGreaterThan(10);
    expect(requestsCarrying(secrets)).toEqual([]);
    expect(h.requests.filter((r) => `${r.url}\n${r.body}`.includes(PASSWORD)).map((r) => r.url)).toEqual([]);
    // The keys were made in the browser: the server's key generator was never asked.
    expect(h.requests.filter((r) => r.url.includes('/api/v1/keys/'))).toEqual([]);
    // The browser's storage holds the keys only encrypted: no secret in hex or base64, no password.
    const stored = await alice.evaluate(() => {
      const values: string[] = [];
      for (const area of [localStorage, sessionStorage]) for (let i = 0; i < area.length; i++) values.push(`${area.key(i)}=${area.getItem(area.key(i)!)}`);
      return values.join('\n');
    });
    expect(stored).toContain('wraith-keystore'); // the sealed envelope is there
    for (const secret of secrets) {
      const window = secret.subarray(0, 12);
      expect(stored.toLowerCase()).not.toContain(bytesToHex(window));
      expect(stored).not.toContain(Buffer.from(window).toString('base64').slice(0, 14));
    }
    expect(stored).not.toContain(PASSWORD);
    // Nothing was fetched from anywhere but this server; no CSP violation or page error.
    expect(h.requests.filter((r) => !r.url.startsWith(`${h.server.url}/`) && !/^(blob|data):/.test(r.url)).map((r) => r.url)).toEqual([]);
    expect(h.pageErrors).toEqual([]);
  });

  it('pays a .sui name on Sui, and the recipient finds the payment at its Sui address', { timeout: 180_000 }, async () => {
    const { page: carol } = await h.newPage();
    await createKeys(carol);
    const record = (await carol.getByTestId('text-record').textContent())!;
    h.sui.names.set('carol-web.sui', { contentHash: record });

    const { page: dave } = await h.newPage();
    await findRecipient(dave, 'carol-web.sui');
    await dave.getByTestId('recipient-found').getByText('carol-web.sui').waitFor();
    await openAdvanced(dave);
    await dave.getByRole('button', { name: 'Make a one-time address' }).click();
    await dave.getByLabel('Amount paid (optional)').fill('12 SUI');
    await dave.getByLabel('Chain of that transaction').selectOption('sui');
    const suiAddress = (await dave.getByTestId('stealth-sui-address').textContent())!;
    await dave.getByRole('button', { name: 'Show QR code' }).nth(1).click();
    await dave.getByRole('img', { name: 'QR code of the sui one-time address' }).waitFor();
    expect(suiAddress).toMatch(/^0x[0-9a-f]{64}$/);
    await dave.getByLabel('Transaction hash').fill(`Sui${randomHex(20)}`);
    await dave.getByRole('button', { name: 'Publish announcement' }).click();
    await dave.getByTestId('announcement-id').waitFor();

    // Keys already unlocked: coming to Scan starts the scan.
    await carol.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scan' }).click();
    expect(await scanOutcome(carol)).toContain('Scan complete');
    const found = carol.getByTestId('discovery');
    expect(await found.count()).toBe(1);
    expect(await found.getByTestId('discovery-sui-address').textContent()).toBe(suiAddress);
    expect(await found.textContent()).toContain('12 SUI');
    expect(await found.getByTestId('discovery-chain').textContent()).toBe('sui');
    expect(h.pageErrors).toEqual([]);
  });

  it('refuses a wrong keystore password with a clear message, and a backup file unlocks the keys in another browser', { timeout: 180_000 }, async () => {
    const { page } = await h.newPage();
    const { envelope } = await createKeys(page);
    await page.goto('/scan');
    await unlock(page, 'not my password');
    // (Next.js's route announcer is an empty alert too: pick the one with the message.)
    const alert = page.getByRole('alert').filter({ hasText: 'Wrong password' });
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Wrong password: the keystore did not open. Check the password and try again.');
    expect(await page.getByRole('button', { name: 'Start scan' }).count()).toBe(0);
    await screenshots(page, 'unlock-wrong-password');
    await unlock(page);
    expect(await scanOutcome(page)).toContain('Scan complete');

    // A fresh profile has no keystore: the exported file restores it.
    const { page: other } = await h.newPage();
    await other.goto('/scan');
    await other.getByText('No keys are saved in this browser.').waitFor();
    await other.getByLabel('Backup file').setInputFiles({ name: 'backup.json', mimeType: 'application/json', buffer: Buffer.from(envelope) });
    await unlock(other);
    expect(await scanOutcome(other)).toContain('Scan complete');
    expect(await other.evaluate(() => localStorage.getItem('wraith.keystore.v1'))).toBe(envelope);
    expect(h.pageErrors).toEqual([]);
  });

  it('cancels a long scan and resumes it from the saved cursor, finding the payment in the part it had not scanned', { timeout: 300_000 }, async () => {
    const { page } = await h.newPage();
    const { metaAddress } = await createKeys(page);
    const before = (await http(h.server, '/api/v1/registry/stats')).json.total_announcements as number;
    // More than one page (the page asks for 5,000 rows at a time), the payment past the first.
    await publishForeign(5500);
    const payment = createStealthPayment(metaAddress);
    const published = await http(h.server, '/api/v1/registry/announcements', {
      body: { ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash: `0x${randomHex(32)}`, amount: '7 SUI', chain: 'sui' },
    });
    expect(published.status).toBe(201);
    await publishForeign(1500);
    const total = before + 7001;
    expect((await http(h.server, '/api/v1/registry/stats')).json.total_announcements).toBe(total);

    // A slow connection: after the first page the next one hangs until the person has cancelled.
    const cursors: number[] = [];
    let release!: () => void;
    const cancelled = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/api\/v1\/registry\/announcements\?/, async (route) => {
      const afterId = Number(new URL(route.request().url()).searchParams.get('after_id'));
      cursors.push(afterId);
      if (afterId > 0) await cancelled;
      await route.continue().catch(() => {}); // a request the scan aborted is gone
    });

    // Keys stay unlocked when moving between pages; coming to Scan starts the scan.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scan' }).click();
    await expect.poll(() => count(page, 'scanned-count'), { timeout: 60_000 }).toBeGreaterThanOrEqual(5000);
    expect(await page.getByTestId('progress-text').textContent()).toMatch(/^[\d,]+ of [\d,]+ checked · [\d,]+\/s · (about .+|less than a second) left$/);
    await page.getByRole('button', { name: 'Cancel scan' }).click();
    const outcome = await scanOutcome(page);
    release();
    await screenshots(page, 'scan-cancelled');
    expect(outcome).toBe('Scan cancelled. The next scan continues from where this one stopped.');
    const cursor = Number(await page.getByTestId('progress-text').getAttribute('data-cursor'));
    expect(cursor).toBe(5000);
    const scannedBefore = await count(page, 'scanned-count');
    expect(scannedBefore).toBeLessThan(total);
    expect(await count(page, 'found-count')).toBe(0);

    // A reload later: the cursor is still there, and unlocking resumes after it.
    await page.reload();
    expect(Number(await page.evaluate(() => JSON.parse(Object.entries(localStorage).find(([k]) => k.startsWith('wraith.scan.v1.'))![1]).scanned))).toBe(scannedBefore);
    cursors.length = 0;
    await unlock(page);
    expect(await scanOutcome(page)).toContain('Scan complete');
    expect(cursors[0]).toBe(cursor);
    expect(await count(page, 'scanned-count')).toBe(total);
    expect(await count(page, 'found-count')).toBe(1);
    expect(await page.getByTestId('discovery-address').textContent()).toBe(payment.stealthAddress);
    expect(await page.getByTestId('discovery').textContent()).toContain('7 SUI');
    expect(await page.getByTestId('progress-text').textContent()).toBe('Up to date.');
    expect(h.pageErrors).toEqual([]);
  });

  it('serves every page under a strict CSP and lets only the scan worker compile WebAssembly', { timeout: 180_000 }, async () => {
    for (const path of ['/', '/receive', '/send', '/scan']) {
      const response = await http(h.server, path);
      expect(response.status).toBe(200);
      const csp = response.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('eval');
      // Scripts only with this response's nonce: no 'unsafe-inline', a fresh nonce each time, on every script.
      const scriptSrc = csp.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src '))!;
      expect(scriptSrc).toMatch(/^script-src 'self' 'nonce-[A-Za-z0-9+/]{22}==' 'strict-dynamic'$/);
      const nonce = /'nonce-([^']+)'/.exec(scriptSrc)![1]!;
      const again = (await http(h.server, path)).headers.get('content-security-policy')!;
      expect(again).not.toContain(nonce);
      const scripts = response.text.match(/<script\b[^>]*>/g) ?? [];
      expect(scripts.length).toBeGreaterThan(0);
      expect(scripts.filter((tag) => !tag.includes(`nonce="${nonce}"`))).toEqual([]);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.text).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/); // nothing from other origins
    }

    const { page } = await h.newPage();
    await createKeys(page);
    // Hold the scan on its first page so its workers are alive to be inspected.
    let release!: () => void;
    const inspected = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/api\/v1\/registry\/announcements\?/, async (route) => {
      await inspected;
      await route.continue();
    });
    // Coming to Scan with the keys unlocked starts the scan.
    const spawned = page.waitForEvent('worker');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scan' }).click();
    const worker = await spawned;
    expect(new URL(worker.url()).origin).toBe(h.server.url);
    const workerCsp = (await http(h.server, new URL(worker.url()).pathname)).headers.get('content-security-policy')!;
    expect(workerCsp).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(workerCsp).not.toMatch(/'unsafe-eval'/);

    const wasmHeader = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]; // "\0asm", version 1: an empty module
    const compiles = (bytes: number[]) => {
      try {
        new WebAssembly.Module(new Uint8Array(bytes));
        return true;
      } catch {
        return false;
      }
    };
    expect(await worker.evaluate(compiles, wasmHeader)).toBe(true);
    const errorsBefore = h.pageErrors.length;
    expect(await page.evaluate(compiles, wasmHeader)).toBe(false);
    // The page's refusal is the CSP at work; take it off the list of unexpected errors.
    h.pageErrors.splice(errorsBefore);
    release();
    expect(await scanOutcome(page)).toContain('Scan complete');
    expect(h.pageErrors).toEqual([]);
  });

  it('blocks and reports a script injected into a page, and the page still works', { timeout: 120_000 }, async () => {
    const { page } = await h.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { __violations: string[] };
      w.__violations = [];
      document.addEventListener('securitypolicyviolation', (event) => w.__violations.push(event.violatedDirective));
    });
    // An attacker's markup in the page (as an injection bug would put it there): an inline script without the nonce.
    await page.route(/\/receive$/, async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace('<body>', '<body><script>window.__injected = true</script>');
      await route.fulfill({ response, body });
    });
    const errorsBefore = h.pageErrors.length;
    await page.goto('/receive');
    await page.getByRole('button', { name: 'Generate keys' }).click();
    await page.getByTestId('keys-unsaved').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected)).toBeUndefined();
    expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toContain('script-src-elem');
    // The console reported it too; that report is expected here.
    const reported = h.pageErrors.splice(errorsBefore);
    expect(reported.some((message) => /Content Security Policy/.test(message))).toBe(true);
    expect(h.pageErrors).toEqual([]);
  });

  it('can be used from the keyboard alone and keeps text contrast at WCAG AA in light and dark schemes', { timeout: 180_000 }, async () => {
    const { page } = await h.newPage();
    const recipient = generateKeys();
    await page.goto('/send');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    const field = page.getByLabel('Payment link, name or address');
    expect(await field.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('bob.btc');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'a name ending in .eth or .sui' }).waitFor();
    await field.fill('');
    await page.keyboard.type(`st:eth:0x${bytesToHex(recipient.metaAddress)}`);
    await page.keyboard.press('Enter');
    await page.getByTestId('recipient-found').getByText('the pasted meta-address').waitFor();
    // Onward by Tab alone to the Advanced section, opened and used from the keyboard.
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent ?? '')).startsWith('Advanced: pay from another wallet')) break;
    }
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab'); // Make a one-time address
    await page.keyboard.press('Enter');
    await page.getByTestId('stealth-address').waitFor();

    // Checked on this page as it stands: a found recipient (its technical details open), a one-time address, the announcement form.
    await page.locator('.notice.success summary').click();
    const checked = [
      'h1', '.lede', '.hint', 'p', 'label', '.site-nav a[aria-current]', '.site-nav a:not([aria-current])', '.site-footer a',
      'button:not(.secondary)', 'button.secondary', '.value-box', '.notice.success', '.step', 'code',
    ];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const ratios = await page.evaluate((selectors) => {
        const channels = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
        const luminance = ([r, g, b]: number[]) => {
          const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
          return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
        };
        const background = (el: Element | null): number[] => {
          for (; el; el = el.parentElement) {
            const c = channels(getComputedStyle(el).backgroundColor);
            if (c.length === 3 || (c.length === 4 && c[3]! > 0)) return c;
          }
          return [255, 255, 255];
        };
        return selectors.map((selector) => {
          const el = document.querySelector(selector);
          if (!el) return [selector, 0] as const;
          const [a, b] = [luminance(channels(getComputedStyle(el).color)), luminance(background(el))].sort((x, y) => y - x);
          return [selector, Math.round(((a! + 0.05) / (b! + 0.05)) * 10) / 10] as const;
        });
      }, checked);
      const low = ratios.filter(([, ratio]) => ratio < 4.5);
      expect(low, `${colorScheme} scheme`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshots(page, 'receive-dark');
    expect(h.pageErrors).toEqual([]);
  });
});
