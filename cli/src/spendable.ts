/**
 * The payments a keystore can spend, with their one-time keys `p`: the announcements scanned
 * again on this machine with the spending secret (PROTOCOL.md section 5), from the chain's
 * Announcer through the user's RPC or from a server's whole registry (the server sees a full
 * scan, not which rows matter). `p` lives in memory for the run and is never written or printed.
 * @module
 */
import { scanRegistry, type AnnouncementInput, type RegistryPageSource } from '@wraith-pq/sdk';
import { chainAnnouncementPages } from '@wraith-pq/sdk/evm';
import { erc20Abi, getAddress, isAddressEqual, parseEventLogs, type Address, type Hash, type PublicClient } from 'viem';
import type { OpenedKeys } from './keystore-file.js';

export type SpendablePayment = {
  stealthAddress: Address;
  /** `p`: signs the withdrawal. Never leaves this process. */
  stealthSecretKey: Uint8Array;
  /** Amount the sender sealed into the note (base units), when there is one. */
  noteAmount: bigint | null;
  /** The payment's transaction named in the note, when there is one. */
  noteTxHash: `0x${string}` | null;
  /** The transaction that announced it (through WraithPay, the payment itself, which the note then does not name). */
  announcementTxHash: `0x${string}` | null;
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
      found.set(stealthAddress, { stealthAddress, stealthSecretKey: discovery.stealthSecretKey, noteAmount: discovery.note?.amount ?? null, noteTxHash: discovery.note?.txHash ?? null, announcementTxHash: txHashOf(discovery.announcement) });
    }
  }
  return [...found.values()];
}

const txHashOf = (announcement: AnnouncementInput): `0x${string}` | null => {
  const hash = (announcement as { txHash?: unknown }).txHash;
  return typeof hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(hash) ? (hash as `0x${string}`) : null;
};

/**
 * The ERC-20 a payment was made in: a token `Transfer` to the stealth address in the transaction
 * its note names, or without one in the announcing transaction (a payment through WraithPay pays
 * and announces at once). Null for a coin payment, a payment without either, or a transaction the
 * node does not know. Read through the user's RPC only.
 */
export async function noteToken(client: PublicClient, payment: Pick<SpendablePayment, 'stealthAddress' | 'noteTxHash' | 'announcementTxHash'>): Promise<Address | null> {
  const hash: Hash | null = payment.noteTxHash ?? payment.announcementTxHash;
  if (hash === null) return null;
  try {
    const receipt = await client.getTransactionReceipt({ hash });
    if (receipt.status !== 'success') return null;
    const transfer = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs }).find((log) => isAddressEqual(log.args.to, payment.stealthAddress));
    return transfer === undefined ? null : getAddress(transfer.address);
  } catch {
    return null;
  }
}
