/**
 * Issue 30, one confirmation per payment: WraithPay (contracts/src/WraithPay.sol) on anvil, at its
 * CREATE2 address, and payStealth through it. A coin payment is one wallet confirmation that pays
 * and announces; a token payment at most two (approval, payment), one with `wallet_sendCalls`;
 * the contract keeps nothing and forwards to one-time addresses that already carry EIP-7702 code,
 * or refuses the whole payment when that code refuses coin. The announcements it makes (caller =
 * the contract, sender = the payer) are scanned, indexed and verified like any other.
 */
import { readFileSync } from 'node:fs';
import { createPublicClient, createWalletClient, custom, erc20Abi, getAddress, http, parseEther, parseEventLogs, type Address, type Hash, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, createStealthPayment, generateKeys, scanRegistry, SEALED_NOTE_V1_BYTES, WraithError, type Discovery, type RecipientKeys } from '@wraith-pq/sdk';
import {
  ANNOUNCER_ADDRESS,
  announceParameters,
  announcerAbi,
  chainAnnouncementPages,
  deployWraithPay,
  estimatePayment,
  payStealth,
  WRAITH_PAY_ADDRESS,
  wraithPayAbi,
  wraithPayInitCode,
  type ChainAnnouncement,
  type PaymentAsset,
} from '@wraith-pq/sdk/evm';
import { wraithPayAddressOf } from '../../sdk/src/evm/wraith-pay.ts';
import { verifyPublication } from '../../lib/chain/verify-publication.ts';
import { startIndexer } from '../../lib/chain/indexer.ts';
import { createChainClients } from '../../lib/chain/rpc.ts';
import { createMemoryStore } from '../../lib/registry/memory.ts';
import { publishAnnouncementRequest } from '../../lib/schemas/registry.ts';
import { anvilChainConfig, DEV_KEYS, startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { compileContracts } from '../helpers/anvil.ts';
import { countingWallet, deploySimple7702Account, type CountingWallet } from '../helpers/counting-wallet.ts';

const artifact = (name: string) => JSON.parse(readFileSync(new URL(`../../contracts/build/${name}.json`, import.meta.url), 'utf8')) as { abi: never; bytecode: Hex; deployedBytecode: Hex };

let chain: AnnouncerChain;
let token: Address;
let noBoolToken: Address;
let simple7702: Address;
let coinRefuser: Address;
let recipient: RecipientKeys;

async function deploy(abi: never, bytecode: Hex, args: unknown[]): Promise<Address> {
  const hash = await chain.wallets[0]!.deployContract({ abi, bytecode, args } as never);
  return getAddress((await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
}

beforeAll(async () => {
  chain = await startAnnouncerChain();
  recipient = generateKeys();
  const testToken = compileContracts(new URL('../fixtures/erc20/', import.meta.url))['TestToken']!;
  token = await deploy(testToken.abi as never, testToken.bytecode, ['Test Token', 'TST', 18, 10n ** 24n]);
  noBoolToken = await deploy(artifact('NoBoolToken').abi, artifact('NoBoolToken').bytecode, [10n ** 15n]);
  coinRefuser = await deploy(artifact('CoinRefuser').abi, artifact('CoinRefuser').bytecode, []);
  simple7702 = await deploySimple7702Account(chain.publicClient, chain.rpcUrl, DEV_KEYS[0]!);
  expect((await deployWraithPay({ client: chain.publicClient, wallet: chain.wallets[0]! })).hash).toMatch(/^0x[0-9a-f]{64}$/);
  // Payers: dev accounts 1..3 hold tokens of both kinds.
  for (const account of chain.accounts.slice(1)) {
    await mined(await chain.wallets[0]!.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [account.address, 1_000n * 10n ** 18n] }));
    await mined(await chain.wallets[0]!.writeContract({ address: noBoolToken, abi: erc20Abi, functionName: 'transfer', args: [account.address, 10n ** 12n] }));
  }
}, 120_000);
afterAll(async () => {
  await chain?.stop();
});

async function mined(hash: Hash) {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}
const coin = (address: string) => chain.publicClient.getBalance({ address: address as Address });
const tokens = (address: string, of = token) => chain.publicClient.readContract({ address: of, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] });
const feeOf = async (hash: Hash) => {
  const receipt = await mined(hash);
  return receipt.gasUsed * receipt.effectiveGasPrice;
};

