/** Amounts typed as decimals ("0.5", "100") to base units and back, exactly (no floating point). */
import { formatUnits, parseUnits } from 'viem';

/** Base units of a typed decimal amount, or an Error naming the field. */
export function parseAmount(text: string, decimals: number, field: string, { allowZero = false } = {}): bigint {
  const trimmed = text.trim();
  const fraction = trimmed.split('.')[1] ?? '';
  if (!/^\d+(\.\d+)?$/.test(trimmed)) throw new Error(`${field}: enter a number such as 0.5.`);
  if (fraction.length > decimals) throw new Error(`${field}: at most ${decimals} decimal places.`);
  const value = parseUnits(trimmed, decimals);
  if (value === 0n && !allowZero) throw new Error(`${field}: must be more than 0.`);
  return value;
}

/** "0.5 ETH", "100 TST": base units shown as a decimal with the unit. */
export function formatAmount(value: bigint, decimals: number, symbol: string): string {
  return `${formatUnits(value, decimals)} ${symbol}`;
}

/**
 * "0.000188 ETH" for 0.000187626626241912 ETH: an amount for people, to 4 significant digits
 * below 1 and 4 decimals above (`up` rounds up, for a fee that is at most this). Exact when the
 * amount has no more digits than that; `formatAmount` gives every digit on request.
 */
export function roundAmount(value: bigint, decimals: number, symbol: string, { up = false } = {}): string {
  const exact = formatUnits(value, decimals);
  const [whole, fraction = ''] = exact.split('.');
  const leadingZeros = whole === '0' || whole === '-0' ? (/^0*/.exec(fraction)?.[0].length ?? 0) : 0;
  const keep = whole === '0' ? leadingZeros + 4 : 4;
  if (fraction.length <= keep) return `${exact} ${symbol}`;
  const scale = 10n ** BigInt(decimals - keep);
  let kept = value / scale;
  if (up && value % scale !== 0n) kept += 1n;
  return `${formatUnits(kept, keep)} ${symbol}`;
}

/** {@link roundAmount} rounded up: a fee or an amount never shown below what it may be. */
export function roundedAmount(value: bigint, decimals: number, symbol: string): string {
  return roundAmount(value, decimals, symbol, { up: true });
}

/** The unit a payment's amount is counted in: the chain's coin, or an ERC-20 token. */
export type AmountUnit = { symbol: string; decimals: number };

/**
 * A note's amount (PROTOCOL.md section 8: the asset's smallest units, as a decimal string) for
 * people: "0.5 ETH", "100 TST" once its unit is known. Until then: of a token the note names but
 * no list does, the amount and the token's address (`token`); of a note that names no asset
 * (version 0), the number and that the asset shows once read.
 */
export function noteAmountText(baseUnits: string, unit: AmountUnit | null, token?: string | null): string {
  if (!/^\d+$/.test(baseUnits)) return baseUnits;
  if (unit) return formatAmount(BigInt(baseUnits), unit.decimals, unit.symbol);
  if (token && token !== 'native') return `${baseUnits} units of the token ${token}`;
  return `${baseUnits} (in the smallest units of an asset shown once its balance is read)`;
}
