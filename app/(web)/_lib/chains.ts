/**
 * The chains the web app can name, and what it tells a wallet about one it does not know
 * (EIP-3085 `wallet_addEthereumChain`). Names, coins, a public RPC and the explorer come from
 * viem's chain definitions, by EIP-155 id: the chains where stealth payments are made (Ethereum,
 * OP Mainnet, Base, Arbitrum One, Polygon, Gnosis), their testnets, and the two ids local dev
 * nodes use. The server's own RPC URLs (`CHAINS`, which may hold API keys) are never sent to the
 * page: a chain viem does not know is shown by the name the server gives it, and cannot be added
 * to a wallet from here.
 * @module
 */
import type { Chain } from 'viem';
import { arbitrum, arbitrumSepolia, base, baseSepolia, foundry, gnosis, localhost, mainnet, optimism, optimismSepolia, polygon, sepolia } from 'viem/chains';

/** What the page shows of a chain and what it hands a wallet to add it. */
export type ChainInfo = {
  id: number;
  name: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  /** A public RPC endpoint (viem's default for the chain); null when this page knows none. */
  rpcUrl: string | null;
  /** The block explorer's base URL, when known. */
  explorerUrl: string | null;
};

const DEFINITIONS: readonly Chain[] = [mainnet, optimism, base, arbitrum, polygon, gnosis, sepolia, optimismSepolia, baseSepolia, arbitrumSepolia, foundry, localhost];

const BY_ID = new Map<number, ChainInfo>(
  DEFINITIONS.map((chain) => [
    chain.id,
    {
      id: chain.id,
      name: chain.name,
      nativeCurrency: { ...chain.nativeCurrency },
      rpcUrl: chain.rpcUrls.default.http[0] ?? null,
      explorerUrl: chain.blockExplorers?.default.url ?? null,
    },
  ]),
);

/**
 * The chain with EIP-155 id `id`. An id viem's table above does not hold is named by
 * `fallbackName` (the server's name for it, e.g. a row's `chain`) or "Chain <id>", with ETH as
 * its coin (every chain of that table but Polygon and Gnosis pays gas in ETH).
 */
export function chainInfo(id: number, fallbackName?: string | null): ChainInfo {
  const known = BY_ID.get(id);
  if (known) return known;
  const name = fallbackName?.trim() ? fallbackName.trim() : `Chain ${id}`;
  return { id, name, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrl: null, explorerUrl: null };
}

/** "Base (chain id 8453)": how the page names a chain wherever money is involved. */
export function chainLabel(info: Pick<ChainInfo, 'id' | 'name'>): string {
  return `${info.name} (chain id ${info.id})`;
}

/** EIP-3085 `AddEthereumChainParameter`. */
export type AddEthereumChainParameter = {
  chainId: `0x${string}`;
  chainName: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  rpcUrls: string[];
  blockExplorerUrls?: string[];
};

/** What `wallet_addEthereumChain` is given for `info`; null when this page knows no public RPC for it. */
export function addEthereumChainParameter(info: ChainInfo): AddEthereumChainParameter | null {
  if (info.rpcUrl === null) return null;
  return {
    chainId: `0x${info.id.toString(16)}`,
    chainName: info.name,
    nativeCurrency: info.nativeCurrency,
    rpcUrls: [info.rpcUrl],
    ...(info.explorerUrl ? { blockExplorerUrls: [info.explorerUrl] } : {}),
  };
}