/** A dev account's wallet behind a provider that counts what it is asked to confirm. */
function walletOf(index: number, atomicBatches = false): { wallet: ReturnType<typeof createWalletClient>; counter: CountingWallet } {
  const counter = countingWallet({ rpcUrl: chain.rpcUrl, client: chain.publicClient, key: DEV_KEYS[index]!, atomicBatches });
  const wallet = createWalletClient({ account: chain.accounts[index]!.address, chain: foundry, transport: custom(counter), pollingInterval: 50 });
  return { wallet, counter };
}

async function discover(): Promise<Discovery<ChainAnnouncement>[]> {
  const found: Discovery<ChainAnnouncement>[] = [];
  for await (const batch of scanRegistry(chainAnnouncementPages({ client: chain.publicClient }), recipient)) found.push(...batch.discoveries);
  return found;
}

/** Nothing ever stays in the contract: no coin, no tokens of either kind. */
async function expectContractEmpty() {
  expect(await coin(WRAITH_PAY_ADDRESS)).toBe(0n);
  expect(await tokens(WRAITH_PAY_ADDRESS)).toBe(0n);
  expect(await tokens(WRAITH_PAY_ADDRESS, noBoolToken)).toBe(0n);
}

describe('WraithPay at its CREATE2 address', () => {
  it('lands where the SDK expects it on every chain, from the committed init code, and deploying again does nothing', async () => {
    expect(wraithPayAddressOf(wraithPayInitCode)).toBe(WRAITH_PAY_ADDRESS);
    expect(wraithPayInitCode).toBe(artifact('WraithPay').bytecode);
    expect(await chain.publicClient.getCode({ address: WRAITH_PAY_ADDRESS })).toBe(artifact('WraithPay').deployedBytecode);
    expect(await deployWraithPay({ client: chain.publicClient, wallet: chain.wallets[0]! })).toEqual({ address: WRAITH_PAY_ADDRESS, hash: null });
  });
});

