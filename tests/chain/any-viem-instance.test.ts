/**
 * Issue 32, item 3: the `/evm` entry works with whatever viem the app's clients come from. A
 * CommonJS app's `require('viem')` gets viem's CommonJS build while the SDK loads the ESM build;
 * a bundle or a lockfile may hold a second copy. Their classes are other objects than the SDK's,
 * so a probe that recognised "no contract here" with `instanceof` (the fee model's `l1BaseFee`
 * read) made every estimate and withdrawal throw "returned no data" on plain anvil. Every entry
 * that probes or reads the chain runs here with such clients, on anvil and on Hardhat's OP Stack
 * node: a payment and a token payment priced and paid, announced, found by a scan, withdrawn to
 * 0 wei at the stealth address, and ERC-6538 registrations (direct, and signed for another to
 * submit) estimated, sent and read back.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress, type Address, type Chain, type Hex, type PublicClient } from 'viem';
import { bytesToHex, createStealthPayment, erc8441KeysOf, generateKeys, scanRegistry, type Discovery } from '@wraith-pq/sdk';
import {
  chainAnnouncementPages,
  ERC6538_REGISTRY_ADDRESS,
  estimateGasTopUp,
  estimatePayment,
  estimateRegistration,
  estimateTransactionFees,
  estimateWithdrawal,
  feePaidOf,
  fetchAnnouncements,
  payStealth,
  registerKeysOnBehalfParameters,
  registerKeysParameters,
  resolveRegisteredMetaAddress,
  signRegistration,
  stealthBalances,
  stealthMetaAddressOf,
  withdrawNative,
  withdrawToken,
  type ChainAnnouncement,
} from '@wraith-pq/sdk/evm';
import { compileContracts } from '../helpers/anvil.ts';
import { DEV_KEYS, startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { opNodeOrSkip, startOpNode, type OpNode } from '../helpers/op-node.ts';
import { commonJsViem, copiedViem, type ViemFlavor } from '../helpers/viem-copies.ts';

const REGISTRY_CODE = readFileSync(new URL('../fixtures/erc6538/registry.runtime.hex', import.meta.url), 'utf8').trim() as Hex;
const TOKEN = compileContracts(new URL('../fixtures/erc20/', import.meta.url))['TestToken']!;
const runOpNode = opNodeOrSkip();

/** A chain under test: where it answers, its viem chain (from the flavour), and how to prepare it with the project's own viem. */
type Bench = {
  rpcUrl: string;
  chainOf(flavor: ViemFlavor): Chain;
  deployToken(): Promise<Address>;
  /** OP Stack: no L1 data fee from here on, so a sweep's fee is exact and leaves 0 wei (otherwise the unused part of the L1 fee bound stays, tested in op-stack-withdrawals.test.ts). */
  zeroL1Fees?(): Promise<void>;
};

let anvil: AnnouncerChain;
let opNode: OpNode | undefined;
const flavors: ViemFlavor[] = [];

beforeAll(async () => {
  flavors.push(commonJsViem(), await copiedViem());
  anvil = await startAnnouncerChain();
  await anvil.rpc('anvil_setCode', [ERC6538_REGISTRY_ADDRESS, REGISTRY_CODE]);
  if (runOpNode) {
    opNode = await startOpNode();
    await opNode.setCode(ERC6538_REGISTRY_ADDRESS, REGISTRY_CODE);
    // Real L1 prices for the payments; the withdrawals below set them to 0 to end at 0 wei.
    await opNode.setFees({ l1BaseFee: 20_000_000_000n, blobBaseFee: 1_000_000_000n, baseFeeScalar: 1368, blobBaseFeeScalar: 810949 });
  }
}, 120_000);
afterAll(async () => {
  await Promise.all([anvil?.stop(), opNode?.stop()]);
  for (const flavor of flavors) flavor.remove();
});

function anvilBench(): Bench {
  return { rpcUrl: anvil.rpcUrl, chainOf: (flavor) => flavor.chains.foundry, deployToken: () => deployToken(anvil.wallets[0]!, anvil.publicClient) };
}

