/**
 * One withdrawal run: every selected payment priced first (the SDK's `estimateWithdrawal`, the
 * rule `withdrawToken` / `withdrawNative` sign with), then withdrawn one payment at a time,
 * tokens before coin (a token withdrawal pays its gas in the coin, so the coin goes last), each
 * transaction awaited until mined. One payment failing does not stop the others: its reason is
 * kept with its result. Fees paid are read from the receipts (gas used × price, plus the L1 fee
 * of OP Stack receipts).
 * @module
 */
import { estimateWithdrawal, feePaidOf, InsufficientGasError, withdrawNative, withdrawToken, type FeeKind, type WithdrawReturnType } from '@wraith-pq/sdk/evm';
import type { Address, Hash, PublicClient } from 'viem';
import { NATIVE_UNIT, type AssetUnit } from './amounts.js';
import { CliError, describeError } from './errors.js';
import type { SpendablePayment } from './spendable.js';

/** `native` or the token's address. */
export type Asset = 'native' | Address;

export type StepEstimate = {
  asset: Asset;
  unit: AssetUnit;
  amount: bigint;
  fee: bigint;
  feeKind: FeeKind;
  maxRemainder: bigint;
  l1Fee: bigint;
  /** The coin after token withdrawals: their fees are bounds, so the amount is at least this (prices permitting). */
  afterTokens: boolean;
  /** The fee's unit when it is not the coin (a gasless withdrawal pays it in the token). */
  feeUnit?: AssetUnit;
  /** Coin moved along in the same operation (gasless). */
  coin?: bigint;
};

export type PaymentEstimate = {
  payment: SpendablePayment;
  destination: Address;
  /** Whether the destination has sent or holds anything already (not fresh). */
  destinationUsed: boolean;
  steps: StepEstimate[];
  /** Coin (wei) too small to pay its own withdrawal: it stays at the stealth address. */
  dust: bigint;
  /** Why nothing can be withdrawn (e.g. the tokens cannot pay their gas), or null. */
  problem: { code: string; message: string; hint: string } | null;
};

export type Holdings = { native: bigint; tokens: { token: Address; balance: bigint }[] };

/** Price every withdrawal of one payment: its tokens, then its coin net of the tokens' fees. */
export async function estimatePaymentWithdrawal(client: PublicClient, payment: SpendablePayment, holdings: Holdings, destination: Address, units: Map<Address, AssetUnit>): Promise<PaymentEstimate> {
  const [nonce, destinationBalance] = await Promise.all([client.getTransactionCount({ address: destination }), client.getBalance({ address: destination })]);
  const estimate: PaymentEstimate = { payment, destination, destinationUsed: nonce > 0 || destinationBalance > 0n, steps: [], dust: 0n, problem: null };
  let tokenFees = 0n;
  try {
    for (const { token, balance } of holdings.tokens) {
      if (balance === 0n) continue;
      const price = await estimateWithdrawal({ client, from: payment.stealthAddress, to: destination, token });
      estimate.steps.push({ asset: token, unit: units.get(token)!, ...pick(price), afterTokens: false });
      tokenFees += price.fee;
    }
  } catch (error) {
    // The coin stays: it is what pays the tokens' gas once topped up.
    estimate.steps = [];
    estimate.problem = reasonOf(error);
    if (error instanceof InsufficientGasError) {
      estimate.problem.hint = `send at least ${error.required - error.available} wei of the coin to ${payment.stealthAddress} (from an account you do not mind linking to this payment), then run withdraw again; its coin is not swept meanwhile, so the tokens keep their gas`;
    }
    return estimate;
  }
  if (holdings.native > tokenFees) {
    try {
      const price = await estimateWithdrawal({ client, from: payment.stealthAddress, to: destination });
      const amount = price.amount - tokenFees;
      if (amount > 0n) estimate.steps.push({ asset: 'native', unit: NATIVE_UNIT, ...pick(price), amount, afterTokens: tokenFees > 0n });
      else estimate.dust = holdings.native - tokenFees;
    } catch (error) {
      if (!(error instanceof InsufficientGasError)) {
        estimate.problem = reasonOf(error);
        return estimate;
      }
      estimate.dust = holdings.native - tokenFees;
    }
  }
  return estimate;
}