describe('payStealth through WraithPay', () => {
  it('pays coin and announces it in ONE wallet confirmation; the recipient finds it and the contract keeps nothing', async () => {
    const { wallet, counter } = walletOf(1);
    const payment = createStealthPayment(recipient.metaAddress);
    const asset = { type: 'native', value: parseEther('0.5') } as const;
    const payer = chain.accounts[1]!.address;
    const estimate = await estimatePayment({ client: chain.publicClient, from: payer, payment, asset });
    if (estimate.short !== null) throw new Error('a dev account covers 0.5 ETH');
    expect(estimate.signWith).toMatchObject({ via: 'contract', gas: { topUp: null, announcement: null, approval: null } });
    const before = await coin(payer);
    counter.calls.length = 0;
    const paid = await payStealth({ wallet: wallet as never, client: chain.publicClient, payment, asset, signWith: estimate.signWith });
    expect(counter.confirmations()).toEqual(['eth_sendTransaction']);
    expect(paid).toMatchObject({ via: 'contract', announcementHash: paid.paymentHash, topUpHash: null, approvalHash: null, hashes: [paid.paymentHash] });

    // One transaction from the payer to the contract, whose announcement names the contract as caller.
    const receipt = await mined(paid.paymentHash);
    expect(getAddress(receipt.from)).toBe(payer);
    expect(getAddress(receipt.to!)).toBe(WRAITH_PAY_ADDRESS);
    const [event] = parseEventLogs({ abi: announcerAbi, eventName: 'Announcement', logs: receipt.logs });
    expect(event).toMatchObject({ address: ANNOUNCER_ADDRESS.toLowerCase(), args: { caller: WRAITH_PAY_ADDRESS, stealthAddress: payment.stealthAddress, schemeId: 1000n } });
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(fee).toBeLessThanOrEqual(estimate.fee);
    expect(await coin(payer)).toBe(before - parseEther('0.5') - fee);
    expect(await coin(payment.stealthAddress)).toBe(parseEther('0.5'));
    await expectContractEmpty();

    // The scan finds it like any other, with the note sealed in the same transaction (no separate payment hash).
    const found = (await discover()).find((d) => d.stealthAddress === payment.stealthAddress)!;
    expect(found.announcement.txHash).toBe(paid.paymentHash);
    expect(found.note).toMatchObject({ amount: parseEther('0.5'), chainId: 31337n, txHash: null });
  });

  it('pays 100 tokens with a gas top-up in two confirmations (approval, then payment), the next one in one; the no-bool token too', async () => {
    for (const paid of [token, noBoolToken]) {
      const { wallet, counter } = walletOf(2);
      const payer = chain.accounts[2]!.address;
      const amount = paid === token ? 100n * 10n ** 18n : 100_000_000n;
      for (const expected of [['eth_sendTransaction', 'eth_sendTransaction'], ['eth_sendTransaction']]) {
        if (expected.length === 1) {
          // An allowance already in place (an earlier approval): the payment alone.
          await mined(await chain.wallets[2]!.writeContract({ address: paid, abi: erc20Abi, functionName: 'approve', args: [WRAITH_PAY_ADDRESS, amount] }));
        }
        const payment = createStealthPayment(recipient.metaAddress);
        const asset: PaymentAsset = { type: 'erc20', token: paid, amount, gasTopUp: parseEther('0.01') };
        const estimate = await estimatePayment({ client: chain.publicClient, from: payer, payment, asset });
        if (estimate.short !== null) throw new Error('the payer holds the tokens and coin');
        expect(estimate.signWith.gas.approval === null).toBe(expected.length === 1);
        const [coinBefore, tokensBefore] = [await coin(payer), await tokens(payer, paid)];
        counter.calls.length = 0;
        const result = await payStealth({ wallet: wallet as never, client: chain.publicClient, payment, asset: estimate.asset, signWith: estimate.signWith });
        expect(counter.confirmations()).toEqual(expected);
        expect(result.hashes).toHaveLength(expected.length);
        let fees = 0n;
        for (const hash of result.hashes) fees += await feeOf(hash);
        // The bound priced before signing held, the approval's and the payment's gas limits included.
        expect(fees).toBeLessThanOrEqual(estimate.fee);
        const receipt = await mined(result.paymentHash);
        const signed = await chain.publicClient.getTransaction({ hash: result.paymentHash });
        expect(signed.gas).toBe(estimate.signWith.gas.payment);
        expect(receipt.gasUsed).toBeLessThan(signed.gas);
        expect(await tokens(payment.stealthAddress, paid)).toBe(amount);
        expect(await coin(payment.stealthAddress)).toBe(parseEther('0.01'));
        expect(await tokens(payer, paid)).toBe(tokensBefore - amount);
        expect(await coin(payer)).toBe(coinBefore - parseEther('0.01') - fees);
        // An exact approval is used up: nothing stays approved.
        expect(await chain.publicClient.readContract({ address: paid, abi: erc20Abi, functionName: 'allowance', args: [payer, WRAITH_PAY_ADDRESS] })).toBe(0n);
        await expectContractEmpty();
        const found = (await discover()).find((d) => d.stealthAddress === payment.stealthAddress)!;
        expect(found.note).toMatchObject({ amount, chainId: 31337n });
      }
    }
  });

  it('approves and pays in ONE confirmation where the wallet offers atomic batches (EIP-5792 wallet_sendCalls)', async () => {
    const { wallet, counter } = walletOf(3, true);
    const payer = chain.accounts[3]!.address;
    const payment = createStealthPayment(recipient.metaAddress);
    const amount = 25n * 10n ** 18n;
    const estimate = await estimatePayment({ client: chain.publicClient, from: payer, payment, asset: { type: 'erc20', token, amount, gasTopUp: 0n } });
    if (estimate.short !== null) throw new Error('the payer holds the tokens and coin');
    counter.calls.length = 0;
    const paid = await payStealth({ wallet: wallet as never, client: chain.publicClient, payment, asset: estimate.asset, signWith: estimate.signWith });
    expect(counter.confirmations()).toEqual(['wallet_sendCalls']);
    expect(counter.calls.map((c) => c.method)).toContain('wallet_getCapabilities');
    // Both calls in one atomic transaction from the payer's own (delegated) account.
    expect(paid.hashes).toEqual([paid.paymentHash]);
    expect(paid.approvalHash).toBe(paid.paymentHash);
    const receipt = await mined(paid.paymentHash);
    // The wallet priced the batch itself; it still cost less than the bound the estimate showed.
    expect(receipt.gasUsed * receipt.effectiveGasPrice).toBeLessThanOrEqual(estimate.fee);
    expect(getAddress(receipt.from)).toBe(payer);
    expect(parseEventLogs({ abi: announcerAbi, eventName: 'Announcement', logs: receipt.logs })[0]?.args.caller).toBe(WRAITH_PAY_ADDRESS);
    expect(await tokens(payment.stealthAddress)).toBe(amount);
    await expectContractEmpty();
    expect((await discover()).some((d) => d.stealthAddress === payment.stealthAddress)).toBe(true);
  });

  it('never asks a payer funded to exactly what the estimate said for more: coin, and tokens with their approval', async () => {
    const client = chain.publicClient;
    const payer = privateKeyToAccount(generatePrivateKey());
    const wallet = createWalletClient({ account: payer, chain: foundry, transport: http(chain.rpcUrl) });
    const setCoin = (wei: bigint) => client.request({ method: 'anvil_setBalance', params: [payer.address, `0x${wei.toString(16)}`] } as never);
    const payment = createStealthPayment(recipient.metaAddress);
    const asset = { type: 'native', value: parseEther('0.3') } as const;
    const priced = await estimatePayment({ client, from: payer.address, payment, asset });
    expect(priced).toMatchObject({ short: 'coin', coinBalance: 0n });
    if (priced.short === 'token') throw new Error('a coin payment cannot be short of tokens');
    await setCoin(priced.coinNeeded - 1n);
    expect(await estimatePayment({ client, from: payer.address, payment, asset })).toMatchObject({ short: 'coin', coinNeeded: priced.coinNeeded });
    await setCoin(priced.coinNeeded);
    const covered = await estimatePayment({ client, from: payer.address, payment, asset });
    if (covered.short !== null) throw new Error(`exactly coinNeeded must cover the payment, found short of ${covered.short}`);
    expect(covered.coinNeeded).toBe(priced.coinNeeded);
    const paid = await payStealth({ wallet, client, payment, asset, signWith: covered.signWith });
    expect(await coin(payer.address)).toBe(covered.fee - (await feeOf(paid.paymentHash)));
    expect(await coin(payment.stealthAddress)).toBe(parseEther('0.3'));

    // Tokens: the approval and the payment, both priced before either is signed.
    await mined(await chain.wallets[0]!.writeContract({ address: noBoolToken, abi: erc20Abi, functionName: 'transfer', args: [payer.address, 5_000_000n] }));
    const tokenPayment = createStealthPayment(recipient.metaAddress);
    const tokenAsset: PaymentAsset = { type: 'erc20', token: noBoolToken, amount: 5_000_000n };
    const tokenPriced = await estimatePayment({ client, from: payer.address, payment: tokenPayment, asset: tokenAsset });
    if (tokenPriced.short === 'token') throw new Error('5 tokens are held');
    expect(tokenPriced.signWith.gas.approval).toEqual(expect.any(BigInt));
    await setCoin(tokenPriced.coinNeeded);
    const tokenCovered = await estimatePayment({ client, from: payer.address, payment: tokenPayment, asset: tokenPriced.asset });
    if (tokenCovered.short !== null) throw new Error('exactly coinNeeded must cover the token payment');
    const tokenPaid = await payStealth({ wallet, client, payment: tokenPayment, asset: tokenCovered.asset, signWith: tokenCovered.signWith });
    expect(tokenPaid.hashes).toHaveLength(2);
    let fees = 0n;
    for (const hash of tokenPaid.hashes) fees += await feeOf(hash);
    expect(await coin(payer.address)).toBe(tokenCovered.coinNeeded - tokenCovered.sent - fees);
    expect(await tokens(tokenPayment.stealthAddress, noBoolToken)).toBe(5_000_000n);
  });
});

