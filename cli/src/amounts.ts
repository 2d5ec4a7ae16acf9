/**
 * Amounts people can read: base units shown in the asset's decimals with its symbol ("0.5 ETH",
 * "100 TST"), the base units kept alongside in JSON. A token's symbol and decimals are read from
 * the token itself (ERC-20 `symbol()`, `decimals()`); a token without them is shown in base units.
 * @module
 */
import { erc20Abi, formatUnits, type Address, type PublicClient } from 'viem';

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
