/**
 * What a person does on the web app, shared by the browser tests: make keys on the Receive page,
 * unlock them, wait for a scan; and the check that no recorded request carried a secret.
 */
import { readFileSync } from 'node:fs';
import { bytesToHex } from '@wraith-pq/sdk';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { RecordedRequest } from './harness.ts';

export const PASSWORD = 'correct horse battery staple';

/** On the Receive page: generate keys, save them under PASSWORD, export the backup file. */
export async function createKeys(page: Page): Promise<{ metaAddress: string; envelope: string }> {
  await page.goto('/receive');
  await page.getByRole('button', { name: 'Generate keys' }).click();
  const metaAddress = (await page.getByTestId('meta-address').textContent())!;
  expect(metaAddress).toMatch(/^0x02[0-9a-f]{2434}$/);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Save encrypted keys' }).click();
  await page.getByText('Saved in this browser, encrypted with your password.').waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export backup file' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^wraith-keystore-[0-9a-f]{12}\.json$/);
  const envelope = readFileSync((await download.path())!, 'utf8');
  expect(JSON.parse(envelope)).toMatchObject({ kind: 'wraith-keystore', version: 1 });
  return { metaAddress, envelope };
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