/** What went wrong, as the one-line error shows it (never a secret: see src/errors.ts). */
export function reasonOf(error: unknown): { code: string; message: string; hint: string } {
  const { code, message, hint } = describeError(error);
  return { code, message: message.replace(/\s+/g, ' ').replace(/[.\s]+$/, ''), hint };
}

function pick(price: WithdrawReturnType | Awaited<ReturnType<typeof estimateWithdrawal>>) {
  return { amount: price.amount, fee: price.fee, feeKind: price.feeKind, maxRemainder: price.maxRemainder, l1Fee: price.l1Fee };
}

export type StepResult = { asset: Asset; symbol: string; hash: Hash; amount: bigint; fee: bigint; feeKind: FeeKind; feePaid: bigint; /** The fee's unit when it is not the coin (gasless: the token). */ feeUnit?: AssetUnit };

export type PaymentResult = {
  stealthAddress: Address;
  destination: Address;
  /** `skipped`: nothing could be moved (only coin worth less than the fee of moving it). */
  status: 'done' | 'failed' | 'skipped';
  withdrawals: StepResult[];
  /** Coin left at the stealth address after the run (wei). */
  leftBehind: bigint;
  error: { code: string; message: string; hint: string } | null;
};

/**
 * Withdraw one payment as estimated: its tokens, then its coin (re-priced now that the tokens'
 * gas is paid). `onStep` hears of each transaction once it is mined. Never throws: a failure is
 * the result's `error`, with the withdrawals made before it.
 */
export async function withdrawPayment(client: PublicClient, estimate: PaymentEstimate, onStep: (step: StepResult) => void): Promise<PaymentResult> {
  const { payment, destination } = estimate;
  const result: PaymentResult = { stealthAddress: payment.stealthAddress, destination, status: 'done', withdrawals: [], leftBehind: 0n, error: null };
  if (estimate.problem === null && estimate.steps.length === 0) return { ...result, status: 'skipped', leftBehind: estimate.dust };
  try {
    if (estimate.problem !== null) throw new CliError(estimate.problem.code, estimate.problem.message, estimate.problem.hint);
    for (const step of estimate.steps) {
      let sent: WithdrawReturnType;
      if (step.asset === 'native') {
        try {
          sent = await withdrawNative({ client, stealthSecretKey: payment.stealthSecretKey, to: destination });
        } catch (error) {
          // After the tokens, what remains may no longer pay its own transfer: it stays, as estimated possible.
          if (error instanceof InsufficientGasError && result.withdrawals.length > 0) break;
          throw error;
        }
      } else {
        sent = await withdrawToken({ client, stealthSecretKey: payment.stealthSecretKey, token: step.asset, to: destination });
      }
      const receipt = await client.waitForTransactionReceipt({ hash: sent.hash });
      if (receipt.status !== 'success') throw new CliError('TRANSACTION_REVERTED', `the withdrawal ${sent.hash} reverted`, 'check the token and the destination; the funds are still at the stealth address');
      const done: StepResult = { asset: step.asset, symbol: step.unit.symbol, hash: sent.hash, amount: sent.amount, fee: sent.fee, feeKind: sent.feeKind, feePaid: await feePaidOf({ client, receipt }) };
      result.withdrawals.push(done);
      onStep(done);
    }
  } catch (error) {
    return closeResult(client, result, error);
  }
  return closeResult(client, result);
}

/** A payment's result once its withdrawals are done: the failure's reason if there was one, and the coin left at the stealth address. */
export async function closeResult(client: PublicClient, result: PaymentResult, failure?: unknown): Promise<PaymentResult> {
  if (failure !== undefined) {
    result.status = 'failed';
    result.error = reasonOf(failure);
  }
  try {
    result.leftBehind = await client.getBalance({ address: result.stealthAddress });
  } catch {
    // The balance is for the report only; the withdrawals made stand.
  }
  return result;
}