describe('a token that moves an allowance only through 0 (USDT), with a short allowance left over', () => {
  /** A fresh payer holding coin and `held` no-bool tokens, with `left` of them still approved to WraithPay, behind a counting wallet. */
  async function payerWithLeftover(held: bigint, left: bigint, atomicBatches = false) {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    await chain.rpc('anvil_setBalance', [address, `0x${parseEther('10').toString(16)}`]);
    await chain.rpc('anvil_impersonateAccount', [address]);
    await mined(await chain.wallets[0]!.writeContract({ address: noBoolToken, abi: erc20Abi, functionName: 'transfer', args: [address, held] }));
    const own = createWalletClient({ account: privateKeyToAccount(key), chain: foundry, transport: http(chain.rpcUrl) });
    await mined(await own.writeContract({ address: noBoolToken, abi: erc20Abi, functionName: 'approve', args: [WRAITH_PAY_ADDRESS, left] }));
    const counter = countingWallet({ rpcUrl: chain.rpcUrl, client: chain.publicClient, key, atomicBatches });
    const wallet = createWalletClient({ account: address, chain: foundry, transport: custom(counter), pollingInterval: 50 });
    return { address, wallet, counter };
  }
  const allowance = (owner: Address) => chain.publicClient.readContract({ address: noBoolToken, abi: erc20Abi, functionName: 'allowance', args: [owner, WRAITH_PAY_ADDRESS] });

  it('resets it to 0, approves and pays: three confirmations, all three counted and priced by the estimate, and the recipient gets every token', async () => {
    const amount = 5_000_000n;
    const { address, wallet, counter } = await payerWithLeftover(amount, 1_000_000n);
    // What the payer's wallet would hit: approving the amount over the leftover reverts.
    await expect(chain.publicClient.estimateContractGas({ account: address, address: noBoolToken, abi: erc20Abi, functionName: 'approve', args: [WRAITH_PAY_ADDRESS, amount] })).rejects.toThrow();
    const payment = createStealthPayment(recipient.metaAddress);
    const estimate = await estimatePayment({ client: chain.publicClient, from: address, payment, asset: { type: 'erc20', token: noBoolToken, amount, gasTopUp: parseEther('0.01') } });
    if (estimate.short !== null) throw new Error('the payer holds the tokens and coin');
    expect(estimate.confirmations).toBe(3);
    expect(estimate.signWith.gas).toMatchObject({ approvalReset: expect.any(BigInt), approval: expect.any(BigInt) });
    const coinBefore = await coin(address);
    counter.calls.length = 0;
    const paid = await payStealth({ wallet: wallet as never, client: chain.publicClient, payment, asset: estimate.asset, signWith: estimate.signWith });
    expect(counter.confirmations()).toEqual(['eth_sendTransaction', 'eth_sendTransaction', 'eth_sendTransaction']);
    expect(paid.hashes).toHaveLength(3);
    expect(paid.hashes.slice(1)).toEqual([paid.approvalHash, paid.paymentHash]);
    let fees = 0n;
    for (const hash of paid.hashes) fees += await feeOf(hash);
    expect(fees).toBeLessThanOrEqual(estimate.fee);
    expect(await coin(address)).toBe(coinBefore - parseEther('0.01') - fees);
    expect(await tokens(payment.stealthAddress, noBoolToken)).toBe(amount);
    expect(await tokens(address, noBoolToken)).toBe(0n);
    expect(await allowance(address)).toBe(0n);
    await expectContractEmpty();
    expect((await discover()).find((d) => d.stealthAddress === payment.stealthAddress)?.note).toMatchObject({ amount, token: noBoolToken });
  });

  it('sends the reset, the approval and the payment as one batch where the wallet offers atomic batches', async () => {
    const amount = 2_000_000n;
    const { address, wallet, counter } = await payerWithLeftover(amount, 7n, true);
    const payment = createStealthPayment(recipient.metaAddress);
    const estimate = await estimatePayment({ client: chain.publicClient, from: address, payment, asset: { type: 'erc20', token: noBoolToken, amount, gasTopUp: 0n } });
    if (estimate.short !== null) throw new Error('the payer holds the tokens and coin');
    counter.calls.length = 0;
    await payStealth({ wallet: wallet as never, client: chain.publicClient, payment, asset: estimate.asset, signWith: estimate.signWith });
    expect(counter.confirmations()).toEqual(['wallet_sendCalls']);
    expect(await tokens(payment.stealthAddress, noBoolToken)).toBe(amount);
    expect(await allowance(address)).toBe(0n);
  });

  it('does not reset where the token moves an allowance directly: a leftover on an ordinary token is approved over, two confirmations', async () => {
    const payer = chain.accounts[2]!.address;
    await mined(await chain.wallets[2]!.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [WRAITH_PAY_ADDRESS, 1n] }));
    const estimate = await estimatePayment({ client: chain.publicClient, from: payer, payment: createStealthPayment(recipient.metaAddress), asset: { type: 'erc20', token, amount: 10n ** 18n, gasTopUp: 0n } });
    if (estimate.short !== null) throw new Error('the payer holds the tokens and coin');
    expect(estimate.confirmations).toBe(2);
    expect(estimate.signWith.gas.approvalReset).toBeNull();
    await mined(await chain.wallets[2]!.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [WRAITH_PAY_ADDRESS, 0n] }));
  });
});

