/**
 * withdrawGasless (SDK /evm) on a real chain: anvil (Prague), EntryPoint v0.8 and
 * Simple7702Account from npm bytecode, WraithTokenPaymaster, and the alto bundler
 * (tests/helpers/account-abstraction.ts). A one-time address holding only tokens (0 wei) is
 * emptied to a fresh destination: it ends at exactly 0 tokens and 0 wei, the destination holds
 * the balance minus the fee, the paymaster holds the fee, and the fee is what the estimate said
 * before anything was signed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, getAddress, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import {
  BundlerUnreachableError,
  EntryPointMissingError,
  estimateGaslessWithdrawal,
  FeeAboveMaxError,
  PaymasterRefusedError,
  QuoteExpiredError,
  withdrawGasless,
} from '@wraith-pq/sdk/evm';
import { numberToHex } from 'viem';
import { FEE_ACCOUNT, PAYMASTER_DEPOSIT, SIMPLE_7702_ACCOUNT, TOKEN_PER_ETH, projectArtifact, startGaslessChain, type GaslessChain } from '../helpers/account-abstraction.ts';
import { startAnnouncerChain } from '../helpers/announcer-chain.ts';

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
    const feesBefore = await g.tokenBalance(g.paymaster);
    const quote = await estimateGaslessWithdrawal({ ...route(), from: address, to });
    expect(quote).toMatchObject({ balance: 25_000_000n, coin: 0n, needsAuthorization: true });
    expect(quote.fee).toBeGreaterThan(0n);
    expect(quote.amount).toBe(25_000_000n - quote.fee);
    const result = await withdrawGasless({ ...route(), stealthSecretKey: key, to, maxFee: quote.fee });
    expect(result.fee).toBe(quote.fee);
    expect(await g.tokenBalance(address)).toBe(0n);
    expect(await g.chain.publicClient.getBalance({ address })).toBe(0n);
    expect(await g.tokenBalance(to)).toBe(25_000_000n - quote.fee);
    expect((await g.tokenBalance(g.paymaster)) - feesBefore).toBe(quote.fee);
    expect(result.actualGasCost).toBeLessThanOrEqual(result.maxCost);
    expect((await g.chain.publicClient.getCode({ address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`);
  });

  it('claims again from an address that already delegates, with no authorization, and moves its coin too', async () => {
    const { key, address } = await oneTime(10_000_000n);
    const first = privateKeyToAddress(generatePrivateKey());
    const quote1 = await estimateGaslessWithdrawal({ ...route(), from: address, to: first });
    await withdrawGasless({ ...route(), stealthSecretKey: key, to: first, maxFee: quote1.fee });
    // A second payment (tokens and a little coin) to the same one-time address.
    await g.mint(address, 7_000_000n);
    await g.chain.wallets[0]!.sendTransaction({ to: address, value: 54_321n });
    const to = privateKeyToAddress(generatePrivateKey());
    const quote = await estimateGaslessWithdrawal({ ...route(), from: address, to });
    expect(quote).toMatchObject({ needsAuthorization: false, balance: 7_000_000n, coin: 54_321n });
    const result = await withdrawGasless({ ...route(), stealthSecretKey: key, to, maxFee: quote.fee });
    expect(await g.tokenBalance(address)).toBe(0n);
    expect(await g.chain.publicClient.getBalance({ address })).toBe(0n);
    expect(await g.tokenBalance(to)).toBe(7_000_000n - quote.fee);
    expect(await g.chain.publicClient.getBalance({ address: to })).toBe(54_321n);
    expect(quote.fee).toBeLessThan(quote1.fee);
  });

  it('signs nothing when the fee is above maxFee', async () => {
    const { key, address } = await oneTime(5_000_000n);
    const to = privateKeyToAddress(generatePrivateKey());
    const quote = await estimateGaslessWithdrawal({ ...route(), from: address, to });
    const refused = await withdrawGasless({ ...route(), stealthSecretKey: key, to, maxFee: quote.fee - 1n }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FeeAboveMaxError);
    expect(refused).toMatchObject({ code: 'FEE_ABOVE_MAX', fee: quote.fee, maxFee: quote.fee - 1n });
    expect(await g.tokenBalance(address)).toBe(5_000_000n);
    expect(await g.chain.publicClient.getCode({ address })).toBeUndefined();
  });

  it('refuses with the paymaster\'s reason when its deposit cannot pay, and moves nothing', async () => {
    const { key, address } = await oneTime(5_000_000n);
    const to = privateKeyToAddress(generatePrivateKey());
    const deposit = await g.deposit();
    await g.ownerCall('withdrawDeposit', [g.chain.accounts[0]!.address, deposit - 1_000n]);
    try {
      const refused = await withdrawGasless({ ...route(), stealthSecretKey: key, to, maxFee: 10n ** 12n }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(PaymasterRefusedError);
      expect((refused as PaymasterRefusedError).reason).toMatch(/AA31/);
      expect(await g.tokenBalance(address)).toBe(5_000_000n);
    } finally {
      await g.ownerCall('deposit', [], PAYMASTER_DEPOSIT);
    }
  });

  it('refuses an expired price before asking the bundler, and a token the paymaster does not list', async () => {
    const { key, address } = await oneTime(5_000_000n);
    const to = privateKeyToAddress(generatePrivateKey());
    const now = Number((await g.chain.publicClient.getBlock()).timestamp);
    await g.ownerCall('setToken', [g.token, TOKEN_PER_ETH, now + 30, 2_000]);
    try {
      await g.chain.rpc('evm_increaseTime', [numberToHex(60)]);
      await g.chain.mine();
      const expired = await withdrawGasless({ ...route(), stealthSecretKey: key, to, maxFee: 10n ** 12n }).catch((e: unknown) => e);
      expect(expired).toBeInstanceOf(QuoteExpiredError);
      expect(expired).toMatchObject({ code: 'QUOTE_EXPIRED', validUntil: now + 30 });
    } finally {
      const later = Number((await g.chain.publicClient.getBlock()).timestamp);
      await g.ownerCall('setToken', [g.token, TOKEN_PER_ETH, later + 86_400, 2_000]);
    }
    const unlisted = await estimateGaslessWithdrawal({ ...route(), token: FEE_ACCOUNT, from: address, to }).catch((e: unknown) => e);
    expect(unlisted).toBeInstanceOf(PaymasterRefusedError);
    expect((unlisted as PaymasterRefusedError).reason).toMatch(/UnlistedToken/);
    expect(await g.tokenBalance(address)).toBe(5_000_000n);
  });

  it('refuses before signing a listed token without an EIP-2612 permit: an address with no coin could not pay the fee', async () => {
    const artifact = projectArtifact('NoBoolToken');
    const hash = await g.chain.wallets[0]!.deployContract({ abi: artifact.abi as never, bytecode: artifact.bytecode, args: [10n ** 12n] as never });
    const usdtLike = getAddress((await g.chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
    const now = Number((await g.chain.publicClient.getBlock()).timestamp);
    await g.ownerCall('setToken', [usdtLike, TOKEN_PER_ETH, now + 86_400, 2_000]);
    const { key, address } = await oneTime(0n);
    const sent = await g.chain.wallets[0]!.writeContract({ address: usdtLike, abi: artifact.abi as never, functionName: 'transfer', args: [address, 5_000_000n] } as never);
    await g.chain.publicClient.waitForTransactionReceipt({ hash: sent });
    const to = privateKeyToAddress(generatePrivateKey());
    const refused = await withdrawGasless({ ...route(), token: usdtLike, stealthSecretKey: key, to, maxFee: 10n ** 12n }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PaymasterRefusedError);
    expect((refused as PaymasterRefusedError).reason).toMatch(/no EIP-2612 permit/);
    expect(await g.chain.publicClient.getCode({ address })).toBeUndefined();
  });

  it('says the bundler is unreachable when nothing answers at its URL', async () => {
    const { address } = await oneTime(5_000_000n);
    const refused = await estimateGaslessWithdrawal({ ...route(), bundler: 'http://127.0.0.1:1/rpc', from: address, to: FEE_ACCOUNT }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BundlerUnreachableError);
    expect((refused as Error).message).not.toContain('127.0.0.1:1');
  });

  it('says so on a chain without EntryPoint v0.8', async () => {
    const plain = await startAnnouncerChain();
    try {
      const refused = await estimateGaslessWithdrawal({ ...route(), client: plain.publicClient, from: FEE_ACCOUNT, to: FEE_ACCOUNT }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(EntryPointMissingError);
      expect(refused).toMatchObject({ code: 'ENTRY_POINT_MISSING' });
    } finally {
      await plain.stop();
    }
  });
});
