/**
 * Issue 24 in the browser: one deployment, two chains. Two anvils with different chain ids
 * (31337, "Foundry" in viem's table, and 1337, "Localhost"), each with the ERC-5564 Announcer at
 * its canonical address; the real server follows both (`CHAINS`) into one registry. Both people
 * use the injected test wallet (tests/web/test-wallet.ts), which reaches each chain's anvil and
 * switches between them as a real wallet does.
 *
 * A sender pays once on chain A, then moves the wallet to chain B from the Send page (the wallet
 * does not know B: the page adds it) and pays again: each payment and its announcement sit on
 * the chain that holds the money. The recipient finds both in one scan, each listed with its
 * chain; withdrawing the chain-B payment asks the wallet to switch first; and a wallet that moved
 * to the other chain behind the page's back, and then declines to switch, gets nothing signed:
 * no transaction is broadcast and no nonce moves.
 *
 * Skipped without Chromium unless REQUIRE_BROWSER=1. Needs a production build (`npm test` builds).
 */
import { ANNOUNCER_ADDRESS } from '@wraith-pq/sdk/evm';
import { createPublicClient, defineChain, getAddress, http as viemHttp, parseAbiItem, parseEther, type Address, type Hash, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileAnnouncerContracts, DEV_KEYS } from '../helpers/announcer-chain.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { skipBrowser } from '../helpers/chromium.ts';
import { http } from '../helpers/server.ts';
import { claimOnly, createKeys, findRecipient, pay, scanFor } from './flows.ts';
import { screenshots, startWebHarness, type WebHarness } from './harness.ts';
import { installTestWallet, type TestWallet } from './test-wallet.ts';

const CHAIN_A = 31_337;
const CHAIN_B = 1_337;
/** The sender's wallet account: anvil's second dev account, funded on both anvils. */
const sender = privateKeyToAccount(DEV_KEYS[1]!);
const ANNOUNCEMENT = parseAbiItem('event Announcement(uint256 indexed schemeId, address indexed stealthAddress, address indexed caller, bytes ephemeralPubKey, bytes metadata)');

let h: WebHarness;
let anvilB: Anvil | undefined;
let rpcA: string;
let chainA: PublicClient;
let chainB: PublicClient;

