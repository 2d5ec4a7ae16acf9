/**
 * Token amounts: human-readable decimal strings at the API boundary, integer base units inside.
 *
 * A channel amount is what a person types (`"12.5"` USDC), so the API takes and returns decimal
 * strings; arithmetic (funding adds up) happens on base units (`12500000` for 6 decimals) as
 * `bigint`, so no float ever rounds a balance. An amount must be positive, have no more
 * fractional digits than the token has decimals (anything finer cannot be transferred), and fit
 * an ERC-20 balance: at most 2^256 - 1 base units.
 */

/** Longest amount string accepted before parsing (78 digits of a uint256, a dot, leading zeros). */
export const MAX_AMOUNT_LENGTH = 100;
/** ERC-20 balances are uint256. */
export const MAX_BASE_UNITS = (1n << 256n) - 1n;
/** Plain decimal notation only: no sign, exponent, separators or bare dot. */
export const DECIMAL_AMOUNT = /^\d+(\.\d+)?$/;

/** Why `text` is not an amount of a token with `decimals`, or the amount in base units. */
export function parseTokenAmount(text: string, decimals: number): { units: bigint } | { issue: string } {
  if (!DECIMAL_AMOUNT.test(text)) return { issue: 'must be a positive decimal number such as 12.5' };
  const [whole = '', fraction = ''] = text.split('.');
  const significantFraction = fraction.replace(/0+$/, '');
  if (significantFraction.length > decimals) {
    return { issue: decimals === 0 ? 'must be a whole number for this token' : `must have at most ${decimals} decimal places for this token` };
  }
  const units = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(significantFraction.padEnd(decimals, '0') || '0');
  if (units === 0n) return { issue: 'must be greater than zero' };
  if (units > MAX_BASE_UNITS) return { issue: 'is too large (over 2^256 - 1 base units)' };
  return { units };
}

/** Base units as the shortest decimal string (`12500000`, 6 decimals → `"12.5"`). */
export function formatTokenAmount(units: bigint, decimals: number): string {
  if (units < 0n) throw new RangeError('A token amount cannot be negative.');
  const text = units.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
