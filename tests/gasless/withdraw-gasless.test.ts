/**
 * withdrawGasless (SDK /evm) on a real chain: anvil (Prague), EntryPoint v0.8 and
 * Simple7702Account from npm bytecode, WraithTokenPaymaster, and the alto bundler
 * (tests/helpers/account-abstraction.ts). A one-time address holding only tokens (0 wei) is
 * emptied to a fresh destination: it ends at exactly 0 tokens and 0 wei, the destination holds
 * the balance minus the fee, the fee account holds the fee, and the fee is what the estimate said
 * before anything was signed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { estimateGaslessWithdrawal, FeeAboveMaxError, withdrawGasless } from '@wraith-pq/sdk/evm';
import { FEE_ACCOUNT, SIMPLE_7702_ACCOUNT, startGaslessChain, type GaslessChain } from '../helpers/account-abstraction.ts';

let g: GaslessChain;
beforeAll(async () => {
  g = await startGaslessChain();
}, 180_000);
afterAll(async () => g?.stop());

/** A one-time address funded with `amount` tokens and no coin. */
async function oneTime(amount: bigint): Promise<{ key: Hex; address: Address }> {
  const key = generatePrivateKey();
  const address = privateKeyToAddress(key);
  await g.mint(address, amount);
  return { key, address };
}

const route = () => ({ client: g.chain.publicClient, token: g.token, bundler: g.bundlerUrl, paymaster: g.paymaster });

describe('withdrawGasless', () => {
  it('empties a one-time address that holds only tokens: 0 tokens and 0 wei left, the fee as estimated', async () => {
    const { key, address } = await oneTime(25_000_000n);
    const to = privateKeyToAddress(generatePrivateKey());
    const feesBefore = await g.tokenBalance(FEE_ACCOUNT);
    const quote = await estimateGaslessWithdrawal({ ...route(), from: address, to });
    expect(quote).toMatchObject({ balance: 25_000_000n, coin: 0n, needsAuthorization: true });
    expect(quote.fee).toBeGreaterThan(0n);
    expect(quote.amount).toBe(25_000_000n - quote.fee);
    const result = await withdrawGasless({ ...route(), stealthSecretKey: key, to, maxFee: quote.fee });
    console.log('first claim', { fee: result.fee, actualGasUsed: result.actualGasUsed, actualGasCost: result.actualGasCost, maxCost: result.maxCost });
    expect(result.fee).toBe(quote.fee);
    expect(await g.tokenBalance(address)).toBe(0n);
    expect(await g.chain.publicClient.getBalance({ address })).toBe(0n);
    expect(await g.tokenBalance(to)).toBe(25_000_000n - quote.fee);
    expect((await g.tokenBalance(FEE_ACCOUNT)) - feesBefore).toBe(quote.fee);
    expect(result.actualGasCost).toBeLessThanOrEqual(result.maxCost);
    expect((await g.chain.publicClient.getCode({ address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`);
  });
});
