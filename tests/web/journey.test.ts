/**
 * Issue 30's journey in Chromium against the real server and anvil (money-chain.ts): every page
 * and state a person visits is checked for protocol words on the main path and by axe-core, in
 * the light and the dark scheme (page-checks.ts), with screenshots at desktop and phone sizes.
 *
 * Home, Receive (before and after keys are made and saved), Send (empty, and with a recipient
 * found), and Scan locked, with a wrong password, and scanned with nothing found.
 *
 * Then the Scan page with money. A
 * sender pays one recipient three times from Node with the SDK (`payStealth`: 0.5 ETH, 100 TST
 * with a gas top-up, 0.25 ETH), each note naming its asset (PROTOCOL.md 8.1). The recipient's
 * keystore is put in the browser as the Receive page leaves it.
 *
 * In a browser without any wallet, unlocking starts the scan by itself, and the amounts read
 * "0.5 ETH", "100 TST", "0.25 ETH" with a total per asset: nothing was read from a chain. In a
 * browser with a wallet, the balances are read through the wallet without a click (never through
 * the Wraith server); every payment with a balance is selected for the one claim flow; one is
 * deselected and stays where it is while the other two are claimed with no wallet prompt; the
 * two claimed show as done and can no longer be selected. Every state is checked for protocol
 * words on the main path and by axe-core, light and dark (page-checks.ts).
 *
 * Skipped without Chromium unless REQUIRE_BROWSER=1. Needs a production build (`npm test` builds).
 */
import { createStealthPayment, generateKeys, sealKeys } from '@wraith-pq/sdk';
import { payStealth } from '@wraith-pq/sdk/evm';
import type { Page } from 'playwright-core';
import { createWalletClient, erc20Abi, getAddress, http as viemHttp, parseEther, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBrowser } from '../helpers/chromium.ts';
import { createKeys, findRecipient, PASSWORD, scanOutcome, unlock } from './flows.ts';
import { startWebHarness, type WebHarness } from './harness.ts';
import { sender, setupMoneyChain, TOKENS, waitIndexed } from './money-chain.ts';
import { checkPage, type PageCheck } from './page-checks.ts';
import { installTestWallet } from './test-wallet.ts';

let h: WebHarness;
let client: PublicClient;
let token: Address;

beforeAll(async () => {
  if (skipBrowser) return;
  h = await startWebHarness({
    async setupChain(chain) {
      const money = await setupMoneyChain(chain);
      ({ client, token } = money);
      // The test token is one the server names for its chain (CHAINS `tokens`, GET /api/v1/chains), as a deployment names its chain's usual tokens.
      const { CHAIN_RPC_URL, CHAIN_NAME, INDEXER_CONFIRMATIONS, ...rest } = money.env;
      const tokens = [{ address: money.token, symbol: 'TST', decimals: 18 }];
      return { ...rest, CHAINS: JSON.stringify([{ name: CHAIN_NAME, rpc_url: CHAIN_RPC_URL, confirmations: Number(INDEXER_CONFIRMATIONS), tokens }]) };
    },
  });
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

const balanceOf = (address: string) => client.getBalance({ address: address as Address });
const tokensOf = (address: string) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] });

/** A fresh browser profile holding `envelope` as the Receive page saves it, on the Scan page, unlocked. */
async function scanPage(envelope: string, wallet: boolean): Promise<{ page: Page; calls: { method: string; params: unknown[] }[] }> {
  const { page } = await h.newPage();
  const calls = wallet ? (await installTestWallet(page, { rpcUrl: h.chain.rpcUrl, account: sender.address })).calls : [];
  await page.addInitScript((text) => localStorage.setItem('wraith.keystore.v1', text), envelope);
  await page.goto('/scan');
  return { page, calls };
}

/** The listed payment at `address` (its address is under "Technical details"). */
const itemAt = (page: Page, address: string) => page.getByTestId('discovery').filter({ has: page.getByTestId('discovery-address').getByText(address, { exact: true }) });

