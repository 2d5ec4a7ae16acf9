/**
 * Issue 24, scope 2, on Arbitrum: no local Arbitrum node exists, so the RPC is msw answering like
 * an Arbitrum One node (tests/fixtures/arbitrum, constructed from Arbitrum's documentation, each
 * answer with its source). Arbitrum puts the L1 cost inside the gas: the gas limit is
 * `eth_estimateGas`, tips are ignored and the base fee of the block is charged, never below the
 * chain's minimum gas price. The chain is recognised by its ArbSys precompile, not by its id.
 */
import { setupServer } from 'msw/node';
import { createPublicClient, getAddress, http, parseEther, parseTransaction, recoverTransactionAddress, type Address, type Hex, type TransactionSerializedEIP1559 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { arbitrum } from 'viem/chains';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { estimateGasTopUp, estimateWithdrawal, InsufficientGasError, withdrawNative, withdrawToken } from '@wraith-pq/sdk/evm';
import {
  ARBITRUM_RPC_URL,
  BASE_FEE,
  MINIMUM_GAS_PRICE,
  TOKEN_TRANSFER_GAS_ESTIMATE,
  TRANSFER_GAS_ESTIMATE,
  arbitrumNode,
  type ArbitrumNodeOptions,
} from '../fixtures/arbitrum/arbitrum-one.ts';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = createPublicClient({ chain: arbitrum, transport: http(ARBITRUM_RPC_URL, { retryCount: 0 }) });
/** viem's fee estimate: the block's base fee × 1.2, plus the suggested tip (0 on Arbitrum). */
const MAX_FEE = (BASE_FEE * 12n) / 10n;
const USDC: Address = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';

function node(options: ArbitrumNodeOptions) {
  const rpc = arbitrumNode(options);
  server.use(...rpc.handlers);
  return rpc;
}

describe('withdrawals priced for Arbitrum (msw answers shaped like Arbitrum One)', () => {
  it('sweeps the native balance with the gas limit from eth_estimateGas (its L1 component inside), no tip, and states the most that stays', async () => {
    const key = generatePrivateKey();
    const stealth = privateKeyToAccount(key).address;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const balance = parseEther('0.05');
    const rpc = node({ balances: { [stealth.toLowerCase()]: balance } });

    const shown = await estimateWithdrawal({ client, from: stealth, to });
    const fee = TRANSFER_GAS_ESTIMATE * MAX_FEE;
    expect(shown).toEqual({
      amount: balance - fee,
      fee,
      feeKind: 'maximum',
      pricedAt: 'today',
      l1Fee: 0n,
      // The chain charges at least 21,000 gas at its minimum gas price; everything above that may stay.
      maxRemainder: fee - 21_000n * MINIMUM_GAS_PRICE,
      gas: TRANSFER_GAS_ESTIMATE,
      maxFeePerGas: MAX_FEE,
      feeModel: 'arbitrum',
    });
    // The estimate was asked for this very transfer, with the whole balance as its value (the largest transaction it can be).
    const estimate = rpc.requests.find((r) => r.method === 'eth_estimateGas')!;
    expect(estimate.params[0]).toMatchObject({ from: stealth, to, value: `0x${balance.toString(16)}` });

    const out = await withdrawNative({ client, stealthSecretKey: key, to });
    expect(out).toMatchObject({ ...shown, pricedAt: 'signing' });
    // What was signed: exactly the plan, for Arbitrum One, from the stealth address.
    expect(rpc.sent).toHaveLength(1);
    const raw = rpc.sent[0] as TransactionSerializedEIP1559;
    const signed = signedFields(raw);
    expect(signed).toMatchObject({ type: 'eip1559', chainId: 42_161, to, value: balance - fee, gas: TRANSFER_GAS_ESTIMATE, maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: 0n, nonce: 0 });
    expect(await recoverTransactionAddress({ serializedTransaction: raw })).toBe(stealth);
    // The node checks value + gas × maxFeePerGas against the balance: exactly the balance.
    expect(signed.value! + signed.gas! * signed.maxFeePerGas!).toBe(balance);
    // Included at today's base fee using all of its gas, what stays is the unused price; at the floor and 21,000 gas, the bound.
    expect(fee - TRANSFER_GAS_ESTIMATE * BASE_FEE).toBeLessThanOrEqual(shown.maxRemainder);
    expect(fee - 21_000n * MINIMUM_GAS_PRICE).toBe(shown.maxRemainder);
  });

  it('prices a token withdrawal with the L1 component in its gas, and refuses it with that full price when the gas money falls short', async () => {
    const key = generatePrivateKey();
    const stealth = privateKeyToAccount(key).address;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const amount = 250_000_000n;
    const fee = TOKEN_TRANSFER_GAS_ESTIMATE * MAX_FEE;
    const tokens = { [USDC.toLowerCase()]: { [stealth.toLowerCase()]: amount } };

    node({ balances: { [stealth.toLowerCase()]: fee - 1n }, tokens });
    const error = await withdrawToken({ client, stealthSecretKey: key, token: USDC, to }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientGasError);
    expect((error as InsufficientGasError).required).toBe(fee);
    expect((error as InsufficientGasError).available).toBe(fee - 1n);

    server.resetHandlers();
    const rpc = node({ balances: { [stealth.toLowerCase()]: fee }, tokens });
    const out = await withdrawToken({ client, stealthSecretKey: key, token: USDC, to });
    expect(out).toMatchObject({ amount, fee, feeKind: 'maximum', maxRemainder: 0n, gas: TOKEN_TRANSFER_GAS_ESTIMATE, feeModel: 'arbitrum' });
    expect(signedFields(rpc.sent[0]!)).toMatchObject({ to: USDC, value: 0n, gas: TOKEN_TRANSFER_GAS_ESTIMATE, maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: 0n });
  });

  it('recognises Arbitrum by its ArbSys precompile, not its chain id: an Orbit chain is priced the same, and id 42161 without ArbSys is a standard chain', async () => {
    const stealth = privateKeyToAccount(generatePrivateKey()).address;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const balances = { [stealth.toLowerCase()]: parseEther('1') };
    node({ chainId: 660_279, balances });
    const orbit = createPublicClient({ transport: http(ARBITRUM_RPC_URL, { retryCount: 0 }) });
    expect(await estimateWithdrawal({ client: orbit, from: stealth, to })).toMatchObject({ feeModel: 'arbitrum', gas: TRANSFER_GAS_ESTIMATE });

    server.resetHandlers();
    node({ arbSys: false, balances });
    const plain = await estimateWithdrawal({ client, from: stealth, to });
    // Today's rule for a chain that charges gas × price alone: 21,000 gas at a price that is exact.
    expect(plain).toMatchObject({ feeModel: 'standard', gas: 21_000n, feeKind: 'exact', maxRemainder: 0n, fee: 21_000n * MAX_FEE });
  });

  it('prices the default gas top-up of a token payment from the same estimate: twice the fee of withdrawing it', async () => {
    const payer = privateKeyToAccount(generatePrivateKey()).address;
    node({ tokens: { [USDC.toLowerCase()]: { [payer.toLowerCase()]: 10n ** 12n } } });
    const priced = await estimateGasTopUp({ client, token: USDC, amount: 250_000_000n, from: payer });
    expect(priced).toEqual({ topUp: 2n * TOKEN_TRANSFER_GAS_ESTIMATE * MAX_FEE, fee: TOKEN_TRANSFER_GAS_ESTIMATE * MAX_FEE, l1Fee: 0n, gas: TOKEN_TRANSFER_GAS_ESTIMATE, feeModel: 'arbitrum' });
  });
});

/** A signed transaction's fields, zero values and the checksummed `to` included (RLP leaves zeros out; parseTransaction lower-cases). */
function signedFields(raw: Hex) {
  const parsed = parseTransaction(raw);
  return { ...parsed, to: parsed.to ? getAddress(parsed.to) : parsed.to, value: parsed.value ?? 0n, maxPriorityFeePerGas: (parsed as { maxPriorityFeePerGas?: bigint }).maxPriorityFeePerGas ?? 0n, nonce: parsed.nonce ?? 0 };
}
