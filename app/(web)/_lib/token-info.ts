/** What the page shows of an ERC-20 token: its symbol and decimals, read through the user's provider. */
import { erc20Abi, getAddress, isAddress, type Address, type PublicClient } from 'viem';

export type TokenInfo = { address: Address; symbol: string; decimals: number };

/** Checksummed address of a typed token address, or an Error that says what is wrong. */
export function parseTokenAddress(text: string): Address {
  const trimmed = text.trim();
  if (!isAddress(trimmed, { strict: false })) throw new Error(`"${trimmed}" is not a token address (0x and 40 hex digits).`);
  return getAddress(trimmed);
}

export async function readTokenInfo(client: PublicClient, address: Address): Promise<TokenInfo> {
  try {
    const [symbol, decimals] = await Promise.all([
      client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }),
      client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }),
    ]);
    return { address, symbol, decimals };
  } catch {
    throw new Error(`${address} does not answer as an ERC-20 token on this chain (no symbol or decimals).`);
  }
}
