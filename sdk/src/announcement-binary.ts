/**
 * Compact binary form of a page of registry announcements: the `application/octet-stream`
 * answer of `GET /api/v1/registry/announcements`, made for streaming scans (half the bytes of
 * hex JSON, no hex parsing, ciphertexts decoded as views without copying).
 *
 * Layout, version 2 (magic "WRA2", written since issue 24; all integers little-endian):
 *
 *     page   = magic "WRA2" (4) | count u32 (4) | record * count
 *     record = id u64 (8) | timestamp u64 (8) | view_tag u8 (1) | fields u16 (2)
 *            | scheme_id u32 (4) | key_length u16 (2) | ephemeral_key (key_length)
 *            | channel_id (32)               if fields & 1
 *            | u16 length + UTF-8 tx_hash    if fields & 2
 *            | u16 length + UTF-8 amount     if fields & 4
 *            | u16 length + UTF-8 chain      if fields & 8
 *            | u32 length + metadata         if fields & 16 (what follows the view tag: the sealed note,
 *                                              PROTOCOL.md section 8, 92 bytes or 112 naming its
 *                                              asset, 8.1; any bytes under scheme 3)
 *            | stealth address (20)          if fields & 32
 *            | block_number u64 | log_index u32   if fields & 64 (chain events)
 *            | chain_id u64 (8)              if fields & 128 (EIP-155 id; absent: null)
 *
 * What version 2 changed against version 1 (magic "WRA1"): each record carries `scheme_id`
 * (ERC-5564 scheme: 1000 for this SDK's ML-KEM scheme, 3 for ERC-8441) and `chain_id`; the
 * ephemeral key has a length (1088 bytes for scheme 1000, 1121 for scheme 3, PROTOCOL.md
 * section 10) instead of a fixed 1088; metadata has a u32 length instead of a u8 (chain events
 * of scheme 3 carry metadata of any length); `fields` is a u16, bits 8 to 15 free for later
 * fields. Version 1 was `id u64 | timestamp u64 | view_tag u8 | fields u8 | ephemeral_key
 * (1088)` followed by the fields of flags 1 to 64 as above, except a u8 metadata length.
 * Neither version fixes the metadata's size: the 112-byte note of PROTOCOL.md 8.1 needed no new
 * layout (its length fits version 1's u8 too), and the decoder passes whatever length a record
 * declares to the scanner, which opens a note of either version by that length.
 *
 * The decoder reads both versions: a full page is cached for a year as immutable (see below),
 * so a client may meet version-1 pages from its own HTTP cache or a CDN long after the server
 * writes version 2, and refusing them would break the scan for no gain. Their rows decode with
 * `schemeId` 1000 (the only scheme version 1 could hold) and `chainId` null (not recorded). Any
 * other magic, including a later version, is an {@link UnsupportedPageVersionError}, so a client
 * can tell "update the SDK" from a corrupted page.
 *
 * A page carries no registry total, so a full page (as many records as the limit asked for)
 * never changes once written while ids only grow and rows stay: the server marks such pages
 * immutable and cacheable unless they hold chain events, which a reorganisation may remove.
 *
 * Decoding is built for scanning, where nearly every row is someone else's: a row keeps the 20
 * raw bytes of its stealth address and renders it EIP-55 only when `stealthAddress` is read,
 * which the scanner does for discoveries alone; an ASCII `txHash` likewise becomes a string
 * when read. Both are own enumerable getters, so spreading, `JSON.stringify` and
 * equality see them as fields. Checksumming every row cost more than the scan itself (issue 24:
 * 157,488 rows/s decoded against 359,832 rows/s scanned; BENCHMARKS.md has the figures since).
 * The plain decoder of announcement-binary-reference.ts is what tests hold this one to.
 * @module
 */
import type { Announcement } from './announcement.ts';
import { checksumAddressOfBytes } from './address.ts';
import { hexToBytes } from './bytes.ts';
import { InvalidAnnouncementError } from './errors.ts';
import { CIPHERTEXT_BYTES } from './viewing-key.ts';

