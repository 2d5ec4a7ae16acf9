/**
 * Byte helpers: hex at the boundary, Uint8Array inside.
 *
 * Hex input follows API.md: optional `0x`/`0X` prefix, either case, surrounding whitespace
 * trimmed; lengths are checked exactly by the caller-supplied `length`. Output is lowercase
 * without prefix.
 * @module
 */
import { InvalidHexError } from './errors.ts';

/** Bytes, or hex text for them. */
export type BytesInput = Uint8Array | string;

const HEX_CHARS = '0123456789abcdef';
const HEX_TABLE: string[] = Array.from({ length: 256 }, (_, i) => HEX_CHARS[i >> 4]! + HEX_CHARS[i & 15]!);

/** Lowercase hex of `bytes`, without `0x`. */
export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX_TABLE[bytes[i]!];
  return out;
}

/** Char code → nibble value, -1 for anything that is not a hex digit (codes >= 128 too). */
const NIBBLE = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) {
  NIBBLE['0123456789abcdef'.charCodeAt(i)] = i;
  NIBBLE['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/**
 * Parse hex text (API.md rules). `field` names the input in the error; the value itself is
 * never echoed. With `length`, the decoded byte length must match exactly.
 */
export function hexToBytes(input: string, field = 'value', length?: number): Uint8Array {
  if (typeof input !== 'string') throw new InvalidHexError(field, 'expected a hex string');
  let s = input.trim();
  if (s.startsWith('0x') || s.startsWith('0X')) s = s.slice(2);
  if (s.length === 0) throw new InvalidHexError(field, 'empty');
  if (s.length % 2 !== 0) throw new InvalidHexError(field, 'odd number of hex digits');
  const out = new Uint8Array(s.length / 2);
  let bad = 0;
  for (let i = 0; i < out.length; i++) {
    const hi = NIBBLE[s.charCodeAt(2 * i) & 0xff]! | (s.charCodeAt(2 * i) >> 8 ? -1 : 0);
    const lo = NIBBLE[s.charCodeAt(2 * i + 1) & 0xff]! | (s.charCodeAt(2 * i + 1) >> 8 ? -1 : 0);
    bad |= hi | lo; // any -1 sets the sign bit
    out[i] = (hi << 4) | lo;
  }
  if (bad < 0) throw new InvalidHexError(field, 'contains a character that is not a hex digit');
  if (length !== undefined && out.length !== length) {
    throw new InvalidHexError(field, `expected ${length} bytes, got ${out.length}`);
  }
  return out;
}

/** Accept bytes or hex; return bytes (a copy is not made for byte input). */
export function toBytes(input: BytesInput, field = 'value', length?: number): Uint8Array {
  if (input instanceof Uint8Array) {
    if (length !== undefined && input.length !== length) {
      throw new InvalidHexError(field, `expected ${length} bytes, got ${input.length}`);
    }
    return input;
  }
  return hexToBytes(input, field, length);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Constant-time equality for equal-length inputs (lengths are public). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/**
 * Whether every byte is zero. Returns at the first non-zero byte, so its time depends on the
 * contents: for public data only (announcement ciphertexts are checked once per row while
 * scanning, and a constant-time loop over 1088 bytes cost more than packing the row).
 */
export function isAllZero(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** Big-endian bytes to bigint. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt('0x' + bytesToHex(bytes));
}

/** bigint to `length` big-endian bytes. */
export function bigIntToBytes(value: bigint, length: number): Uint8Array {
  return hexToBytes(value.toString(16).padStart(length * 2, '0'), 'value', length);
}

/** Cryptographically secure random bytes (WebCrypto, available in browsers and Node >= 20). */
export function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  globalThis.crypto.getRandomValues(out);
  return out;
}
