/**
 * Well-known tokens per chain (EIP-155 id), so a payer picks "USDC" instead of typing a contract
 * address, and a payment's amount reads "100 USDC" before any chain read. The addresses are the
 * issuers' own contracts (Circle's native USDC, Tether's USDT, Maker's DAI, the canonical WETH);
 * a token missing here is still paid by its address, read from its contract (token-info.ts).
 * The server's `GET /api/v1/chains` lists a deployment's own tokens; this list is the fallback.
 * @module
 */
import type { Address } from 'viem';

export type KnownToken = { address: Address; symbol: string; decimals: number };

const USDC = (address: Address): KnownToken => ({ address, symbol: 'USDC', decimals: 6 });

const BY_CHAIN: Readonly<Record<number, readonly KnownToken[]>> = {
  // Ethereum
  1: [
    USDC('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
    { address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', symbol: 'USDT', decimals: 6 },
    { address: '0x6B175474E89094C44Da98b954EedeAC495271d0F', symbol: 'DAI', decimals: 18 },
    { address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', symbol: 'WETH', decimals: 18 },
  ],
  // OP Mainnet
  10: [USDC('0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85'), { address: '0x4200000000000000000000000000000000000006', symbol: 'WETH', decimals: 18 }],
  // Base
  8453: [USDC('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'), { address: '0x4200000000000000000000000000000000000006', symbol: 'WETH', decimals: 18 }],
  // Arbitrum One
  42161: [USDC('0xaf88d065e77c8cC2239327C5EDb3A432268e5831'), { address: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', symbol: 'USDT', decimals: 6 }],
  // Polygon
  137: [USDC('0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359')],
  // Gnosis
  100: [USDC('0xDDAfbb505ad214D7b80b1f830fcCc89B60fb7A83')],
  // Sepolia, Base Sepolia: Circle's test USDC
  11155111: [USDC('0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238')],
  84532: [USDC('0x036CbD53842c5426634e7929541eC2318f3dCF7e')],
};

/** The well-known tokens of chain `chainId` (none for a chain this list does not cover). */
export function knownTokens(chainId: number): readonly KnownToken[] {
  return BY_CHAIN[chainId] ?? [];
}

/** The well-known token at `address` on chain `chainId`, or null. */
export function knownToken(chainId: number, address: string): KnownToken | null {
  const lower = address.toLowerCase();
  return knownTokens(chainId).find((t) => t.address.toLowerCase() === lower) ?? null;
}
