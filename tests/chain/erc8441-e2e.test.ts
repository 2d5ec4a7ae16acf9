/**
 * ERC-8441 end to end, in one story (issue 25, "Must show"): on anvil with the ERC-5564 Announcer
 * and the canonical ERC-6538 registry's mainnet bytecode at their canonical addresses, a
 * solc-compiled ERC-20, and the real server (`node server.mjs`) indexing the chain into SQLite.
 *
 * Two recipients register their 1250-byte meta-addresses: one from its own wallet, the other by
 * an EIP-712 signature a relayer submits (the registrant holds no ETH). A sender who knows only
 * their plain 0x addresses looks them up in the registry and pays with scheme 3 and sealed notes:
 * ETH and tokens (with a gas top-up) to the first, ETH to the second, beside a scheme-1000 payment
 * to someone else. The server's indexer stores the scheme-3 events (scheme_id 3, chain_id). The
 * first recipient finds its payments by RPC scan, by registry scan (JSON and binary pages) and
 * through delegated scanning (tracking key: nothing that spends in the answer; with spending_sk
 * the one-time key); the notes open with the amounts paid; everything is withdrawn to 0 wei and
 * 0 tokens. The second withdraws with the key the server's delegated scan returned.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, erc20Abi, getAddress, http as viemHttp, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import {
  bytesToHex,
  createClient,
  createStealthPayment,
  decodeAnnouncementPage,
  erc8441KeysOf,
  generateKeys,
  scanRegistry,
  type AnnouncementPageSource,
  type Discovery,
} from '@wraith-pq/sdk';
import {
  ERC6538_REGISTRY_ADDRESS,
  chainAnnouncementPages,
  payStealth,
  registerKeysOnBehalfParameters,
  registerKeysParameters,
  resolveRegisteredMetaAddress,
  signRegistration,
  stealthBalances,
  withdrawNative,
  withdrawToken,
} from '@wraith-pq/sdk/evm';
import { compileContracts } from '../helpers/anvil.ts';
import { startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { http, startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';

let chain: AnnouncerChain;
let server: RunningServer;
let token: Address;
const dir = temporaryDirectory('wraith-erc8441-e2e-');

beforeAll(async () => {
  chain = await startAnnouncerChain();
  // The registry's runtime bytecode as read from mainnet (its SHA-256 is checked in erc6538.test.ts).
  const code = readFileSync(new URL('../fixtures/erc6538/registry.runtime.hex', import.meta.url), 'utf8').trim() as Hex;
  await chain.rpc('anvil_setCode', [ERC6538_REGISTRY_ADDRESS, code]);
  const { abi, bytecode } = compileContracts(new URL('../fixtures/erc20/', import.meta.url))['TestToken']!;
  const hash = await chain.wallets[0]!.deployContract({ abi, bytecode, args: ['Test Token', 'TST', 18, 10n ** 24n] } as never);
  token = getAddress((await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
  // The default ANNOUNCER_SCHEME_IDS (1000,3): nothing scheme-specific is configured.
  server = await startServer({
    env: { CHAIN_RPC_URL: chain.rpcUrl, CHAIN_NAME: 'anvil', INDEXER_CONFIRMATIONS: '0', INDEXER_POLL_MS: '100', RATE_LIMIT_RPS: '0', REGISTRY_URL: `file:${dir.path}/registry.db` },
  });
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await chain?.stop();
  dir.remove();
});

/** A fresh account, funded or not. */
async function freshWallet(ether: bigint) {
  const account = privateKeyToAccount(generatePrivateKey());
  if (ether > 0n) await chain.rpc('anvil_setBalance', [account.address, `0x${ether.toString(16)}`]);
  return createWalletClient({ account, chain: foundry, transport: viemHttp(chain.rpcUrl) });
}

