/**
 * The typed errors of a gasless withdrawal (gasless.ts). Messages never quote the bundler URL
 * (it may carry an API key) or the one-time key.
 * @module
 */
import { WraithError } from '../errors.ts';

/** The bundler did not answer (network failure, timeout, HTTP error): nothing was sent. */
export class BundlerUnreachableError extends WraithError {
  override name = 'BundlerUnreachableError';
  constructor(cause?: unknown) {
    super('BUNDLER_UNREACHABLE', 'The bundler did not answer.', { cause, hint: 'Check the bundler URL and try again; nothing was sent.' });
  }
}

/**
 * The paymaster would not pay for the operation; `reason` is its own (a custom error of
 * WraithTokenPaymaster such as `UnlistedToken` or `FeeTooLow`, or the EntryPoint's `AA3x` code).
 */
export class PaymasterRefusedError extends WraithError {
  override name = 'PaymasterRefusedError';
  readonly reason: string;
  constructor(reason: string, cause?: unknown) {
    super('PAYMASTER_REFUSED', `The paymaster refused the withdrawal: ${reason}.`, { cause, hint: 'Nothing was moved.', details: [{ path: 'paymaster', issue: reason }] });
    this.reason = reason;
  }
}

/** The paymaster's price for the token expired (its operator has not renewed it): nothing was sent. */
export class QuoteExpiredError extends WraithError {
  override name = 'QuoteExpiredError';
  /** Unix seconds the price was valid until. */
  readonly validUntil: number;
  constructor(validUntil: number, cause?: unknown) {
    super('QUOTE_EXPIRED', `The paymaster's price for this token expired (valid until ${new Date(validUntil * 1000).toISOString()}).`, {
      cause,
      hint: 'Try again later, once the operator renewed it; nothing was sent.',
    });
    this.validUntil = validUntil;
  }
}

/** The fee in the token is above the caller's `maxFee`: nothing was signed. */
export class FeeAboveMaxError extends WraithError {
  override name = 'FeeAboveMaxError';
  readonly fee: bigint;
  readonly maxFee: bigint;
  constructor(fee: bigint, maxFee: bigint) {
    super('FEE_ABOVE_MAX', `The fee (${fee} base units of the token) is above maxFee (${maxFee}).`, { hint: 'Estimate again and confirm the new fee; nothing was signed.' });
    this.fee = fee;
    this.maxFee = maxFee;
  }
}

/** The chain has no EntryPoint v0.8 (or no Simple7702Account) at its canonical address. */
export class EntryPointMissingError extends WraithError {
  override name = 'EntryPointMissingError';
  constructor(what: string) {
    super('ENTRY_POINT_MISSING', `This chain has no ${what} at its canonical address: gasless withdrawals are not available here.`);
  }
}

/** The address holds less of the token than the fee: a gasless withdrawal would leave nothing. */
export class TokenBelowFeeError extends WraithError {
  override name = 'TokenBelowFeeError';
  readonly fee: bigint;
  readonly balance: bigint;
  constructor(fee: bigint, balance: bigint) {
    super('INSUFFICIENT_GAS', `The fee (${fee} base units of the token) is above what the address holds (${balance}).`, { hint: 'Nothing was signed.' });
    this.fee = fee;
    this.balance = balance;
  }
}
