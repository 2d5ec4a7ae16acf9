/**
 * WraithTokenPaymaster's rules (contracts/src/WraithTokenPaymaster.sol) on anvil (Prague) with
 * EntryPoint v0.8 and Simple7702Account from npm bytecode. Each operation is handed to the
 * EntryPoint's `handleOps` directly (as a bundler would), from a dev account: a refused one
 * reverts the whole transaction, so nothing moves; the reason is read from the EntryPoint's
 * FailedOp / FailedOpWithRevert. The first test is the control: the same harness moves the
 * tokens when the operation follows the rules.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeErrorResult, getAddress, numberToHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { getUserOperationHash, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { executeBatchData, withdrawalCalls, wraithPaymasterAbi, type BatchCall } from '../../sdk/src/evm/gasless-contracts.ts';
import { ENTRY_POINT_V08, FEE_ACCOUNT, PAYMASTER_DEPOSIT, SIMPLE_7702_ACCOUNT, TOKEN_PER_ETH, projectArtifact, startGaslessChain, type GaslessChain } from '../helpers/account-abstraction.ts';

const entryPointAbi = JSON.parse(readFileSync(new URL('../../node_modules/@account-abstraction/contracts/artifacts/EntryPoint.json', import.meta.url), 'utf8')).abi;

let g: GaslessChain;
beforeAll(async () => {
  g = await startGaslessChain({ bundler: false });
}, 120_000);
afterAll(async () => g?.stop());

/** Fixed gas fields: maxCost = 550,000 gas × 2 gwei = 1.1e15 wei, a fee of 3.3 tokens at 3,000 per ETH. */
const GAS = {
  callGasLimit: 200_000n,
  verificationGasLimit: 200_000n,
  preVerificationGas: 50_000n,
  paymasterVerificationGasLimit: 100_000n,
  paymasterPostOpGasLimit: 0n,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
};
const MAX_COST = (GAS.callGasLimit + GAS.verificationGasLimit + GAS.preVerificationGas + GAS.paymasterVerificationGasLimit) * GAS.maxFeePerGas;
const REQUIRED_FEE = (MAX_COST * TOKEN_PER_ETH + 10n ** 18n - 1n) / 10n ** 18n;
const BALANCE = 100_000_000n;

type OneTime = { key: Hex; address: Address };

/** A one-time address holding BALANCE tokens and no coin, already delegating to Simple7702Account. */
async function oneTime(): Promise<OneTime> {
  const key = generatePrivateKey();
  const owner = privateKeyToAccount(key);
  await g.mint(owner.address, BALANCE);
  const authorization = await owner.signAuthorization({ address: SIMPLE_7702_ACCOUNT, chainId: g.chain.chainId, nonce: 0 });
  const hash = await g.chain.wallets[1]!.sendTransaction({ to: owner.address, data: '0x', authorizationList: [authorization] } as never);
  await g.chain.publicClient.waitForTransactionReceipt({ hash });
  return { key, address: owner.address };
}

async function nonceOf(sender: Address): Promise<bigint> {
  return (await g.chain.publicClient.readContract({ address: ENTRY_POINT_V08, abi: entryPointAbi, functionName: 'getNonce', args: [sender, 0n] })) as bigint;
}

/** The operation carrying `calls`, signed by the one-time key. */
async function operation(from: OneTime, calls: BatchCall[], nonce?: bigint): Promise<UserOperation<'0.8'>> {
  const unsigned = {
    sender: from.address,
    nonce: nonce ?? (await nonceOf(from.address)),
    callData: executeBatchData(calls),
    paymaster: g.paymaster,
    paymasterData: '0x' as Hex,
    ...GAS,
    signature: '0x' as Hex,
  } as UserOperation<'0.8'>;
  const hash = getUserOperationHash({ chainId: g.chain.chainId, entryPointAddress: ENTRY_POINT_V08, entryPointVersion: '0.8', userOperation: unsigned });
  return { ...unsigned, signature: await privateKeyToAccount(from.key).sign({ hash }) };
}

/** The rule-abiding batch, with `change` applied. */
function batch(to: Address, change: Partial<Parameters<typeof withdrawalCalls>[0]> = {}): BatchCall[] {
  return withdrawalCalls({ token: g.token, feeAccount: FEE_ACCOUNT, fee: REQUIRED_FEE, to, amount: BALANCE - REQUIRED_FEE, coin: 0n, ...change });
}

