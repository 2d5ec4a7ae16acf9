/**
 * What a person does on the web app, shared by the browser tests: make keys on the Receive page,
 * unlock them, wait for a scan; and the check that no recorded request carried a secret.
 */
import { readFileSync } from 'node:fs';
import { bytesToHex } from '@wraith-pq/sdk';
import type { Locator, Page } from 'playwright-core';
import { getAddress, type Address } from 'viem';
import { expect } from 'vitest';
import type { RecordedRequest } from './harness.ts';

export const PASSWORD = 'correct horse battery staple';

/**
 * On the Receive page: generate keys, save them under PASSWORD, export the backup file; then the
 * payment link appears. Returns the meta-address (under Advanced), the backup and the link.
 */
export async function createKeys(page: Page): Promise<{ metaAddress: string; envelope: string; link: string }> {
  await page.goto('/receive');
  await page.getByRole('button', { name: 'Generate keys' }).click();
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Save encrypted keys' }).click();
  await page.getByText('Saved in this browser, encrypted with your password.').waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export backup file' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^wraith-keystore-[0-9a-f]{12}\.json$/);
  const envelope = readFileSync((await download.path())!, 'utf8');
  expect(JSON.parse(envelope)).toMatchObject({ kind: 'wraith-keystore', version: 1 });
  const link = (await page.getByTestId('payment-link').textContent({ timeout: 30_000 }))!;
  const metaAddress = (await page.getByTestId('meta-address').textContent())!;
  expect(metaAddress).toMatch(/^0x02[0-9a-f]{2434}$/);
  return { metaAddress, envelope, link };
}

/** Open the page's "Advanced" section (Receive: the meta-address, ERC-6538; Send: paying from elsewhere). */
export async function openAdvanced(page: Page): Promise<void> {
  const details = page.locator('details.advanced').first();
  if ((await details.getAttribute('open')) === null) await details.locator('summary').first().click();
}

/** On the Send page: look up `recipient` (a link, name, address or meta-address) and wait until it is found. */
export async function findRecipient(page: Page, recipient: string): Promise<void> {
  await page.goto('/send');
  await page.getByLabel('Payment link, name or address').fill(recipient);
  await page.getByRole('button', { name: 'Find recipient' }).click();
  await page.getByTestId('recipient-found').waitFor();
}

export async function unlock(page: Page, password = PASSWORD): Promise<void> {
  await page.getByLabel('Keystore password').fill(password);
  await page.getByRole('button', { name: 'Unlock' }).click();
}

/** Wait for the scan to end and return the message it ended with. */
export async function scanOutcome(page: Page): Promise<string> {
  const outcome = page.locator('.notice').filter({ hasText: /Scan complete|The scan stopped|Scan cancelled/ });
  await outcome.waitFor({ timeout: 240_000 });
  return (await outcome.textContent())!;
}

/**
 * On the Scan page: unlock the keys (which starts the scan of the whole registry), and return the
 * listed payment of each of `stealthAddresses` (in that order), after checking that exactly those
 * were found.
 */
export async function scanFor<const T extends readonly string[]>(page: Page, stealthAddresses: T): Promise<{ [K in keyof T]: Locator }> {
  await page.goto('/scan');
  await unlock(page);
  expect(await scanOutcome(page)).toContain('Scan complete');
  const items = page.getByTestId('discovery');
  // The list renders once the scan's result is kept (and, with a wallet on the page, as its balances are read).
  await expect.poll(() => items.count(), { timeout: 30_000 }).toBe(stealthAddresses.length);
  return stealthAddresses.map((address) => items.filter({ has: page.getByTestId('discovery-address').getByText(address, { exact: true }) })) as { [K in keyof T]: Locator };
}

/** The recorded requests (URL, headers, body) that hold the hex of any of `secrets`. */
export function requestsCarrying(requests: readonly RecordedRequest[], secrets: readonly Uint8Array[]): string[] {
  // A 16-byte window of each secret catches partial leaks too, in either case.
  const needles = secrets.flatMap((s) => [bytesToHex(s.subarray(0, 16)), bytesToHex(s.subarray(-16))]);
  return requests
    .filter((r) => {
      const haystack = `${r.url}\n${JSON.stringify(r.headers)}\n${r.body}`.toLowerCase();
      return needles.some((needle) => haystack.includes(needle));
    })
    .map((r) => `${r.method} ${r.url}`);
}

