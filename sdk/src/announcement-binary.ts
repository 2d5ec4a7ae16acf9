/**
 * Compact binary form of a page of registry announcements: the `application/octet-stream`
 * answer of `GET /api/v1/registry/announcements`, made for streaming scans (half the bytes of
 * hex JSON, no hex parsing, ciphertexts decoded as views without copying).
 *
 * Layout (all integers little-endian):
 *
 *     page   = magic "WRA1" (4) | count u32 (4) | record * count
 *     record = id u64 (8) | timestamp u64 (8) | view_tag u8 (1) | fields u8 (1)
 *            | ephemeral_key (1088)
 *            | channel_id (32)               if fields & 1
 *            | u16 length + UTF-8 tx_hash    if fields & 2
 *            | u16 length + UTF-8 amount     if fields & 4
 *            | u16 length + UTF-8 chain      if fields & 8
 *            | u8 length + metadata          if fields & 16 (the sealed note, PROTOCOL.md section 8)
 *            | stealth address (20)          if fields & 32 (decoded EIP-55)
 *            | block_number u64 | log_index u32   if fields & 64 (chain events)
 *
 * A page carries no registry total, so a full page (as many records as the limit asked for)
 * never changes once written while ids only grow and rows stay: the server marks such pages
 * immutable and cacheable unless they hold chain events, which a reorganisation may remove.
 * Decoders that predate flags 16 to 64 refuse pages using them as holding unknown field flags.
 * @module
 */
import type { Announcement } from './announcement.ts';
import { checksumAddressOfBytes } from './address.ts';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { InvalidAnnouncementError } from './errors.ts';
import { CIPHERTEXT_BYTES } from './viewing-key.ts';

export const ANNOUNCEMENT_PAGE_MEDIA_TYPE = 'application/octet-stream';
const MAGIC = [0x57, 0x52, 0x41, 0x31]; // "WRA1"
const HEADER_BYTES = 8;
const FIXED_RECORD_BYTES = 8 + 8 + 1 + 1 + CIPHERTEXT_BYTES;
const CHANNEL_ID_BYTES = 32;
const FIELD = { channelId: 1, txHash: 2, amount: 4, chain: 8, metadata: 16, stealthAddress: 32, position: 64 } as const;
const KNOWN_FIELDS = 0x7f;
const ADDRESS_BYTES = 20;
const POSITION_BYTES = 12;
const MAX_METADATA_BYTES = 0xff;
const MAX_TEXT_BYTES = 0xffff;

/** An announcement as the registry stores it: id and timestamp are always present. */
export type RegistryAnnouncement = Announcement & { id: number; timestamp: number };

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Encode a page (server side). The result may be a view on a slightly larger buffer (text
 * fields are sized for the worst case of 3 UTF-8 bytes per UTF-16 unit, then written in place);
 * a text longer than 65,535 UTF-8 bytes is cut at the last whole character that fits.
 */