type Snapshot = { sender: bigint; to: bigint; fees: bigint; deposit: bigint };
async function balances(sender: Address, to: Address): Promise<Snapshot> {
  return { sender: await g.tokenBalance(sender), to: await g.tokenBalance(to), fees: await g.tokenBalance(FEE_ACCOUNT), deposit: await g.deposit() };
}

/**
 * Hand the operation to handleOps: the EntryPoint's refusal as "AAxx reason: PaymasterError(args)"
 * (simulated first), then sent anyway: null when it went through; otherwise the reason, after
 * checking that the sent transaction reverted.
 */
async function handle(op: UserOperation<'0.8'>): Promise<string | null> {
  const wallet = g.chain.wallets[2]!;
  const args = [[toPackedUserOperation(op)], wallet.account.address] as const;
  let reason: string | null = null;
  try {
    await g.chain.publicClient.simulateContract({ address: ENTRY_POINT_V08, abi: entryPointAbi, functionName: 'handleOps', args, account: wallet.account, gas: 3_000_000n });
  } catch (error) {
    reason = refusal(error);
  }
  const hash = await wallet.writeContract({ address: ENTRY_POINT_V08, abi: entryPointAbi, functionName: 'handleOps', args, gas: 3_000_000n } as never);
  const receipt = await g.chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe(reason === null ? 'success' : 'reverted');
  return reason;
}

