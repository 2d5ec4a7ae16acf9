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
 * A fee or small amount for people: four significant digits ("0.0001876 ETH" for
 * 0.000187626626241912 ETH), rounded up so a fee is never shown below what it may cost; the
 * exact value is {@link formatAmount}'s. Whole parts keep every digit ("12.5 ETH").
 */
export function roundedAmount(value: bigint, decimals: number, symbol: string): string {
  const exact = formatUnits(value, decimals);
  const [whole = '0', fraction = ''] = exact.split('.');
  if (fraction === '' || whole !== '0') {
    const kept = fraction.slice(0, 4);
    const up = fraction.length > 4 && /[1-9]/.test(fraction.slice(4));
    const text = up ? formatUnits(parseUnits(`${whole}.${kept}`, decimals) + 10n ** BigInt(decimals - kept.length), decimals) : `${whole}${kept ? `.${kept}` : ''}`;
    return `${text.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '')} ${symbol}`;
  }
  const leading = fraction.length - fraction.replace(/^0+/, '').length;
  const digits = leading + 4;
  if (fraction.length <= digits) return `${exact} ${symbol}`;
  const step = 10n ** BigInt(decimals - digits);
  const rounded = ((value + step - 1n) / step) * step;
  return `${formatUnits(rounded, decimals)} ${symbol}`;
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