describe('one-time addresses that already carry EIP-7702 code', () => {
  const delegate = (address: string, to: Address) => chain.rpc('anvil_setCode', [address, `0xef0100${to.slice(2).toLowerCase()}`]);

  it('forwards coin and tokens to an address delegated to Simple7702Account', async () => {
    const { wallet } = walletOf(1);
    const native = createStealthPayment(recipient.metaAddress);
    const withTokens = createStealthPayment(recipient.metaAddress);
    await delegate(native.stealthAddress, simple7702);
    await delegate(withTokens.stealthAddress, simple7702);
    await payStealth({ wallet: wallet as never, client: chain.publicClient, payment: native, asset: { type: 'native', value: parseEther('0.2') } });
    await payStealth({ wallet: wallet as never, client: chain.publicClient, payment: withTokens, asset: { type: 'erc20', token, amount: 3n, gasTopUp: parseEther('0.02') } });
    expect(await coin(native.stealthAddress)).toBe(parseEther('0.2'));
    expect(await coin(withTokens.stealthAddress)).toBe(parseEther('0.02'));
    expect(await tokens(withTokens.stealthAddress)).toBe(3n);
    await expectContractEmpty();
  });

  it('refuses the whole payment when the code refuses coin: COIN_REFUSED before signing, and on chain nothing moves', async () => {
    const payer = chain.accounts[1]!.address;
    const payment = createStealthPayment(recipient.metaAddress);
    await delegate(payment.stealthAddress, coinRefuser);
    const asset = { type: 'native', value: parseEther('0.1') } as const;
    const refused = await estimatePayment({ client: chain.publicClient, from: payer, payment, asset }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WraithError);
    expect((refused as WraithError).code).toBe('COIN_REFUSED');
    const { wallet, counter } = walletOf(1);
    await expect(payStealth({ wallet: wallet as never, client: chain.publicClient, payment, asset })).rejects.toMatchObject({ code: 'COIN_REFUSED' });
    // A token payment without coin still goes through: the tokens do not touch the code.
    await payStealth({ wallet: wallet as never, client: chain.publicClient, payment, asset: { type: 'erc20', token, amount: 4n, gasTopUp: 0n } });
    expect(await tokens(payment.stealthAddress)).toBe(4n);
    // Forced on chain (gas given, so the wallet does not estimate): reverted, the payer charged the fee alone.
    const before = await coin(payer);
    const call = announceParameters({ payment, note: { amount: 1n } }).args;
    const hash = await chain.wallets[1]!.writeContract({ address: WRAITH_PAY_ADDRESS, abi: wraithPayAbi, functionName: 'payNative', args: [call[1], parseEther('0.1'), call[0], call[2], call[3]], value: parseEther('0.1'), gas: 500_000n });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('reverted');
    expect(await coin(payer)).toBe(before - receipt.gasUsed * receipt.effectiveGasPrice);
    expect(await coin(payment.stealthAddress)).toBe(0n);
    expect(counter.confirmations()).toEqual(['eth_sendTransaction', 'eth_sendTransaction']);
    await expectContractEmpty();
  });
});

