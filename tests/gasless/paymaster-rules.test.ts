/**
 * WraithTokenPaymaster's rules (contracts/src/WraithTokenPaymaster.sol) on anvil (Prague) with
 * EntryPoint v0.8 and Simple7702Account from npm bytecode. Each bundle is handed to the
 * EntryPoint's `handleOps` directly (as a bundler would, or anyone: handleOps is open), from a dev
 * account: a refused operation reverts the whole transaction, so nothing moves; the reason is read
 * from the EntryPoint's FailedOp / FailedOpWithRevert. The first test is the control: the same
 * harness moves the tokens when the operation follows the rules.
 *
 * The fee is taken in validation, through the sender's EIP-2612 permit (signed here with viem's
 * own signTypedData, independently of the SDK), so an operation whose calls revert afterwards has
 * still paid for its gas: the deposit cannot be drained by operations that pass validation and
 * then fail.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, decodeErrorResult, decodeEventLog, getAddress, numberToHex, pad, parseSignature, type Address, type Hex, type TransactionReceipt } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { getUserOperationHash, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { executeBatchData, paymasterData, withdrawalCalls, wraithPaymasterAbi, type BatchCall } from '../../sdk/src/evm/gasless-contracts.ts';
import { ENTRY_POINT_V08, PAYMASTER_DEPOSIT, SIMPLE_7702_ACCOUNT, TOKEN_PER_ETH, projectArtifact, startGaslessChain, type GaslessChain } from '../helpers/account-abstraction.ts';

const entryPointAbi = JSON.parse(readFileSync(new URL('../../node_modules/@account-abstraction/contracts/artifacts/EntryPoint.json', import.meta.url), 'utf8')).abi;
const tokenAbi = projectArtifact('MintableToken').abi;

let g: GaslessChain;
beforeAll(async () => {
  g = await startGaslessChain({ bundler: false });
}, 120_000);
afterAll(async () => g?.stop());

/** Fixed gas fields: maxCost = 550,000 gas × 2 gwei = 1.1e15 wei, a fee of 3.3 tokens at 3,000 per ETH. */
const GAS = {
  callGasLimit: 150_000n,
  verificationGasLimit: 150_000n,
  preVerificationGas: 50_000n,
  paymasterVerificationGasLimit: 200_000n,
  paymasterPostOpGasLimit: 0n,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
};
const MAX_COST = (GAS.callGasLimit + GAS.verificationGasLimit + GAS.preVerificationGas + GAS.paymasterVerificationGasLimit) * GAS.maxFeePerGas;
const REQUIRED_FEE = (MAX_COST * TOKEN_PER_ETH + 10n ** 18n - 1n) / 10n ** 18n;
const BALANCE = 100_000_000n;
const NO_DEADLINE = 2n ** 256n - 1n;

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

/** `signer`'s EIP-2612 permit of `owner`'s tokens to the paymaster for `value` (permit nonce `nonce`), with no deadline. */
async function permit(signer: Hex, owner: Address, value: bigint, nonce = 0n, token = g.token, name = 'Test USD'): Promise<{ r: Hex; s: Hex; v: number }> {
  const signature = await privateKeyToAccount(signer).signTypedData({
    domain: { name, version: '1', chainId: g.chain.chainId, verifyingContract: token },
    types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
    primaryType: 'Permit',
    message: { owner, spender: g.paymaster, value, nonce, deadline: NO_DEADLINE },
  });
  const { r, s, yParity } = parseSignature(signature);
  return { r, s, v: 27 + yParity! };
}

/** The operation carrying `calls` and `data` as its paymasterData, signed by the one-time key. */
async function operation(from: OneTime, calls: BatchCall[], data: Hex, nonce?: bigint): Promise<UserOperation<'0.8'>> {
  const unsigned = {
    sender: from.address,
    nonce: nonce ?? (await nonceOf(from.address)),
    callData: executeBatchData(calls),
    paymaster: g.paymaster,
    paymasterData: data,
    ...GAS,
    signature: '0x' as Hex,
  } as UserOperation<'0.8'>;
  const hash = getUserOperationHash({ chainId: g.chain.chainId, entryPointAddress: ENTRY_POINT_V08, entryPointVersion: '0.8', userOperation: unsigned });
  return { ...unsigned, signature: await privateKeyToAccount(from.key).sign({ hash }) };
}

/** The rule-abiding withdrawal of `from` to `to`: the fee with a permit, the rest to `to`. */
async function withdrawal(from: OneTime, to: Address): Promise<UserOperation<'0.8'>> {
  const data = paymasterData(g.token, REQUIRED_FEE, await permit(from.key, from.address, REQUIRED_FEE));
  return operation(from, withdrawalCalls({ token: g.token, to, amount: BALANCE - REQUIRED_FEE, coin: 0n }), data);
}

type Snapshot = { sender: bigint; to: bigint; fees: bigint; deposit: bigint };
async function balances(sender: Address, to: Address): Promise<Snapshot> {
  return { sender: await g.tokenBalance(sender), to: await g.tokenBalance(to), fees: await g.tokenBalance(g.paymaster), deposit: await g.deposit() };
}

