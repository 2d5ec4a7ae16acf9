/**
 * viem clients for `--rpc`: the chain id is read from the node itself (any EVM chain works,
 * anvil included), and the sender's account comes from WRAITH_PRIVATE_KEY, signed locally.
 * @module
 */
import { createPublicClient, createWalletClient, defineChain, http, type Account, type Chain, type PublicClient, type Transport, type WalletClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { readPrivateKey } from './secrets.js';

/** Receipts are polled this often: a command waits for its own transactions. */
const POLLING_MS = 500;

export type ChainClients = { chain: Chain; client: PublicClient };

/** A public client of `rpcUrl`, its chain described by the node's `eth_chainId`. */
export async function connectChain(rpcUrl: string): Promise<ChainClients> {
  const transport = http(rpcUrl, { retryCount: 2 });
  const probe = createPublicClient({ transport });
  const id = await probe.getChainId();
  const chain = defineChain({
    id,
    name: `chain ${id}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return { chain, client: createPublicClient({ chain, transport, pollingInterval: POLLING_MS }) as PublicClient };
}

/** The sender's wallet: WRAITH_PRIVATE_KEY on `chain`. */
export function senderWallet(rpcUrl: string, chain: Chain): WalletClient<Transport, Chain, Account> {
  const account = privateKeyToAccount(readPrivateKey());
  return createWalletClient({ account, chain, transport: http(rpcUrl, { retryCount: 2 }), pollingInterval: POLLING_MS });
}
