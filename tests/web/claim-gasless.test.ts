/**
 * Issue 31 in the browser: three token payments made with no gas top-up are claimed from the Scan
 * page in one run through the gasless route. anvil (Prague) carries EntryPoint v0.8, Simple7702Account, a token
 * and the project's paymaster, with the alto bundler in front (account-abstraction.ts); the real
 * server follows that chain with its `gasless` settings, so GET /api/v1/chains names the bundler
 * and the page's policy lets it connect there.
 *
 * The sender pays from Node with the SDK (`payStealth`, no top-up: the one-time address holds no
 * coin). The recipient reviews the claim: the fee is shown in the token ("at most …") and the page
 * says once that the bundler (its host named) sees the one-time address and the destination. The
 * claim is signed in the page with the one-time key: the wallet gets no signing request. Then the
 * one-time address holds 0 tokens and 0 wei, the destination holds the amount minus the fee the
 * paymaster received, that fee is at most the quote shown, and no request to the
 * Wraith server carried the one-time address or the destination.
 *
 * Sending such a token from the Send page (issue 31, item 4): no coin for the recipient's fees by
 * default, and the review says in plain words that they pay the fee in the token; a payer who
 * adds coin anyway still sends it.
 *
 * Skipped without Chromium unless REQUIRE_BROWSER=1. Needs a production build (`npm test` builds).
 */
import { bytesToHex, createStealthPayment, generateKeys, sealKeys } from '@wraith-pq/sdk';
import { payStealth } from '@wraith-pq/sdk/evm';
import type { Page } from 'playwright-core';
import { getAddress, parseUnits, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGaslessChain, TOKEN_DECIMALS, type GaslessChain } from '../helpers/account-abstraction.ts';
import { skipBrowser } from '../helpers/chromium.ts';
import { findRecipient, scanOutcome, unlock } from './flows.ts';
import { startWebHarness, type WebHarness } from './harness.ts';
import { waitIndexed } from './money-chain.ts';
import { protocolWordsShown } from './page-checks.ts';
import { installTestWallet } from './test-wallet.ts';

let h: WebHarness;
let g: GaslessChain;
let client: PublicClient;

beforeAll(async () => {
  if (skipBrowser) return;
  h = await startWebHarness({
    async setupChain() {
      g = await startGaslessChain();
      client = g.chain.publicClient as PublicClient;
      const entry = {
        name: 'ethereum',
        rpc_url: g.chain.rpcUrl,
        confirmations: 0,
        tokens: [{ address: g.token, symbol: 'TUSD', decimals: TOKEN_DECIMALS }],
        gasless: { bundler_url: g.bundlerUrl, paymaster: g.paymaster, tokens: [g.token] },
      };
      return { CHAINS: JSON.stringify([entry]), INDEXER_POLL_MS: '100' };
    },
  });
}, 240_000);
afterAll(async () => {
  await h?.stop();
  await g?.stop();
});

/** The listed payment at `address` (its address is under "Technical details"). */
const itemAt = (page: Page, address: string) => page.getByTestId('discovery').filter({ has: page.getByTestId('discovery-address').getByText(address, { exact: true }) });

describe.skipIf(skipBrowser)('Claiming a token payment that came with no coin, from the Scan page', () => {
  it('claims three payments in one run through the paymaster: each fee shown in the token before signing, no wallet prompt, every one-time address emptied, each destination paid its amount minus a fee within its quote', { timeout: 600_000 }, async () => {
    const keys = generateKeys();
    const envelope = await sealKeys(keys, 'correct horse battery staple');
    const sender = g.chain.accounts[1]!;
    const whole = [100n, 25n, 7n];
    const amounts = whole.map((n) => n * 10n ** BigInt(TOKEN_DECIMALS));
    await g.mint(sender.address, amounts.reduce((a, b) => a + b, 0n));
    const payments = [];
    for (const amount of amounts) {
      const payment = createStealthPayment(keys.metaAddress);
      await payStealth({ wallet: g.chain.wallets[1]!, client, payment, asset: { type: 'erc20', token: g.token, amount, gasTopUp: 0n } });
      expect(await client.getBalance({ address: payment.stealthAddress as Address })).toBe(0n);
      payments.push(payment);
    }
    await waitIndexed(h.server, client);

    const { page } = await h.newPage();
    const { calls } = await installTestWallet(page, { rpcUrl: g.chain.rpcUrl, account: sender.address });
    await page.addInitScript((text) => localStorage.setItem('wraith.keystore.v1', text), envelope);
    await page.goto('/scan');
    await unlock(page);
    expect(await scanOutcome(page)).toContain('Scan complete');
    for (const [i, payment] of payments.entries()) {
      await expect.poll(() => itemAt(page, payment.stealthAddress).getByTestId('balance-token').textContent(), { timeout: 30_000 }).toBe(`${whole[i]} TUSD`);
    }

    const destinations = payments.map(() => privateKeyToAccount(generatePrivateKey()).address);
    for (const [i, payment] of payments.entries()) await page.getByLabel(`Destination for ${getAddress(payment.stealthAddress)}`).fill(destinations[i]!);
    await page.getByRole('button', { name: 'Review the claim' }).click();
    await expect.poll(() => page.getByTestId('claim-estimate').count(), { timeout: 90_000 }).toBe(3);
    const maxFees: bigint[] = [];
    for (const payment of payments) {
      const estimate = (await itemAt(page, payment.stealthAddress).getByTestId('claim-estimate').textContent()) ?? '';
      const quoted = /^No ETH needed: fee at most ([\d.,]+) TUSD, taken from the tokens$/.exec(estimate);
      expect(quoted, `${estimate} ${h.pageErrors.join(' ')}`).not.toBeNull();
      maxFees.push(parseUnits(quoted![1]!.replace(/,/g, ''), TOKEN_DECIMALS));
    }
    expect(maxFees.every((fee) => fee > 0n)).toBe(true);
    const notice = await page.getByTestId('gasless-notice').textContent();
    expect(notice).toContain(`the bundler at ${new URL(g.bundlerUrl).host}`);
    expect(notice).toContain('one-time address');
    expect(await page.getByTestId('gasless-notice').count()).toBe(1);

    const feesBefore = await g.tokenBalance(g.paymaster);
    await page.getByRole('button', { name: 'Claim 3 payments' }).click();
    const statuses = () => page.getByTestId('claim-item').evaluateAll((els) => els.map((el) => el.getAttribute('data-status')));
    await expect.poll(statuses, { timeout: 420_000 }).toEqual(['done', 'done', 'done']);

    // On chain: nothing left at any one-time address; each destination got its amount minus the fee charged, within its quote.
    let fees = 0n;
    for (const [i, payment] of payments.entries()) {
      expect(await g.tokenBalance(payment.stealthAddress as Address)).toBe(0n);
      expect(await client.getBalance({ address: payment.stealthAddress as Address })).toBe(0n);
      const fee = amounts[i]! - (await g.tokenBalance(destinations[i]!));
      expect(fee).toBeGreaterThan(0n);
      expect(fee).toBeLessThanOrEqual(maxFees[i]!);
      fees += fee;
    }
    expect((await g.tokenBalance(g.paymaster)) - feesBefore).toBe(fees);

    // The wallet was asked for nothing; the Wraith server saw none of the addresses.
    expect(calls.filter((c) => /^(eth_requestAccounts|eth_sendTransaction|eth_sendRawTransaction|personal_sign|eth_sign)/.test(c.method))).toEqual([]);
    const toServer = h.requests.filter((r) => r.url.startsWith(`${h.server.url}/`));
    expect(toServer.length).toBeGreaterThan(0);
    const secretHex = [...payments.map((p) => p.stealthAddress), ...destinations].map((a) => a.slice(2).toLowerCase());
    expect(toServer.filter((r) => secretHex.some((a) => `${r.url}\n${r.body}`.toLowerCase().includes(a))).map((r) => r.url)).toEqual([]);
    expect(h.pageErrors).toEqual([]);
  });
});

