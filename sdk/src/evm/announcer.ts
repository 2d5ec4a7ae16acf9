/**
 * The ERC-5564 singleton Announcer (PROTOCOL.md section 7): its address, this wire format's
 * scheme id, the ABI of `announce` and of the `Announcement` event, and the arguments a sender
 * passes to `announce` for a payment.
 *
 * The Announcer checks nothing: anyone can announce any bytes under any scheme id. Readers
 * therefore validate every event (see `decodeAnnouncementLogs`).
 * @module
 */
import { bytesToHex, getAddress, isAddress, type Address, type Hex } from 'viem';
import { InvalidArgumentError } from '../errors.ts';
import { ERC8441_EPHEMERAL_KEY_BYTES } from '../erc8441-payment.ts';
import { announcementMetadata, type PaymentNoteInput } from '../note.ts';
import type { StealthPayment } from '../payment.ts';
import { CIPHERTEXT_BYTES } from '../viewing-key.ts';

/**
 * The ERC-5564 Announcer: the same address on every chain (EIP-5564, deployed with CREATE2).
 *
 * @example
 * import { createPublicClient, http } from 'viem';
 * import { mainnet } from 'viem/chains';
 * import { ANNOUNCER_ADDRESS, announcerAbi, WRAITH_SCHEME_ID } from '@wraith-pq/sdk/evm';
 *
 * const client = createPublicClient({ chain: mainnet, transport: http() });
 * const unwatch = client.watchContractEvent({
 *   address: ANNOUNCER_ADDRESS,
 *   abi: announcerAbi,
 *   eventName: 'Announcement',
 *   args: { schemeId: WRAITH_SCHEME_ID },
 *   onLogs: (logs) => console.log(`${logs.length} new announcements`),
 * });
 */
export const ANNOUNCER_ADDRESS: Address = '0x55649E01B5Df198D18D95b5cc5051630cfD45564';

/**
 * ERC-5564 scheme id of this wire format (PROTOCOL.md section 7); deployments may configure another.
 *
 * @example
 * import { fetchAnnouncements, WRAITH_SCHEME_ID } from '@wraith-pq/sdk/evm';
 * await fetchAnnouncements({ client, fromBlock, toBlock, schemeId: WRAITH_SCHEME_ID });
 */
export const WRAITH_SCHEME_ID = 1000n;

/**
 * `announce(...)` and `event Announcement(...)` of the Announcer, as EIP-5564 defines them.
 *
 * @example
 * import { decodeEventLog } from 'viem';
 * import { announcerAbi } from '@wraith-pq/sdk/evm';
 * const { args } = decodeEventLog({ abi: announcerAbi, eventName: 'Announcement', topics: log.topics, data: log.data });
 */
export const announcerAbi = [
  {
    type: 'function',
    name: 'announce',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'schemeId', type: 'uint256' },
      { name: 'stealthAddress', type: 'address' },
      { name: 'ephemeralPubKey', type: 'bytes' },
      { name: 'metadata', type: 'bytes' },
    ],
    outputs: [],
  },
  {
    type: 'event',
    name: 'Announcement',
    anonymous: false,
    inputs: [
      { name: 'schemeId', type: 'uint256', indexed: true },
      { name: 'stealthAddress', type: 'address', indexed: true },
      { name: 'caller', type: 'address', indexed: true },
      { name: 'ephemeralPubKey', type: 'bytes', indexed: false },
      { name: 'metadata', type: 'bytes', indexed: false },
    ],
  },
] as const;

/**
 * topic0 of `Announcement`: keccak256("Announcement(uint256,address,address,bytes,bytes)").
 *
 * @example
 * import { ANNOUNCEMENT_EVENT_TOPIC, ANNOUNCER_ADDRESS } from '@wraith-pq/sdk/evm';
 * const logs = await client.request({ method: 'eth_getLogs', params: [{ address: ANNOUNCER_ADDRESS, topics: [ANNOUNCEMENT_EVENT_TOPIC], fromBlock: '0x0', toBlock: 'latest' }] });
 */
export const ANNOUNCEMENT_EVENT_TOPIC: Hex = '0x5f0eab8057630ba7676c49b4f21a0231414e79474595be8e4c432fbf6bf0f4e7';

const MAX_UINT256 = (1n << 256n) - 1n;

/** The scheme id as the 32-byte topic an `eth_getLogs` filter matches (topic1). */
export function schemeIdTopic(schemeId: bigint): Hex {
  return `0x${schemeId.toString(16).padStart(64, '0')}`;
}

