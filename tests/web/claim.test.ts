/**
 * Issue 26 in the browser: claiming money like a finished product. anvil carries the Announcer
 * and a token (money-chain.ts); the real server indexes it; both people use the injected test
 * wallet (test-wallet.ts), whose JSON-RPC reaches anvil from Node.
 *
 * A sender pays one recipient three times (0.5 ETH; 100 TST with a gas top-up; 0.25 ETH). The
 * recipient scans, reads the notes as "0.5 ETH" and "100 TST", and claims all three in one run to
 * three fresh addresses, each withdrawal signed in the page with its one-time key (no wallet
 * prompt). The token payment's gas is removed first: its claim fails with the reason while the
 * other two finish; its gas back, the run is resumed and finishes. Then every stealth address
 * holds 0, the history lists the three payments with their fees, and the JSON and CSV exports
 * parse and agree with the chain's receipts; its encrypted backup restores it in another browser
 * once the keystore's backup file opens the keys there. Send refuses to overspend the wallet's tokens or coin
 * before anything is signed (the sender's nonce does not move).
 *
 * Skipped without Chromium unless REQUIRE_BROWSER=1. Needs a production build (`npm test` builds).
 */
import { readFileSync } from 'node:fs';
import type { Download, Page } from 'playwright-core';
import { erc20Abi, formatEther, getAddress, parseEther, parseEventLogs, type Address, type Hash, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBrowser } from '../helpers/chromium.ts';
import { createKeys, fillPayment, findRecipient, pay, scanFor, scanOutcome, unlock } from './flows.ts';
import { screenshots, startWebHarness, type WebHarness } from './harness.ts';
import { pageWithWallet as pageWithWalletOn, sender, setupMoneyChain, TOKENS, waitIndexed } from './money-chain.ts';

let h: WebHarness;
let client: PublicClient;
let token: Address;

beforeAll(async () => {
  if (skipBrowser) return;
  h = await startWebHarness({
    async setupChain(chain) {
      const money = await setupMoneyChain(chain);
      ({ client, token } = money);
      return money.env;
    },
  });
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

const pageWithWallet = () => pageWithWalletOn(h);

const balanceOf = (address: string) => client.getBalance({ address: address as Address });
const tokensOf = (address: string) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] });
const setBalance = (address: string, wei: bigint) => client.request({ method: 'anvil_setBalance', params: [address, `0x${wei.toString(16)}`] } as never);

/** RFC 4180 CSV (quoted fields with doubled quotes, CRLF rows) to objects by header. */
function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\n') row.push(field.replace(/\r$/, '')), rows.push(row), (row = []), (field = '');
    else field += c;
  }
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header!.map((name, i) => [name, r[i] ?? ''])));
}

async function downloaded(page: Page, button: string): Promise<{ name: string; text: string }> {
  const [download] = (await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()])) as [Download, void];
  return { name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') };
}

/** The hashes on the page (0x and 64 hex digits, shown whole) that no label names. */
async function unlabelledHashes(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('code, output, strong, span')]
      .filter((el) => el.children.length === 0 && /^0x[0-9a-fA-F]{64}$/.test(el.textContent ?? ''))
      // A Sui address is 32 bytes too: it is labelled by its row, not a transaction.
      .filter((el) => !el.closest('[data-testid="labelled-hash"]') && !/sui-address$/.test(el.getAttribute('data-testid') ?? ''))
      .map((el) => el.textContent!),
  );
}

