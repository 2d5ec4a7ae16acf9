/**
 * Send never leaves a payment only in the page's memory (issue 32's rule, on the web): a one-time
 * address made under "Advanced" is kept in this browser before it is shown, and a wallet payment
 * made as separate transactions (a chain without WraithPay, where the announcement is a second
 * transaction) is kept from before the wallet is asked until it is announced. After a reload Send
 * offers each kept payment with the form that announces it, and once announced the recipient's
 * scan of the registry finds it.
 *
 * Chromium against anvil and the real server (money-chain.ts). Skipped without Chromium unless
 * REQUIRE_BROWSER=1. Needs a production build (`npm test` builds).
 */
import { bytesToHex, generateKeys, scanAnnouncements, type AnnouncementRecord } from '@wraith-pq/sdk';
import { WRAITH_PAY_ADDRESS } from '@wraith-pq/sdk/evm';
import type { Page } from 'playwright-core';
import { createWalletClient, getAddress, http as viemHttp, parseEther, type Address, type Hash, type PublicClient } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBrowser } from '../helpers/chromium.ts';
import { startRpcFaultProxy } from '../helpers/rpc-fault-proxy.ts';
import { http } from '../helpers/server.ts';
import { findRecipient, openAdvanced, review } from './flows.ts';
import type { WebHarness } from './harness.ts';
import { sender, startMoneyHarness } from './money-chain.ts';
import { axeViolations, protocolWordsShown } from './page-checks.ts';
import { installTestWallet } from './test-wallet.ts';

let h: WebHarness;
let client: PublicClient;

beforeAll(async () => {
  if (skipBrowser) return;
  let money;
  ({ h, money } = await startMoneyHarness());
  client = money.client;
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

/** The stealth addresses the registry's announcements hold for `keys` (the recipient's scan of GET /api/v1/registry/announcements). */
async function foundInRegistry(keys: ReturnType<typeof generateKeys>): Promise<string[]> {
  const rows = (await http(h.server, '/api/v1/registry/announcements?after_id=0&limit=100')).json.announcements as AnnouncementRecord[];
  return scanAnnouncements(keys, rows).discoveries.map((d) => getAddress(d.stealthAddress));
}

/** Reload, accepting the browser's "leave this page?" question; returns the dialogs asked. */
async function reloadAccepting(page: Page): Promise<string[]> {
  const dialogs: string[] = [];
  const accept = (dialog: { type(): string; accept(): Promise<void> }) => {
    dialogs.push(dialog.type());
    void dialog.accept();
  };
  page.on('dialog', accept);
  await page.reload();
  page.off('dialog', accept);
  return dialogs;
}

describe.skipIf(skipBrowser)('Send keeps every payment it cannot yet announce', () => {
  it('keeps a one-time address made under Advanced through a reload, offers it again, and announces its payment; the recipient finds the money', { timeout: 180_000 }, async () => {
    const keys = generateKeys();
    const { page } = await h.newPage();
    await findRecipient(page, bytesToHex(keys.metaAddress));
    await openAdvanced(page);
    await page.getByRole('button', { name: 'Make a one-time address' }).click();
    const stealthAddress = (await page.getByTestId('stealth-address').textContent())!;
    expect(stealthAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);

    // Leaving asks first; left anyway (the tab reloaded), the address is offered again.
    expect(await reloadAccepting(page)).toEqual(['beforeunload']);
    const kept = page.getByTestId('kept-payment');
    await kept.waitFor();
    expect(await kept.count()).toBe(1);
    expect(await kept.getByTestId('kept-address').textContent()).toBe(stealthAddress);
    expect(await protocolWordsShown(page)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);

    // Paid from another wallet (a plain transfer on anvil), then announced from the kept record.
    const payer = createWalletClient({ account: sender, chain: foundry, transport: viemHttp(h.chain.rpcUrl, { retryCount: 0 }) });
    const hash = await payer.sendTransaction({ to: stealthAddress as Address, value: parseEther('0.2') });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await foundInRegistry(keys)).toEqual([]);
    await kept.getByLabel('Transaction hash').fill(hash);
    await kept.getByLabel('Amount paid (optional)').fill('0.2 ETH');
    await kept.getByRole('button', { name: 'Publish announcement' }).click();
    await kept.getByTestId('announcement-id').waitFor();
    expect(await foundInRegistry(keys)).toEqual([getAddress(stealthAddress)]);

    // Announced: nothing is kept any more, and leaving asks nothing.
    expect(await reloadAccepting(page)).toEqual([]);
    await page.getByLabel('Payment link, name or address').waitFor();
    expect(await page.getByTestId('kept-payments').count()).toBe(0);
    expect(h.pageErrors).toEqual([]);
  });

  it('keeps a wallet payment made as separate transactions whose receipt could not be read: after a reload it is offered with its transfer, and announcing it lets the recipient find the money', { timeout: 180_000 }, async () => {
    // A chain without WraithPay: the transfer and the announcement are separate transactions.
    await client.request({ method: 'anvil_setCode', params: [WRAITH_PAY_ADDRESS, '0x'] } as never);
    // The wallet's provider answers every receipt request with HTTP 503 (the transfer itself goes through).
    const proxy = await startRpcFaultProxy({ target: h.chain.rpcUrl, failureRate: 1, modes: ['5xx'], faultMethods: ['eth_getTransactionReceipt'] });
    try {
      const keys = generateKeys();
      const { page } = await h.newPage();
      const wallet = await installTestWallet(page, { rpcUrl: proxy.url, account: sender.address });
      await findRecipient(page, bytesToHex(keys.metaAddress));
      await page.getByRole('button', { name: 'Connect Test Wallet' }).click();
      await review(page, { native: '0.1' });
      const stealthAddress = (await page.getByTestId('review-address').textContent())!;
      await page.getByRole('button', { name: 'Pay', exact: true }).click();
      // Sent, not announced: the page says so and offers to announce it.
      await page.getByTestId('unannounced').waitFor({ timeout: 60_000 });
      expect(wallet.calls.filter((c) => c.method === 'eth_sendTransaction')).toHaveLength(1);
      expect(await client.getBalance({ address: stealthAddress as Address })).toBe(parseEther('0.1'));

      // The tab reloads (or crashes): the payment is still offered, with the transfer the wallet sent.
      expect(await reloadAccepting(page)).toEqual(['beforeunload']);
      const kept = page.getByTestId('kept-payment');
      await kept.waitFor();
      expect(await kept.getByTestId('kept-address').textContent()).toBe(stealthAddress);
      const txHash = (await kept.getByLabel('Transaction hash').inputValue()) as Hash;
      const transfer = await client.getTransaction({ hash: txHash });
      expect(getAddress(transfer.to!)).toBe(getAddress(stealthAddress));
      expect(transfer.value).toBe(parseEther('0.1'));
      expect(await foundInRegistry(keys)).toEqual([]);
      await kept.getByRole('button', { name: 'Publish announcement' }).click();
      await kept.getByTestId('announcement-id').waitFor();
      expect(await foundInRegistry(keys)).toEqual([getAddress(stealthAddress)]);
      expect(proxy.stats.failed['5xx']).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });
});