export const ANNOUNCEMENT_PAGE_MEDIA_TYPE = 'application/octet-stream';
/** The layout version the encoder writes; the decoder reads 1 and 2. */
export const ANNOUNCEMENT_PAGE_VERSION = 2;
/** ERC-5564 scheme id of this SDK's ML-KEM-768 scheme (PROTOCOL.md section 7). */
const WRAITH_PAGE_SCHEME_ID = 1000;
/** ERC-5564 scheme id of ERC-8441 (PROTOCOL.md section 10). */
const ERC8441_SCHEME_ID = 3;
/** ERC-8441's announced key: compressed secp256k1 point (33) followed by the ML-KEM ciphertext (1088). */
const ERC8441_EPHEMERAL_KEY_BYTES = 33 + CIPHERTEXT_BYTES;
/** Ephemeral key length of each scheme the registry stores (undefined: a scheme it does not). */
function keyBytesOfScheme(schemeId: number): number | undefined {
  return schemeId === WRAITH_PAGE_SCHEME_ID ? CIPHERTEXT_BYTES : schemeId === ERC8441_SCHEME_ID ? ERC8441_EPHEMERAL_KEY_BYTES : undefined;
}

const MAGIC_PREFIX = [0x57, 0x52, 0x41]; // "WRA", then the version digit
const VERSION_1 = 0x31; // "1"
const VERSION_2 = 0x32; // "2"
const HEADER_BYTES = 8;
/** id, timestamp, view tag, fields u8, ephemeral key. */
const V1_FIXED_RECORD_BYTES = 8 + 8 + 1 + 1 + CIPHERTEXT_BYTES;
/** id, timestamp, view tag, fields u16, scheme id, key length (the key follows). */
const V2_FIXED_RECORD_BYTES = 8 + 8 + 1 + 2 + 4 + 2;
const CHANNEL_ID_BYTES = 32;
const FIELD = { channelId: 1, txHash: 2, amount: 4, chain: 8, metadata: 16, stealthAddress: 32, position: 64, chainId: 128 } as const;
const V1_KNOWN_FIELDS = 0x7f;
const V2_KNOWN_FIELDS = 0xff;
const ADDRESS_BYTES = 20;
const POSITION_BYTES = 12;
const CHAIN_ID_BYTES = 8;
const MAX_TEXT_BYTES = 0xffff;

/**
 * An announcement as the registry stores it: id and timestamp are always present. `chainId`
 * is the EIP-155 id of the chain whose event it is, or that its HTTP publisher named (null:
 * none); `schemeId` its ERC-5564 scheme (absent: 1000).
 */
export type RegistryAnnouncement = Announcement & { id: number; timestamp: number; chainId?: number | null; schemeId?: number };

/** A row of a decoded page: every field present, null where the row has none. */
export type DecodedAnnouncement = RegistryAnnouncement & {
  channelId: Uint8Array | null;
  txHash: string | null;
  amount: string | null;
  chain: string | null;
  metadata: Uint8Array | null;
  /** EIP-55, rendered on first read. */
  stealthAddress: string | null;
  blockNumber: number | null;
  logIndex: number | null;
  chainId: number | null;
  schemeId: number;
};

/**
 * A page of a layout version this SDK does not read (a newer server), or bytes without the page
 * magic. `version` is the version digit the page names, or null without the magic. An
 * {@link InvalidAnnouncementError}, so code that catches those still does.
 */
