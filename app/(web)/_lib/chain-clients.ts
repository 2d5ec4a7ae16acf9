/**
 * viem clients over a wallet's EIP-1193 provider (eip6963.ts). Chain reads and broadcasts go
 * through the provider the user picked (their wallet and its node), never through the Wraith
 * server: the server must not learn which stealth addresses belong to one person (issue 18).
 *
 * A connection is made for the chain the wallet is on at that moment, and stays bound to it
 * (wallet-chain.ts): if the wallet moves to another chain, whatever would be signed or sent
 * through the connection is refused instead, and the page connects again on the new chain.
 * @module
 */
import { createPublicClient, createWalletClient, custom, defineChain, type Account, type Address, type Chain, type PublicClient, type Transport, type WalletClient } from 'viem';
import { chainInfo } from './chains';
import type { DiscoveredWallet } from './eip6963';
import { chainBoundProvider, walletChainId } from './wallet-chain';

/** Reads a chain through a wallet's provider, without asking for an account. */
export type ChainReader = {
  walletName: string;
  /** The wallet this connection goes through (to switch its chain, or connect again). */
  source: DiscoveredWallet;
  chainId: number;
  chain: Chain;
  /** Bound to `chainId`: refuses to sign or send once the wallet is on another chain. */
  client: PublicClient;
};

/** A connected wallet: its account signs the sender's transactions. */
export type ChainWallet = ChainReader & {
  account: Address;
  /** Bound to `chainId` as `client` is. */
  wallet: WalletClient<Transport, Chain, Account>;
};

/** Poll for receipts every second (viem's default is 4 s): confirmations show up promptly. */
const POLLING_INTERVAL_MS = 1_000;

function chainOf(id: number): Chain {
  const { name, nativeCurrency } = chainInfo(id);
  // Only the name and the coin: no RPC URL (every request goes through the wallet's provider,
  // custom transport) and no contracts (a local node with a known id may lack Multicall3).
  return defineChain({ id, name, nativeCurrency, rpcUrls: { default: { http: [] } } });
}

function boundTransport(wallet: DiscoveredWallet, chainId: number) {
  return custom(chainBoundProvider(wallet.provider, wallet.info.name, chainId) as Parameters<typeof custom>[0]);
}

/** A reader over `wallet`'s provider, on the chain the wallet is on now (`eth_chainId`). */
export async function connectReader(wallet: DiscoveredWallet): Promise<ChainReader> {
  const chainId = await walletChainId(wallet.provider);
  const chain = chainOf(chainId);
  const client = createPublicClient({ chain, transport: boundTransport(wallet, chainId), pollingInterval: POLLING_INTERVAL_MS }) as PublicClient;
  return { walletName: wallet.info.name, source: wallet, chainId, chain, client };
}

/** Ask the wallet for its account (`eth_requestAccounts`, EIP-1102): the wallet shows its own prompt. */
export async function connectWallet(wallet: DiscoveredWallet): Promise<ChainWallet> {
  const accounts = (await wallet.provider.request({ method: 'eth_requestAccounts' })) as string[];
  const account = accounts?.[0] as Address | undefined;
  if (!account) throw new Error(`${wallet.info.name} did not share an account.`);
  const reader = await connectReader(wallet);
  const client = createWalletClient({ account, chain: reader.chain, transport: boundTransport(wallet, reader.chainId), pollingInterval: POLLING_INTERVAL_MS });
  return { ...reader, account, wallet: client };
}
