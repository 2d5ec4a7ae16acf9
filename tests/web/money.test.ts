/**
 * Issue 18 in the browser: money moves through the web app. anvil carries ENS, the ERC-5564
 * Announcer at its canonical address and a solc-compiled ERC-20; the real server indexes that
 * chain (CHAIN_RPC_URL) into its registry and resolves names on it. Both people use an injected
 * EIP-6963 wallet (tests/web/test-wallet.ts) whose JSON-RPC reaches anvil from Node.
 *
 * A recipient makes keys and publishes them under an ENS name; a sender pays the name 0.5 ETH and
 * 100 tokens with a gas top-up from the wallet; the recipient scans, sees both balances and the
 * opened notes, and withdraws everything to a fresh address. On chain the stealth addresses end
 * with 0 wei and 0 tokens and the destination holds what arrived minus the fees of the receipts.
 * No request to the Wraith server carries a secret, a stealth address or a chain query.
 *
 * Skipped without Chromium unless REQUIRE_BROWSER=1. Needs a production build (`npm test` builds).
 */
import { createScanner, decodeAnnouncementPage, openKeys, type RecipientKeys } from '@wraith-pq/sdk';
import { erc20Abi, parseEther, type Address, type Hash, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBrowser } from '../helpers/chromium.ts';
import { roundedAmount } from '../../app/(web)/_lib/amount.ts';
import { createKeys, fillPayment, findRecipient, PASSWORD, pay, requestsCarrying, scanFor, scanOutcome } from './flows.ts';
import { screenshots, startWebHarness, type WebHarness } from './harness.ts';
import { pageWithWallet as pageWithWalletOn, sender, setupMoneyChain, TOKENS, waitIndexed as waitIndexedOn } from './money-chain.ts';


let h: WebHarness;
let client: PublicClient;
let token: Address;
let env: Record<string, string>;

beforeAll(async () => {
  if (skipBrowser) return;
  h = await startWebHarness({
    async setupChain(chain) {
      ({ client, token, env } = await setupMoneyChain(chain));
      return env;
    },
  });
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

const pageWithWallet = () => pageWithWalletOn(h);

const waitIndexed = () => waitIndexedOn(h.server, client);

const balanceOf = (address: string) => client.getBalance({ address: address as Address });
const tokensOf = (address: string) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] });

/** What a mined transaction cost its sender, from its receipt. */
async function feeOf(hash: string): Promise<bigint> {
  const receipt = await client.getTransactionReceipt({ hash: hash as Hash });
  expect(receipt.status).toBe('success');
  return receipt.gasUsed * receipt.effectiveGasPrice;
}

/** Every stealth secret key of `keys` in the registry, found as a scanner would (for the leak check). */
async function stealthKeysOf(keys: Omit<RecipientKeys, 'viewingSeed'>): Promise<Uint8Array[]> {
  const response = await fetch(`${h.server.url}/api/v1/registry/announcements?after_id=0&limit=5000`, { headers: { accept: 'application/octet-stream' } });
  const page = decodeAnnouncementPage(new Uint8Array(await response.arrayBuffer()));
  return createScanner(keys).scan(page).discoveries.map((d) => d.stealthSecretKey!);
}