export class UnsupportedPageVersionError extends InvalidAnnouncementError {
  override name = 'UnsupportedPageVersionError';
  readonly version: number | null;
  constructor(version: number | null) {
    super(
      'page',
      version === null
        ? 'is not a binary announcement page (bad magic)'
        : `is binary page version ${version}, and this SDK reads versions 1 and 2 (update @wraith-pq/sdk, or read the registry as JSON)`,
    );
    this.version = version;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Encode a page (server side), in layout version 2. The result may be a view on a slightly
 * larger buffer (text fields are sized for the worst case of 3 UTF-8 bytes per UTF-16 unit,
 * then written in place); a text longer than 65,535 UTF-8 bytes is cut at the last whole
 * character that fits.
 *
 * @throws {InvalidAnnouncementError} naming `announcements[index].field` for a field the layout
 * cannot carry (an ephemeral key of another length than its scheme's, a scheme other than 1000
 * or 3, a chain id that is not a positive safe integer, ...).
 * @example
 * const page = encodeAnnouncementPage([{ id: 1, timestamp: 1_700_000_000, ephemeralKey, viewTag: 7, chainId: 8453 }]);
 * decodeAnnouncementPage(page)[0]!.chainId; // 8453
 */
export function encodeAnnouncementPage(announcements: readonly RegistryAnnouncement[]): Uint8Array {
  let bound = HEADER_BYTES;
  for (const a of announcements) {
    bound +=
      V2_FIXED_RECORD_BYTES +
      (a.ephemeralKey?.length ?? 0) +
      (a.channelId ? CHANNEL_ID_BYTES : 0) +
      textBound(a.txHash) +
      textBound(a.amount) +
      textBound(a.chain) +
      (a.metadata ? 4 + a.metadata.length : 0) +
      (a.stealthAddress ? ADDRESS_BYTES : 0) +
      (a.blockNumber != null ? POSITION_BYTES : 0) +
      (a.chainId != null ? CHAIN_ID_BYTES : 0);
  }
  const out = new Uint8Array(bound);
  const view = new DataView(out.buffer);
  out.set(MAGIC_PREFIX, 0);
  out[3] = VERSION_2;
  view.setUint32(4, announcements.length, true);
  let at = HEADER_BYTES;
  for (let i = 0; i < announcements.length; i++) {
    const a = announcements[i]!;
    const schemeId = a.schemeId ?? WRAITH_PAGE_SCHEME_ID;
    const keyBytes = keyBytesOfScheme(schemeId);
    if (keyBytes === undefined) throw new InvalidAnnouncementError(`announcements[${i}].schemeId`, `must be ${WRAITH_PAGE_SCHEME_ID} or ${ERC8441_SCHEME_ID}`);
    if (!(a.ephemeralKey instanceof Uint8Array) || a.ephemeralKey.length !== keyBytes) {
      throw new InvalidAnnouncementError(`announcements[${i}].ephemeralKey`, `must be ${keyBytes} bytes for scheme ${schemeId}`);
    }
    if (a.channelId && a.channelId.length !== CHANNEL_ID_BYTES) throw new InvalidAnnouncementError(`announcements[${i}].channelId`, 'must be 32 bytes');
    if (a.metadata != null && !(a.metadata instanceof Uint8Array)) throw new InvalidAnnouncementError(`announcements[${i}].metadata`, 'must be a Uint8Array');
    if (a.stealthAddress != null && (typeof a.stealthAddress !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(a.stealthAddress))) throw new InvalidAnnouncementError(`announcements[${i}].stealthAddress`, 'must be a 0x-prefixed 20-byte address');
    if (a.blockNumber != null && (typeof a.logIndex !== 'number' || !Number.isInteger(a.logIndex) || a.logIndex < 0 || a.logIndex > 0xffffffff)) {
      throw new InvalidAnnouncementError(`announcements[${i}].logIndex`, 'must be a u32 when blockNumber is set');
    }
    if (a.blockNumber == null && a.logIndex != null) throw new InvalidAnnouncementError(`announcements[${i}].blockNumber`, 'must be set when logIndex is');
    if (a.chainId != null && (!Number.isSafeInteger(a.chainId) || a.chainId < 1)) throw new InvalidAnnouncementError(`announcements[${i}].chainId`, 'must be a positive safe integer (EIP-155 chain id) or null');
    writeUint64(view, at, a.id, i, 'id');
    writeUint64(view, at + 8, a.timestamp, i, 'timestamp');
    out[at + 16] = a.viewTag;
    view.setUint16(
      at + 17,
      (a.channelId ? FIELD.channelId : 0) |
        (a.txHash != null ? FIELD.txHash : 0) |
        (a.amount != null ? FIELD.amount : 0) |
        (a.chain != null ? FIELD.chain : 0) |
        (a.metadata ? FIELD.metadata : 0) |
        (a.stealthAddress ? FIELD.stealthAddress : 0) |
        (a.blockNumber != null ? FIELD.position : 0) |
        (a.chainId != null ? FIELD.chainId : 0),
      true,
    );
    view.setUint32(at + 19, schemeId, true);
    view.setUint16(at + 23, keyBytes, true);
    out.set(a.ephemeralKey, at + V2_FIXED_RECORD_BYTES);
    at += V2_FIXED_RECORD_BYTES + keyBytes;
    if (a.channelId) {
      out.set(a.channelId, at);
      at += CHANNEL_ID_BYTES;
    }
    if (a.txHash != null) at = writeText(out, view, at, a.txHash);
    if (a.amount != null) at = writeText(out, view, at, a.amount);
    if (a.chain != null) at = writeText(out, view, at, a.chain);
    if (a.metadata) {
      view.setUint32(at, a.metadata.length, true);
      out.set(a.metadata, at + 4);
      at += 4 + a.metadata.length;
    }
    if (a.stealthAddress) {
      out.set(hexToBytes(a.stealthAddress, `announcements[${i}].stealthAddress`, ADDRESS_BYTES), at);
      at += ADDRESS_BYTES;
    }
    if (a.blockNumber != null) {
      writeUint64(view, at, a.blockNumber, i, 'blockNumber');
      view.setUint32(at + 8, a.logIndex!, true);
      at += POSITION_BYTES;
    }
    if (a.chainId != null) {
      writeUint64(view, at, a.chainId, i, 'chainId');
      at += CHAIN_ID_BYTES;
    }
  }
  return at === bound ? out : out.subarray(0, at);
}

/**
 * A u64 little-endian as a number, from two u32 halves (no BigInt per row). Beyond 2^53 it is
 * not exact and fails the caller's `Number.isSafeInteger` check.
 */
function readUint64(view: DataView, at: number): number {
  return view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
}

/**
 * Arrays of character codes for short text fields, one per length and reused:
 * `fromCharCode.apply` takes a plain array fastest, and resizing one array per field cost more
 * than the conversion.
 */
const ASCII_FAST_PATH_BYTES = 256;
const textCodesOfLength: (number[] | undefined)[] = new Array(ASCII_FAST_PATH_BYTES + 1).fill(undefined);

/**
 * A short all-ASCII text field (tx hashes, amounts, chain ids) as a string, or null for anything
 * else, which goes to `TextDecoder`. Browsers' `TextDecoder` costs about a microsecond a call,
 * several times this, and a page has a text field or three in every record.
 */
function asciiText(bytes: Uint8Array, start: number, length: number): string | null {
  if (length > ASCII_FAST_PATH_BYTES) return null;
  let codes = textCodesOfLength[length];
  if (codes === undefined) codes = textCodesOfLength[length] = new Array<number>(length).fill(0);
  for (let i = 0; i < length; i++) {
    const byte = bytes[start + i]!;
    if (byte >= 0x80) return null;
    codes[i] = byte;
  }
  return String.fromCharCode.apply(null, codes);
}

/** Whether `bytes[start, start + length)` is ASCII, and short enough for {@link asciiText}. */
function isAscii(bytes: Uint8Array, start: number, length: number): boolean {
  if (length > ASCII_FAST_PATH_BYTES) return false;
  for (let i = 0; i < length; i++) if (bytes[start + i]! >= 0x80) return false;
  return true;
}

/** Whether `bytes[a, a + length)` equals `bytes[b, b + length)`. */
function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (bytes[a + i] !== bytes[b + i]) return false;
  return true;
}

/** Room a text field may need: its length prefix and at most 3 UTF-8 bytes per UTF-16 unit. */
function textBound(text: string | null | undefined): number {
  return text == null ? 0 : 2 + Math.min(3 * text.length, MAX_TEXT_BYTES);
}

/** u16 length + UTF-8 of `text` at `at`; returns the offset after it. */
function writeText(out: Uint8Array, view: DataView, at: number, text: string): number {
  const { written } = encoder.encodeInto(text, out.subarray(at + 2, at + 2 + Math.min(3 * text.length, MAX_TEXT_BYTES)));
  view.setUint16(at, written, true);
  return at + 2 + written;
}

/**
 * A non-negative safe integer as u64 little-endian (two u32 halves: no BigInt on the hot path);
 * anything else is refused, naming `announcements[index].field`.
 */
function writeUint64(view: DataView, at: number, value: number, index: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new InvalidAnnouncementError(`announcements[${index}].${field}`, 'must be a non-negative safe integer');
  view.setUint32(at, value >>> 0, true);
  view.setUint32(at + 4, Math.floor(value / 2 ** 32), true);
}

/** An own enumerable accessor of decoded rows: computed on first read; assigning replaces it with the value, as on a plain object. */
function lazyField(name: 'txHash' | 'stealthAddress', read: (row: PageRow) => string | null): PropertyDescriptor {
  return {
    get(this: PageRow) {
      return read(this);
    },
    set(this: PageRow, value: unknown) {
      Object.defineProperty(this, name, { value, writable: true, enumerable: true, configurable: true });
    },
    enumerable: true,
    configurable: true,
  };
}

/** A text field not yet rendered: its all-ASCII bytes in the page. */
const NOT_RENDERED = undefined;

/**
 * A decoded row. Own data properties for the fields a scan reads (id, view tag, ephemeral key)
 * and the cheap ones; `txHash` and `stealthAddress` are own enumerable accessors over
 * the page's bytes, rendered when first read (a tx hash string, or an EIP-55 checksum, costs
 * more than the rest of the row, and a scan reads them for its discoveries alone). Where they
 * sit is held in private fields, which spreading, equality and structured clone do not see.
 * One class, so every row shares one hidden class.
 */
class PageRow {
  #page: Uint8Array;
  #txHashAt: number;
  #txHashLength: number;
  #txHash: string | null | undefined;
  #addressAt: number;
  #address: string | null | undefined = NOT_RENDERED;
  id: number;
  timestamp: number;
  viewTag: number;
  ephemeralKey: Uint8Array;
  channelId: Uint8Array | null;
  declare txHash: string | null;
  amount: string | null;
  chain: string | null;
  metadata: Uint8Array | null;
  declare stealthAddress: string | null;
  blockNumber: number | null;
  logIndex: number | null;
  chainId: number | null;
  schemeId: number;