export function encodeAnnouncementPage(announcements: readonly RegistryAnnouncement[]): Uint8Array {
  let bound = HEADER_BYTES;
  for (const a of announcements) {
    bound +=
      FIXED_RECORD_BYTES +
      (a.channelId ? CHANNEL_ID_BYTES : 0) +
      textBound(a.txHash) +
      textBound(a.amount) +
      textBound(a.chain) +
      (a.metadata ? 1 + a.metadata.length : 0) +
      (a.stealthAddress ? ADDRESS_BYTES : 0) +
      (a.blockNumber != null ? POSITION_BYTES : 0);
  }
  const out = new Uint8Array(bound);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(4, announcements.length, true);
  let at = HEADER_BYTES;
  for (let i = 0; i < announcements.length; i++) {
    const a = announcements[i]!;
    if (a.ephemeralKey.length !== CIPHERTEXT_BYTES) throw new InvalidAnnouncementError(`announcements[${i}].ephemeralKey`, `must be ${CIPHERTEXT_BYTES} bytes`);
    if (a.channelId && a.channelId.length !== CHANNEL_ID_BYTES) throw new InvalidAnnouncementError(`announcements[${i}].channelId`, 'must be 32 bytes');
    if (a.metadata != null && (!(a.metadata instanceof Uint8Array) || a.metadata.length > MAX_METADATA_BYTES)) {
      throw new InvalidAnnouncementError(`announcements[${i}].metadata`, `must be a Uint8Array of at most ${MAX_METADATA_BYTES} bytes`);
    }
    if (a.stealthAddress != null && (typeof a.stealthAddress !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(a.stealthAddress))) throw new InvalidAnnouncementError(`announcements[${i}].stealthAddress`, 'must be a 0x-prefixed 20-byte address');
    if (a.blockNumber != null && (typeof a.logIndex !== 'number' || !Number.isInteger(a.logIndex) || a.logIndex < 0 || a.logIndex > 0xffffffff)) {
      throw new InvalidAnnouncementError(`announcements[${i}].logIndex`, 'must be a u32 when blockNumber is set');
    }
    if (a.blockNumber == null && a.logIndex != null) throw new InvalidAnnouncementError(`announcements[${i}].blockNumber`, 'must be set when logIndex is');
    writeUint64(view, at, a.id, i, 'id');
    writeUint64(view, at + 8, a.timestamp, i, 'timestamp');
    out[at + 16] = a.viewTag;
    out[at + 17] =
      (a.channelId ? FIELD.channelId : 0) |
      (a.txHash != null ? FIELD.txHash : 0) |
      (a.amount != null ? FIELD.amount : 0) |
      (a.chain != null ? FIELD.chain : 0) |
      (a.metadata ? FIELD.metadata : 0) |
      (a.stealthAddress ? FIELD.stealthAddress : 0) |
      (a.blockNumber != null ? FIELD.position : 0);
    out.set(a.ephemeralKey, at + 18);
    at += FIXED_RECORD_BYTES;
    if (a.channelId) {
      out.set(a.channelId, at);
      at += CHANNEL_ID_BYTES;
    }
    if (a.txHash != null) at = writeText(out, view, at, a.txHash);
    if (a.amount != null) at = writeText(out, view, at, a.amount);
    if (a.chain != null) at = writeText(out, view, at, a.chain);
    if (a.metadata) {
      out[at] = a.metadata.length;
      out.set(a.metadata, at + 1);
      at += 1 + a.metadata.length;
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

/** Character codes of a short text field, reused (`fromCharCode.apply` takes a plain array fastest). */
const textCodes: number[] = [];
const ASCII_FAST_PATH_BYTES = 256;

/**
 * A short all-ASCII text field (tx hashes, amounts, chain ids) as a string, or null for anything
 * else, which goes to `TextDecoder`. Browsers' `TextDecoder` costs about a microsecond a call,
 * several times this, and a page has a text field or three in every record.
 */
function asciiText(bytes: Uint8Array, start: number, length: number): string | null {
  if (length > ASCII_FAST_PATH_BYTES) return null;
  textCodes.length = length;
  for (let i = 0; i < length; i++) {
    const byte = bytes[start + i]!;
    if (byte >= 0x80) return null;
    textCodes[i] = byte;
  }
  return String.fromCharCode.apply(null, textCodes);
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

/**
 * Decode a page (client side). Ciphertexts and channel ids are views into `bytes`; every length
 * is checked, so a truncated or corrupted page is an {@link InvalidAnnouncementError}, never an
 * out-of-bounds read.
 */
export function decodeAnnouncementPage(bytes: Uint8Array): RegistryAnnouncement[] {
  const fail = (issue: string): never => {
    throw new InvalidAnnouncementError('page', issue);
  };
  if (bytes.length < HEADER_BYTES || MAGIC.some((m, i) => bytes[i] !== m)) fail('is not a binary announcement page (bad magic)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(4, true);
  if (count > (bytes.length - HEADER_BYTES) / FIXED_RECORD_BYTES) fail('announces more records than it holds');
  const out: RegistryAnnouncement[] = new Array(count);
  let at = HEADER_BYTES;
  const need = (n: number) => {
    if (at + n > bytes.length) fail('is truncated');
  };
  const text = (): string => {
    need(2);
    const length = view.getUint16(at, true);
    need(2 + length);
    const ascii = asciiText(bytes, at + 2, length);
    let value = ascii ?? '';
    if (ascii === null) {
      try {
        value = decoder.decode(bytes.subarray(at + 2, at + 2 + length));
      } catch {
        fail('holds a text field that is not UTF-8');
      }
    }
    at += 2 + length;
    return value;
  };
  for (let i = 0; i < count; i++) {
    need(FIXED_RECORD_BYTES);
    const id = readUint64(view, at);
    const timestamp = readUint64(view, at + 8);
    if (!Number.isSafeInteger(id) || !Number.isSafeInteger(timestamp)) fail('holds an id or timestamp beyond 2^53');
    const viewTag = bytes[at + 16]!;
    const fields = bytes[at + 17]!;
    if (fields & ~KNOWN_FIELDS) fail('holds unknown field flags');
    const ephemeralKey = bytes.subarray(at + 18, at + 18 + CIPHERTEXT_BYTES);
    at += FIXED_RECORD_BYTES;
    let channelId: Uint8Array | null = null;
    if (fields & FIELD.channelId) {
      need(CHANNEL_ID_BYTES);
      channelId = bytes.subarray(at, at + CHANNEL_ID_BYTES);
      at += CHANNEL_ID_BYTES;
    }
    const txHash = fields & FIELD.txHash ? text() : null;
    const amount = fields & FIELD.amount ? text() : null;
    const chain = fields & FIELD.chain ? text() : null;
    let metadata: Uint8Array | null = null;
    if (fields & FIELD.metadata) {
      need(1);
      const length = bytes[at]!;
      need(1 + length);
      metadata = bytes.subarray(at + 1, at + 1 + length);
      at += 1 + length;
    }
    let stealthAddress: string | null = null;
    if (fields & FIELD.stealthAddress) {
      need(ADDRESS_BYTES);
      stealthAddress = checksumAddressOfBytes(bytes, at);
      at += ADDRESS_BYTES;
    }
    let blockNumber: number | null = null;
    let logIndex: number | null = null;
    if (fields & FIELD.position) {
      need(POSITION_BYTES);
      blockNumber = readUint64(view, at);
      if (!Number.isSafeInteger(blockNumber)) fail('holds a block number beyond 2^53');
      logIndex = view.getUint32(at + 8, true);
      at += POSITION_BYTES;
    }
    out[i] = { id, timestamp, viewTag, ephemeralKey, channelId, txHash, amount, chain, metadata, stealthAddress, blockNumber, logIndex };
  }
  if (at !== bytes.length) fail('has trailing bytes');
  return out;
}
