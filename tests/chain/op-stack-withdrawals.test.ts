/**
 * Issue 24, scope 2, on a real OP Stack node (Hardhat 3's EDR with `--chain-type op`, see
 * tests/helpers/op-node.ts): every transaction there pays an L1 data fee (and the Isthmus
 * operator fee) outside its gas, charged by the node from the L1Block prices. Withdrawals must be
 * priced with it: a native sweep sends everything but the fee bound and leaves exactly the bound
 * minus what the receipt says was charged; a token withdrawal's gas money (the top-up the sender
 * added, priced by the SDK) covers it; a shortfall states the full price.
 *
 * 50 cases from a seeded generator (fast-check): balances from a hair above the fee to 100 ETH,
 * destinations and token amounts with few or many zero bytes (the L1 fee follows the calldata),
 * L1 base fee, blob base fee, both scalars, the operator fee and the L2 base fee (so the max fee
 * per gas) all drawn at random.
 */
import fc from 'fast-check';
import { erc20Abi, getAddress, parseEther, parseGwei, bytesToHex, type Address, type Hash, type Hex, type TransactionReceipt } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStealthPayment, generateKeys, scanRegistry, type Discovery, type RecipientKeys } from '@wraith-pq/sdk';
import { chainAnnouncementPages, estimateGasTopUp, estimateWithdrawal, feePaidOf, InsufficientGasError, payStealth, stealthBalances, withdrawNative, withdrawToken, type ChainAnnouncement } from '@wraith-pq/sdk/evm';
import { compileContracts } from '../helpers/anvil.ts';
import { chargedBy as chargedOn, opNodeOrSkip, startOpNode, type FeeSettings, type OpNode } from '../helpers/op-node.ts';

const run = opNodeOrSkip();
const CASES = 50;
const SEED = 24;

let node: OpNode;
let token: Address;
let recipient: RecipientKeys;

beforeAll(async () => {
  if (!run) return;
  node = await startOpNode();
  recipient = generateKeys();
  const { abi, bytecode } = compileContracts(new URL('../fixtures/erc20/', import.meta.url))['TestToken']!;
  const hash = await node.wallets[0]!.deployContract({ abi, bytecode, args: ['Test Token', 'TST', 18, 10n ** 33n] } as never);
  token = getAddress((await node.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

/** Base's and OP Mainnet's scalars, 20 gwei on L1, 1 gwei per blob gas: a realistic L1 fee. */
const TYPICAL: FeeSettings = { l1BaseFee: parseGwei('20'), blobBaseFee: parseGwei('1'), baseFeeScalar: 1368, blobBaseFeeScalar: 810949 };

/** What the chain charged a mined transaction that succeeded; the SDK's `feePaidOf` (the oracle's operator fee at the receipt's block) must say the same. */
async function chargedBy(receipt: TransactionReceipt): Promise<bigint> {
  expect(receipt.status).toBe('success');
  const charged = chargedOn(receipt);
  expect(await feePaidOf({ client: node.publicClient, receipt })).toBe(charged);
  return charged;
}

const receiptOf = (hash: Hash) => node.publicClient.waitForTransactionReceipt({ hash });
const balanceOf = (address: Address) => node.publicClient.getBalance({ address });
const tokensOf = (address: Address) => node.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

/**
 * An address without code: 20 bytes, each zero with the given probability. The first byte is
 * kept off 0x00 (precompiles) and 0x42 (the OP Stack predeploys).
 */
const destinationArb = fc.tuple(fc.integer({ min: 0, max: 100 }), fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.integer({ min: 1, max: 255 })).map(([zeroPercent, bytes, first]) => {
  const out = bytes.map((b, i) => (i > 0 && (b * 100) / 256 < zeroPercent ? 0 : b));
  out[0] = first === 0x42 ? 0x43 : first;
  return getAddress(bytesToHex(out));
});

const caseArb = fc.record({
  fees: fc.record({
    l1BaseFee: fc.bigInt({ min: 0n, max: parseGwei('300') }),
    blobBaseFee: fc.bigInt({ min: 1n, max: parseGwei('30') }),
    baseFeeScalar: fc.integer({ min: 0, max: 20_000 }),
    blobBaseFeeScalar: fc.integer({ min: 0, max: 2_000_000 }),
    operatorFeeScalar: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5_000_000 })),
    operatorFeeConstant: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 10n ** 12n })),
    baseFee: fc.bigInt({ min: 1n, max: parseGwei('40') }),
  }),
  stealthKey: fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((k) => k.some((b) => b !== 0)),
  // A fifth of the balances sit just above the fee: the sweep sends next to nothing.
  balance: fc.oneof({ arbitrary: fc.bigInt({ min: 10n ** 15n, max: 10n ** 20n }), weight: 4 }, { arbitrary: fc.bigInt({ min: 1n, max: 10n ** 6n }).map((extra) => -extra), weight: 1 }),
  sweepTo: destinationArb,
  tokenTo: destinationArb,
  // Few or many zero bytes in the calldata.
  tokenAmount: fc.oneof(fc.bigInt({ min: 1n, max: 255n }), fc.bigInt({ min: 1n, max: 10n ** 24n }), fc.integer({ min: 0, max: 12 }).map((k) => 256n ** BigInt(k))),
});