/**
 * On the Send page with the recipient found and a wallet connected: enter the amount and asset,
 * review, pay; returns what the page shows (the hashes, and the one-time address paid).
 */
export async function pay(page: Page, asset: { native: string } | { token: Address; amount: string; topUp?: string }) {
  if ((await page.getByTestId('paid').count()) > 0) await page.getByRole('button', { name: 'Make another payment' }).click();
  await review(page, asset);
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await page.getByTestId('paid').waitFor({ timeout: 60_000 });
  const text = async (id: string) => ((await page.getByTestId(id).count()) > 0 ? (await page.getByTestId(id).textContent())! : null);
  return {
    summary: await text('paid-summary'),
    payment: (await text('payment-tx'))!,
    topUp: await text('top-up-tx'),
    approval: await text('approval-tx'),
    // Through WraithPay the payment's transaction is its announcement too: one line on the page.
    announcement: (await text('announcement-tx')) ?? (await text('payment-tx'))!,
    stealthAddress: (await text('paid-address'))!,
  };
}

/** Fill in the amount and asset and press Review payment (the review, or an error, follows). */
export async function fillPayment(page: Page, asset: { native: string } | { token: Address; amount: string; topUp?: string }): Promise<void> {
  if ('native' in asset) {
    await page.getByLabel('Asset', { exact: true }).selectOption('native');
    await page.getByLabel('Amount', { exact: true }).fill(asset.native);
  } else {
    await page.getByLabel('Asset', { exact: true }).selectOption('other');
    await page.getByLabel('Token address').fill(asset.token);
    await page.getByLabel('Amount', { exact: true }).fill(asset.amount);
    if (asset.topUp !== undefined) {
      await page.getByText("Coin for the recipient's fees").click();
      await page.getByLabel(/^Gas top-up/).fill(asset.topUp);
    }
  }
  await page.getByRole('button', { name: 'Review payment' }).click();
}

/** As `fillPayment`, then wait for the review. */
export async function review(page: Page, asset: { native: string } | { token: Address; amount: string; topUp?: string }): Promise<void> {
  await fillPayment(page, asset);
  await page.getByTestId('review').waitFor({ timeout: 30_000 });
}

/**
 * On the Scan page, in the one claim flow: claim exactly the payments of `destinations` (stealth
 * address → where it goes; the others deselected), each to its own address, after the review;
 * returns each claimed payment's estimate shown before signing and the run's statuses.
 */
export async function claimOnly(page: Page, destinations: Record<string, string>): Promise<{ estimates: string[]; statuses: (string | null)[] }> {
  const wanted = Object.keys(destinations).map((a) => a.toLowerCase());
  const boxes = page.getByTestId('claim-select');
  await boxes.first().waitFor({ timeout: 30_000 });
  for (const box of await boxes.all()) {
    const label = (await box.getAttribute('aria-label'))!.toLowerCase();
    await box.setChecked(wanted.some((a) => label.endsWith(a)));
  }
  for (const [address, to] of Object.entries(destinations)) await page.getByLabel(`Destination for ${getAddress(address)}`).fill(to);
  await page.getByRole('button', { name: 'Review the claim' }).click();
  await expect.poll(() => page.getByTestId('claim-estimate').count(), { timeout: 30_000 }).toBe(wanted.length);
  const estimates = await page.getByTestId('claim-estimate').allTextContents();
  const statuses = () => page.getByTestId('claim-item').evaluateAll((els) => els.map((el) => el.getAttribute('data-status')));
  // The run's heading names when it started: a new run is one whose heading changed.
  const heading = async () => ((await page.getByTestId('claim-run').count()) > 0 ? await page.getByTestId('claim-run').locator('p').first().textContent() : null);
  const before = await heading();
  await page.getByRole('button', { name: `Claim ${wanted.length} payment${wanted.length === 1 ? '' : 's'}` }).click();
  const settled = async () => {
    const now = await statuses();
    return now.length === wanted.length && now.every((s) => s === 'done' || s === 'failed') && (await heading()) !== before;
  };
  await expect.poll(settled, { timeout: 120_000 }).toBe(true);
  return { estimates, statuses: await statuses() };
}