/** "AA33 reverted: FeeTooLow(…)" from viem's decoded FailedOp / FailedOpWithRevert. */
function refusal(error: unknown): string {
  for (let e = error as { data?: { errorName?: string; args?: readonly unknown[] }; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    const data = e.data;
    if (data?.errorName === 'FailedOp') return String(data.args![1]);
    if (data?.errorName === 'FailedOpWithRevert') {
      const inner = data.args![2] as Hex;
      try {
        const decoded = decodeErrorResult({ abi: wraithPaymasterAbi, data: inner });
        return `${String(data.args![1])}: ${decoded.errorName}`;
      } catch {
        return `${String(data.args![1])}: ${inner}`;
      }
    }
  }
  throw error;
}

const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

describe('WraithTokenPaymaster', () => {
  it('pays for a withdrawal that pays its fee to the fee account at the set price: the address ends at 0 tokens', async () => {
    const from = await oneTime();
    const to = fresh();
    const before = await balances(from.address, to);
    expect(await handle(await operation(from, batch(to)))).toBeNull();
    const after = await balances(from.address, to);
    expect(after).toMatchObject({ sender: 0n, to: BALANCE - REQUIRED_FEE, fees: before.fees + REQUIRED_FEE });
    expect(after.deposit).toBeLessThan(before.deposit);
    expect(before.deposit - after.deposit).toBeLessThanOrEqual(MAX_COST);
  });

  it.each([
    ['a stripped fee (the whole balance to the destination)', (to: Address) => batch(to).slice(1), 'AA33 reverted: NotAWithdrawal'],
    ['a fee one unit short of the price', (to: Address) => batch(to, { fee: REQUIRED_FEE - 1n, amount: BALANCE - REQUIRED_FEE + 1n }), 'AA33 reverted: FeeTooLow'],
    ['a fee paid to another account', (to: Address) => batch(to, { feeAccount: fresh() }), 'AA33 reverted: FeeRecipientNotFeeAccount'],
    ['a batch that would overdraw the address (it would revert after the gas was spent)', (to: Address) => batch(to, { amount: BALANCE }), 'AA33 reverted: BalanceShort'],
    ['a coin call that carries data', (to: Address) => [...batch(to), { target: to, value: 0n, data: '0x12345678' as Hex }], 'AA33 reverted: NotAWithdrawal'],
  ])('refuses %s, and nothing moves', async (_, calls, expected) => {
    const from = await oneTime();
    const to = fresh();
    const before = await balances(from.address, to);
    expect(await handle(await operation(from, calls(to)))).toBe(expected);
    expect(await balances(from.address, to)).toEqual(before);
  });

  it('refuses a token it does not list, and nothing moves', async () => {
    const artifact = projectArtifact('MintableToken');
    const hash = await g.chain.wallets[0]!.deployContract({ abi: artifact.abi as never, bytecode: artifact.bytecode, args: ['Other', 'OTH', 6] as never });
    const other = getAddress((await g.chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
    const from = await oneTime();
    await g.chain.wallets[0]!.writeContract({ address: other, abi: artifact.abi as never, functionName: 'mint', args: [from.address, BALANCE] } as never);
    const to = fresh();
    const before = await balances(from.address, to);
    expect(await handle(await operation(from, batch(to, { token: other })))).toBe('AA33 reverted: UnlistedToken');
    expect(await balances(from.address, to)).toEqual(before);
  });

  it('refuses an operation once the price expired (the EntryPoint reads its validity), and nothing moves', async () => {
    const now = Number((await g.chain.publicClient.getBlock()).timestamp);
    await g.ownerCall('setToken', [g.token, TOKEN_PER_ETH, now + 60, 2_000]);
    try {
      await g.chain.rpc('evm_increaseTime', [numberToHex(120)]);
      await g.chain.mine();
      const from = await oneTime();
      const to = fresh();
      const before = await balances(from.address, to);
      expect(await handle(await operation(from, batch(to)))).toBe('AA32 paymaster expired or not due');
      expect(await balances(from.address, to)).toEqual(before);
    } finally {
      const later = Number((await g.chain.publicClient.getBlock()).timestamp);
      await g.ownerCall('setToken', [g.token, TOKEN_PER_ETH, later + 86_400, 2_000]);
    }
  });

  it('refuses the same signed operation a second time (replay), and nothing moves again', async () => {
    const from = await oneTime();
    const to = fresh();
    const op = await operation(from, batch(to));
    expect(await handle(op)).toBeNull();
    await g.mint(from.address, BALANCE);
    const before = await balances(from.address, to);
    expect(await handle(op)).toBe('AA25 invalid account nonce');
    expect(await balances(from.address, to)).toEqual(before);
  });

  it('refuses when its deposit at the EntryPoint cannot cover the operation, and nothing moves', async () => {
    const owner = g.chain.accounts[0]!.address;
    const deposit = await g.deposit();
    await g.ownerCall('withdrawDeposit', [owner, deposit - MAX_COST + 1n]);
    try {
      const from = await oneTime();
      const to = fresh();
      const before = await balances(from.address, to);
      expect(await handle(await operation(from, batch(to)))).toBe('AA31 paymaster deposit too low');
      expect(await balances(from.address, to)).toEqual(before);
    } finally {
      await g.ownerCall('deposit', [], PAYMASTER_DEPOSIT);
    }
  });

  it('lets the price move only within its bound per update, and never to an expiry in the past', async () => {
    const now = Number((await g.chain.publicClient.getBlock()).timestamp);
    const tooFar = (TOKEN_PER_ETH * 121n) / 100n;
    await expect(g.ownerCall('updatePrice', [g.token, tooFar, now + 3_600])).rejects.toThrow(/PriceMovesTooFar/);
    await expect(g.ownerCall('updatePrice', [g.token, TOKEN_PER_ETH, now - 1])).rejects.toThrow(/PriceExpiryNotAhead/);
    await g.ownerCall('updatePrice', [g.token, (TOKEN_PER_ETH * 120n) / 100n, now + 3_600]);
    await g.ownerCall('updatePrice', [g.token, TOKEN_PER_ETH, now + 86_400]);
    const [price] = (await g.chain.publicClient.readContract({ address: g.paymaster, abi: wraithPaymasterAbi, functionName: 'prices', args: [g.token] })) as readonly [bigint, number, number];
    expect(price).toBe(TOKEN_PER_ETH);
  });

  it('accepts the coin of the address in the same batch, to the same destination', async () => {
    const from = await oneTime();
    await g.chain.wallets[0]!.sendTransaction({ to: from.address, value: 12_345n });
    const to = fresh();
    expect(await handle(await operation(from, batch(to, { coin: 12_345n })))).toBeNull();
    expect(await g.chain.publicClient.getBalance({ address: from.address })).toBe(0n);
    expect(await g.chain.publicClient.getBalance({ address: to })).toBe(12_345n);
  });
});