async function mined(hash: Hex) {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

async function discoveriesOf(source: Parameters<typeof scanRegistry>[0], keys: Parameters<typeof scanRegistry>[1]): Promise<Discovery<any>[]> {
  const found: Discovery<any>[] = [];
  for await (const batch of scanRegistry(source, keys)) found.push(...batch.discoveries);
  return found;
}

/** What a user compares between two ways of finding payments: where, what the note says, the key. */
const summary = (found: Discovery<any>[]) =>
  found.map((d) => ({ schemeId: d.schemeId, address: d.stealthAddress, amount: d.note?.amount, key: bytesToHex(d.stealthSecretKey!) })).sort((a, b) => a.address.localeCompare(b.address));

const tokensOf = (address: Address) => chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

describe('ERC-8441 end to end: register, look up, pay, index, find three ways, withdraw', () => {
  it('two recipients register (directly and on behalf); a sender pays their plain addresses with scheme 3; the server indexes it; the recipient finds it by RPC, registry (JSON and binary) and delegated scan, and withdraws to 0 wei', { timeout: 240_000 }, async () => {
    // ---- Registration (ERC-6538) ----
    const alice = generateKeys();
    const alice3 = erc8441KeysOf(alice);
    const aliceWallet = await freshWallet(parseEther('5'));
    const register = registerKeysParameters({ metaAddress: alice3.metaAddress });
    await mined(await aliceWallet.sendTransaction({ to: register.address, data: register.data }));

    const bob = generateKeys();
    const bob3 = erc8441KeysOf(bob);
    const bobWallet = await freshWallet(0n);
    const { signature } = await signRegistration({ wallet: bobWallet, client: chain.publicClient, metaAddress: bob3.metaAddress });
    const onBehalf = registerKeysOnBehalfParameters({ registrant: bobWallet.account.address, signature, metaAddress: bob3.metaAddress });
    await mined(await chain.wallets[1]!.sendTransaction({ to: onBehalf.address, data: onBehalf.data }));
    expect(await chain.publicClient.getBalance({ address: bobWallet.account.address }), 'the relayer paid, not the registrant').toBe(0n);

    // ---- The sender knows only the plain addresses ----
    const sender = chain.wallets[0]!;
    const lookUp = async (address: Address) => {
      const resolved = await resolveRegisteredMetaAddress({ client: chain.publicClient, registrant: address });
      if (resolved.status !== 'registered') throw new Error(`${address} is ${resolved.status}`);
      expect(resolved.schemeId).toBe(3);
      return resolved.metaAddress.bytes;
    };
    const aliceMeta = await lookUp(aliceWallet.account.address);
    expect(bytesToHex(aliceMeta)).toBe(bytesToHex(alice3.metaAddress));
    const bobMeta = await lookUp(bobWallet.account.address);
    expect(bytesToHex(bobMeta)).toBe(bytesToHex(bob3.metaAddress));
    expect(await resolveRegisteredMetaAddress({ client: chain.publicClient, registrant: privateKeyToAccount(generatePrivateKey()).address })).toEqual({ status: 'unregistered' });

    const ethPayment = createStealthPayment(aliceMeta);
    const tokenPayment = createStealthPayment(aliceMeta);
    const bobPayment = createStealthPayment(bobMeta);
    expect([ethPayment.schemeId, tokenPayment.schemeId, bobPayment.schemeId]).toEqual([3, 3, 3]);
    const paidEth = await payStealth({ wallet: sender, client: chain.publicClient, payment: ethPayment, asset: { type: 'native', value: parseEther('0.5') } });
    const paidTokens = await payStealth({ wallet: sender, client: chain.publicClient, payment: tokenPayment, asset: { type: 'erc20', token, amount: 100n * 10n ** 18n, gasTopUp: parseEther('0.01') } });
    const paidBob = await payStealth({ wallet: sender, client: chain.publicClient, payment: bobPayment, asset: { type: 'native', value: parseEther('0.25') } });
    // A scheme-1000 payment to someone else in the same blocks: the registry holds both schemes.
    const stranger = createStealthPayment(generateKeys().metaAddress);
    expect(stranger.schemeId).toBe(1000);
    await payStealth({ wallet: chain.wallets[2]!, client: chain.publicClient, payment: stranger, asset: { type: 'native', value: 1234n } });

    // ---- The server's indexer stores the events ----
    const head = Number(await chain.blockNumber());
    await expect.poll(async () => (await http(server, '/health')).json.chain?.indexed_block ?? -1, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(head);
    const rows = (await http(server, '/api/v1/registry/announcements?scheme_id=3&limit=100')).json.announcements as Record<string, any>[];
    const byAddress = new Map(rows.map((row) => [row.stealth_address, row]));
    for (const [payment, paid] of [[ethPayment, paidEth], [tokenPayment, paidTokens], [bobPayment, paidBob]] as const) {
      const row = byAddress.get(payment.stealthAddress);
      expect(row, payment.stealthAddress).toMatchObject({ scheme_id: 3, chain_id: chain.chainId, view_tag: payment.viewTag, ephemeral_key: bytesToHex(payment.ephemeralCiphertext) });
      expect(row!.tx_hash.toLowerCase()).toBe(paid.announcementHash.toLowerCase());
      expect(row!.ephemeral_key).toHaveLength(2 * 1121);
    }
    expect(rows).toHaveLength(3);
    const thousand = (await http(server, '/api/v1/registry/announcements?scheme_id=1000&limit=100')).json.announcements as Record<string, any>[];
    expect(thousand.map((row) => [row.scheme_id, row.stealth_address])).toEqual([[1000, stranger.stealthAddress]]);

    // ---- Alice finds her payments three ways ----
    const expected = [
      { schemeId: 3, address: ethPayment.stealthAddress, amount: parseEther('0.5') },
      { schemeId: 3, address: tokenPayment.stealthAddress, amount: 100n * 10n ** 18n },
    ].sort((a, b) => a.address.localeCompare(b.address));
    // By RPC: the chain read for both schemes (the RPC source reads scheme 1000 alone unless told).
    const viaRpc = await discoveriesOf(chainAnnouncementPages({ client: chain.publicClient, schemeId: [1000n, 3n] }), alice);
    expect(summary(viaRpc).map(({ key: _key, ...rest }) => rest)).toEqual(expected);
    for (const d of viaRpc) expect(d.note).toMatchObject({ txHash: d.stealthAddress === ethPayment.stealthAddress ? paidEth.paymentHash : paidTokens.paymentHash, chainId: BigInt(chain.chainId) });
    // By registry scan, JSON pages and binary pages: the same discoveries, with the same keys.
    const client = createClient({ baseUrl: server.url });
    const jsonPages: AnnouncementPageSource = (request) => client.announcementPages({ ...request, format: 'json' });
    const viaJson = await discoveriesOf(jsonPages, alice);
    const viaBinary = await discoveriesOf(client.announcementPages, alice);
    expect(summary(viaJson)).toEqual(summary(viaRpc));
    expect(summary(viaBinary)).toEqual(summary(viaRpc));
    // The binary page the server serves carries scheme_id and chain_id per row (layout 2).
    const page = await fetch(`${server.url}/api/v1/registry/announcements?limit=100`, { headers: { accept: 'application/octet-stream' } });
    expect(page.headers.get('content-type')).toContain('application/octet-stream');
    const decoded = decodeAnnouncementPage(new Uint8Array(await page.arrayBuffer()));
    expect(decoded.filter((row) => row.schemeId === 3).map((row) => [row.stealthAddress, row.chainId, row.ephemeralKey.length]).sort()).toEqual(
      [ethPayment, tokenPayment, bobPayment].map((p) => [p.stealthAddress, chain.chainId, 1121]).sort(),
    );

    // Through delegated scanning: the tracking key alone finds both, and the answer holds nothing that spends.
    const delegated = await http(server, '/api/v1/stealth/scan', { body: { tracking_key: bytesToHex(alice3.trackingKey), meta_address: bytesToHex(alice3.metaAddress) } });
    expect(delegated.status).toBe(200);
    const viewOnly = delegated.json.discoveries as Record<string, any>[];
    expect(viewOnly.map((d) => [d.scheme_id, d.stealth_address, d.note?.amount, d.chain_id]).sort()).toEqual(
      expected.map((e) => [3, e.address, e.amount.toString(), chain.chainId]).sort(),
    );
    for (const d of viewOnly) {
      expect(d.note_status).toBe('opened');
      for (const field of ['eth_private_key', 'stealth_sk', 'ss', 'shared_secret']) expect(d, field).not.toHaveProperty(field);
    }
    for (const key of viaRpc.map((d) => bytesToHex(d.stealthSecretKey!).replace(/^0x/, ''))) expect(delegated.text).not.toContain(key);
    expect(delegated.text).not.toContain(bytesToHex(alice.spendingSecretKey).replace(/^0x/, ''));
    // With spending_sk: the one-time keys, equal to the ones the recipient derives itself.
    const withKey = await http(server, '/api/v1/stealth/scan', {
      body: { tracking_key: bytesToHex(alice3.trackingKey), meta_address: bytesToHex(alice3.metaAddress), spending_sk: bytesToHex(alice.spendingSecretKey) },
    });
    const spendable = (withKey.json.discoveries as Record<string, any>[]).map((d) => ({ address: d.stealth_address, key: d.stealth_sk, eth: d.eth_private_key }));
    expect(spendable.map((d) => [d.address, `0x${String(d.key).replace(/^0x/, '')}`]).sort()).toEqual(summary(viaRpc).map((d) => [d.address, `0x${d.key.replace(/^0x/, '')}`]).sort());
    for (const d of withKey.json.discoveries as Record<string, any>[]) expect(d).not.toHaveProperty('ss');

    // ---- Withdraw everything: tokens first (gas from the top-up), then each coin balance ----
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const tokens = viaRpc.find((d) => d.stealthAddress === tokenPayment.stealthAddress)!;
    const eth = viaRpc.find((d) => d.stealthAddress === ethPayment.stealthAddress)!;
    const [ethBalance, tokenBalance] = await stealthBalances({ client: chain.publicClient, addresses: [eth.stealthAddress, tokens.stealthAddress], tokens: [token] });
    expect(ethBalance).toMatchObject({ native: parseEther('0.5'), tokens: [{ token, balance: 0n }] });
    expect(tokenBalance).toMatchObject({ native: parseEther('0.01'), tokens: [{ token, balance: 100n * 10n ** 18n }] });
    await mined((await withdrawToken({ client: chain.publicClient, stealthSecretKey: tokens.stealthSecretKey!, token, to: destination })).hash);
    const topUp = await withdrawNative({ client: chain.publicClient, stealthSecretKey: tokens.stealthSecretKey!, to: destination });
    await mined(topUp.hash);
    const coin = await withdrawNative({ client: chain.publicClient, stealthSecretKey: eth.stealthSecretKey!, to: destination });
    await mined(coin.hash);
    expect(coin.amount + coin.fee).toBe(parseEther('0.5'));
    for (const address of [eth.stealthAddress, tokens.stealthAddress] as Address[]) expect(await chain.publicClient.getBalance({ address })).toBe(0n);
    expect(await tokensOf(tokens.stealthAddress as Address)).toBe(0n);
    expect(await tokensOf(destination)).toBe(100n * 10n ** 18n);
    expect(await chain.publicClient.getBalance({ address: destination })).toBe(coin.amount + topUp.amount);

    // ---- Bob, who registered without gas, withdraws with the key the delegated scan gave him ----
    const bobScan = await http(server, '/api/v1/stealth/scan', {
      body: { tracking_key: bytesToHex(bob3.trackingKey), meta_address: bytesToHex(bob3.metaAddress), spending_sk: bytesToHex(bob.spendingSecretKey) },
    });
    const [bobFound, ...more] = bobScan.json.discoveries as Record<string, any>[];
    expect(more).toEqual([]);
    expect(bobFound).toMatchObject({ scheme_id: 3, stealth_address: bobPayment.stealthAddress, note_status: 'opened', note: { amount: parseEther('0.25').toString(), tx_hash: paidBob.paymentHash } });
    const bobOut = await withdrawNative({ client: chain.publicClient, stealthSecretKey: bobFound!.eth_private_key, to: bobWallet.account.address });
    await mined(bobOut.hash);
    expect(await chain.publicClient.getBalance({ address: bobPayment.stealthAddress as Address })).toBe(0n);
    expect(await chain.publicClient.getBalance({ address: bobWallet.account.address })).toBe(bobOut.amount);
  });
});