describe.skipIf(skipBrowser)('the journey of issue 30 in Chromium', () => {
  it('shows no protocol word on the main path and has no axe-core violation on any page, light or dark', { timeout: 300_000 }, async () => {
    const failed: PageCheck[] = [];
    const { page } = await h.newPage();
    await page.goto('/');
    failed.push(...(await checkPage(page, 'journey-home')));
    await page.goto('/receive');
    failed.push(...(await checkPage(page, 'journey-receive-start')));
    const { link } = await createKeys(page);
    failed.push(...(await checkPage(page, 'journey-receive-saved')));

    const { page: payer } = await h.newPage();
    await payer.goto('/send');
    failed.push(...(await checkPage(payer, 'journey-send-start')));
    await findRecipient(payer, link);
    failed.push(...(await checkPage(payer, 'journey-send-recipient')));

    await page.goto('/scan');
    failed.push(...(await checkPage(page, 'journey-scan-locked')));
    await unlock(page, 'not my password');
    await page.getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor();
    failed.push(...(await checkPage(page, 'journey-scan-wrong-password')));
    await unlock(page);
    expect(await scanOutcome(page)).toContain('Scan complete');
    failed.push(...(await checkPage(page, 'journey-scan-nothing-yet')));
    // Nothing to export yet: no export buttons on an empty history.
    expect(await page.getByRole('button', { name: 'Export CSV' }).count()).toBe(0);
    expect(failed).toEqual([]);
    expect(h.pageErrors).toEqual([]);
  });

  it('on Scan reads 0.5 ETH and 100 TST before any wallet, scans on unlock, reads balances without a click, and claims the selected payments while a deselected one stays', { timeout: 420_000 }, async () => {
    const keys = generateKeys();
    const envelope = await sealKeys(keys, PASSWORD);
    const payer = createWalletClient({ account: sender, chain: foundry, transport: viemHttp(h.chain.rpcUrl, { retryCount: 0 }) });
    const payments = [createStealthPayment(keys.metaAddress), createStealthPayment(keys.metaAddress), createStealthPayment(keys.metaAddress)];
    const [coin, tokenPaid, second] = payments.map((p) => p.stealthAddress) as [string, string, string];
    await payStealth({ wallet: payer, client, payment: payments[0]!, asset: { type: 'native', value: parseEther('0.5') } });
    await payStealth({ wallet: payer, client, payment: payments[1]!, asset: { type: 'erc20', token, amount: 100n * TOKENS, gasTopUp: parseEther('0.01') } });
    await payStealth({ wallet: payer, client, payment: payments[2]!, asset: { type: 'native', value: parseEther('0.25') } });
    await waitIndexed(h.server, client);
    const failed: PageCheck[] = [];

    // No wallet in this browser at all: unlocking scans, and the notes name their assets.
    const { page: bare } = await scanPage(envelope, false);
    failed.push(...(await checkPage(bare, 'scan30-locked')));
    await unlock(bare);
    expect(await scanOutcome(bare)).toContain('Scan complete: 3 new payments.');
    expect(await itemAt(bare, coin).getByTestId('note-amount').textContent()).toBe('0.5 ETH');
    expect(await itemAt(bare, tokenPaid).getByTestId('note-amount').textContent()).toBe('100 TST');
    expect(await itemAt(bare, second).getByTestId('note-amount').textContent()).toBe('0.25 ETH');
    expect(await bare.getByTestId('total').allTextContents()).toEqual(['0.75 ETH', '100 TST']);
    // The private key of a payment is behind "Advanced", with its warning.
    const advanced = itemAt(bare, coin).locator('details.advanced');
    expect(await advanced.getByRole('button', { name: 'Reveal spending key' }).isVisible()).toBe(false);
    failed.push(...(await checkPage(bare, 'scan30-found-no-wallet')));
    await advanced.locator('summary').click();
    expect(await advanced.textContent()).toContain('whoever sees the key can take the money');

    // With a wallet: balances read through it as soon as the scan lists the payments, no button pressed.
    const { page, calls } = await scanPage(envelope, true);
    await unlock(page);
    expect(await scanOutcome(page)).toContain('Scan complete');
    await expect.poll(() => itemAt(page, coin).getByTestId('balance-native').textContent(), { timeout: 30_000 }).toBe('0.5 ETH');
    expect(await itemAt(page, tokenPaid).getByTestId('balance-token').textContent()).toBe('100 TST');
    expect(await page.getByTestId('holdings').textContent()).toBe("At your payments' addresses now: 0.76 ETH · 100 TST");
    const reads = calls.filter((c) => c.method === 'eth_getBalance').map((c) => String(c.params[0]).toLowerCase());
    expect(reads).toEqual(expect.arrayContaining([coin, tokenPaid, second].map((a) => a.toLowerCase())));
    expect(calls.filter((c) => /^(eth_requestAccounts|eth_sendTransaction|personal_sign|eth_sign)/.test(c.method))).toEqual([]);

    // One claim flow: every payment with a balance selected; the second coin payment is deselected.
    const boxes = page.getByTestId('claim-select');
    expect(await boxes.count()).toBe(3);
    expect(await page.getByRole('checkbox', { name: /^Claim .* at 0x/, checked: true }).count()).toBe(3);
    await itemAt(page, second).getByTestId('claim-select').uncheck();
    expect(await page.getByLabel(`Destination for ${getAddress(second)}`).count()).toBe(0);
    const [toCoin, toToken] = [0, 1].map(() => privateKeyToAccount(generatePrivateKey()).address);
    await page.getByLabel(`Destination for ${getAddress(coin)}`).fill(toCoin!);
    await page.getByLabel(`Destination for ${getAddress(tokenPaid)}`).fill(toToken!);
    await page.getByRole('button', { name: 'Review the claim' }).click();
    await expect.poll(() => page.getByTestId('claim-estimate').count(), { timeout: 30_000 }).toBe(2);
    expect(await page.getByTestId('claim-estimate').allTextContents()).toEqual([expect.stringMatching(/^Network fee exactly 0\.\d+ ETH$/), expect.stringMatching(/^Network fee at most 0\.\d+ ETH$/)]);
    // Rounded for people: no more than four significant digits.
    expect(await page.getByTestId('claim-fee-total').textContent()).toMatch(/^Network fees at most 0\.0*[1-9]\d{0,3} ETH in all/);
    failed.push(...(await checkPage(page, 'scan30-claim-review')));
    await page.getByRole('button', { name: 'Claim 2 payments' }).click();
    const statuses = () => page.getByTestId('claim-item').evaluateAll((els) => els.map((el) => el.getAttribute('data-status')));
    await expect.poll(statuses, { timeout: 120_000 }).toEqual(['done', 'done']);

    // On chain: the two claimed are empty, the deselected one untouched.
    expect(await balanceOf(coin)).toBe(0n);
    expect(await balanceOf(tokenPaid)).toBe(0n);
    expect(await tokensOf(tokenPaid)).toBe(0n);
    expect(await tokensOf(toToken!)).toBe(100n * TOKENS);
    expect(await balanceOf(second)).toBe(parseEther('0.25'));
    // Signed in the page, broadcast raw through the wallet's connection: coin, token, the token payment's coin.
    expect(calls.filter((c) => c.method === 'eth_sendRawTransaction')).toHaveLength(3);
    expect(calls.filter((c) => /^(eth_requestAccounts|eth_sendTransaction|personal_sign|eth_sign)/.test(c.method))).toEqual([]);

    // The emptied payments show as done and cannot be selected; the one left is still offered.
    await expect.poll(() => itemAt(page, coin).getAttribute('data-done'), { timeout: 30_000 }).toBe('true');
    expect(await itemAt(page, tokenPaid).getAttribute('data-done')).toBe('true');
    expect(await itemAt(page, coin).getByTestId('discovery-done').textContent()).toBe('Claimed');
    expect(await itemAt(page, coin).getByTestId('claim-select').count()).toBe(0);
    expect(await itemAt(page, tokenPaid).getByTestId('claim-select').count()).toBe(0);
    expect(await itemAt(page, second).getByTestId('claim-select').isChecked()).toBe(true);
    expect(await page.getByTestId('holdings').textContent()).toBe("At your payments' addresses now: 0.25 ETH");
    failed.push(...(await checkPage(page, 'scan30-claimed')));

    // The history reads in units too, and its receipt is readable.
    const row = page.locator(`[data-testid="history-row"][data-stealth-address="${tokenPaid.toLowerCase()}"]`);
    expect(await row.getByTestId('history-amount').textContent()).toBe('100 TST');
    await row.getByRole('button', { name: 'Receipt' }).click();
    expect(await page.getByTestId('receipt-amount').textContent()).toBe('100 TST');
    failed.push(...(await checkPage(page, 'scan30-receipt')));

    // The Wraith server never saw a stealth address or a chain query.
    const toServer = h.requests.filter((r) => r.url.startsWith(`${h.server.url}/`));
    const stealthHex = [coin, tokenPaid, second].map((a) => a.slice(2).toLowerCase());
    expect(toServer.filter((r) => stealthHex.some((a) => `${r.url}\n${r.body}`.toLowerCase().includes(a))).map((r) => r.url)).toEqual([]);
    expect(toServer.filter((r) => /eth_|jsonrpc/i.test(`${r.url}\n${r.body}`)).map((r) => r.url)).toEqual([]);
    expect(failed).toEqual([]);
    expect(h.pageErrors).toEqual([]);
  });
});