/** Check a scheme id (uint256). */
export function parseSchemeId(schemeId: unknown, path = 'schemeId'): bigint {
  if (typeof schemeId !== 'bigint' || schemeId < 0n || schemeId > MAX_UINT256) throw new InvalidArgumentError(path, 'must be a bigint in the uint256 range');
  return schemeId;
}

/** Check an EVM address and return it EIP-55 checksummed. */
export function parseAddress(address: unknown, path: string): Address {
  if (typeof address !== 'string' || !isAddress(address, { strict: false })) throw new InvalidArgumentError(path, 'must be a 20-byte hex EVM address');
  return getAddress(address);
}

export type AnnounceParameters = {
  /** The payment from `createStealthPayment` (only its public parts and `sharedSecret`, which seals the note, are read). */
  payment: Pick<StealthPayment, 'stealthAddress' | 'ephemeralCiphertext' | 'viewTag' | 'sharedSecret'> & { schemeId?: StealthPayment['schemeId'] };
  /**
   * What to tell the recipient, sealed with the payment's shared secret (PROTOCOL.md section 8).
   * Name the asset (`token: 'coin'` or the token's address) so the recipient's wallet can show
   * it at once (the note of section 8.1). Omitted: the metadata is the view tag alone (1 byte).
   */
  note?: PaymentNoteInput;
  /**
   * Default: the payment's own scheme (`payment.schemeId`: 3 for an ERC-8441 payment), else
   * {@link WRAITH_SCHEME_ID}. A deployment may announce scheme-1000 payments under another id;
   * a scheme-3 payment is always announced under 3.
   */
  schemeId?: bigint;
  /** Default {@link ANNOUNCER_ADDRESS}. */
  announcer?: Address;
};

export type AnnounceParametersReturnType = {
  address: Address;
  abi: typeof announcerAbi;
  functionName: 'announce';
  /** `[schemeId, stealthAddress, ephemeralPubKey, metadata]` */
  args: readonly [bigint, Address, Hex, Hex];
};

/**
 * The call that announces a payment on chain: pass it to viem's `writeContract` (or
 * `simulateContract`, `encodeFunctionData`). `ephemeralPubKey` is the 1088-byte ciphertext
 * (scheme 1000) or `epk || ct` (1121 bytes, scheme 3), `metadata` the view tag followed by the
 * sealed note when `note` is given (113 bytes when it names its `token`, else 93), else the view tag alone.
 *
 * @example
 * import { createWalletClient, custom, getAddress } from 'viem';
 * import { mainnet } from 'viem/chains';
 * import { createStealthPayment } from '@wraith-pq/sdk';
 * import { announceParameters } from '@wraith-pq/sdk/evm';
 *
 * const wallet = createWalletClient({ chain: mainnet, transport: custom(window.ethereum) });
 * const [account] = await wallet.requestAddresses();
 * const payment = createStealthPayment(recipientMetaAddress);
 * const payHash = await wallet.sendTransaction({ account, to: getAddress(payment.stealthAddress), value: 10n ** 16n });
 * const announceHash = await wallet.writeContract({
 *   account,
 *   ...announceParameters({ payment, note: { txHash: payHash, amount: 10n ** 16n, chainId: 1n, token: 'coin' } }),
 * });
 */
export function announceParameters(parameters: AnnounceParameters): AnnounceParametersReturnType {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  const { payment, note, announcer = ANNOUNCER_ADDRESS } = parameters;
  if (typeof payment !== 'object' || payment === null) throw new InvalidArgumentError('payment', 'must be a payment from createStealthPayment');
  const erc8441 = payment.schemeId === 3;
  const schemeId = parameters.schemeId ?? (erc8441 ? 3n : WRAITH_SCHEME_ID);
  if (erc8441 && schemeId !== 3n) throw new InvalidArgumentError('schemeId', 'an ERC-8441 payment is announced under scheme 3');
  const ciphertext = payment.ephemeralCiphertext;
  const length = erc8441 ? ERC8441_EPHEMERAL_KEY_BYTES : CIPHERTEXT_BYTES;
  if (!(ciphertext instanceof Uint8Array) || ciphertext.length !== length) {
    throw new InvalidArgumentError('payment.ephemeralCiphertext', `must be ${length} bytes`);
  }
  const metadata = announcementMetadata(payment, note);
  return {
    address: parseAddress(announcer, 'announcer'),
    abi: announcerAbi,
    functionName: 'announce',
    args: [parseSchemeId(schemeId), parseAddress(payment.stealthAddress, 'payment.stealthAddress'), bytesToHex(ciphertext), bytesToHex(metadata)],
  };
}