  /**
   * `txHash`: a string (decoded already: not ASCII), null (absent) or undefined with the offset
   * and length of its ASCII bytes. `addressAt`: offset of the 20 bytes, or -1.
   */
  constructor(
    page: Uint8Array,
    id: number,
    timestamp: number,
    viewTag: number,
    ephemeralKey: Uint8Array,
    channelId: Uint8Array | null,
    txHash: string | null | undefined,
    txHashAt: number,
    txHashLength: number,
    amount: string | null,
    chain: string | null,
    metadata: Uint8Array | null,
    addressAt: number,
    blockNumber: number | null,
    logIndex: number | null,
    chainId: number | null,
    schemeId: number,
  ) {
    this.#page = page;
    this.#txHash = txHash;
    this.#txHashAt = txHashAt;
    this.#txHashLength = txHashLength;
    this.#addressAt = addressAt;
    this.id = id;
    this.timestamp = timestamp;
    this.viewTag = viewTag;
    this.ephemeralKey = ephemeralKey;
    this.channelId = channelId;
    this.amount = amount;
    this.chain = chain;
    this.metadata = metadata;
    this.blockNumber = blockNumber;
    this.logIndex = logIndex;
    this.chainId = chainId;
    this.schemeId = schemeId;
    // One call each: `Object.defineProperties` took several times as long, and each accessor
    // still costs about a third of the rest of the row (BENCHMARKS.md, issue 24).
    Object.defineProperty(this, 'txHash', LAZY_FIELDS.txHash!);
    Object.defineProperty(this, 'stealthAddress', LAZY_FIELDS.stealthAddress!);
  }