function clientOf(rpcUrl: string, id: number): PublicClient {
  const chain = id === CHAIN_A ? foundry : defineChain({ id, name: `Chain ${id}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
  return createPublicClient({ chain, transport: viemHttp(rpcUrl, { retryCount: 0 }), pollingInterval: 50 }) as PublicClient;
}

beforeAll(async () => {
  if (skipBrowser) return;
  h = await startWebHarness({
    async setupChain(ensChain) {
      anvilB = await startAnvil(['--chain-id', String(CHAIN_B)]);
      rpcA = ensChain.rpcUrl;
      chainA = clientOf(rpcA, CHAIN_A);
      chainB = clientOf(anvilB.rpcUrl, CHAIN_B);
      // The Announcer's runtime code at its canonical address on both chains, as on every real chain.
      const code = compileAnnouncerContracts().ERC5564Announcer!.deployedBytecode;
      for (const client of [chainA, chainB]) await client.request({ method: 'anvil_setCode', params: [ANNOUNCER_ADDRESS, code] } as never);
      const chains = [
        { name: 'foundry', rpc_url: ensChain.rpcUrl, confirmations: 0 },
        { name: 'localhost', rpc_url: anvilB.rpcUrl, confirmations: 0 },
      ];
      return { CHAINS: JSON.stringify(chains), INDEXER_POLL_MS: '100' };
    },
  });
}, 180_000);
afterAll(async () => {
  await h?.stop();
  await anvilB?.stop();
});

/** A fresh profile with the test wallet: it reaches both anvils and starts on chain A. */
async function pageWithWallet(known?: number[]): Promise<{ page: Page; wallet: TestWallet }> {
  const { page } = await h.newPage();
  const wallet = await installTestWallet(page, { rpcUrls: [rpcA, anvilB!.rpcUrl], account: sender.address, ...(known ? { known } : {}) });
  return { page, wallet };
}

/** Wait until the registry holds `count` announcements (the server indexes both chains). */
async function waitRegistry(count: number): Promise<void> {
  await expect.poll(async () => (await http(h.server, '/api/v1/registry/stats')).json.total_announcements, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(count);
}

/** The Announcer's logs on `client` for `stealthAddress`: where the payment was announced. */
async function announcementsOn(client: PublicClient, stealthAddress: string) {
  return client.getLogs({ address: ANNOUNCER_ADDRESS, event: ANNOUNCEMENT, args: { stealthAddress: stealthAddress as Address }, fromBlock: 0n });
}

describe.skipIf(skipBrowser)('several chains in the web app, in Chromium', () => {
  it('pays on chain A and on chain B from one page, finds both in one scan with their chains, switches the wallet to withdraw on B, and refuses to sign on the wrong chain', { timeout: 300_000 }, async () => {
    const { page: alice, wallet: aliceWallet } = await pageWithWallet();
    const { metaAddress } = await createKeys(alice);

    // The sender's wallet knows chain A only.
    const { page: bob, wallet: bobWallet } = await pageWithWallet([CHAIN_A]);
    await findRecipient(bob, metaAddress);
    await bob.getByRole('button', { name: 'Connect Test Wallet' }).click();
    expect(await bob.getByTestId('pay-chain-name').textContent()).toBe(`Foundry (chain id ${CHAIN_A})`);
    const paidA = await pay(bob, { native: '0.5' });
    const onA = paidA.stealthAddress;
    expect(await bob.getByTestId('paid-chain').textContent()).toBe(`Foundry (chain id ${CHAIN_A})`);

    // Move the wallet to chain B from the page: it does not know B, so the page adds it (EIP-3085), then switches.
    await bob.getByRole('button', { name: 'Make another payment' }).click();
    await bob.getByLabel('Pay on').selectOption(String(CHAIN_B));
    await bob.getByRole('button', { name: `Switch Test Wallet to Localhost (chain id ${CHAIN_B})` }).click();
    await expect.poll(() => bob.getByTestId('pay-chain-name').textContent()).toBe(`Localhost (chain id ${CHAIN_B})`);
    expect(bobWallet.chainId()).toBe(CHAIN_B);
    expect(bobWallet.added).toEqual([expect.objectContaining({ chainId: '0x539', chainName: 'Localhost', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: [expect.any(String)] })]);
    const switches = bobWallet.calls.filter((c) => c.method === 'wallet_switchEthereumChain' || c.method === 'wallet_addEthereumChain').map((c) => c.method);
    expect(switches).toEqual(['wallet_switchEthereumChain', 'wallet_addEthereumChain', 'wallet_switchEthereumChain']);
    const paidB = await pay(bob, { native: '0.25' });
    const onB = paidB.stealthAddress;
    expect(await bob.getByTestId('paid-chain').textContent()).toBe(`Localhost (chain id ${CHAIN_B})`);
    await screenshots(bob, 'send-two-chains');

    // Each payment and its announcement are on the chain that holds the money, and only there.
    expect(await chainA.getBalance({ address: onA as Address })).toBe(parseEther('0.5'));
    expect(await chainB.getBalance({ address: onB as Address })).toBe(parseEther('0.25'));
    expect(await chainB.getBalance({ address: onA as Address })).toBe(0n);
    expect(await chainA.getBalance({ address: onB as Address })).toBe(0n);
    expect((await announcementsOn(chainA, onA)).map((l) => l.transactionHash)).toEqual([paidA.announcement]);
    expect((await announcementsOn(chainB, onB)).map((l) => l.transactionHash)).toEqual([paidB.announcement]);
    expect(await announcementsOn(chainA, onB)).toEqual([]);
    expect(await announcementsOn(chainB, onA)).toEqual([]);

    // The server indexed both chains into one registry; each row says its chain.
    await waitRegistry(2);
    const rows = (await http(h.server, '/api/v1/registry/announcements?after_id=0&limit=10')).json.announcements as { tx_hash: string; chain_id: number | null }[];
    expect(rows.map((r) => [r.tx_hash, r.chain_id])).toEqual(
      expect.arrayContaining([
        [paidA.announcement, CHAIN_A],
        [paidB.announcement, CHAIN_B],
      ]),
    );

    // One scan finds both, each listed with its chain.
    const [itemA, itemB] = (await scanFor(alice, [onA, onB]));
    await expect.poll(() => itemA.getByTestId('discovery-chain').textContent()).toBe(`Foundry (chain id ${CHAIN_A})`);
    expect(await itemB.getByTestId('discovery-chain').textContent()).toBe(`Localhost (chain id ${CHAIN_B})`);

    // The wallet (on chain A) reads chain A by itself: the chain-B payment asks for a switch before anything is read there.
    expect(await itemA.getByTestId('balance-native').textContent({ timeout: 30_000 })).toBe('0.5 ETH');
    await itemB.getByTestId('funds-other-chain').waitFor();
    expect(await itemB.getByTestId('balance-native').count()).toBe(0);
    expect(await itemB.getByTestId('claim-select').count()).toBe(0);
    await screenshots(alice, 'scan-two-chains');
    const readsBeforeSwitch = aliceWallet.calls.filter((c) => c.method === 'eth_getBalance').map((c) => String(c.params[0]).toLowerCase());
    expect(readsBeforeSwitch).not.toContain(onB.toLowerCase());

    // Claiming the chain-B payment: switch the wallet first, then read, review and sign on B.
    await itemB.getByRole('button', { name: `Switch Test Wallet to Localhost (chain id ${CHAIN_B})` }).click();
    expect(await itemB.getByTestId('balance-native').textContent({ timeout: 30_000 })).toBe('0.25 ETH');
    await itemA.getByTestId('funds-other-chain').waitFor();
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const outB = await claimOnly(alice, { [onB]: destination });
    expect(outB.statuses).toEqual(['done']);
    expect(outB.estimates).toEqual([expect.stringMatching(/^Network fee exactly 0\.\d+ ETH$/)]);
    const methods = aliceWallet.calls.map((c) => c.method);
    expect(methods.indexOf('wallet_switchEthereumChain')).toBeGreaterThan(-1);
    expect(methods.indexOf('wallet_switchEthereumChain')).toBeLessThan(methods.indexOf('eth_sendRawTransaction'));
    const hashB = (await alice.getByTestId('claim-tx').textContent())!;
    const receipt = await chainB.getTransactionReceipt({ hash: hashB as Hash });
    const feeB = receipt.gasUsed * receipt.effectiveGasPrice;
    // Nothing stays behind: the whole balance less the fee arrived.
    expect(await chainB.getBalance({ address: onB as Address })).toBe(0n);
    expect(await chainB.getBalance({ address: destination })).toBe(parseEther('0.25') - feeB);
    expect(await chainA.getBalance({ address: destination })).toBe(0n);
    expect(await itemB.getAttribute('data-done')).toBe('true');

    // Back to chain A for the other payment, reviewed there...
    await itemA.getByRole('button', { name: `Switch Test Wallet to Foundry (chain id ${CHAIN_A})` }).click();
    expect(await itemA.getByTestId('balance-native').textContent({ timeout: 30_000 })).toBe('0.5 ETH');
    const elsewhere = privateKeyToAccount(generatePrivateKey()).address;
    await alice.getByLabel(`Destination for ${getAddress(onA)}`).fill(elsewhere);
    await alice.getByRole('button', { name: 'Review the claim' }).click();
    await itemA.getByTestId('claim-estimate').waitFor({ timeout: 30_000 });
    // ...then the wallet moves to chain B without telling the page, and its user declines every switch.
    await aliceWallet.setChain(CHAIN_B, { announce: false });
    aliceWallet.declineSwitching(true);
    const broadcastsBefore = aliceWallet.calls.filter((c) => c.method === 'eth_sendRawTransaction').length;
    await alice.getByRole('button', { name: 'Claim 1 payment' }).click();
    const refusal = alice.getByTestId('claim-all').getByRole('alert').filter({ hasText: 'nothing was signed or sent' });
    expect(await refusal.textContent({ timeout: 30_000 })).toBe(
      `Test Wallet is on Localhost (chain id ${CHAIN_B}) now, not on Foundry (chain id ${CHAIN_A}): nothing was signed or sent. Switch it to Foundry (chain id ${CHAIN_A}) and try again.`,
    );
    // The page now shows where the wallet is, and asks again; the user declines.
    await itemA.getByTestId('funds-other-chain').waitFor();
    await itemA.getByRole('button', { name: `Switch Test Wallet to Foundry (chain id ${CHAIN_A})` }).click();
    await itemA.getByRole('alert').filter({ hasText: 'the request was declined' }).waitFor({ timeout: 30_000 });
    expect(aliceWallet.chainId()).toBe(CHAIN_B);
    // Nothing was broadcast anywhere: no new raw transaction, no nonce moved on either chain, the money is where it was.
    expect(aliceWallet.calls.filter((c) => c.method === 'eth_sendRawTransaction')).toHaveLength(broadcastsBefore);
    expect(await chainA.getTransactionCount({ address: onA as Address })).toBe(0);
    expect(await chainB.getTransactionCount({ address: onA as Address })).toBe(0);
    expect(await chainA.getBalance({ address: onA as Address })).toBe(parseEther('0.5'));
    expect(await chainA.getBalance({ address: elsewhere })).toBe(0n);
    expect(await chainB.getBalance({ address: elsewhere })).toBe(0n);

    // Chain reads went through the wallet, never to the Wraith server.
    const toServer = h.requests.filter((r) => r.url.startsWith(`${h.server.url}/`));
    const stealthHex = [onA, onB].map((a) => a.slice(2).toLowerCase());
    expect(toServer.filter((r) => stealthHex.some((a) => `${r.url}\n${r.body}`.toLowerCase().includes(a))).map((r) => r.url)).toEqual([]);
    expect(toServer.filter((r) => /eth_|jsonrpc/i.test(`${r.url}\n${r.body}`)).map((r) => r.url)).toEqual([]);
    expect(h.pageErrors).toEqual([]);
  });
});