describe('WraithPay refuses what would leave coin in the wrong place', () => {
  const args = () => {
    const payment = createStealthPayment(recipient.metaAddress);
    const [schemeId, stealthAddress, ephemeralPubKey, metadata] = announceParameters({ payment }).args;
    return { payment, schemeId, stealthAddress, ephemeralPubKey, metadata };
  };
  const simulate = (functionName: 'payNative' | 'payToken', callArgs: readonly unknown[], value: bigint) =>
    chain.publicClient.simulateContract({ account: chain.accounts[1]!.address, address: WRAITH_PAY_ADDRESS, abi: wraithPayAbi, functionName, args: callArgs as never, value }).catch((e: { cause?: { data?: { errorName?: string } } }) => e.cause?.data?.errorName);

  it('a msg.value other than the amount or top-up the call states, a zero one-time address, and coin sent to it directly', async () => {
    const a = args();
    expect(await simulate('payNative', [a.stealthAddress, 10n, a.schemeId, a.ephemeralPubKey, a.metadata], 11n)).toBe('ValueMismatch');
    expect(await simulate('payNative', [a.stealthAddress, 10n, a.schemeId, a.ephemeralPubKey, a.metadata], 9n)).toBe('ValueMismatch');
    expect(await simulate('payToken', [a.stealthAddress, token, 1n, 5n, a.schemeId, a.ephemeralPubKey, a.metadata], 0n)).toBe('ValueMismatch');
    expect(await simulate('payToken', [a.stealthAddress, token, 1n, 0n, a.schemeId, a.ephemeralPubKey, a.metadata], 1n)).toBe('ValueMismatch');
    const zero = '0x0000000000000000000000000000000000000000';
    expect(await simulate('payNative', [zero, 10n, a.schemeId, a.ephemeralPubKey, a.metadata], 10n)).toBe('ZeroStealthAddress');
    expect(await simulate('payToken', [zero, token, 1n, 0n, a.schemeId, a.ephemeralPubKey, a.metadata], 0n)).toBe('ZeroStealthAddress');
    // A token that does not exist (no code) is refused by SafeERC20, not taken for a success.
    expect(await simulate('payToken', [a.stealthAddress, privateKeyToAccount(generatePrivateKey()).address, 1n, 0n, a.schemeId, a.ephemeralPubKey, a.metadata], 0n)).toBe('SafeERC20FailedOperation');
    // Mined: the mismatch reverts and moves nothing.
    const hash = await chain.wallets[1]!.writeContract({ address: WRAITH_PAY_ADDRESS, abi: wraithPayAbi, functionName: 'payNative', args: [a.stealthAddress, 10n, a.schemeId, a.ephemeralPubKey, a.metadata], value: 11n, gas: 500_000n });
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('reverted');
    // No receive or fallback: coin sent to the contract outside a payment is refused.
    await expect(chain.publicClient.estimateGas({ account: chain.accounts[1]!.address, to: WRAITH_PAY_ADDRESS, value: 1n })).rejects.toThrow();
    expect(await coin(a.stealthAddress)).toBe(0n);
    await expectContractEmpty();
  });
});

