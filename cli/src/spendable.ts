/**
 * The payments a keystore can spend, with their one-time keys `p`: the announcements scanned
 * again on this machine with the spending secret (PROTOCOL.md section 5), from the chain's
 * Announcer through the user's RPC or from a server's whole registry (the server sees a full
 * scan, not which rows matter). `p` lives in memory for the run and is never written or printed.
 * @module
 */
import { scanRegistry, type AnnouncementInput, type RegistryPageSource } from '@wraith-pq/sdk';
import { chainAnnouncementPages } from '@wraith-pq/sdk/evm';
import { getAddress, type Address, type PublicClient } from 'viem';
import type { OpenedKeys } from './keystore-file.js';

export type SpendablePayment = {
  stealthAddress: Address;
  /** `p`: signs the withdrawal. Never leaves this process. */
  stealthSecretKey: Uint8Array;
  /** Amount the sender sealed into the note (base units), when there is one. */
  noteAmount: bigint | null;
  /** The payment's transaction named in the note, when there is one. */
  noteTxHash: `0x${string}` | null;
};

export type SpendableSource =
  | { kind: 'chain'; client: PublicClient; fromBlock?: bigint; toBlock?: bigint }
  | { kind: 'registry'; pages: RegistryPageSource<AnnouncementInput> };

/** Every payment of `keys` in `source`, once per stealth address, in the order found. */
export async function findSpendable(keys: OpenedKeys, source: SpendableSource): Promise<SpendablePayment[]> {
  const pages: RegistryPageSource<AnnouncementInput> =
    source.kind === 'chain'
      ? chainAnnouncementPages({
          client: source.client,
          // Both schemes: this format's and ERC-8441's (PROTOCOL.md section 10), one filter.
          schemeId: [1000n, 3n],
          ...(source.fromBlock === undefined ? {} : { fromBlock: source.fromBlock }),
          ...(source.toBlock === undefined ? {} : { toBlock: source.toBlock }),
        })
      : source.pages;
  const found = new Map<Address, SpendablePayment>();
  for await (const batch of scanRegistry(pages, keys)) {
    for (const discovery of batch.discoveries) {
      const stealthAddress = getAddress(discovery.stealthAddress);
      if (found.has(stealthAddress) || discovery.stealthSecretKey === undefined) continue;
      found.set(stealthAddress, { stealthAddress, stealthSecretKey: discovery.stealthSecretKey, noteAmount: discovery.note?.amount ?? null, noteTxHash: discovery.note?.txHash ?? null });
    }
  }
  return [...found.values()];
}

/** `transfer(address,uint256)`: the call an ERC-20 payment makes. */
const TRANSFER_SELECTOR = '0xa9059cbb';

/**
 * The ERC-20 a payment was made in, read from the transaction its note names: a `transfer` to
 * the stealth address from a token contract. Null for a coin payment, a payment without a note,
 * or a transaction the node does not know. Read through the user's RPC only.
 */
export async function noteToken(client: PublicClient, payment: Pick<SpendablePayment, 'stealthAddress' | 'noteTxHash'>): Promise<Address | null> {
  if (payment.noteTxHash === null) return null;
  try {
    const tx = await client.getTransaction({ hash: payment.noteTxHash });
    if (tx.to === null || !tx.input.startsWith(TRANSFER_SELECTOR) || tx.input.length < 74) return null;
    const recipient = getAddress(`0x${tx.input.slice(34, 74)}`);
    return recipient === payment.stealthAddress ? getAddress(tx.to) : null;
  } catch {
    return null;
  }
}
