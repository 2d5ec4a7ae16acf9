/**
 * Announcements: the registry's JSON record (PROTOCOL.md section 6) and its byte form.
 * @module
 */
import { hexToBytes, isAllZero } from './bytes.ts';
import { InvalidAnnouncementError, WraithError } from './errors.ts';
import { isSealedNoteLength } from './note.ts';
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
  /** Hex of the sealed note (PROTOCOL.md section 8: 92 bytes, or 112 naming its asset, 8.1): the ERC-5564 metadata after its view-tag byte. */
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
  /** The sealed note (PROTOCOL.md section 8: 92 bytes, or 112 naming its asset, 8.1). */
  metadata?: Uint8Array | null;
  blockNumber?: number | null;
  logIndex?: number | null;
};

/**
 * A payment from `createStealthPayment`, scanned as the announcement it will become: its
 * `ephemeralCiphertext` is the announcement's ephemeral key. Lets a sender's own test, or an app
 * that keeps payments before publishing them, scan them as they are.
 */
export type PaymentAnnouncement = {
  id?: number;
  ephemeralCiphertext: Uint8Array;
  viewTag: number;
  stealthAddress?: string | null;
  metadata?: Uint8Array | null;
};

/**
 * Every row form the scanner reads: registry JSON records (also the `announcement` of a
 * `/stealth/create` response), byte rows (registry pages, chain events from
 * `@wraith-pq/sdk/evm`), and payments from `createStealthPayment`.
 */
export type AnnouncementInput = AnnouncementRecord | Announcement | PaymentAnnouncement;

/** What scanning needs of an announcement. */
export type ScannableAnnouncement = { ephemeralKey: Uint8Array; viewTag: number };

/** A row a scan skipped, and why. */
export type MalformedAnnouncement = {
  /** Its position in the scanned batch. */
  index: number;
  /** What is wrong, naming the field as the row names it, e.g. `ephemeralKey must be 1088 bytes, got 12`. */
  reason: string;
};

/**
 * Malformed rows a scan lists (all are counted in `stats.malformed`): enough to find what
 * produces them, bounded because a registry may hold any amount of junk.
 */
export const MALFORMED_LIST_LIMIT = 100;

/** What is wrong with a row: the field (empty for the row itself) and the issue. */
type Flaw = { field: string; issue: string };

const isViewTag = (tag: unknown): tag is number => typeof tag === 'number' && Number.isInteger(tag) && tag >= 0 && tag <= 255;

const typeName = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/** A byte row that can be scanned as it is: the scanner's fast path, no allocation, no exception. */
function isScannableBytes(row: unknown): row is ScannableAnnouncement {
  const key = (row as Partial<Announcement> | null | undefined)?.ephemeralKey;
  return key instanceof Uint8Array && key.length === CIPHERTEXT_BYTES && isViewTag((row as Announcement).viewTag) && !isAllZero(key);
}

/**
 * Ciphertext and view tag of a row in any accepted form, or its first flaw (PROTOCOL.md section
 * 6: the ephemeral key exactly 1088 bytes and not all zero, the view tag an integer 0..255).
 * Fields are named as the row names them.
 */
