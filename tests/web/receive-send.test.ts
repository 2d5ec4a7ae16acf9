/**
 * Issue 30, Receive and Send as a first-time user meets them, in Chromium against the real server
 * and anvil (the ERC-5564 Announcer and a test token, tests/web/money-chain.ts):
 *
 * - keys cannot be shared before they are saved (no meta-address, link, QR code or copy button
 *   until the password-encrypted keystore is kept and a backup offered), and leaving with unsaved
 *   keys asks first, on reload and on a link inside the app;
 * - the share QR code, read from a phone-size screenshot by a QR decoder (jsqr), is the payment
 *   link; the link opened by the payer finds the recipient, with the same fingerprint; a mistyped
 *   link finds nobody;
 * - a request cancelled in the wallet says so in one sentence, and nothing is sent.
 *
 * Every state is checked with axe-core and for protocol words on the main path (page-checks.ts),
 * with screenshots light and dark, desktop and phone: test-results/screenshots/e1-*.
 * Skipped without Chromium unless REQUIRE_BROWSER=1. Needs a production build (`npx next build`).
 */
import { metaAddressFingerprint } from '@wraith-pq/sdk';
import jsQR from 'jsqr';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import type { PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBrowser } from '../helpers/chromium.ts';
import { createKeys, findRecipient, PASSWORD, review } from './flows.ts';
import { MOBILE, type WebHarness } from './harness.ts';
import { pageWithWallet, sender, startMoneyHarness } from './money-chain.ts';
import { checkPage, type PageCheck } from './page-checks.ts';

let h: WebHarness;
let client: PublicClient;

