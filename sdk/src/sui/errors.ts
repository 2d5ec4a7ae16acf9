/**
 * Errors of the Sui entry: a sweep that cannot pay its gas, and a transaction the chain
 * executed but whose effects report failure.
 * @module
 */
import { WraithError } from '../errors.ts';

/**
 * A withdrawal that cannot pay its gas: the stealth address holds less SUI than the gas budget
 * of the sweep. Nothing was signed or sent. Amounts are in MIST (1 SUI = 10^9 MIST); `required`
 * is `null` when the address holds nothing at all (no budget was estimated).
 *
 * @example
 * import { SuiInsufficientGasError, withdrawSui } from '@wraith-pq/sdk/sui';
 * try {
 *   await withdrawSui({ client, stealthSecretKey, to });
 * } catch (error) {
 *   if (error instanceof SuiInsufficientGasError) console.log(`${error.address} holds ${error.available} MIST, the gas budget is ${error.required}`);
 * }
 */
export class SuiInsufficientGasError extends WraithError {
  override name = 'SuiInsufficientGasError';
  readonly address: string;
  readonly required: bigint | null;
  readonly available: bigint;

  constructor(address: string, required: bigint | null, available: bigint) {
    const need = required === null ? 'nothing to withdraw' : `a sweep needs a gas budget of ${required} MIST`;
    super('INSUFFICIENT_GAS', `The stealth address ${address} holds ${available} MIST of SUI, and ${need}. Nothing was sent.`, {
      hint:
        required === null
          ? 'Check that the payment reached this address (and the network), then try again.'
          : `The funds cannot pay for their own transfer; sending ${required - available} MIST more to ${address} (from any account) would link that account to this payment.`,
      details: [{ path: 'stealthSecretKey', issue: 'not enough SUI for gas' }],
    });
    this.address = address;
    this.required = required;
    this.available = available;
  }
}

/**
 * The chain executed the withdrawal and its effects report failure (an abort, insufficient gas
 * at execution, ...). The gas was charged; the rest of the funds did not move. `digest` names
 * the transaction on an explorer; `reason` is the node's error text.
 *
 * @example
 * import { SuiTransactionFailedError, withdrawSui } from '@wraith-pq/sdk/sui';
 * try {
 *   await withdrawSui({ client, stealthSecretKey, to });
 * } catch (error) {
 *   if (error instanceof SuiTransactionFailedError) console.warn(`${error.digest} failed: ${error.reason}`);
 * }
 */
export class SuiTransactionFailedError extends WraithError {
  override name = 'SuiTransactionFailedError';
  readonly digest: string;
  readonly reason: string;

  constructor(digest: string, reason: string) {
    super('SUI_TRANSACTION_FAILED', `The Sui transaction ${digest} was executed and failed: ${reason}.`, {
      hint: 'Its gas was charged; the remaining SUI stayed at the stealth address. Check the balance and withdraw again.',
      details: [{ path: 'effects.status', issue: reason }],
    });
    this.digest = digest;
    this.reason = reason;
  }
}