function readAnnouncement(input: unknown): ScannableAnnouncement | Flaw {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { field: '', issue: `is not an object (got ${typeName(input)})` };
  const row = input as Partial<Announcement & PaymentAnnouncement & AnnouncementRecord> & { ephemeral_ciphertext?: unknown };
  let keyField: string;
  let tagField: string;
  let ephemeralKey: Uint8Array;
  let viewTag: unknown;
  if ('ephemeralKey' in row || 'ephemeralCiphertext' in row) {
    keyField = 'ephemeralKey' in row ? 'ephemeralKey' : 'ephemeralCiphertext';
    tagField = 'viewTag';
    const key: unknown = 'ephemeralKey' in row ? row.ephemeralKey : row.ephemeralCiphertext;
    if (!(key instanceof Uint8Array)) return { field: keyField, issue: `must be a Uint8Array (got ${typeName(key)})` };
    ephemeralKey = key;
    viewTag = row.viewTag;
  } else if ('ephemeral_key' in row) {
    keyField = 'ephemeral_key';
    tagField = 'view_tag';
    if (typeof row.ephemeral_key !== 'string') return { field: keyField, issue: `must be a hex string (got ${typeName(row.ephemeral_key)})` };
    try {
      ephemeralKey = hexToBytes(row.ephemeral_key, keyField);
    } catch (error) {
      if (!(error instanceof WraithError)) throw error;
      return { field: keyField, issue: `is not valid hex: ${error.details[0]?.issue ?? 'unreadable'}` };
    }
    viewTag = row.view_tag;
  } else if ('ephemeral_ciphertext' in row) {
    // The whole /stealth/create response: its `metadata` keeps the view-tag byte, so it is not a row.
    return { field: '', issue: "is a /stealth/create response: scan its 'announcement'" };
  } else {
    return { field: '', issue: 'has no ephemeralKey, ephemeralCiphertext or ephemeral_key' };
  }
  if (ephemeralKey.length !== CIPHERTEXT_BYTES) return { field: keyField, issue: `must be ${CIPHERTEXT_BYTES} bytes, got ${ephemeralKey.length}` };
  if (isAllZero(ephemeralKey)) return { field: keyField, issue: 'must not be all zero' };
  if (!isViewTag(viewTag)) return { field: tagField, issue: `must be an integer 0..255 (got ${typeof viewTag === 'number' ? viewTag : typeName(viewTag)})` };
  return { ephemeralKey, viewTag };
}

const flawText = ({ field, issue }: Flaw): string => (field ? `${field} ${issue}` : issue);

const flawError = ({ field, issue }: Flaw, path: string) => new InvalidAnnouncementError(field ? `${path}.${field}` : path, issue);

/**
 * Extract ciphertext and view tag from a row in any accepted form ({@link AnnouncementInput}),
 * checking PROTOCOL.md section 6: the ephemeral key exactly 1088 bytes and not all zero, the view
 * tag an integer 0..255.
 *
 * @throws {InvalidAnnouncementError} naming the field as the row names it, under `path`.
 * @example
 * parseAnnouncement(createStealthPayment(metaAddress)); // { ephemeralKey, viewTag }
 * parseAnnouncement({ id: 1, ephemeral_key: '0x12', view_tag: 7 }, 'rows[3]');
 * // throws: Invalid announcement: rows[3].ephemeral_key must be 1088 bytes, got 1.
 */
export function parseAnnouncement(input: AnnouncementInput, path = 'announcement'): ScannableAnnouncement {
  const read = readAnnouncement(input);
  if ('issue' in read) throw flawError(read, path);
  return read;
}

/**
 * The sealed note an announcement carries (PROTOCOL.md section 6: `metadata` is the note alone,
 * without the on-chain view-tag byte): `undefined` when it carries none (absent, null, empty),
 * `null` when what it carries cannot be a note (not bytes or hex, or neither 92 nor 112 bytes).
 */
export function sealedNoteOf(input: AnnouncementInput): Uint8Array | null | undefined {
  // Every form names it `metadata`: bytes in byte rows and payments, hex in records.
  const value: unknown = input.metadata;
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
  return isSealedNoteLength(metadata.length) ? metadata : null;
}

