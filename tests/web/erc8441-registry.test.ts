/**
 * Issue 25 in the browser: ERC-6538 registration and payment to a plain address. anvil carries
 * ENS, the ERC-5564 Announcer and the canonical ERC-6538 registry's mainnet runtime bytecode, each
 * at its canonical address (tests/fixtures/erc6538/SOURCE.md); the real server indexes that chain.
 * Both people use the injected EIP-6963 wallet of tests/web/test-wallet.ts, whose JSON-RPC reaches
 * anvil from Node.
 *
 * A recipient registers the 1250-byte ERC-8441 meta-address from the Receive page, with the gas
 * and its price shown first; a sender types only the recipient's wallet address on Send, the page
 * reads the registry through the sender's wallet and pays with scheme 3; the announcement on chain
 * is scheme 3 and the recipient's Scan finds it. An address without a registration is refused with
 * a sentence, and nothing is sent. The Wraith server is never told either address.
 *
 * Skipped without Chromium unless REQUIRE_BROWSER=1. Needs a production build (`npm run build`).
 */
import { readFileSync } from 'node:fs';
import { ANNOUNCER_ADDRESS, announcerAbi, ERC6538_REGISTRY_ADDRESS, registerKeysParameters, stealthMetaAddressOf } from '@wraith-pq/sdk/evm';
import { bytesToHex, erc8441KeysOf, generateKeys } from '@wraith-pq/sdk';
import {
  createPublicClient,
  createWalletClient,
  http as viemHttp,
  parseAbi,
  parseEther,
  parseEventLogs,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { namehash } from 'viem/ens';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileAnnouncerContracts, DEV_KEYS } from '../helpers/announcer-chain.ts';
import { skipBrowser } from '../helpers/chromium.ts';
import { http } from '../helpers/server.ts';
import { createKeys, findRecipient, openAdvanced, PASSWORD, pay, scanFor } from './flows.ts';
import { screenshots, startWebHarness, type WebHarness } from './harness.ts';
import { installTestWallet, type TestWallet } from './test-wallet.ts';

const REGISTRY_CODE = readFileSync(new URL('../fixtures/erc6538/registry.runtime.hex', import.meta.url), 'utf8').trim() as Hex;
/** The sender: anvil's second dev account (the first deploys ENS). The recipient's wallet: the third. */
const sender = privateKeyToAccount(DEV_KEYS[1]!);
const recipientWallet = privateKeyToAccount(DEV_KEYS[2]!);

let h: WebHarness;
let client: PublicClient;

