/**
 * Amounts people can read: base units shown in the asset's decimals with its symbol ("0.5 ETH",
 * "100 TST"), the base units kept alongside in JSON. A token's symbol and decimals are read from
 * the token itself (ERC-20 `symbol()`, `decimals()`); a token without them is shown in base units.
 * Amounts typed on the command line are read the same way ({@link parseAmount}).
 * @module
 */
import { erc20Abi, formatUnits, type Address, type PublicClient } from 'viem';
import { CliError, EXIT_USAGE } from './errors.js';

/** How to show one asset: its symbol and decimals, or base units when the token does not say. */
export type AssetUnit = { symbol: string; decimals: number | null };

/** The chain's coin (18 decimals on every EVM chain this CLI talks to). */
export const NATIVE_UNIT: AssetUnit = { symbol: 'ETH', decimals: 18 };

/** `symbol()` and `decimals()` of `token`; base units when either call fails. */
export async function tokenUnit(client: PublicClient, token: Address): Promise<AssetUnit> {
  try {
    const [symbol, decimals] = await Promise.all([
      client.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' }),
      client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }),
    ]);
    // A symbol is printed on the terminal: keep it short and free of control characters.
    const clean = symbol.replace(/[^\x20-\x7e]/g, '').slice(0, 16);
    return { symbol: clean === '' ? 'tokens' : clean, decimals };
  } catch {
    return { symbol: `base units of ${token}`, decimals: null };
  }
}

/** `amount` in `unit`: "0.5 ETH", or "1000 base units of 0x…" for a token that gives no decimals. */
export function formatAmount(amount: bigint, unit: AssetUnit): string {
  return unit.decimals === null ? `${amount} ${unit.symbol}` : `${formatUnits(amount, unit.decimals)} ${unit.symbol}`;
}

/** `10^decimals`-scaled integer of a plain decimal `text`, or null when it has more places than `decimals`. */
function scaled(text: string, decimals: number): bigint | null {
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length > decimals) return null;
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** Units of the chain's coin a suffix can name (decimals), besides `wei`. */
const COIN_SUFFIXES: Record<string, number> = { ether: 18, eth: 18, gwei: 9 };

/**
 * An amount typed by a person, in base units: `0.5` is half of the asset's unit (18 decimals for
 * the coin, the token's own `decimals()` for a token), `0.5ether`/`0.5eth`/`20gwei` name a unit
 * of the coin, `100TST` the token's symbol, and base units are only ever taken when said, as
 * `100wei` or with `baseUnits` (`--base-units`): an integer read as base units by default is
 * how `--amount 100` became 100 wei of a token worth 10^-16 tokens.
 */
export function parseAmount(text: string, unit: AssetUnit, options: { flag: string; baseUnits?: boolean }): bigint {
  const { flag } = options;
  const trimmed = text.trim().replace(/_/g, '');
  const match = /^(\d+(?:\.\d+)?)\s*([A-Za-z][A-Za-z0-9]*)?$/.exec(trimmed);
  if (match === null) throw new AmountError(`${flag} ${JSON.stringify(text.slice(0, 40))} is not an amount`, `write it as 0.5 (${unit.symbol}), 100wei (base units), or see \`wraith help\``);
  const [, number, suffix] = match as unknown as [string, string, string | undefined];
  let decimals: number | null;
  if (suffix === undefined) {
    if (options.baseUnits) decimals = 0;
    else if (unit.decimals === null) throw new AmountError(`${flag}: ${unit.symbol} gives no decimals() to read ${number} by`, 'give the amount in base units: 100wei, or --base-units');
    else decimals = unit.decimals;
  } else if (options.baseUnits) {
    throw new AmountError(`${flag} ${text}: --base-units takes a plain integer`, 'leave out --base-units, or the unit');
  } else {
    const lower = suffix.toLowerCase();
    if (lower === 'wei') decimals = 0;
    else if (unit === NATIVE_UNIT && COIN_SUFFIXES[lower] !== undefined) decimals = COIN_SUFFIXES[lower]!;
    else if (unit.decimals !== null && lower === unit.symbol.toLowerCase()) decimals = unit.decimals;
    else throw new AmountError(`${flag} ${text}: ${suffix} is not a unit of ${unit.symbol}`, unit === NATIVE_UNIT ? 'use ether, eth, gwei or wei (base units), or no unit (ETH)' : `give the amount in ${unit.symbol} (no unit) or in base units (wei)`);
  }
  const value = scaled(number, decimals);
  if (value === null) throw new AmountError(`${flag} ${text} has more decimal places than ${decimals === 0 ? 'base units allow (none)' : `its unit's ${decimals}`}`, 'round it, or give it in base units (wei)');
  return value;
}

/** An amount that does not read: a usage mistake (exit status 2). */
export class AmountError extends CliError {
  override name = 'AmountError';
  constructor(message: string, hint: string) {
    super('INVALID_AMOUNT', message, hint, EXIT_USAGE);
  }
}