describe('the server treats WraithPay announcements like any other', () => {
  const config = () => anvilChainConfig(chain.rpcUrl, { maxBlockRange: 1000 });

  it('verified publishing proves a payment made through the contract, and the indexer stores it once', async () => {
    const { wallet } = walletOf(1);
    const payment = createStealthPayment(recipient.metaAddress);
    const paid = await payStealth({ wallet: wallet as never, client: chain.publicClient, payment, asset: { type: 'native', value: parseEther('0.05') } });
    const clients = createChainClients(chain.rpcUrl, 5_000);
    const request = publishAnnouncementRequest.parse({ ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash: paid.paymentHash });
    const verified = await verifyPublication(request, { clients, config: config(), chainId: chain.chainId, timeoutMs: 5_000 });
    expect(verified).toMatchObject({ txHash: paid.paymentHash, stealthAddress: payment.stealthAddress, chainId: chain.chainId });
    // The sealed note from the chain: payStealth's note names its asset (the coin), 112 bytes (PROTOCOL.md 8.1).
    expect(verified.metadata?.length).toBe(SEALED_NOTE_V1_BYTES);

    const store = createMemoryStore();
    const indexer = startIndexer({ store, config: config(), chainId: chain.chainId, timeoutMs: 5_000, clients });
    try {
      await indexer.waitForBlock(Number(await chain.blockNumber()), 60_000);
      const { announcements } = await store.list({}, { limit: 1000, afterId: 0 });
      const rows = announcements.filter((r) => r.txHash === paid.paymentHash);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ stealthAddress: payment.stealthAddress });
    } finally {
      await indexer.stop();
    }
  });
});
