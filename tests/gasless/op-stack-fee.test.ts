/**
 * A gasless withdrawal on an OP Stack chain (issue 31): Hardhat 3's OP node, which charges every
 * transaction an L1 data fee outside its gas (tests/helpers/op-node.ts), with EntryPoint v0.8,
 * Simple7702Account, WraithTokenPaymaster and alto as an OP Stack bundler
 * (`startGaslessChain({ node: 'op' })`, tests/helpers/account-abstraction.ts).
 *
 * The bundler pays the L1 fee of its bundle and recovers it from the operation through
 * preVerificationGas; the paymaster's deposit pays the operation; the SDK's quote prices every
 * gas field at the operation's fee cap. So the fee quoted in the token before signing must cover
 * what the deposit paid, L1 part included, and the one-time address must still end at 0 tokens
 * and 0 wei.
 *
 * L1 prices are set so the L1 fee is a large part of the cost, as on OP Mainnet (there L2 gas is
 * cheap; Hardhat answers `eth_maxPriorityFeePerGas` with a fixed 1 gwei, so here the L2 part is
 * priced well above a live chain's and the L1 prices are raised to match).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventLogs, parseGwei, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { estimateGaslessWithdrawal, withdrawGasless } from '@wraith-pq/sdk/evm';
import { ENTRY_POINT_V08, SIMPLE_7702_ACCOUNT, TOKEN_PER_ETH, startGaslessChain, type GaslessChain } from '../helpers/account-abstraction.ts';
import { chargedBy, opNodeOrSkip, type OpNode } from '../helpers/op-node.ts';

const run = opNodeOrSkip();

/** EntryPoint v0.8's event for each executed operation (what its deposit was charged). */
const userOperationEventAbi = [
  {
    type: 'event',
    name: 'UserOperationEvent',
    inputs: [
      { name: 'userOpHash', type: 'bytes32', indexed: true },
      { name: 'sender', type: 'address', indexed: true },
      { name: 'paymaster', type: 'address', indexed: true },
      { name: 'nonce', type: 'uint256', indexed: false },
      { name: 'success', type: 'bool', indexed: false },
      { name: 'actualGasCost', type: 'uint256', indexed: false },
      { name: 'actualGasUsed', type: 'uint256', indexed: false },
    ],
  },
] as const;

let g: GaslessChain<OpNode>;
beforeAll(async () => {
  if (!run) return;
  g = await startGaslessChain({ node: 'op' });
  await g.chain.setFees({ l1BaseFee: parseGwei('20000'), blobBaseFee: parseGwei('1000'), baseFeeScalar: 1368, blobBaseFeeScalar: 810949 });
}, 180_000);
afterAll(async () => g?.stop());

/**
 * Claim `balance` tokens paid to the one-time key `key` (and nothing else) to a fresh destination,
 * bound by the lowest of three quotes, and check what the OP Stack chain charged against it.
 */
async function claimOnOpStack(key: Hex, balance: bigint) {
  const from = privateKeyToAddress(key);
  const to: Address = privateKeyToAddress(generatePrivateKey());
  await g.mint(from, balance);
  const client = g.chain.publicClient;
  const route = { client, token: g.token, to, bundler: g.bundlerUrl, paymaster: g.paymaster };

  // The bundler prices the L1 fee of a handleOps transaction it fills with random bytes, so its
  // estimates differ a little from one call to the next: the quote shown is the lowest of three,
  // and the withdrawal (which estimates again) must still hold to it.
  const quotes = [];
  for (let i = 0; i < 3; i++) quotes.push(await estimateGaslessWithdrawal({ ...route, from }));
  const quote = quotes.reduce((low, q) => (q.fee < low.fee ? q : low));
  expect(quote).toMatchObject({ balance, coin: 0n });
  const depositBefore = await g.deposit();
  const feesBefore = await g.tokenBalance(g.paymaster);
  const started = performance.now();
  const result = await withdrawGasless({ ...route, stealthSecretKey: key, maxFee: quote.fee });
  const seconds = (performance.now() - started) / 1000;

  const receipt = await client.getTransactionReceipt({ hash: result.transactionHash });
  const l1Fee = (receipt as typeof receipt & { l1Fee?: bigint | null }).l1Fee ?? 0n;
  const [event] = parseEventLogs({ abi: userOperationEventAbi, logs: receipt.logs, eventName: 'UserOperationEvent' });
  const { actualGasCost, actualGasUsed } = event!.args;
  const paid = depositBefore - (await g.deposit());
  const opGasPrice = actualGasCost / actualGasUsed;
  console.info(`op-stack gasless claim: ${JSON.stringify({
    authorization: quote.needsAuthorization, quotes: quotes.map((q) => String(q.fee)), fee: String(result.fee), maxCost: String(result.maxCost), paid: String(paid),
    l1Fee: String(l1Fee), l1Share: Number((l1Fee * 10_000n) / paid) / 100, actualGasUsed: String(actualGasUsed), bundleGasUsed: String(receipt.gasUsed),
    bundleCharged: String(chargedBy(receipt)), preVerificationGas: String(result.gas.preVerificationGas), seconds: Math.round(seconds * 10) / 10,
  })}`);

  // The chain charged the bundle an L1 data fee; the paymaster's deposit paid the operation, which
  // paid back the bundle's gas at the operation's price and that L1 fee (through preVerificationGas).
  expect(l1Fee).toBeGreaterThan(0n);
  expect(event!.args).toMatchObject({ sender: from, paymaster: g.paymaster, success: true });
  expect(paid).toBe(actualGasCost);
  expect(result.actualGasCost).toBe(paid);
  expect(paid).toBeGreaterThanOrEqual(receipt.gasUsed * opGasPrice + l1Fee);
  // The fee, fixed before signing and never above the quote shown, covers that payment at the paymaster's price.
  expect(result.fee).toBeLessThanOrEqual(quote.fee);
  expect(result.maxCost).toBeGreaterThanOrEqual(paid);
  expect(result.fee * 10n ** 18n).toBeGreaterThanOrEqual(paid * TOKEN_PER_ETH);
  expect((await g.tokenBalance(g.paymaster)) - feesBefore).toBe(result.fee);
  // Nothing left behind; the rest is at the destination; the address delegates to Simple7702Account.
  expect(await g.tokenBalance(from)).toBe(0n);
  expect(await client.getBalance({ address: from })).toBe(0n);
  expect(await g.tokenBalance(to)).toBe(balance - result.fee);
  expect((await client.getCode({ address: from }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`);
  expect(receipt.to?.toLowerCase()).toBe(ENTRY_POINT_V08.toLowerCase());
  return { quote, receipt };
}

describe.runIf(run)('gasless withdrawal on an OP Stack chain', () => {
  const key: Hex = generatePrivateKey();

  it('claims a token-only one-time address with a quote that covers the L1 data fee, leaving 0 tokens and 0 wei', async () => {
    const { quote, receipt } = await claimOnOpStack(key, 250_000_000n);
    // The first claim carried the one-time key's authorization: the bundle was a type-4 transaction.
    expect(quote.needsAuthorization).toBe(true);
    expect(receipt.type).toBe('eip7702');
  });

  it('claims a later payment to the same address, with no authorization, within its quote too', async () => {
    const { quote, receipt } = await claimOnOpStack(key, 40_000_000n);
    expect(quote.needsAuthorization).toBe(false);
    expect(receipt.type).toBe('eip1559');
  });
});