beforeAll(async () => {
  if (skipBrowser) return;
  h = await startWebHarness({
    async setupChain(chain) {
      client = createPublicClient({ chain: foundry, transport: viemHttp(chain.rpcUrl, { retryCount: 0 }), pollingInterval: 50 }) as PublicClient;
      await client.request({ method: 'anvil_setCode', params: [ANNOUNCER_ADDRESS, compileAnnouncerContracts().ERC5564Announcer!.deployedBytecode] } as never);
      await client.request({ method: 'anvil_setCode', params: [ERC6538_REGISTRY_ADDRESS, REGISTRY_CODE] } as never);
      return { CHAIN_RPC_URL: chain.rpcUrl, CHAIN_NAME: 'ethereum', INDEXER_CONFIRMATIONS: '0', INDEXER_POLL_MS: '100' };
    },
  });
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

async function pageWithWallet(account: Address): Promise<{ page: Page; wallet: TestWallet }> {
  const { page } = await h.newPage();
  const wallet = await installTestWallet(page, { rpcUrl: h.chain.rpcUrl, account });
  return { page, wallet };
}

async function waitIndexed(): Promise<void> {
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
  await expect.poll(async () => (await http(h.server, '/health')).json.chain?.indexed_block ?? -1, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(head);
}

/** Requests to the Wraith server whose URL or body names `address` (any case). */
function serverRequestsNaming(address: string): string[] {
  const needle = address.slice(2).toLowerCase();
  return h.requests.filter((r) => r.url.startsWith(`${h.server.url}/`) && `${r.url}\n${r.body}`.toLowerCase().includes(needle)).map((r) => `${r.method} ${r.url}`);
}

describe.skipIf(skipBrowser)('ERC-6538 in the web app, in Chromium', () => {
  it('registers the ERC-8441 meta-address from Receive at the price shown, then a sender pays the plain address with scheme 3 and the recipient finds it', { timeout: 300_000 }, async () => {
    // The recipient: keys on the Receive page, shown in both forms.
    const { page: alice, wallet: aliceWallet } = await pageWithWallet(recipientWallet.address);
    const { metaAddress } = await createKeys(alice);
    const erc8441 = (await alice.getByTestId('erc8441-meta-address').textContent())!;
    expect(metaAddress).toMatch(/^0x02[0-9a-f]{2434}$/); // 1218 bytes, scheme 1000
    expect(erc8441).toMatch(/^0x[0-9a-f]{2500}$/); // 1250 bytes, scheme 3
    // B (the spending key) is common to both forms: one identity.
    expect(erc8441.slice(2, 68)).toBe(metaAddress.slice(4, 70));

    // Register (under Advanced): the registry is read first (nothing there), and the price is shown before the wallet is asked.
    await openAdvanced(alice);
    const panel = alice.getByTestId('erc6538-register');
    await panel.getByRole('button', { name: 'Connect Test Wallet' }).click();
    await expect.poll(() => panel.getByTestId('erc6538-status').getAttribute('data-status'), { timeout: 30_000 }).toBe('not-registered');
    const gas = Number((await panel.getByTestId('erc6538-gas').textContent({ timeout: 30_000 }))!.replace(/[^\d]/g, ''));
    expect(gas).toBeGreaterThan(900_000); // the ERC's figure for 1250 bytes on a fresh registrant: about 0.96 M
    expect(gas).toBeLessThan(1_050_000);
    expect(await panel.getByTestId('erc6538-gas-price').textContent()).toMatch(/^\d+(\.\d+)? gwei$/);
    expect(await panel.getByTestId('erc6538-fee').textContent()).toMatch(/^0\.\d+ ETH$/);
    expect(await panel.getByTestId('erc6538-l1-fee').count()).toBe(0); // anvil is no OP Stack chain: no L1 data fee to show
    // Before the button: registering ties this account to the identity in public.
    expect(await panel.getByTestId('erc6538-public').textContent()).toMatch(/public: anyone can see that your wallet's account registered these keys.*an account not otherwise linked/);
    expect(aliceWallet.calls.filter((c) => c.method === 'eth_sendTransaction')).toEqual([]);
    await screenshots(alice, 'receive-erc6538-priced');

    await panel.getByRole('button', { name: 'Register with your wallet' }).click();
    const registration = (await panel.getByTestId('registration-tx').textContent({ timeout: 60_000 }))! as Hash;
    expect(await panel.getByText('Registration (ERC-6538)').count()).toBe(1);
    const receipt = await client.getTransactionReceipt({ hash: registration });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(recipientWallet.address.toLowerCase());
    expect(receipt.to?.toLowerCase()).toBe(ERC6538_REGISTRY_ADDRESS.toLowerCase());
    expect(receipt.gasUsed).toBeLessThanOrEqual(BigInt(gas));
    // The registry holds the identity's 1250 bytes under scheme 3, and the page reads it back as registered.
    const stored = await stealthMetaAddressOf({ client, registrant: recipientWallet.address, schemeId: 3 });
    expect(`0x${bytesToHex(stored!)}`).toBe(erc8441);
    await expect.poll(() => panel.getByTestId('erc6538-status').getAttribute('data-status'), { timeout: 30_000 }).toBe('registered');
    await screenshots(alice, 'receive-erc6538-registered');

    // The sender types only the recipient's wallet address; the registry is read through the sender's wallet.
    const { page: bob, wallet: bobWallet } = await pageWithWallet(sender.address);
    await bob.goto('/send');
    await bob.getByLabel('Payment link, name or address').fill(recipientWallet.address);
    await bob.getByRole('button', { name: 'Find recipient' }).click();
    await bob.getByTestId('registry-lookup').getByRole('button', { name: 'Read with Test Wallet' }).click();
    await bob.getByTestId('recipient-found').waitFor({ timeout: 30_000 });
    expect(await bob.getByTestId('recipient-scheme').textContent()).toBe('scheme 3 (ERC-8441)');
    const registryReads = bobWallet.calls.filter((c) => c.method === 'eth_call' && String((c.params[0] as { to?: string }).to).toLowerCase() === ERC6538_REGISTRY_ADDRESS.toLowerCase());
    expect(registryReads.length).toBeGreaterThan(0);
    await screenshots(bob, 'send-erc6538-found');

    await bob.getByRole('button', { name: 'Connect Test Wallet' }).click();
    const paid = await pay(bob, { native: '0.5' });
    const stealthAddress = paid.stealthAddress;
    expect(await client.getBalance({ address: stealthAddress as Address })).toBe(parseEther('0.5'));
    // On chain, the announcement is scheme 3 (ERC-8441) for that stealth address, with the 1121-byte epk || ct.
    const announced = parseEventLogs({ abi: announcerAbi, logs: (await client.getTransactionReceipt({ hash: paid.announcement as Hash })).logs, eventName: 'Announcement' });
    expect(announced).toHaveLength(1);
    expect(announced[0]!.args.schemeId).toBe(3n);
    expect(announced[0]!.args.stealthAddress.toLowerCase()).toBe(stealthAddress.toLowerCase());
    expect((announced[0]!.args.ephemeralPubKey.length - 2) / 2).toBe(1121);

    // The recipient's Scan finds the scheme-3 payment through the server's registry (its indexer read the chain).
    await waitIndexed();
    const [item] = await scanFor(alice, [stealthAddress]);
    expect(await item.textContent()).toContain(stealthAddress);

    // A new identity in the same browser (a reload locks the keys): the registration on chain is now other keys.
    await alice.goto('/receive');
    await alice.getByRole('button', { name: 'Generate keys' }).click();
    await alice.getByLabel('New password').fill(PASSWORD);
    await alice.getByLabel('Repeat the password').fill(PASSWORD);
    await alice.getByRole('button', { name: 'Save encrypted keys' }).click();
    await alice.getByRole('button', { name: 'Skip for now' }).click();
    await openAdvanced(alice);
    const again = alice.getByTestId('erc6538-register');
    await again.getByRole('button', { name: 'Connect Test Wallet' }).click();
    await expect.poll(() => again.getByTestId('erc6538-status').getAttribute('data-status'), { timeout: 30_000 }).toBe('differs');

    // Neither the recipient's wallet address nor the stealth address reached the Wraith server.
    expect(serverRequestsNaming(recipientWallet.address)).toEqual([]);
    expect(serverRequestsNaming(stealthAddress)).toEqual([]);
    expect(h.pageErrors).toEqual([]);
  });

  it('says clearly that an address without a registration cannot be paid, and sends nothing', { timeout: 120_000 }, async () => {
    const nobody = privateKeyToAccount(generatePrivateKey()).address;
    const { page: bob, wallet: bobWallet } = await pageWithWallet(sender.address);
    const nonceBefore = await client.getTransactionCount({ address: sender.address });
    await bob.goto('/send');
    await bob.getByLabel('Payment link, name or address').fill(nobody.toLowerCase());
    await bob.getByRole('button', { name: 'Find recipient' }).click();
    await bob.getByTestId('registry-lookup').getByRole('button', { name: 'Read with Test Wallet' }).click();
    const problem = (await bob.getByTestId('registry-lookup-problem').textContent({ timeout: 30_000 }))!;
    expect(problem).toContain('has no meta-address registered in the ERC-6538 registry on');
    expect(problem).toContain('nothing was created or sent');
    expect(await bob.getByRole('alert').filter({ hasText: 'has no meta-address registered' }).count()).toBe(1);
    // Nothing to pay, no transaction.
    expect(await bob.getByRole('button', { name: 'Connect Test Wallet' }).count()).toBe(0);
    expect(await bob.getByTestId('review').count()).toBe(0);
    expect(bobWallet.calls.filter((c) => /^eth_send/.test(c.method))).toEqual([]);
    expect(await client.getTransactionCount({ address: sender.address })).toBe(nonceBefore);
    expect(serverRequestsNaming(nobody)).toEqual([]);
    await screenshots(bob, 'send-erc6538-unregistered');
    expect(h.pageErrors).toEqual([]);
  });

  it('pays an ENS name that publishes no stealth-meta record through the ERC-6538 registration of the address it sets, and says so when it sets none', { timeout: 120_000 }, async () => {
    // Someone registered a fresh identity's 1250 bytes from their account, and their name points at that account.
    const registrantAccount = privateKeyToAccount(DEV_KEYS[3]!);
    const registrant = createWalletClient({ account: registrantAccount, chain: foundry, transport: viemHttp(h.chain.rpcUrl) });
    const call = registerKeysParameters({ metaAddress: erc8441KeysOf(generateKeys()).metaAddress });
    await client.waitForTransactionReceipt({ hash: await registrant.sendTransaction({ to: call.address, data: call.data }) });
    await h.chain.register('dave-6538.eth');
    const owner = createWalletClient({ account: privateKeyToAccount(DEV_KEYS[0]!), chain: foundry, transport: viemHttp(h.chain.rpcUrl) });
    const setAddr = await owner.writeContract({
      address: h.chain.publicResolver,
      abi: parseAbi(['function setAddr(bytes32 node, address a)']),
      functionName: 'setAddr',
      args: [namehash('dave-6538.eth'), registrantAccount.address],
    });
    await client.waitForTransactionReceipt({ hash: setAddr });

    const { page: bob } = await pageWithWallet(sender.address);
    await bob.goto('/send');
    const errorsBefore = h.pageErrors.length;
    await bob.getByLabel('Payment link, name or address').fill('dave-6538.eth');
    await bob.getByRole('button', { name: 'Find recipient' }).click();
    const lookup = bob.getByTestId('registry-lookup');
    await lookup.getByText('dave-6538.eth publishes no stealth-meta record').waitFor({ timeout: 30_000 });
    await lookup.getByRole('button', { name: 'Read with Test Wallet' }).click();
    await bob.getByTestId('recipient-found').getByText('dave-6538.eth').waitFor({ timeout: 30_000 });
    expect(await bob.getByTestId('recipient-scheme').textContent()).toBe('scheme 3 (ERC-8441)');
    // The server was asked for the name (as for any name), never for the registration.
    expect(h.requests.filter((r) => r.url.includes('/api/v1/erc6538/'))).toEqual([]);

    // Paid elsewhere and announced here by hand: the scheme-3 record carries its one-time address.
    await openAdvanced(bob);
    await bob.getByRole('button', { name: 'Make a one-time address' }).click();
    const stealthAddress = (await bob.getByTestId('stealth-address').textContent())!;
    const txHash = `0x${'6538'.repeat(16)}`;
    await bob.getByLabel('Transaction hash').fill(txHash);
    await bob.getByRole('button', { name: 'Publish announcement' }).click();
    await bob.getByTestId('announcement-id').waitFor({ timeout: 30_000 });
    const rows = (await http(h.server, '/api/v1/registry/announcements?scheme_id=3&limit=1000')).json.announcements as { tx_hash: string; stealth_address: string; scheme_id: number }[];
    expect(rows.find((r) => r.tx_hash === txHash)).toMatchObject({ scheme_id: 3, stealth_address: stealthAddress });

    // A name with neither a record nor an address: one sentence, nothing to pay.
    await h.chain.register('nobody-6538.eth');
    await bob.getByLabel('Payment link, name or address').fill('nobody-6538.eth');
    await bob.getByRole('button', { name: 'Find recipient' }).click();
    await bob.getByRole('alert').filter({ hasText: 'nobody-6538.eth has not set up private payments yet' }).waitFor({ timeout: 30_000 });
    // The browser reports the server's expected 404s (no stealth-meta record, no address) in the console; nothing else.
    const reported = h.pageErrors.splice(errorsBefore);
    expect(reported.every((message) => /status of 404/.test(message))).toBe(true);
    expect(h.pageErrors).toEqual([]);
  });
});