beforeAll(async () => {
  if (skipBrowser) return;
  let money;
  ({ h, money } = await startMoneyHarness({ nameToken: true }));
  client = money.client;
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

/** Decode the one QR code in a PNG screenshot. */
async function decodeQr(png: Buffer): Promise<string | null> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data ?? null;
}

describe.skipIf(skipBrowser)('Receive and Send for a first-time user', () => {
  it('keeps new keys and offers a backup before showing any way to share them, and asks before a reload or a link loses unsaved keys', { timeout: 120_000 }, async () => {
    const failed: PageCheck[] = [];
    const { page } = await h.newPage();
    await page.goto('/receive');
    failed.push(...(await checkPage(page, 'e1-receive-start')));
    await page.getByRole('button', { name: 'Generate keys' }).click();
    await page.getByTestId('keys-unsaved').waitFor();
    const nothingToShare = async () => {
      for (const id of ['meta-address', 'erc8441-meta-address', 'payment-link', 'payment-qr', 'text-record', 'fingerprint']) expect(await page.getByTestId(id).count(), id).toBe(0);
      expect(await page.getByRole('button', { name: /^Copy/ }).count()).toBe(0);
      expect(await page.locator('svg.qr').count()).toBe(0);
    };
    await nothingToShare();
    failed.push(...(await checkPage(page, 'e1-receive-unsaved')));

    // A reload asks first; declined, the keys are still on the page.
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.type());
      void dialog.dismiss();
    });
    await page.reload({ timeout: 3_000 }).catch(() => undefined);
    expect(dialogs).toEqual(['beforeunload']);
    await page.getByTestId('keys-unsaved').waitFor();
    // So does a link inside the app; declined, the page stays.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scan' }).click();
    expect(dialogs).toEqual(['beforeunload', 'confirm']);
    expect(new URL(page.url()).pathname).toBe('/receive');
    await page.getByTestId('keys-unsaved').waitFor();

    // Saved: the backup is offered, still with nothing to share.
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Save encrypted keys' }).click();
    await page.getByRole('button', { name: 'Export backup file' }).waitFor();
    await nothingToShare();
    failed.push(...(await checkPage(page, 'e1-receive-backup')));
    await page.getByRole('button', { name: 'Skip for now' }).click();
    const link = (await page.getByTestId('payment-link').textContent({ timeout: 30_000 }))!;
    expect(link).toMatch(/\/send\?to=baf[a-z2-7]+$/);

    // Kept: reloading asks nothing, and the saved keys open again.
    dialogs.length = 0;
    await page.reload();
    expect(dialogs).toEqual([]);
    await page.getByLabel('Keystore password').waitFor();
    // Every state above: no axe-core violation and no protocol word on the main path, light and dark.
    expect(failed).toEqual([]);
  });

  it('shares a payment link whose QR code a phone screenshot decodes to the link, and the link finds the recipient with the same fingerprint; a mistyped one finds nobody', { timeout: 240_000 }, async () => {
    const failed: PageCheck[] = [];
    const { page: alice } = await h.newPage();
    const { link, metaAddress } = await createKeys(alice);
    expect(link.startsWith(`${h.server.url}/send?to=`)).toBe(true);
    expect(link.length).toBeLessThan(120);
    const fingerprint = (await alice.getByTestId('fingerprint').textContent())!;
    expect(fingerprint).toBe(metaAddressFingerprint(metaAddress));
    failed.push(...(await checkPage(alice, 'e1-receive-share')));

    // A phone's screen: the code is read from the screenshot, with room for a camera (at least 4 px a module).
    await alice.setViewportSize(MOBILE);
    await alice.getByTestId('payment-qr').scrollIntoViewIfNeeded();
    expect(await decodeQr(await alice.screenshot())).toBe(link);
    const box = (await alice.getByTestId('payment-qr').boundingBox())!;
    const modules = Number((await alice.getByTestId('payment-qr').getAttribute('viewBox'))!.split(' ')[2]);
    expect(box.width / modules).toBeGreaterThanOrEqual(4);
    await alice.emulateMedia({ colorScheme: 'dark' });
    expect(await decodeQr(await alice.screenshot())).toBe(link);

    // The payer opens the link: the recipient is found at once, with the fingerprint the recipient sees.
    const { page: bob } = await h.newPage();
    await bob.goto(link);
    await bob.getByTestId('recipient-found').waitFor({ timeout: 30_000 });
    expect(await bob.getByTestId('recipient-fingerprint').textContent()).toBe(fingerprint);
    expect(await bob.getByLabel('Payment link, name or address').inputValue()).toBe(new URL(link).searchParams.get('to'));
    failed.push(...(await checkPage(bob, 'e1-send-found')));
    // The link pasted, and the code at its end, find the same recipient.
    await findRecipient(bob, link);
    expect(await bob.getByTestId('recipient-fingerprint').textContent()).toBe(fingerprint);

    // One character changed in the middle: a hash, so nobody's key, and a sentence that says what to do.
    const cid = new URL(link).searchParams.get('to')!;
    const at = 30;
    const typo = `${cid.slice(0, at)}${cid[at] === 'a' ? 'b' : 'a'}${cid.slice(at + 1)}`;
    await bob.goto(`/send?to=${typo}`);
    const alert = bob.getByRole('alert').filter({ hasText: 'payment link' });
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.textContent()).toBe('Nobody is found at this payment link: it may have been mistyped or cut short. Ask the recipient to send it again.');
    expect(await bob.getByTestId('recipient-found').count()).toBe(0);
    expect(h.pageErrors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    expect(failed).toEqual([]);
  });

  it('says a cancelled wallet request in one sentence and sends nothing; paying again then takes one review and pays', { timeout: 240_000 }, async () => {
    const failed: PageCheck[] = [];
    const { page: carol } = await h.newPage();
    const { link } = await createKeys(carol);
    const { page: dan, wallet } = await pageWithWallet(h);
    await dan.goto(link);
    await dan.getByTestId('recipient-found').waitFor({ timeout: 30_000 });
    await dan.getByRole('button', { name: 'Connect Test Wallet' }).click();
    await dan.getByTestId('asset-balance').getByText(/In your wallet: [\d.]+ ETH/).waitFor({ timeout: 30_000 });
    failed.push(...(await checkPage(dan, 'e1-send-amount')));
    await review(dan, { native: '0.5' });
    expect(await dan.getByTestId('review-amount').textContent()).toBe('0.5 ETH');
    expect(await dan.getByTestId('review-fees').textContent()).toMatch(/^at most 0\.\d{1,8} ETH$/);
    expect(await dan.getByTestId('review-total').textContent()).toMatch(/^at most 0\.5\d* ETH$/);
    expect(await dan.getByTestId('review-fingerprint').textContent()).toBe(await carol.getByTestId('fingerprint').textContent());
    failed.push(...(await checkPage(dan, 'e1-send-review')));

    const nonce = await client.getTransactionCount({ address: sender.address });
    const block = await client.getBlockNumber({ cacheTime: 0 });
    wallet.declineSending(true);
    await dan.getByRole('button', { name: 'Pay', exact: true }).click();
    const message = dan.getByRole('alert').getByTestId('error-message');
    await message.waitFor({ timeout: 30_000 });
    expect(await message.textContent()).toBe('You cancelled in your wallet. Nothing was sent.');
    // The wallet's own words are behind the disclosure, not in the sentence.
    expect(await dan.getByRole('alert').getByText('Technical details').count()).toBe(1);
    expect(await client.getTransactionCount({ address: sender.address })).toBe(nonce);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(block);
    failed.push(...(await checkPage(dan, 'e1-send-cancelled')));

    wallet.declineSending(false);
    await dan.getByRole('button', { name: 'Pay', exact: true }).click();
    await dan.getByTestId('paid').waitFor({ timeout: 60_000 });
    expect(await dan.getByTestId('paid-summary').textContent()).toBe('0.5 ETH');
    expect(await client.getBalance({ address: (await dan.getByTestId('paid-address').textContent()) as `0x${string}` })).toBe(5n * 10n ** 17n);
    failed.push(...(await checkPage(dan, 'e1-send-paid')));
    // Pay again is a new payment, from the amount: a token this server names, chosen by its symbol, the balance beside it.
    await dan.getByRole('button', { name: 'Make another payment' }).click();
    await dan.getByLabel('Asset', { exact: true }).selectOption({ label: 'TST' });
    await dan.getByTestId('asset-balance').getByText(/^In your wallet: [\d.]+ TST$/).waitFor({ timeout: 30_000 });
    await dan.getByLabel('Amount', { exact: true }).fill('5');
    await dan.getByRole('button', { name: 'Review payment' }).click();
    expect(await dan.getByTestId('review-amount').textContent({ timeout: 30_000 })).toBe('5 TST');
    // The coin for the recipient's fees was priced from the chain (the field left empty), and is in the total.
    expect(await dan.getByTestId('review-top-up').textContent()).toMatch(/^0\.\d+ ETH, so they can move the tokens later$/);
    expect(await dan.getByTestId('review-total').textContent()).toMatch(/^5 TST and at most 0\.\d+ ETH$/);
    await dan.getByRole('button', { name: 'Pay', exact: true }).click();
    expect(await dan.getByTestId('paid-summary').textContent({ timeout: 60_000 })).toMatch(/^5 TST and 0\.\d+ ETH for gas$/);
    expect(failed).toEqual([]);
  });
});