  static txHashOf(row: PageRow): string | null {
    if (row.#txHash === NOT_RENDERED) row.#txHash = asciiText(row.#page, row.#txHashAt, row.#txHashLength);
    return row.#txHash;
  }

  /** The row's stealth address, EIP-55 (computed once), or null when it has none. */
  static stealthAddressOf(row: PageRow): string | null {
    if (row.#address === NOT_RENDERED) row.#address = row.#addressAt < 0 ? null : checksumAddressOfBytes(row.#page, row.#addressAt);
    return row.#address;
  }
}

const LAZY_FIELDS: PropertyDescriptorMap = {
  txHash: lazyField('txHash', PageRow.txHashOf),
  stealthAddress: lazyField('stealthAddress', PageRow.stealthAddressOf),
};

/**
 * Decode a page (client side) of layout version 1 or 2. Ciphertexts, channel ids and notes are
 * views into `bytes`; every length is checked, so a truncated or corrupted page is an
 * {@link InvalidAnnouncementError}, never an out-of-bounds read. Stealth addresses are
 * rendered EIP-55 when first read (see the module comment), so keep `bytes` unchanged while
 * the rows are in use, as their views already require.
 *
 * @throws {UnsupportedPageVersionError} for a page of another layout version or without the
 * page magic; {@link InvalidAnnouncementError} for a malformed one.
 * @example
 * import { decodeAnnouncementPage } from '@wraith-pq/sdk';
 *
 * const answer = await fetch('https://wraith.example/api/v1/registry/announcements?after_id=0&limit=5000', {
 *   headers: { accept: 'application/octet-stream' },
 * });
 * for (const row of decodeAnnouncementPage(new Uint8Array(await answer.arrayBuffer()))) {
 *   console.log(row.id, row.chainId, row.schemeId, row.blockNumber);
 * }
 */
export function decodeAnnouncementPage(bytes: Uint8Array): DecodedAnnouncement[] {
  const fail = (issue: string): never => {
    throw new InvalidAnnouncementError('page', issue);
  };
  if (bytes.length < HEADER_BYTES || bytes[0] !== MAGIC_PREFIX[0] || bytes[1] !== MAGIC_PREFIX[1] || bytes[2] !== MAGIC_PREFIX[2]) {
    throw new UnsupportedPageVersionError(null);
  }
  const version = bytes[3]!;
  if (version !== VERSION_1 && version !== VERSION_2) throw new UnsupportedPageVersionError(version >= 0x30 && version <= 0x39 ? version - 0x30 : null);
  const v2 = version === VERSION_2;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(4, true);
  const fixedBytes = v2 ? V2_FIXED_RECORD_BYTES : V1_FIXED_RECORD_BYTES;
  const knownFields = v2 ? V2_KNOWN_FIELDS : V1_KNOWN_FIELDS;
  if (count > (bytes.length - HEADER_BYTES) / fixedBytes) fail('announces more records than it holds');
  const out: DecodedAnnouncement[] = new Array(count);
  const end = bytes.length;
  let at = HEADER_BYTES;
  const text = (): string => {
    if (at + 2 > end) fail('is truncated');
    const length = bytes[at]! | (bytes[at + 1]! << 8);
    const start = at + 2;
    if (start + length > end) fail('is truncated');
    at = start + length;
    const ascii = asciiText(bytes, start, length);
    if (ascii !== null) return ascii;
    try {
      return decoder.decode(bytes.subarray(start, start + length));
    } catch {
      return fail('holds a text field that is not UTF-8');
    }
  };
  // tx hash: an ASCII text is checked here and rendered when read (undefined, with
  // where it sits in lazyAt and lazyLength); any other is decoded, and its UTF-8 checked, now,
  // so a corrupted page still fails here.
  let lazyAt = 0;
  let lazyLength = 0;
  const lazyText = (): string | undefined => {
    if (at + 2 > end) fail('is truncated');
    lazyLength = bytes[at]! | (bytes[at + 1]! << 8);
    lazyAt = at + 2;
    if (lazyAt + lazyLength > end) fail('is truncated');
    if (!isAscii(bytes, lazyAt, lazyLength)) return text();
    at = lazyAt + lazyLength;
    return NOT_RENDERED;
  };
  // A page's chain labels are a few values repeated ("ethereum", "base"): the previous one is
  // reused when the bytes are the same, a comparison of a few bytes instead of a new string.
  let lastChain: string | null = null;
  let lastChainAt = 0;
  let lastChainLength = -1;
  const chainText = (): string => {
    if (at + 2 <= end) {
      const length = bytes[at]! | (bytes[at + 1]! << 8);
      if (length === lastChainLength && at + 2 + length <= end && sameBytes(bytes, at + 2, lastChainAt, length)) {
        at += 2 + length;
        return lastChain!;
      }
      lastChainAt = at + 2;
      lastChain = text();
      lastChainLength = length;
      return lastChain;
    }
    return text();
  };
  for (let i = 0; i < count; i++) {
    if (at + fixedBytes > end) fail('is truncated');
    const id = readUint64(view, at);
    const timestamp = readUint64(view, at + 8);
    if (!Number.isSafeInteger(id) || !Number.isSafeInteger(timestamp)) fail('holds an id or timestamp beyond 2^53');
    const viewTag = bytes[at + 16]!;
    let fields: number;
    let schemeId = WRAITH_PAGE_SCHEME_ID;
    let keyBytes = CIPHERTEXT_BYTES;
    let keyAt: number;
    if (v2) {
      fields = bytes[at + 17]! | (bytes[at + 18]! << 8);
      schemeId = view.getUint32(at + 19, true);
      keyBytes = bytes[at + 23]! | (bytes[at + 24]! << 8);
      keyAt = at + V2_FIXED_RECORD_BYTES;
      if (keyAt + keyBytes > end) fail('is truncated');
    } else {
      fields = bytes[at + 17]!;
      keyAt = at + 18;
    }
    if (fields & ~knownFields) fail('holds unknown field flags');
    const ephemeralKey = bytes.subarray(keyAt, keyAt + keyBytes);
    at = keyAt + keyBytes;
    let channelId: Uint8Array | null = null;
    if (fields & FIELD.channelId) {
      if (at + CHANNEL_ID_BYTES > end) fail('is truncated');
      channelId = bytes.subarray(at, at + CHANNEL_ID_BYTES);
      at += CHANNEL_ID_BYTES;
    }
    const txHash = fields & FIELD.txHash ? lazyText() : null;
    const txHashAt = lazyAt;
    const txHashLength = lazyLength;
    const amount = fields & FIELD.amount ? text() : null;
    const chain = fields & FIELD.chain ? chainText() : null;
    let metadata: Uint8Array | null = null;
    if (fields & FIELD.metadata) {
      const prefix = v2 ? 4 : 1;
      if (at + prefix > end) fail('is truncated');
      const length = v2 ? view.getUint32(at, true) : bytes[at]!;
      if (at + prefix + length > end) fail('is truncated');
      metadata = bytes.subarray(at + prefix, at + prefix + length);
      at += prefix + length;
    }
    let addressAt = -1;
    if (fields & FIELD.stealthAddress) {
      if (at + ADDRESS_BYTES > end) fail('is truncated');
      addressAt = at;
      at += ADDRESS_BYTES;
    }
    let blockNumber: number | null = null;
    let logIndex: number | null = null;
    if (fields & FIELD.position) {
      if (at + POSITION_BYTES > end) fail('is truncated');
      blockNumber = readUint64(view, at);
      if (!Number.isSafeInteger(blockNumber)) fail('holds a block number beyond 2^53');
      logIndex = view.getUint32(at + 8, true);
      at += POSITION_BYTES;
    }
    let chainId: number | null = null;
    if (fields & FIELD.chainId) {
      if (at + CHAIN_ID_BYTES > end) fail('is truncated');
      chainId = readUint64(view, at);
      if (!Number.isSafeInteger(chainId) || chainId < 1) fail('holds a chain id that is not a positive safe integer');
      at += CHAIN_ID_BYTES;
    }
    out[i] = new PageRow(bytes, id, timestamp, viewTag, ephemeralKey, channelId, txHash, txHashAt, txHashLength, amount, chain, metadata, addressAt, blockNumber, logIndex, chainId, schemeId);
  }
  if (at !== end) fail('has trailing bytes');
  return out;
}