describe.skipIf(skipBrowser)('claiming several payments at once in Chromium', () => {
  it('claims three payments in one run to three fresh addresses with no wallet prompt; a claim without gas fails with its reason, the others finish, and resumed it completes; history and exports agree with the receipts', { timeout: 420_000 }, async () => {
    const { page: alice, wallet: aliceWallet } = await pageWithWallet();
    const { metaAddress, envelope } = await createKeys(alice);

    // Three payments to one recipient: coin, token with a gas top-up, coin again.
    const { page: bob } = await pageWithWallet();
    await findRecipient(bob, metaAddress);
    await bob.getByRole('button', { name: 'Connect Test Wallet' }).click();
    const coinPaid = await pay(bob, { native: '0.5' });
    const coinAddress = coinPaid.stealthAddress;
    expect(await unlabelledHashes(bob)).toEqual([]);
    expect(await bob.getByTestId('paid-fees').textContent()).toMatch(/Network fees paid: 0\.\d+ ETH/);
    const tokenPaid = await pay(bob, { token, amount: '100', topUp: '0.01' });
    const tokenAddress = tokenPaid.stealthAddress;
    expect(tokenPaid.summary).toBe('100 TST and 0.01 ETH for gas');
    const secondCoinAddress = (await pay(bob, { native: '0.25' })).stealthAddress;

    await waitIndexed(h.server, client);
    const stealth = [coinAddress, tokenAddress, secondCoinAddress] as const;
    const [coinItem, tokenItem] = await scanFor(alice, stealth);
    // The notes read in their units (the note's asset, or a chain read through the wallet, which needs no click).
    await expect.poll(() => coinItem.getByTestId('note-amount').textContent(), { timeout: 30_000 }).toBe('0.5 ETH');
    await expect.poll(() => tokenItem.getByTestId('note-amount').textContent(), { timeout: 30_000 }).toBe('100 TST');
    // Paid through WraithPay, the note names no transaction: the paying transaction is the announcing one.
    expect(coinPaid.payment).toBe(coinPaid.announcement);
    expect(await unlabelledHashes(alice)).toEqual([]);

    // The token payment's gas is taken away: its claim must fail, and say why.
    await setBalance(tokenAddress, 0n);
    const destinations = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()).address);
    const claim = alice.getByTestId('claim-all');
    // Balances are read as the payments are listed: every payment with a balance is selected.
    await expect.poll(() => claim.getByTestId('claim-select').count(), { timeout: 30_000 }).toBe(3);
    expect(await claim.getByTestId('claim-select').evaluateAll((els) => els.map((el) => (el as HTMLInputElement).checked))).toEqual([true, true, true]);
    // One destination for all is offered only behind the linking warning, confirmed.
    await claim.getByLabel('One destination for all').check();
    expect(await claim.getByTestId('claim-linking-warning').textContent()).toContain('links them on chain');
    expect(await claim.getByLabel('Destination for all', { exact: true }).count()).toBe(0);
    await claim.getByLabel('One destination for all').uncheck();
    // The same address for two payments links them: refused, nothing signed.
    for (const [i, address] of stealth.entries()) await claim.getByLabel(`Destination for ${getAddress(address)}`).fill(destinations[i === 1 ? 0 : i]!);
    await claim.getByRole('button', { name: 'Review the claim' }).click();
    await claim.getByRole('alert').filter({ hasText: 'links the payments on chain' }).waitFor();
    expect(await claim.getByRole('button', { name: /^Claim \d/ }).count()).toBe(0);
    // So does the wallet's own account as a destination.
    await claim.getByLabel(`Destination for ${getAddress(stealth[1])}`).fill(sender.address);
    await claim.getByRole('button', { name: 'Review the claim' }).click();
    await claim.getByRole('alert').filter({ hasText: "Test Wallet's own account" }).waitFor();
    // The scan lists payments oldest first; the destinations pasted fill them in that order.
    await claim.getByText('Paste several destinations').click();
    await claim.getByLabel('Fresh destinations, one per line').fill(destinations.join('\n'));
    await claim.getByRole('button', { name: 'Fill in the destinations' }).click();
    for (const [i, address] of stealth.entries()) expect(await claim.getByLabel(`Destination for ${getAddress(address)}`).inputValue()).toBe(destinations[i]);
    await claim.getByRole('button', { name: 'Review the claim' }).click();
    await expect.poll(() => claim.getByTestId('claim-estimate').count(), { timeout: 30_000 }).toBe(3);
    expect(await claim.getByTestId('claim-estimate').allTextContents()).toEqual([
      expect.stringMatching(/^Network fee exactly 0\.\d+ ETH$/),
      expect.stringMatching(/^Will fail as things stand: The stealth address .* holds 0 wei/),
      expect.stringMatching(/^Network fee exactly 0\.\d+ ETH$/),
    ]);
    const walletCallsBefore = aliceWallet.calls.length;
    await claim.getByRole('button', { name: 'Claim 3 payments' }).click();
    const items = claim.getByTestId('claim-item');
    const statuses = () => items.evaluateAll((els) => els.map((el) => el.getAttribute('data-status')));
    await expect.poll(statuses, { timeout: 120_000 }).toEqual(['done', 'failed', 'done']);
    expect(await items.nth(1).getByTestId('claim-error').textContent()).toMatch(/holds 0 wei, and .* needs \d+ wei of gas\. Nothing was sent\./);
    await screenshots(alice, 'claim-one-failed');
    expect(await balanceOf(coinAddress)).toBe(0n);
    expect(await balanceOf(secondCoinAddress)).toBe(0n);
    expect(await tokensOf(tokenAddress)).toBe(100n * TOKENS);

    // Its gas back (from anywhere), the run resumes with the one left and finishes.
    await setBalance(tokenAddress, parseEther('0.01'));
    await claim.getByRole('button', { name: 'Resume the claim (1 left)' }).click();
    await expect.poll(statuses, { timeout: 120_000 }).toEqual(['done', 'done', 'done']);
    // Every withdrawal was signed in the page and broadcast raw: the wallet was never asked to sign or send.
    const walletCalls = aliceWallet.calls.slice(walletCallsBefore).map((c) => c.method);
    expect(walletCalls.filter((m) => m === 'eth_sendRawTransaction')).toHaveLength(4); // coin, token, its coin, coin
    expect(walletCalls.filter((m) => /sign|eth_sendTransaction|eth_requestAccounts|wallet_/.test(m))).toEqual([]);

    for (const address of stealth) expect(await balanceOf(address)).toBe(0n);
    expect(await tokensOf(tokenAddress)).toBe(0n);
    expect(await tokensOf(destinations[1]!)).toBe(100n * TOKENS);
    expect(await claim.getByTestId('claim-tx').count()).toBe(4);
    // Each payment's own balances are read again after the run.
    await expect.poll(() => coinItem.getByTestId('balance-native').textContent(), { timeout: 30_000 }).toBe('0 ETH');
    await expect.poll(() => tokenItem.getByTestId('balance-token').textContent(), { timeout: 30_000 }).toBe('0 TST');
    expect(await unlabelledHashes(alice)).toEqual([]);

    // The history: the three payments, each with what was withdrawn and its fee.
    const rows = alice.getByTestId('history-row');
    expect(await rows.count()).toBe(3);
    const row = (address: string) => alice.locator(`[data-testid="history-row"][data-stealth-address="${address.toLowerCase()}"]`);
    expect(await row(coinAddress).getByTestId('history-amount').textContent()).toBe('0.5 ETH');
    expect(await row(tokenAddress).getByTestId('history-amount').textContent()).toBe('100 TST');
    expect(await row(tokenAddress).getByTestId('history-withdrawn').textContent()).toMatch(/^100 TST and 0\.\d+ ETH$/);
    for (const address of stealth) expect(await row(address).getByTestId('history-fees').textContent()).toMatch(/^0\.\d+ ETH$/);

    // The exports parse, and agree with the chain's receipts to the wei.
    const json = await downloaded(alice, 'Export JSON');
    expect(json.name).toMatch(/^wraith-history-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(json.text) as { kind: string; payments: { stealthAddress: string; amount: string; symbol: string }[]; withdrawals: Record<string, string | number | null>[] };
    expect(exported.kind).toBe('wraith-history');
    const sorted = [...stealth].map((a) => getAddress(a)).sort();
    expect(exported.payments.map((p) => getAddress(p.stealthAddress)).sort()).toEqual(sorted);
    const withdrawn = exported.withdrawals.filter((w) => w.status === 'withdrawn');
    expect(withdrawn).toHaveLength(4);
    expect(exported.withdrawals.filter((w) => w.status === 'failed').map((w) => getAddress(w.stealthAddress as string))).toEqual([getAddress(tokenAddress)]);
    for (const w of withdrawn) {
      const receipt = await client.getTransactionReceipt({ hash: w.hash as Hash });
      const transaction = await client.getTransaction({ hash: w.hash as Hash });
      expect(receipt.status).toBe('success');
      expect(receipt.from).toBe((w.stealthAddress as string).toLowerCase());
      expect(w.feePaid).toBe((receipt.gasUsed * receipt.effectiveGasPrice).toString());
      if (w.asset === 'native') {
        // A coin sweep on a standard chain is charged exactly the fee signed; a token transfer's gas is a limit, so its fee a maximum.
        expect([w.feeKind, w.feeBound]).toEqual(['exact', w.feePaid]);
        expect(transaction.to).toBe((w.destination as string).toLowerCase());
        expect(transaction.value.toString()).toBe(w.amount);
      } else {
        expect(w.feeKind).toBe('maximum');
        expect(BigInt(w.feePaid as string)).toBeLessThanOrEqual(BigInt(w.feeBound as string));
        const [transfer] = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs });
        expect(getAddress(transfer!.address)).toBe(token);
        expect(transfer!.args.to).toBe(getAddress(w.destination as string));
        expect(transfer!.args.value.toString()).toBe(w.amount);
      }
      expect(destinations).toContain(w.destination);
    }
    const csv = await downloaded(alice, 'Export CSV');
    expect(csv.name).toMatch(/\.csv$/);
    const records = parseCsv(csv.text);
    expect(records.filter((r) => r.type === 'payment').map((r) => getAddress(r.stealth_address!)).sort()).toEqual(sorted);
    const csvWithdrawn = records.filter((r) => r.type === 'withdrawal' && r.status === 'withdrawn');
    expect(csvWithdrawn.map((r) => [r.tx_hash, r.amount, r.fee_paid, r.destination])).toEqual(withdrawn.map((w) => [w.hash, w.amount, w.feePaid, w.destination]));
    expect(records.find((r) => r.status === 'failed')?.error).toMatch(/holds 0 wei, and/);

    // One printable receipt per payment: amount, chain, hashes, date, fee; nothing secret.
    await row(tokenAddress).getByRole('button', { name: 'Receipt' }).click();
    const receipt = alice.getByTestId('receipt');
    expect(await receipt.getByTestId('receipt-amount').textContent()).toBe('100 TST');
    const receiptText = (await receipt.textContent())!;
    expect(receiptText).toContain(tokenPaid.payment);
    expect(receiptText).toContain('chain id 31337');
    expect(receiptText).toMatch(/network fee 0\.\d+ ETH/);
    await receipt.getByRole('button', { name: 'Print receipt' }).waitFor();
    await screenshots(alice, 'claim-history');

    // The history is kept encrypted in this browser: no destination in the clear, and none sent to the server.
    const stored = await alice.evaluate(() => Object.entries(localStorage).map(([k, v]) => `${k}=${v}`).join('\n'));
    expect(stored).toMatch(/wraith\.history\.v1\./);
    for (const d of destinations) expect(stored.toLowerCase()).not.toContain(d.slice(2).toLowerCase());
    const toServer = h.requests.filter((r) => r.url.startsWith(`${h.server.url}/`));
    for (const d of destinations) expect(toServer.filter((r) => `${r.url}\n${r.body}`.toLowerCase().includes(d.slice(2).toLowerCase()))).toEqual([]);

    // Another browser: the keystore's backup file opens the keys, the history's backup restores the history.
    const backup = await downloaded(alice, 'Back up history');
    expect(backup.name).toMatch(/^wraith-history-backup-\d{4}-\d{2}-\d{2}\.json$/);
    for (const d of destinations) expect(backup.text.toLowerCase()).not.toContain(d.slice(2).toLowerCase());
    const { page: elsewhere } = await h.newPage();
    await elsewhere.goto('/scan');
    await elsewhere.getByLabel('Backup file').setInputFiles({ name: 'keys.json', mimeType: 'application/json', buffer: Buffer.from(envelope) });
    // Unlocking scans: the payments are found again here, their withdrawals are only in the backup.
    await unlock(elsewhere);
    expect(await scanOutcome(elsewhere)).toContain('Scan complete: 3 new payments.');
    await elsewhere.getByLabel('Restore history from a file').setInputFiles({ name: backup.name, mimeType: 'application/json', buffer: Buffer.from(backup.text) });
    await elsewhere.getByRole('status').filter({ hasText: new RegExp(`^Restored from ${backup.name.replaceAll('.', '\\.')}: [03] payments and 5 withdrawals added\\.$`) }).waitFor();
    const restoredRows = (page: Page) => page.locator('[data-testid="history-row"] dl').evaluateAll((els) => els.map((el) => el.textContent).sort());
    expect(await restoredRows(elsewhere)).toEqual(await restoredRows(alice));
    expect((await downloaded(elsewhere, 'Export CSV')).text).toBe(csv.text);
    // Restored twice, nothing is counted twice.
    await elsewhere.getByLabel('Restore history from a file').setInputFiles({ name: backup.name, mimeType: 'application/json', buffer: Buffer.from(backup.text) });
    await elsewhere.getByRole('status').filter({ hasText: 'Nothing new in' }).waitFor();
    expect(await elsewhere.getByTestId('history-row').count()).toBe(3);
    expect(h.pageErrors).toEqual([]);
  });

  it('refuses to overspend the wallet on Send, tokens or coin, before anything is signed: the nonce does not move', { timeout: 180_000 }, async () => {
    const { page: carol } = await h.newPage();
    const { metaAddress } = await createKeys(carol);
    const { page: dan, wallet } = await pageWithWallet();
    await findRecipient(dan, metaAddress);
    await dan.getByRole('button', { name: 'Connect Test Wallet' }).click();
    const nonce = await client.getTransactionCount({ address: sender.address });
    const held = await tokensOf(sender.address);

    await fillPayment(dan, { token, amount: String(held / TOKENS + 1n), topUp: '0' });
    const tokenAlert = dan.getByRole('alert').filter({ hasText: 'short' });
    await tokenAlert.waitFor({ timeout: 30_000 });
    expect(await tokenAlert.textContent()).toBe(`Your wallet holds ${held / TOKENS} TST, and this payment sends ${held / TOKENS + 1n} TST: 1 TST short. Nothing was sent; pay less or add tokens first.`);

    const coins = await balanceOf(sender.address);
    await fillPayment(dan, { native: formatEther(coins) }); // the whole balance: nothing left for gas
    const coinAlert = dan.getByRole('alert').filter({ hasText: 'network fees' });
    await coinAlert.waitFor({ timeout: 30_000 });
    expect(await coinAlert.textContent()).toMatch(/^Your wallet holds [\d.]+ ETH, and this payment needs up to [\d.]+ ETH \([\d.]+ ETH and at most 0\.\d+ ETH of network fees\): [\d.]+ ETH short\. Nothing was sent/);

    expect(await client.getTransactionCount({ address: sender.address })).toBe(nonce);
    expect(wallet.calls.filter((c) => c.method === 'eth_sendTransaction')).toEqual([]);
    expect(await dan.getByTestId('paid').count()).toBe(0);
    expect(h.pageErrors).toEqual([]);
  });
});
