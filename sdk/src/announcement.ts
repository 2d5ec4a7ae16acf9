/**
 * Announcements: the registry's JSON record (PROTOCOL.md section 6) and its byte form.
 * @module
 */
import { hexToBytes, isAllZero } from './bytes.ts';
import { InvalidAnnouncementError, WraithError } from './errors.ts';
import { SEALED_NOTE_BYTES } from './note.ts';
import { CIPHERTEXT_BYTES } from './viewing-key.ts';

/** The registry's JSON record (snake_case, hex). */
export type AnnouncementRecord = {
  id: number;
  ephemeral_key: string;
  view_tag: number;
  timestamp?: number;
  channel_id?: string | null;
  tx_hash?: string | null;
  amount?: string | null;
  chain?: string | null;
  /** Chain events: the one-time EVM address the announcement named (EIP-55). */
  stealth_address?: string | null;
  /** Hex of the 92-byte sealed note (PROTOCOL.md section 8): the ERC-5564 metadata after its view-tag byte. */
  metadata?: string | null;
  /** Chain events: where the event sits; null for HTTP publishes. */
  block_number?: number | null;
  log_index?: number | null;
};

/** The same announcement in byte form (camelCase). */
export type Announcement = {
  id?: number;
  ephemeralKey: Uint8Array;
  viewTag: number;
  timestamp?: number;
  channelId?: Uint8Array | null;
  txHash?: string | null;
  amount?: string | null;
  chain?: string | null;
  /** Chain events: the one-time EVM address the announcement named (EIP-55). */
  stealthAddress?: string | null;
  /** The 92-byte sealed note (PROTOCOL.md section 8). */
  metadata?: Uint8Array | null;
  blockNumber?: number | null;
  logIndex?: number | null;
};

/** Either form is accepted by the scanner. */
export type AnnouncementInput = AnnouncementRecord | Announcement;

/** What scanning needs of an announcement. */
export type ScannableAnnouncement = { ephemeralKey: Uint8Array; viewTag: number };

/**
 * Extract ciphertext and view tag, checking PROTOCOL.md section 6: `ephemeral_key` exactly
 * 1088 bytes and not all zero, `view_tag` an integer 0..255.
 */
export function parseAnnouncement(input: AnnouncementInput, path = 'announcement'): ScannableAnnouncement {
  if (typeof input !== 'object' || input === null) throw new InvalidAnnouncementError(path, 'is not an object');
  let ephemeralKey: Uint8Array;
  let viewTag: unknown;
  if ('ephemeralKey' in input) {
    if (!(input.ephemeralKey instanceof Uint8Array)) throw new InvalidAnnouncementError(`${path}.ephemeralKey`, 'must be a Uint8Array');
    ephemeralKey = input.ephemeralKey;
    viewTag = input.viewTag;
  } else {
    if (typeof input.ephemeral_key !== 'string') throw new InvalidAnnouncementError(`${path}.ephemeral_key`, 'must be a hex string');
    try {
      ephemeralKey = hexToBytes(input.ephemeral_key, `${path}.ephemeral_key`);
    } catch {
      throw new InvalidAnnouncementError(`${path}.ephemeral_key`, 'is not valid hex');
    }
    viewTag = input.view_tag;
  }
  if (ephemeralKey.length !== CIPHERTEXT_BYTES) {
    throw new InvalidAnnouncementError(`${path}.ephemeral_key`, `must be ${CIPHERTEXT_BYTES} bytes`);
  }
  if (isAllZero(ephemeralKey)) throw new InvalidAnnouncementError(`${path}.ephemeral_key`, 'must not be all zero');
  if (typeof viewTag !== 'number' || !Number.isInteger(viewTag) || viewTag < 0 || viewTag > 255) {
    throw new InvalidAnnouncementError(`${path}.view_tag`, 'must be an integer 0..255');
  }
  return { ephemeralKey, viewTag };
}

/**
 * The sealed note an announcement carries (PROTOCOL.md section 6: `metadata` is the note alone,
 * without the on-chain view-tag byte): `undefined` when it carries none (absent, null, empty),
 * `null` when what it carries cannot be a note (not bytes or hex, or not exactly 92 bytes).
 */
export function sealedNoteOf(input: AnnouncementInput): Uint8Array | null | undefined {
  const value: unknown = 'ephemeralKey' in input ? input.metadata : (input as AnnouncementRecord).metadata;
  if (value === undefined || value === null || value === '') return undefined;
  let metadata: Uint8Array;
  if (value instanceof Uint8Array) {
    if (value.length === 0) return undefined;
    metadata = value;
  } else if (typeof value === 'string') {
    try {
      metadata = hexToBytes(value, 'metadata');
    } catch {
      return null;
    }
  } else {
    return null;
  }
  return metadata.length === SEALED_NOTE_BYTES ? metadata : null;
}

/** The stealth address an announcement names (chain events), if any. */
export function announcedStealthAddressOf(input: AnnouncementInput): string | undefined {
  const value = 'ephemeralKey' in input ? input.stealthAddress : (input as AnnouncementRecord).stealth_address;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Parse `announcements[from..to)` and pack the well-formed ones for a kernel: ciphertexts back to
 * back in `ciphertexts`, view tags in `viewTags`, positions in the batch in `indices` (each
 * sized for `to - from` rows). Malformed rows are skipped; the caller counts them as
 * `(to - from) - packed`. Returns how many rows were packed.
 */
export function packAnnouncements(
  announcements: readonly AnnouncementInput[],
  from: number,
  to: number,
  ciphertexts: Uint8Array,
  viewTags: Uint8Array,
  indices: Uint32Array,
): number {
  let count = 0;
  for (let index = from; index < to; index++) {
    let parsed: ScannableAnnouncement;
    try {
      // The error's path is not used (malformed rows are only counted), so none is built per row.
      parsed = parseAnnouncement(announcements[index]!);
    } catch (error) {
      if (!(error instanceof WraithError)) throw error;
      continue;
    }
    ciphertexts.set(parsed.ephemeralKey, count * CIPHERTEXT_BYTES);
    viewTags[count] = parsed.viewTag;
    indices[count++] = index;
  }
  return count;
}