/**
 * Hand the bundle to handleOps: the EntryPoint's refusal as "AAxx reason: PaymasterError(args)"
 * (simulated first), then sent anyway. `reason` is null when it went through (after checking that
 * the sent transaction reverted otherwise); `results` are the operations' UserOperationEvent
 * success flags, in order.
 */
async function handle(...ops: UserOperation<'0.8'>[]): Promise<{ reason: string | null; results: boolean[]; receipt: TransactionReceipt }> {
  const wallet = g.chain.wallets[2]!;
  const args = [ops.map((op) => toPackedUserOperation(op)), wallet.account.address] as const;
  let reason: string | null = null;
  try {
    await g.chain.publicClient.simulateContract({ address: ENTRY_POINT_V08, abi: entryPointAbi, functionName: 'handleOps', args, account: wallet.account, gas: 3_000_000n });
  } catch (error) {
    reason = refusal(error);
  }
  const hash = await wallet.writeContract({ address: ENTRY_POINT_V08, abi: entryPointAbi, functionName: 'handleOps', args, gas: 3_000_000n } as never);
  const receipt = await g.chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe(reason === null ? 'success' : 'reverted');
  const results = receipt.logs
    .filter((log) => log.address.toLowerCase() === ENTRY_POINT_V08.toLowerCase())
    .flatMap((log) => {
      try {
        const event = decodeEventLog({ abi: entryPointAbi, data: log.data, topics: log.topics }) as { eventName: string; args: { success?: boolean } };
        return event.eventName === 'UserOperationEvent' ? [event.args.success === true] : [];
      } catch {
        return [];
      }
    });
  return { reason, results, receipt };
}

/** "AA33 reverted: FeeTooLow" from viem's decoded FailedOp / FailedOpWithRevert. */
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

/** The paymaster's deposit charge in tokens at its price, rounded up: what its fee must cover. */
const inTokens = (wei: bigint) => (wei * TOKEN_PER_ETH + 10n ** 18n - 1n) / 10n ** 18n;

