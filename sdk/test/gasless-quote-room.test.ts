import { describe, expect, it } from 'vitest';
import { FeeAboveMaxError } from '../src/evm/gasless-errors.ts';
import { quoteWithin } from '../src/evm/gasless-quote-room.ts';

/** A quote as gasless.ts prices it: fee = ceil(maxCost × tokenPerEth / 1e18), maxCost = every limit × maxFeePerGas. */
function quoteOf(preVerificationGas: bigint) {
  const gas = { callGasLimit: 60_000n, verificationGasLimit: 59_000n, preVerificationGas, paymasterVerificationGasLimit: 30_000n, paymasterPostOpGasLimit: 0n, maxFeePerGas: 2_919_017_702n, maxPriorityFeePerGas: 1_000_000_000n };
  const maxCost = (gas.callGasLimit + gas.verificationGasLimit + preVerificationGas + gas.paymasterVerificationGasLimit) * gas.maxFeePerGas;
  const tokenPerEth = 3_000_000_000n;
  const fee = (maxCost * tokenPerEth + 10n ** 18n - 1n) / 10n ** 18n;
  return { gas, tokenPerEth, balance: 250_000_000n, fee, amount: 250_000_000n - fee, maxCost };
}

describe('a gasless quote signed within maxFee', () => {
  it('is signed as estimated when its fee is within maxFee', () => {
    const quote = quoteOf(409_844n);
    expect(quoteWithin(quote, 34_000n, quote.fee)).toBe(quote);
  });

  it('holds to an earlier, lower quote of the same prices by spending part of the room, never more', () => {
    const shown = quoteOf(400_000n);
    const fresh = quoteOf(406_451n); // the bundler's second draw: 6,451 gas more
    const signed = quoteWithin(fresh, 34_000n, shown.fee);
    expect(signed.fee).toBeLessThanOrEqual(shown.fee);
    expect(signed.gas.preVerificationGas).toBeGreaterThanOrEqual(fresh.gas.preVerificationGas - 34_000n);
    expect(signed.gas.preVerificationGas).toBeLessThan(fresh.gas.preVerificationGas);
    // Everything that follows from the gas is the signed operation's: the paymaster checks fee >= ceil(maxCost × price).
    const { callGasLimit, verificationGasLimit, preVerificationGas, paymasterVerificationGasLimit, maxFeePerGas } = signed.gas;
    expect(signed.maxCost).toBe((callGasLimit + verificationGasLimit + preVerificationGas + paymasterVerificationGasLimit) * maxFeePerGas);
    expect(signed.fee).toBe((signed.maxCost * signed.tokenPerEth + 10n ** 18n - 1n) / 10n ** 18n);
    expect(signed.amount).toBe(signed.balance - signed.fee);
  });

  it('refuses, signing nothing, when the fee rose by more than the room (prices moved)', () => {
    const shown = quoteOf(400_000n);
    const fresh = quoteOf(450_000n);
    expect(() => quoteWithin(fresh, 34_000n, shown.fee)).toThrow(FeeAboveMaxError);
    expect(() => quoteWithin(fresh, 0n, fresh.fee - 1n)).toThrow(FeeAboveMaxError);
  });
});
