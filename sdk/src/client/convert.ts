/**
 * Between the API's JSON (snake_case, hex) and the SDK's byte types (camelCase, `Uint8Array`),
 * so results of the client feed straight into the local functions and back.
 * @module
 */
import type { RegistryAnnouncement } from '../announcement-binary.ts';
import { bytesToHex, hexToBytes } from '../bytes.ts';
import { InvalidArgumentError } from '../errors.ts';
import { isSealedNoteLength } from '../note.ts';
import type { RecipientKeys } from '../keys.ts';
import type { StealthPayment } from '../payment.ts';
import type { ScanKeys } from '../scanner.ts';
import { CIPHERTEXT_BYTES } from '../viewing-key.ts';
import type { AnnouncementJson, KeyBundleJson, PublishAnnouncementParameters, ScanParameters } from './types.ts';

/**
 * ERC-8441's `epk (33) || ct (1088)`: `ERC8441_EPHEMERAL_KEY_BYTES` of erc8441-payment.ts, not
 * imported from there because that module is not otherwise part of the client entry.
 */
const ERC8441_KEY_BYTES = 33 + CIPHERTEXT_BYTES;

/** A registry row in byte form, as scanning and {@link decodeAnnouncementPage} use it. */
export function announcementFromJson(json: AnnouncementJson): RegistryAnnouncement {
  return {
    id: json.id,
    timestamp: json.timestamp,
    ephemeralKey: hexToBytes(json.ephemeral_key, 'ephemeral_key'),
    viewTag: json.view_tag,
    channelId: json.channel_id == null ? null : hexToBytes(json.channel_id, 'channel_id'),
    txHash: json.tx_hash ?? null,
    amount: json.amount ?? null,
    chain: json.chain ?? null,
    stealthAddress: json.stealth_address ?? null,
    metadata: json.metadata == null || json.metadata === '' ? null : hexToBytes(json.metadata, 'metadata'),
    blockNumber: json.block_number ?? null,
    logIndex: json.log_index ?? null,
    chainId: json.chain_id ?? null,
    // scheme_id (API.md "Several chains, two schemes"); servers older than it answer rows without one, all of scheme 1000.
    schemeId: json.scheme_id ?? 1000,
  };
}

/**
 * The keys of a server-generated bundle in byte form (everything but the viewing seed, which
 * the server does not return): ready for `createScanner`, `scanRegistry` or `sealKeys`.
 *
 * @example
 * const keys = keysFromBundle(await client.generateKeys());
 * const blob = await sealKeys(keys, password);
 */
export function keysFromBundle(bundle: KeyBundleJson): Omit<RecipientKeys, 'viewingSeed'> {
  return {
    spendingPublicKey: hexToBytes(bundle.spending_pk, 'spending_pk', 33),
    spendingSecretKey: hexToBytes(bundle.spending_sk, 'spending_sk', 32),
    viewingPublicKey: hexToBytes(bundle.viewing_pk, 'viewing_pk', 1184),
    viewingSecretKey: hexToBytes(bundle.viewing_sk, 'viewing_sk', 2400),
    metaAddress: hexToBytes(bundle.meta_address, 'meta_address', 1218),
    baseViewTag: bundle.view_tag,
  };
}

/**
 * The key fields of a server-side scan (`POST /stealth/scan`) from local keys. Leave out the
 * spending secret for a view-only scan.
 *
 * @example
 * const { discoveries } = await client.scan(scanParametersFor(keys));
 */
export function scanParametersFor(keys: ScanKeys): Pick<ScanParameters, 'viewing_sk' | 'spending_pk' | 'spending_sk'> {
  return {
    viewing_sk: keys.viewingSecretKey,
    spending_pk: keys.spendingPublicKey,
    ...(keys.spendingSecretKey === undefined ? {} : { spending_sk: keys.spendingSecretKey }),
  };
}

