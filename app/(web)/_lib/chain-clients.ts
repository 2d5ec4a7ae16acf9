/**
 * viem clients over a wallet's EIP-1193 provider (eip6963.ts). Chain reads and broadcasts go
 * through the provider the user picked (their wallet and its node), never through the Wraith
 * server: the server must not learn which stealth addresses belong to one person (issue 18).
 * @module
 */
import { createPublicClient, createWalletClient, custom, defineChain, type Account, type Address, type Chain, type PublicClient, type Transport, type WalletClient } from 'viem';
import type { DiscoveredWallet } from './eip6963';

/** Reads a chain through a wallet's provider, without asking for an account. */
export type ChainReader = {
  walletName: string;
  chainId: number;
  chain: Chain;
  client: PublicClient;
};

/** A connected wallet: its account signs the sender's transactions. */
export type ChainWallet = ChainReader & {
  account: Address;
  wallet: WalletClient<Transport, Chain, Account>;
};

/** Names and coins of common chains, for display; any other id works with a generic name. */
const KNOWN_CHAINS: Record<number, { name: string; symbol: string }> = {
  1: { name: 'Ethereum', symbol: 'ETH' },
  10: { name: 'OP Mainnet', symbol: 'ETH' },
  137: { name: 'Polygon', symbol: 'POL' },
  8453: { name: 'Base', symbol: 'ETH' },
  42161: { name: 'Arbitrum One', symbol: 'ETH' },
  11155111: { name: 'Sepolia', symbol: 'ETH' },
  31337: { name: 'Local dev chain', symbol: 'ETH' },
};

/** Poll for receipts every second (viem's default is 4 s): confirmations show up promptly. */
const POLLING_INTERVAL_MS = 1_000;

function chainOf(id: number): Chain {
  const known = KNOWN_CHAINS[id];
  const symbol = known?.symbol ?? 'ETH';
  // No RPC URL: every request goes through the wallet's provider (custom transport).
  return defineChain({ id, name: known?.name ?? `Chain ${id}`, nativeCurrency: { name: symbol, symbol, decimals: 18 }, rpcUrls: { default: { http: [] } } });
}

/** A reader over `wallet`'s provider, on the chain the wallet is on now (`eth_chainId`). */
export async function connectReader(wallet: DiscoveredWallet): Promise<ChainReader> {
  const transport = custom(wallet.provider as Parameters<typeof custom>[0]);
  const chainId = Number(BigInt((await wallet.provider.request({ method: 'eth_chainId' })) as string));
  const chain = chainOf(chainId);
  const client = createPublicClient({ chain, transport, pollingInterval: POLLING_INTERVAL_MS }) as PublicClient;
  return { walletName: wallet.info.name, chainId, chain, client };
}

/** Ask the wallet for its account (`eth_requestAccounts`, EIP-1102): the wallet shows its own prompt. */
export async function connectWallet(wallet: DiscoveredWallet): Promise<ChainWallet> {
  const accounts = (await wallet.provider.request({ method: 'eth_requestAccounts' })) as string[];
  const account = accounts?.[0] as Address | undefined;
  if (!account) throw new Error(`${wallet.info.name} did not share an account.`);
  const reader = await connectReader(wallet);
  const client = createWalletClient({ account, chain: reader.chain, transport: custom(wallet.provider as Parameters<typeof custom>[0]), pollingInterval: POLLING_INTERVAL_MS });
  return { ...reader, account, wallet: client };
}