describe.skipIf(skipBrowser)('Sending a token the chain takes its withdrawal fee in, from the Send page', () => {
  it('sends no coin for the recipient\'s fees by default and says they will pay the fee in the token, with no protocol word on the main path; a payer can still add coin', { timeout: 240_000 }, async () => {
    const keys = generateKeys();
    const sender = g.chain.accounts[2]!;
    await g.mint(sender.address, 50n * 10n ** BigInt(TOKEN_DECIMALS));
    const { page } = await h.newPage();
    await installTestWallet(page, { rpcUrl: g.chain.rpcUrl, account: sender.address });
    await findRecipient(page, bytesToHex(keys.metaAddress));
    await page.getByRole('button', { name: 'Connect Test Wallet' }).click();
    await page.getByTestId('wallet-connected').waitFor();
    // The token by the symbol the server names it with; the coin for their fees is none unless typed.
    await expect.poll(() => page.getByLabel('Asset', { exact: true }).locator('option', { hasText: 'TUSD' }).count(), { timeout: 30_000 }).toBe(1);
    await page.getByLabel('Asset', { exact: true }).selectOption({ label: 'TUSD' });
    await page.getByLabel('Amount', { exact: true }).fill('20');
    const topUpField = page.getByLabel(/^Gas top-up/);
    const openTopUp = async () => {
      if (!(await topUpField.isVisible())) await page.getByText("Coin for the recipient's fees").click();
    };
    await openTopUp();
    await expect.poll(() => topUpField.getAttribute('placeholder'), { timeout: 30_000 }).toBe('none');

    // Coin added by the payer is still sent.
    await topUpField.fill('0.001');
    await page.getByRole('button', { name: 'Review payment' }).click();
    await page.getByTestId('review').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('review-top-up').textContent()).toContain('0.001 ETH');
    expect(await page.getByTestId('review-fee-in-token').count()).toBe(0);
    await page.getByRole('button', { name: 'Change' }).click();

    // Left empty: none, and the review says who pays the fee, in what.
    await openTopUp();
    await topUpField.fill('');
    await page.getByRole('button', { name: 'Review payment' }).click();
    await page.getByTestId('review').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('review-top-up').count()).toBe(0);
    expect(await page.getByTestId('review-fee-in-token').textContent()).toBe('No ETH needed: they will pay the fee of moving the tokens in TUSD, taken from what they receive.');
    expect(await protocolWordsShown(page)).toEqual([]);
    const mainPath = (await page.evaluate(() => document.body.innerText)).toLowerCase();
    expect(['paymaster', 'bundler', 'erc-4337', 'eip-7702', 'entrypoint'].filter((word) => mainPath.includes(word))).toEqual([]);

    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByTestId('paid').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('paid-summary').textContent()).toBe('20 TUSD');
    const stealthAddress = (await page.getByTestId('paid-address').textContent()) as Address;
    expect(await client.getBalance({ address: stealthAddress })).toBe(0n);
    expect(await g.tokenBalance(stealthAddress)).toBe(20n * 10n ** BigInt(TOKEN_DECIMALS));
    expect(h.pageErrors).toEqual([]);
  });
});