describe.skipIf(skipBrowser)('money through the web app in Chromium', () => {
  it('pays a name 0.5 ETH and 100 tokens from a wallet; the recipient scans, sees balances and notes, and withdraws both to a fresh address', { timeout: 300_000 }, async () => {
    // The recipient: keys on the Receive page, published under an ENS name.
    const { page: alice, wallet: aliceWallet } = await pageWithWallet();
    const { envelope } = await createKeys(alice);
    const record = (await alice.getByTestId('text-record').textContent())!;
    expect(record).toMatch(/^ipfs:\/\/baf/);
    await h.chain.register('alice-money.eth');
    await h.chain.setText('alice-money.eth', 'stealth-meta', record);

    // The sender: resolve the name, connect the wallet, pay 0.5 ETH.
    const { page: bob, wallet: bobWallet } = await pageWithWallet();
    await findRecipient(bob, 'alice-money.eth');
    await bob.getByRole('button', { name: 'Connect Test Wallet' }).click();
    expect(await bob.getByTestId('wallet-connected').textContent()).toContain('chain id 31337');
    const senderBefore = await balanceOf(sender.address);
    const confirmations = () => bobWallet.calls.filter((c) => c.method === 'eth_sendTransaction' || c.method === 'wallet_sendCalls').length;
    const beforeCoin = confirmations();
    const ethPaid = await pay(bob, { native: '0.5' });
    // One wallet confirmation pays and announces a coin payment.
    expect(confirmations() - beforeCoin).toBe(1);
    const ethAddress = ethPaid.stealthAddress;
    expect(ethPaid.summary).toBe('0.5 ETH');
    expect(ethPaid.topUp).toBeNull();
    expect(await balanceOf(ethAddress)).toBe(parseEther('0.5'));
    // Announced on chain already: no announcement to make by hand.
    expect(await bob.getByLabel('Transaction hash').count()).toBe(0);
    await screenshots(bob, 'send-paid');

    // A second payment, to a second one-time address: 100 tokens and 0.01 ETH for gas, at most two confirmations.
    const beforeToken = confirmations();
    const tokenPaid = await pay(bob, { token, amount: '100', topUp: '0.01' });
    expect(confirmations() - beforeToken).toBeLessThanOrEqual(2);
    const tokenAddress = tokenPaid.stealthAddress;
    expect(tokenAddress).not.toBe(ethAddress);
    expect(tokenPaid.summary).toBe('100 TST and 0.01 ETH for gas');
    expect(await tokensOf(tokenAddress)).toBe(100n * TOKENS);
    expect(await balanceOf(tokenAddress)).toBe(parseEther('0.01'));
    // The wallet paid both, every fee from the receipts: its transactions went through the wallet, not elsewhere.
    const sent = [...new Set([ethPaid.payment, ethPaid.announcement, tokenPaid.approval, tokenPaid.payment, tokenPaid.topUp, tokenPaid.announcement].filter((hash): hash is string => hash !== null))];
    for (const hash of sent) expect((await client.getTransaction({ hash: hash as Hash })).from.toLowerCase()).toBe(sender.address.toLowerCase());
    let senderFees = 0n;
    for (const hash of sent) senderFees += await feeOf(hash);
    expect(await balanceOf(sender.address)).toBe(senderBefore - parseEther('0.51') - senderFees);

    // The recipient: the server's indexer has the two announcements; scan, read through the wallet.
    await waitIndexed();
    const [ethItem, tokenItem] = (await scanFor(alice, [ethAddress, tokenAddress]));
    // The notes, opened in the browser: the amount in the asset the note names and the chain. Paid
    // through WraithPay, the paying transaction is the announcing one, so the note names none.
    expect(await ethItem.getByTestId('note-amount').textContent()).toBe('0.5 ETH');
    expect(await ethItem.getByTestId('discovery-note').textContent()).toContain('chain id 31337');
    // TST is on no list this server or the app names: the token's address shows until the wallet on the page reads its symbol.
    await expect.poll(() => tokenItem.getByTestId('note-amount').textContent(), { timeout: 30_000 }).toBe('100 TST');

    // The wallet in this browser reads the balances by itself: no button.
    expect(await ethItem.getByTestId('balance-native').textContent({ timeout: 30_000 })).toBe('0.5 ETH');
    expect(await ethItem.getByTestId('received').textContent()).toContain('0.5 ETH');
    expect(await ethItem.getByTestId('balance-token').count()).toBe(0);
    expect(await tokenItem.getByTestId('balance-native').textContent({ timeout: 30_000 })).toBe('0.01 ETH');
    // The token was found from the note's transaction: nobody typed its address on this page.
    expect(await tokenItem.getByTestId('balance-token').textContent()).toBe('100 TST');
    expect(await tokenItem.getByTestId('received').textContent()).toContain('100 TST');
    // Read through the wallet, the token payment's amount reads in its unit (a token no list names showed its address until then).
    await expect.poll(() => tokenItem.getByTestId('note-amount').textContent()).toBe('100 TST');
    // Those reads went through the wallet's provider.
    const balanceReads = aliceWallet.calls.filter((c) => c.method === 'eth_getBalance').map((c) => String(c.params[0]).toLowerCase());
    expect(balanceReads).toEqual(expect.arrayContaining([ethAddress.toLowerCase(), tokenAddress.toLowerCase()]));
    await screenshots(alice, 'scan-funds');

    // Claim both to one fresh address: the page says plainly that this links them, and asks before it does.
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    expect(await alice.getByTestId('linking-notice').textContent()).toContain('links them on chain');
    await alice.getByLabel('One destination for all').check();
    await alice.getByLabel('I understand: link these payments').check();
    await alice.getByLabel('Destination for all', { exact: true }).fill(destination);
    await alice.getByRole('button', { name: 'Review the claim' }).click();
    await expect.poll(() => alice.getByTestId('claim-estimate').count(), { timeout: 30_000 }).toBe(2);
    // A coin sweep's fee is exact; a token transfer's gas is a limit, so that payment's fee is a maximum.
    const [ethEstimate, tokenEstimate] = await alice.getByTestId('claim-estimate').allTextContents();
    expect(tokenEstimate).toMatch(/^Network fee at most 0\.\d+ ETH$/);
    await alice.getByRole('button', { name: 'Claim 2 payments' }).click();
    const statuses = () => alice.getByTestId('claim-item').evaluateAll((els) => els.map((el) => el.getAttribute('data-status')));
    await expect.poll(statuses, { timeout: 120_000 }).toEqual(['done', 'done']);
    await screenshots(alice, 'scan-withdrawn');
    // Signed in the page with the one-time keys and broadcast through the wallet's provider; the wallet's account signed nothing.
    const raw = aliceWallet.calls.filter((c) => c.method === 'eth_sendRawTransaction');
    expect(raw).toHaveLength(3);
    expect(aliceWallet.calls.filter((c) => c.method === 'eth_sendTransaction')).toEqual([]);

    // On chain: nothing left at either stealth address; the destination holds what arrived minus the exact fees.
    const hashes = await alice.getByTestId('claim-tx').allTextContents();
    expect(hashes).toHaveLength(3);
    let claimFees = 0n;
    for (const hash of hashes) claimFees += await feeOf(hash);
    expect(await balanceOf(ethAddress)).toBe(0n);
    expect(await balanceOf(tokenAddress)).toBe(0n);
    expect(await tokensOf(tokenAddress)).toBe(0n);
    expect(await tokensOf(destination)).toBe(100n * TOKENS);
    expect(await balanceOf(destination)).toBe(parseEther('0.51') - claimFees);
    // The coin payment's fee shown before signing was what it cost, rounded for people.
    const ethHash = (await alice.getByTestId('claim-item').nth(0).getByTestId('claim-tx').textContent())!;
    expect(ethEstimate).toBe(`Network fee exactly ${roundedAmount(await feeOf(ethHash), 18, 'ETH')}`);
    // Both are shown as claimed, with nothing left to select.
    await expect.poll(() => ethItem.getAttribute('data-done'), { timeout: 30_000 }).toBe('true');
    expect(await tokenItem.getAttribute('data-done')).toBe('true');
    expect(await alice.getByTestId('claim-select').count()).toBe(0);
    expect(await ethItem.getByTestId('balance-native').textContent()).toBe('0 ETH');

    // The Wraith server never saw a secret, a stealth address or a chain query.
    const keys = await openKeys(envelope, PASSWORD);
    const secrets = [keys.spendingSecretKey, keys.viewingSecretKey, ...(await stealthKeysOf(keys))];
    if ('viewingSeed' in keys) secrets.push(keys.viewingSeed);
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    const toServer = h.requests.filter((r) => r.url.startsWith(`${h.server.url}/`));
    expect(toServer.length).toBeGreaterThan(5);
    expect(requestsCarrying(toServer, secrets)).toEqual([]);
    const stealthHex = [ethAddress, tokenAddress].map((a) => a.slice(2).toLowerCase());
    const aboutAddresses = toServer.filter((r) => stealthHex.some((a) => `${r.url}\n${r.body}`.toLowerCase().includes(a)));
    expect(aboutAddresses.map((r) => `${r.method} ${r.url}`)).toEqual([]);
    expect(toServer.filter((r) => /eth_|jsonrpc/i.test(`${r.url}\n${r.body}`)).map((r) => r.url)).toEqual([]);
    // And the page fetched nothing from any other origin (the wallet's RPC is the wallet's business).
    expect(h.requests.filter((r) => !r.url.startsWith(`${h.server.url}/`) && !/^(blob|data):/.test(r.url)).map((r) => r.url)).toEqual([]);
    expect(h.pageErrors).toEqual([]);
  });

  it('refuses bad payment input before asking the wallet, and a token withdrawal from an address without gas with a message that says what to send, sending nothing', { timeout: 180_000 }, async () => {
    const { page: carol } = await pageWithWallet();
    const { metaAddress } = await createKeys(carol);
    const { page: dan } = await pageWithWallet();
    await findRecipient(dan, metaAddress);
    await dan.getByRole('button', { name: 'Connect Test Wallet' }).click();
    // Bad input is refused with a sentence before the wallet is asked for anything.
    const sentBefore = await client.getTransactionCount({ address: sender.address });
    await fillPayment(dan, { native: '0.5.1' });
    expect(await dan.getByRole('alert').filter({ hasText: 'Amount' }).textContent()).toBe('Amount: enter a number such as 0.5.');
    await fillPayment(dan, { token: sender.address, amount: '1' });
    await dan.getByRole('alert').filter({ hasText: 'does not answer as an ERC-20 token' }).waitFor();
    // More tokens than the wallet holds, the top-up left to the page: how many are short, not a contract error.
    await fillPayment(dan, { token, amount: String(2n * 10n ** 6n) });
    expect(await dan.getByRole('alert').filter({ hasText: 'short' }).textContent()).toMatch(/^Your wallet holds [\d.]+ TST, and this payment sends 2000000 TST: [\d.]+ TST short\. Nothing was sent; pay less or add tokens first\.$/);
    expect(await client.getTransactionCount({ address: sender.address })).toBe(sentBefore);
    const { stealthAddress: stealth } = await pay(dan, { token, amount: '5', topUp: '0' });

    await waitIndexed();
    // Keys unlocked: coming to Scan starts the scan, and the wallet reads the balances.
    await carol.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scan' }).click();
    expect(await scanOutcome(carol)).toContain('Scan complete');
    const item = carol.getByTestId('discovery');
    expect(await item.getByTestId('balance-token').textContent({ timeout: 30_000 })).toBe('5 TST');
    expect(await item.getByTestId('balance-native').textContent()).toBe('0 ETH');
    await carol.getByLabel(/^Destination for /).fill(privateKeyToAccount(generatePrivateKey()).address);
    await carol.getByRole('button', { name: 'Review the claim' }).click();
    const estimate = item.getByTestId('claim-estimate');
    expect(await estimate.textContent({ timeout: 30_000 })).toMatch(new RegExp(`^Will fail as things stand: The stealth address ${stealth} holds 0 wei.*Nothing was sent.*Send at least \\d+ wei`, 'i'));
    expect(await client.getTransactionCount({ address: stealth as Address })).toBe(0);
    expect(await tokensOf(stealth)).toBe(5n * TOKENS);
    expect(h.pageErrors).toEqual([]);
  });
});