export type AnnouncementForPaymentOptions = {
  /** Hash of the transaction that paid `payment.stealthAddress`. */
  txHash: string;
  amount?: string;
  chain?: string;
  /** EIP-155 id of the chain the payment is on. */
  chainId?: number;
  /** 32 bytes. */
  channelId?: Uint8Array | string;
  /**
   * The payment's ERC-5564 metadata with a sealed note (`announcementMetadata(payment, note)`:
   * 113 bytes for the note that names its asset, PROTOCOL.md 8.1, or 93) or the sealed note alone
   * (`sealNote`: 112 or 92 bytes), so the recipient gets the note.
   */
  metadata?: Uint8Array;
};

/** What {@link announcementForPayment} reads of a payment (a `StealthPayment` of either scheme). */
export type AnnouncementForPaymentPayment = Pick<StealthPayment, 'ephemeralCiphertext' | 'viewTag'> & Partial<Pick<StealthPayment, 'schemeId' | 'stealthAddress'>>;

/**
 * The registry announcement of a payment made with the local `createStealthPayment`, ready
 * for `client.publishAnnouncement`; with `metadata`, it carries a note sealed for the recipient
 * (PROTOCOL.md sections 8 and 10), which their scan opens. A scheme-3 (ERC-8441) payment (its
 * `schemeId` is 3, or it has none and its key is the 1121-byte `epk || ct`) is announced with its `scheme_id` and `stealth_address` (the recipient's scan decides on it), and
 * its metadata without the view tag, as the API takes it.
 *
 * @throws {InvalidArgumentError} when `metadata` is neither a sealed note (92 or 112 bytes) nor the
 * payment's view tag followed by one, or a scheme-3 payment has no `stealthAddress`.
 * @example
 * const payment = createStealthPayment(metaAddress);
 * const txHash = await wallet.sendTransaction({ to: payment.stealthAddress, value });
 * const metadata = announcementMetadata(payment, { amount: value, chainId: 1n, token: 'coin' });
 * await client.publishAnnouncement(announcementForPayment(payment, { txHash, chain: 'ethereum', chainId: 1, metadata }));
 */
export function announcementForPayment(payment: AnnouncementForPaymentPayment, options: AnnouncementForPaymentOptions): PublishAnnouncementParameters {
  const { metadata } = options;
  const withViewTag = metadata instanceof Uint8Array && isSealedNoteLength(metadata.length - 1);
  if (metadata !== undefined && (!(metadata instanceof Uint8Array) || !(withViewTag || isSealedNoteLength(metadata.length)))) {
    throw new InvalidArgumentError('metadata', 'must be the view tag and a sealed note (93 or 113 bytes) or the sealed note alone (92 or 112 bytes)');
  }
  if (metadata !== undefined && withViewTag && metadata[0] !== payment.viewTag) {
    throw new InvalidArgumentError('metadata', "starts with a view tag other than the payment's");
  }
  // A payment that names no scheme is scheme 3 when its key has scheme 3's length (ERC-8441
  // Section 2.3: `epk || ct`, 1121 bytes), as scanning reads such rows.
  const erc8441 = payment.schemeId === undefined ? payment.ephemeralCiphertext?.length === ERC8441_KEY_BYTES : payment.schemeId === 3;
  if (erc8441 && (typeof payment.stealthAddress !== 'string' || payment.stealthAddress === '')) {
    throw new InvalidArgumentError('payment.stealthAddress', 'a scheme-3 announcement carries the one-time address the recipient decides on');
  }
  // Scheme 3 over HTTP takes what follows the view tag (API.md); scheme 1000 takes either form.
  const sent = metadata !== undefined && erc8441 && withViewTag ? metadata.subarray(1) : metadata;
  return {
    ephemeral_key: bytesToHex(payment.ephemeralCiphertext),
    ...(erc8441 ? { scheme_id: 3 as const, stealth_address: payment.stealthAddress! } : {}),
    view_tag: payment.viewTag,
    tx_hash: options.txHash,
    ...(options.amount === undefined ? {} : { amount: options.amount }),
    ...(options.chain === undefined ? {} : { chain: options.chain }),
    ...(options.chainId === undefined ? {} : { chain_id: options.chainId }),
    ...(options.channelId === undefined ? {} : { channel_id: options.channelId }),
    ...(sent === undefined ? {} : { metadata: bytesToHex(sent) }),
  };
}