describe('WraithTokenPaymaster', () => {
  it('pays for a withdrawal that pays its fee with a permit at the set price: the address ends at 0 tokens, the fee covers the gas', async () => {
    const from = await oneTime();
    const to = fresh();
    const before = await balances(from.address, to);
    const { reason, results } = await handle(await withdrawal(from, to));
    expect(reason).toBeNull();
    expect(results).toEqual([true]);
    const after = await balances(from.address, to);
    expect(after).toMatchObject({ sender: 0n, to: BALANCE - REQUIRED_FEE, fees: before.fees + REQUIRED_FEE });
    const charged = before.deposit - after.deposit;
    expect(charged).toBeGreaterThan(0n);
    expect(charged).toBeLessThanOrEqual(MAX_COST);
    expect(inTokens(charged)).toBeLessThanOrEqual(REQUIRED_FEE);
  });

  it('keeps the fee of an operation whose calls revert after validation: the gas is paid for, the rest stays', async () => {
    const from = await oneTime();
    const to = fresh();
    const before = await balances(from.address, to);
    // The whole balance to the destination: the fee already left in validation, so this transfer reverts.
    const data = paymasterData(g.token, REQUIRED_FEE, await permit(from.key, from.address, REQUIRED_FEE));
    const { reason, results } = await handle(await operation(from, withdrawalCalls({ token: g.token, to, amount: BALANCE, coin: 0n }), data));
    expect(reason).toBeNull();
    expect(results).toEqual([false]);
    const after = await balances(from.address, to);
    expect(after).toMatchObject({ sender: BALANCE - REQUIRED_FEE, to: 0n, fees: before.fees + REQUIRED_FEE });
    expect(inTokens(before.deposit - after.deposit)).toBeLessThanOrEqual(REQUIRED_FEE);
  });

  it('charges every operation of one sender in one bundle, so spending the same tokens twice cannot drain the deposit', async () => {
    const from = await oneTime();
    const to = fresh();
    const before = await balances(from.address, to);
    const nonce = await nonceOf(from.address);
    const rest = BALANCE - 2n * REQUIRED_FEE;
    const calls = withdrawalCalls({ token: g.token, to, amount: rest, coin: 0n });
    // Both validate before either runs; the second's transfer then finds nothing left.
    const first = await operation(from, calls, paymasterData(g.token, REQUIRED_FEE, await permit(from.key, from.address, REQUIRED_FEE, 0n)), nonce);
    const second = await operation(from, calls, paymasterData(g.token, REQUIRED_FEE, await permit(from.key, from.address, REQUIRED_FEE, 1n)), nonce + 1n);
    const { reason, results } = await handle(first, second);
    expect(reason).toBeNull();
    expect(results).toEqual([true, false]);
    const after = await balances(from.address, to);
    expect(after).toMatchObject({ sender: 0n, to: rest, fees: before.fees + 2n * REQUIRED_FEE });
    expect(inTokens(before.deposit - after.deposit)).toBeLessThanOrEqual(2n * REQUIRED_FEE);
  });

  it.each([
    ['a stripped fee (no paymaster data)', async (from: OneTime) => '0x' as Hex, 'AA33 reverted: MalformedPaymasterData'],
    ['a fee one unit short of the price', async (from: OneTime) => paymasterData(g.token, REQUIRED_FEE - 1n, await permit(from.key, from.address, REQUIRED_FEE - 1n)), 'AA33 reverted: FeeTooLow'],
    ['a permit signed by another key', async (from: OneTime) => paymasterData(g.token, REQUIRED_FEE, await permit(generatePrivateKey(), from.address, REQUIRED_FEE)), 'AA34 signature error'],
    ['a permit for less than the fee', async (from: OneTime) => paymasterData(g.token, REQUIRED_FEE, await permit(from.key, from.address, REQUIRED_FEE - 1n)), 'AA34 signature error'],
    ['no permit and no allowance', async () => paymasterData(g.token, REQUIRED_FEE), 'AA34 signature error'],
    ['a fee truncated inside the data', async () => concat([g.token, pad(numberToHex(REQUIRED_FEE), { size: 32 })]).slice(0, -2) as Hex, 'AA33 reverted: MalformedPaymasterData'],
  ])('refuses %s, and nothing moves', async (_, data, expected) => {
    const from = await oneTime();
    const to = fresh();
    const before = await balances(from.address, to);
    const op = await operation(from, withdrawalCalls({ token: g.token, to, amount: BALANCE - REQUIRED_FEE, coin: 0n }), await data(from));
    expect((await handle(op)).reason).toBe(expected);
    expect(await balances(from.address, to)).toEqual(before);
  });

  it('refuses a token it does not list, and nothing moves', async () => {
    const artifact = projectArtifact('MintableToken');
    const hash = await g.chain.wallets[0]!.deployContract({ abi: artifact.abi as never, bytecode: artifact.bytecode, args: ['Other', 'OTH', 6] as never });
    const other = getAddress((await g.chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
    const from = await oneTime();
    await g.chain.wallets[0]!.writeContract({ address: other, abi: tokenAbi as never, functionName: 'mint', args: [from.address, BALANCE] } as never);
    const to = fresh();
    const before = await balances(from.address, to);
    const data = paymasterData(other, REQUIRED_FEE, await permit(from.key, from.address, REQUIRED_FEE, 0n, other, 'Other'));
    const op = await operation(from, withdrawalCalls({ token: other, to, amount: BALANCE - REQUIRED_FEE, coin: 0n }), data);
    expect((await handle(op)).reason).toBe('AA33 reverted: UnlistedToken');
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
      expect((await handle(await withdrawal(from, to))).reason).toBe('AA32 paymaster expired or not due');
      expect(await balances(from.address, to)).toEqual(before);
    } finally {
      const later = Number((await g.chain.publicClient.getBlock()).timestamp);
      await g.ownerCall('setToken', [g.token, TOKEN_PER_ETH, later + 86_400, 2_000]);
    }
  });

  it('refuses the same signed operation a second time (replay), and nothing moves again', async () => {
    const from = await oneTime();
    const to = fresh();
    const op = await withdrawal(from, to);
    expect((await handle(op)).reason).toBeNull();
    await g.mint(from.address, BALANCE);
    const before = await balances(from.address, to);
    expect((await handle(op)).reason).toBe('AA25 invalid account nonce');
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
      expect((await handle(await withdrawal(from, to))).reason).toBe('AA31 paymaster deposit too low');
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

  it('moves the coin of the address in the same operation, to the same destination', async () => {
    const from = await oneTime();
    await g.chain.wallets[0]!.sendTransaction({ to: from.address, value: 12_345n });
    const to = fresh();
    const data = paymasterData(g.token, REQUIRED_FEE, await permit(from.key, from.address, REQUIRED_FEE));
    expect((await handle(await operation(from, withdrawalCalls({ token: g.token, to, amount: BALANCE - REQUIRED_FEE, coin: 12_345n }), data))).reason).toBeNull();
    expect(await g.chain.publicClient.getBalance({ address: from.address })).toBe(0n);
    expect(await g.chain.publicClient.getBalance({ address: to })).toBe(12_345n);
  });

  it('sends the fees it collected to the fee account, for anyone who asks', async () => {
    const held = await g.tokenBalance(g.paymaster);
    expect(held).toBeGreaterThan(0n);
    const feeAccount = (await g.chain.publicClient.readContract({ address: g.paymaster, abi: projectArtifact('WraithTokenPaymaster').abi as never, functionName: 'feeAccount' })) as Address;
    const before = await g.tokenBalance(feeAccount);
    const hash = await g.chain.wallets[3]!.writeContract({ address: g.paymaster, abi: projectArtifact('WraithTokenPaymaster').abi as never, functionName: 'sweepFees', args: [g.token] } as never);
    expect((await g.chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await g.tokenBalance(g.paymaster)).toBe(0n);
    expect(await g.tokenBalance(feeAccount)).toBe(before + held);
  });
});