/** The stealth address an announcement names (chain events), if any. */
export function announcedStealthAddressOf(input: AnnouncementInput): string | undefined {
  const value: unknown = 'ephemeral_key' in input ? input.stealth_address : (input as Announcement | PaymentAnnouncement).stealthAddress;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What `packAnnouncements` does with a malformed row, and with a row of ERC-8441 (scheme 3). */
export type PackAnnouncementsOptions = {
  /** Receives `{ index, reason }` of malformed rows while it holds fewer than {@link MALFORMED_LIST_LIMIT}. */
  malformed?: MalformedAnnouncement[];
  /** Throw {@link InvalidAnnouncementError} (path `announcements[index].field`) instead of skipping. */
  strict?: boolean;
  /**
   * Receives each scheme-3 row (its position and its ERC-8441 form); such a row is neither packed
   * nor malformed. Without it, scheme-3 rows are read as this format's and fail its checks.
   */
  erc8441?: (index: number, row: Erc8441Row) => void;
};

/** A scheme-3 row as the ERC-8441 scanner reads it (the ERC's Section 2.5). */
export type Erc8441Row = {
  /** `epk || ct`, 1121 bytes. */
  ephemeralPubKey: Uint8Array;
  /** The view tag, then whatever the row kept after it. */
  metadata: Uint8Array;
  /** The announced address, '' when the row names none (it is then never a match). */
  stealthAddress: string;
};

const ERC8441_KEY_BYTES = 1121;

/**
 * The ERC-8441 form of a row of scheme 3 (its `schemeId` / `scheme_id` says 3, or it declares no
 * scheme and its ephemeral key is 1121 bytes), else undefined. A scheme-3 row with unreadable fields comes back with an
 * empty key, which the ERC-8441 scanner skips as malformed (Section 2.7): never a throw.
 */
export function erc8441RowOf(input: unknown): Erc8441Row | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const row = input as Partial<Announcement & PaymentAnnouncement & AnnouncementRecord> & { schemeId?: unknown; scheme_id?: unknown };
  const raw: unknown = 'ephemeral_key' in row ? row.ephemeral_key : 'ephemeralKey' in row ? row.ephemeralKey : row.ephemeralCiphertext;
  // A row that declares its scheme is read under that scheme alone (ERC-8441 Section 2.3); one
  // that does not is scheme 3 when its key has scheme 3's length.
  const declared = row.schemeId ?? row.scheme_id;
  const length = raw instanceof Uint8Array ? raw.length : typeof raw === 'string' ? raw.replace(/^0[xX]/, '').length / 2 : -1;
  if (declared !== undefined ? declared !== 3 : length !== ERC8441_KEY_BYTES) return undefined;
  const bytes = (value: unknown): Uint8Array => {
    if (value instanceof Uint8Array) return value;
    if (typeof value !== 'string' || value === '') return new Uint8Array(0);
    try {
      return hexToBytes(value, 'value');
    } catch {
      return new Uint8Array(0);
    }
  };
  const viewTag: unknown = 'ephemeral_key' in row ? row.view_tag : row.viewTag;
  const tail = bytes(row.metadata);
  const metadata = new Uint8Array(1 + tail.length);
  metadata.set(tail, 1);
  if (isViewTag(viewTag)) metadata[0] = viewTag;
  const announced = announcedStealthAddressOf(row as AnnouncementInput);
  return { ephemeralPubKey: isViewTag(viewTag) ? bytes(raw) : new Uint8Array(0), metadata, stealthAddress: announced ?? '' };
}

/**
 * Parse `announcements[from..to)` and pack the well-formed ones for a kernel: ciphertexts back to
 * back in `ciphertexts`, view tags in `viewTags`, positions in the batch in `indices` (each
 * sized for `to - from` rows). Malformed rows are skipped and listed in `options.malformed`, or
 * thrown with `options.strict`; the caller counts them as `(to - from) - packed`. Returns how
 * many rows were packed.
 */
export function packAnnouncements(
  announcements: readonly AnnouncementInput[],
  from: number,
  to: number,
  ciphertexts: Uint8Array,
  viewTags: Uint8Array,
  indices: Uint32Array,
  options: PackAnnouncementsOptions = {},
): number {
  let count = 0;
  for (let index = from; index < to; index++) {
    const row: unknown = announcements[index];
    // Byte rows (binary registry pages, chain events) are the bulk of large scans: checked in
    // place first; every other form, and a byte row that fails, goes through the full reader.
    const fast = isScannableBytes(row) && (row as { schemeId?: unknown }).schemeId !== 3;
    if (!fast && options.erc8441) {
      const erc8441 = erc8441RowOf(row);
      if (erc8441 !== undefined) {
        options.erc8441(index, erc8441);
        continue;
      }
    }
    const parsed = fast ? row : readAnnouncement(row);
    if (parsed !== row && 'issue' in parsed) {
      if (options.strict) throw flawError(parsed, `announcements[${index}]`);
      if (options.malformed && options.malformed.length < MALFORMED_LIST_LIMIT) options.malformed.push({ index, reason: flawText(parsed) });
      continue;
    }
    const { ephemeralKey, viewTag } = parsed as ScannableAnnouncement;
    ciphertexts.set(ephemeralKey, count * CIPHERTEXT_BYTES);
    viewTags[count] = viewTag;
    indices[count++] = index;
  }
  return count;
}