function opBench(): Bench {
  const node = opNode!;
  return {
    rpcUrl: node.rpcUrl,
    chainOf: (flavor) => ({ ...flavor.chains.optimism, id: node.chainId }) as Chain,
    deployToken: () => deployToken(node.wallets[0]!, node.publicClient),
    zeroL1Fees: () => node.setFees({ l1BaseFee: 0n, blobBaseFee: 1n, baseFeeScalar: 0, blobBaseFeeScalar: 0 }),
  };
}

async function deployToken(wallet: AnnouncerChain['wallets'][number], client: PublicClient): Promise<Address> {
  const hash = await wallet.deployContract({ abi: TOKEN.abi, bytecode: TOKEN.bytecode, args: ['Test Token', 'TST', 18, 10n ** 33n] } as never);
  return getAddress((await client.waitForTransactionReceipt({ hash })).contractAddress!);
}

/** Pay, find, withdraw everything and register, with clients built from `flavor` only. */
async function journey(bench: Bench, flavor: ViemFlavor) {
  const { viem, accounts } = flavor;
  const chain = bench.chainOf(flavor);
  const transport = viem.http(bench.rpcUrl, { retryCount: 0 });
  const client = viem.createPublicClient({ chain, transport, pollingInterval: 20 }) as unknown as PublicClient;
  const payer = viem.createWalletClient({ account: accounts.privateKeyToAccount(DEV_KEYS[0]!), chain, transport, pollingInterval: 20 });
  const from = payer.account.address;
  const token = await bench.deployToken();
  const recipient = generateKeys();
  const startBlock = await client.getBlockNumber();

  // A coin payment and a token payment, each priced first and signed at that price.
  const coinPayment = createStealthPayment(recipient.metaAddress);
  const coinEstimate = await estimatePayment({ client, from, payment: coinPayment, asset: { type: 'native', value: 10n ** 16n } });
  expect(coinEstimate.short).toBeNull();
  if (coinEstimate.short !== null) return;
  const coinPaid = await payStealth({ wallet: payer as never, client, payment: coinPayment, asset: coinEstimate.asset, signWith: coinEstimate.signWith });
  const coinReceipt = await client.waitForTransactionReceipt({ hash: coinPaid.paymentHash });
  expect(await feePaidOf({ client, receipt: coinReceipt })).toBeGreaterThan(0n);

  const tokenPayment = createStealthPayment(recipient.metaAddress);
  const amount = 100n * 10n ** 18n;
  const topUp = await estimateGasTopUp({ client, token, amount, from });
  expect(topUp.topUp).toBeGreaterThan(0n);
  // A generous top-up: what the token withdrawal leaves is swept too.
  const tokenAsset = { type: 'erc20', token, amount, gasTopUp: 10n ** 16n } as const;
  const tokenEstimate = await estimatePayment({ client, from, payment: tokenPayment, asset: tokenAsset });
  expect(tokenEstimate.short).toBeNull();
  if (tokenEstimate.short !== null) return;
  await payStealth({ wallet: payer as never, client, payment: tokenPayment, asset: tokenEstimate.asset, signWith: tokenEstimate.signWith });

  // The recipient finds both, reading the chain through the same client.
  const latest = await client.getBlockNumber();
  const read = await fetchAnnouncements({ client, fromBlock: startBlock, toBlock: latest });
  expect(read.announcements.length).toBeGreaterThanOrEqual(2);
  const found = new Map<string, Discovery<ChainAnnouncement>>();
  for await (const batch of scanRegistry(chainAnnouncementPages({ client, fromBlock: startBlock }), recipient)) for (const d of batch.discoveries) found.set(d.stealthAddress, d);
  const coinAddress = coinPayment.stealthAddress as Address;
  const tokenAddress = tokenPayment.stealthAddress as Address;
  expect([...found.keys()].sort()).toEqual([coinAddress, tokenAddress].sort());
  const [coinHeld, tokenHeld] = await stealthBalances({ client, addresses: [coinAddress, tokenAddress], tokens: [token] });
  expect(coinHeld!.native).toBe(10n ** 16n);
  expect(tokenHeld!.tokens).toEqual([{ token, balance: amount }]);

  // Withdraw everything: the tokens, then each address's coin, to fresh addresses.
  const fresh = () => accounts.privateKeyToAccount(accounts.generatePrivateKey()).address;
  await bench.zeroL1Fees?.();
  const tokenTo = fresh();
  const shownToken = await estimateWithdrawal({ client, from: tokenAddress, to: tokenTo, token });
  const tokenOut = await withdrawToken({ client, stealthSecretKey: found.get(tokenAddress)!.stealthSecretKey!, token, to: tokenTo });
  expect(tokenOut.amount).toBe(shownToken.amount);
  await client.waitForTransactionReceipt({ hash: tokenOut.hash });
  for (const address of [coinAddress, tokenAddress]) {
    const to = fresh();
    const shown = await estimateWithdrawal({ client, from: address, to });
    const out = await withdrawNative({ client, stealthSecretKey: found.get(address)!.stealthSecretKey!, to });
    expect(out.amount).toBe(shown.amount);
    const receipt = await client.waitForTransactionReceipt({ hash: out.hash });
    expect(await feePaidOf({ client, receipt })).toBe(out.fee);
    expect(await client.getBalance({ address })).toBe(0n);
    expect(await client.getBalance({ address: to })).toBe(out.amount);
  }
  const [tokenLeft] = await stealthBalances({ client, addresses: [tokenAddress], tokens: [token] });
  expect(tokenLeft).toMatchObject({ native: 0n, tokens: [{ balance: 0n }] });

  // ERC-6538: priced, registered from this wallet, read back.
  const { metaAddress } = erc8441KeysOf(recipient);
  const registration = await estimateRegistration({ client, from, metaAddress });
  const fees = await estimateTransactionFees({ client, from, transactions: [{ to: ERC6538_REGISTRY_ADDRESS, gas: registration.gas }] });
  expect(fees.total).toBeGreaterThan(0n);
  const call = registerKeysParameters({ metaAddress });
  const registered = await client.waitForTransactionReceipt({ hash: await payer.sendTransaction({ to: call.address, data: call.data, gas: registration.gas }) });
  expect(registered.status).toBe('success');
  expect(bytesToHex((await stealthMetaAddressOf({ client, registrant: from, schemeId: 3 }))!)).toBe(bytesToHex(metaAddress));
  expect(await resolveRegisteredMetaAddress({ client, registrant: from })).toMatchObject({ status: 'registered', schemeId: 3 });
  // And on behalf: a registrant without coin signs, the payer submits.
  const registrant = viem.createWalletClient({ account: accounts.privateKeyToAccount(accounts.generatePrivateKey()), chain, transport });
  const { signature } = await signRegistration({ wallet: registrant, client, metaAddress });
  const onBehalf = registerKeysOnBehalfParameters({ registrant: registrant.account.address, signature, metaAddress });
  expect((await client.waitForTransactionReceipt({ hash: await payer.sendTransaction({ to: onBehalf.address, data: onBehalf.data }) })).status).toBe('success');
  expect(await resolveRegisteredMetaAddress({ client, registrant: registrant.account.address })).toMatchObject({ status: 'registered', schemeId: 3 });
}

describe('the /evm entry with clients from any viem instance', () => {
  for (const kind of ['CommonJS', 'copy'] as const) {
    const label = kind === 'CommonJS' ? "CommonJS require('viem')" : 'a second copy of viem';
    const flavor = () => flavors[kind === 'CommonJS' ? 0 : 1]!;
    it(`on anvil, with clients from ${label}: prices and pays coin and tokens, finds both, withdraws everything to 0 wei, registers and reads ERC-6538`, { timeout: 120_000 }, async () => {
      await journey(anvilBench(), flavor());
    });
    it.runIf(runOpNode)(`on an OP Stack node, with clients from ${label}: prices and pays coin and tokens, finds both, withdraws everything to 0 wei, registers and reads ERC-6538`, { timeout: 120_000 }, async () => {
      await journey(opBench(), flavor());
    });
  }
});