type Outcome = { remainder: bigint; bound: bigint; fee: bigint; l1Fee: bigint };

describe.skipIf(!run)('withdrawals on an OP Stack node', () => {
  it('detects the OP Stack by its GasPriceOracle and prices the L1 data fee into a sweep: the fee shown bounds what the chain charges, and what stays is the difference', { timeout: 60_000 }, async () => {
    await node.setFees(TYPICAL);
    const key = generatePrivateKey();
    const stealth = privateKeyToAccount(key).address;
    await node.rpc('hardhat_setBalance', [stealth, `0x${parseEther('0.3').toString(16)}`]);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const shown = await estimateWithdrawal({ client: node.publicClient, from: stealth, to });
    expect(shown).toMatchObject({ feeModel: 'op-stack', feeKind: 'maximum', gas: 21_000n });
    expect(shown.l1Fee).toBeGreaterThan(0n);
    expect(shown.fee).toBe(shown.gas * shown.maxFeePerGas + shown.l1Fee);
    expect(shown.amount + shown.fee).toBe(parseEther('0.3'));
    // Nothing stays but L1 fee not charged: the bound never counts on a lower L1 price.
    expect(shown.maxRemainder).toBe(shown.l1Fee);
    const out = await withdrawNative({ client: node.publicClient, stealthSecretKey: key, to });
    expect(out).toMatchObject({ ...shown, pricedAt: 'signing' });
    const receipt = (await receiptOf(out.hash)) as TransactionReceipt & { l1Fee: bigint };
    expect(receipt.l1Fee).toBeGreaterThan(0n);
    expect(receipt.l1Fee).toBeLessThanOrEqual(shown.l1Fee);
    expect(await balanceOf(to)).toBe(shown.amount);
    expect(await balanceOf(stealth)).toBe(shown.fee - (await chargedBy(receipt)));
  });

  it(`sweeps and token withdrawals succeed ${CASES} of ${CASES} across random balances, calldata and fee settings; each leaves exactly the bound shown minus the charge, never more than the bound`, { timeout: 240_000 }, async () => {
    const cases = fc.sample(caseArb, { seed: SEED, numRuns: CASES });
    const payer = node.wallets[0]!;
    // 1. The token payments, each under its case's fees, with the default top-up the SDK prices.
    const payments = [];
    for (const c of cases) {
      await node.setFees(c.fees);
      const payment = createStealthPayment(recipient.metaAddress);
      const paid = await payStealth({ wallet: payer, client: node.publicClient, payment, asset: { type: 'erc20', token, amount: c.tokenAmount } });
      expect(paid.topUpHash).not.toBeNull();
      payments.push({ payment, topUp: (await node.publicClient.getTransaction({ hash: paid.topUpHash! })).value });
    }
    // 2. The recipient finds them in one scan.
    const found = new Map<string, Discovery<ChainAnnouncement>>();
    for await (const batch of scanRegistry(chainAnnouncementPages({ client: node.publicClient }), recipient)) for (const d of batch.discoveries) found.set(d.stealthAddress, d);
    const sweeps: Outcome[] = [];
    for (const [i, c] of cases.entries()) {
      const { payment, topUp } = payments[i]!;
      const stealth = payment.stealthAddress as Address;
      const secret = found.get(payment.stealthAddress)!.stealthSecretKey!;
      await node.setFees(c.fees);
      // 3. The token withdrawal, paid from the top-up.
      const [held] = await stealthBalances({ client: node.publicClient, addresses: [stealth], tokens: [token] });
      expect(held).toMatchObject({ native: topUp, tokens: [{ token, balance: c.tokenAmount }] });
      const tokensBefore = await tokensOf(c.tokenTo);
      const out = await withdrawToken({ client: node.publicClient, stealthSecretKey: secret, token, to: c.tokenTo });
      const charged = await chargedBy(await receiptOf(out.hash));
      expect(charged).toBeLessThanOrEqual(out.fee);
      expect(await tokensOf(c.tokenTo)).toBe(tokensBefore + c.tokenAmount);
      expect(await tokensOf(stealth)).toBe(0n);
      expect(await balanceOf(stealth)).toBe(topUp - charged);
      // 4. The top-up's rest, swept.
      sweeps.push(await sweep(secret, stealth, c.sweepTo));
      // 5. A native payment of a random balance, swept.
      const key = bytesToHex(c.stealthKey);
      const address = privateKeyToAccount(key).address;
      let balance = c.balance;
      if (balance < 0n) {
        // Just above the fee: priced on a large balance first (a smaller value only shortens the transaction).
        await node.rpc('hardhat_setBalance', [address, `0x${parseEther('1').toString(16)}`]);
        balance = (await estimateWithdrawal({ client: node.publicClient, from: address, to: c.sweepTo })).fee - balance;
      }
      await node.rpc('hardhat_setBalance', [address, `0x${balance.toString(16)}`]);
      sweeps.push(await sweep(key, address, c.sweepTo));
    }
    expect(sweeps).toHaveLength(2 * CASES);
    const most = sweeps.reduce((a, b) => (b.remainder > a.remainder ? b : a));
    console.info(
      `OP Stack sweeps: ${sweeps.length} of ${sweeps.length} succeeded; largest remainder ${most.remainder} wei (bound ${most.bound}, fee bound ${most.fee}, L1 fee bound ${most.l1Fee}); ` +
        `remainder/bound at most ${Math.max(...sweeps.map((s) => (s.bound === 0n ? 0 : Number((s.remainder * 1000n) / s.bound) / 1000)))}`,
    );
  });

  it('refuses a token withdrawal short of gas money with the full price, L1 data fee included; sending the difference makes it go through', { timeout: 60_000 }, async () => {
    await node.setFees({ ...TYPICAL, l1BaseFee: parseGwei('60') });
    const payment = createStealthPayment(recipient.metaAddress);
    const amount = 5n * 10n ** 18n;
    // A top-up of the L1 fee alone: Hardhat's node will not even estimate the gas of a sender who cannot pay that.
    const { l1Fee } = await estimateGasTopUp({ client: node.publicClient, token, amount, from: node.accounts[0]!.address });
    await payStealth({ wallet: node.wallets[0]!, client: node.publicClient, payment, asset: { type: 'erc20', token, amount, gasTopUp: l1Fee } });
    const stealth = payment.stealthAddress as Address;
    let discovery: Discovery<ChainAnnouncement> | undefined;
    for await (const batch of scanRegistry(chainAnnouncementPages({ client: node.publicClient }), recipient)) discovery ??= batch.discoveries.find((d) => d.stealthAddress === stealth);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const error = await withdrawToken({ client: node.publicClient, stealthSecretKey: discovery!.stealthSecretKey!, token, to }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientGasError);
    const short = error as InsufficientGasError;
    expect(short.available).toBe(l1Fee);
    // The gas alone, at the price the SDK bids, is less than what it asks for: the L1 fee is in it.
    const gas = await node.publicClient.estimateContractGas({ account: stealth, address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
    const { maxFeePerGas } = await node.publicClient.estimateFeesPerGas();
    expect(short.required).toBeGreaterThan(gas * maxFeePerGas);
    await receiptOf(await node.wallets[1]!.sendTransaction({ to: stealth, value: short.required - short.available }));
    const out = await withdrawToken({ client: node.publicClient, stealthSecretKey: discovery!.stealthSecretKey!, token, to });
    const receipt = (await receiptOf(out.hash)) as TransactionReceipt & { l1Fee: bigint };
    expect(receipt.l1Fee).toBeGreaterThan(0n);
    expect(short.required - gas * maxFeePerGas).toBeGreaterThanOrEqual(receipt.l1Fee);
    expect(await tokensOf(to)).toBe(amount);
  });
});

/** Sweep `address` to `to`: the estimate shown first, then the withdrawal; the remainder checked against the receipt to the wei. */
async function sweep(key: Uint8Array | Hex, address: Address, to: Address): Promise<Outcome> {
  const before = await balanceOf(address);
  const toBefore = await balanceOf(to);
  const shown = await estimateWithdrawal({ client: node.publicClient, from: address, to });
  const out = await withdrawNative({ client: node.publicClient, stealthSecretKey: key, to });
  expect(out).toMatchObject({ ...shown, pricedAt: 'signing' });
  expect(out.feeModel).toBe('op-stack');
  expect(out.amount + out.fee).toBe(before);
  const charged = await chargedBy(await receiptOf(out.hash));
  const remainder = await balanceOf(address);
  expect(remainder).toBe(out.fee - charged);
  expect(remainder).toBeLessThanOrEqual(out.maxRemainder);
  expect(await balanceOf(to)).toBe(toBefore + out.amount);
  return { remainder, bound: out.maxRemainder, fee: out.fee, l1Fee: out.l1Fee };
}
