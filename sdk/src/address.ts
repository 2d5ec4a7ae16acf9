/**
 * Addresses of a one-time public key `P` (PROTOCOL.md section 4 steps 5 and 6).
 *
 * - EVM: last 20 bytes of `keccak256(X || Y)`, rendered EIP-55 with `0x`.
 * - Sui: `BLAKE2b-256(0x01 || P_compressed)` (flag `0x01` = secp256k1), `0x` + 64 lowercase hex.
 * @module
 */
import { blake2b } from '@noble/hashes/blake2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from './bytes.ts';
import { keccakF1600 } from './keccak-f1600.ts';
import type { CurvePoint } from './spending-key.ts';

const SUI_SECP256K1_FLAG = 0x01;
const encoder = new TextEncoder();

/** Keccak-256's rate: the 40 hex digits of an address fit one block. */
const KECCAK_256_RATE = 136;
const ADDRESS_HEX = /^(?:0[xX])?[0-9a-fA-F]{40}$/;
const checksumState = new Uint32Array(50);
const checksumBytes = new Uint8Array(checksumState.buffer);
/** keccakF1600 keeps lanes as little-endian words, so its bytes are the state's only on such hosts. */
const littleEndian = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * EIP-55 mixed-case checksum of a 40-hex-digit address (with or without `0x`). One Keccak block
 * on a reused state with the SDK's unrolled permutation (keccak-f1600.ts, already in the bundle
 * for scanning): an indexer checksums two addresses per announcement and a scan of chain events
 * one per row, and hash objects cost several times the permutation.
 * @throws {RangeError} when `address` is not 40 hex digits.
 */
export function toChecksumAddress(address: string): string {
  if (!ADDRESS_HEX.test(address)) throw new RangeError('An EVM address is 40 hex digits, optionally after 0x.');
  const lower = address.slice(address.length - 40).toLowerCase();
  if (!littleEndian) return checksumOfHash(lower, keccak_256(encoder.encode(lower)));
  for (let i = 0; i < 40; i++) checksumBytes[i] = lower.charCodeAt(i);
  return checksumOfLoadedHex();
}

/** `0x` (or `0X`) and 40 hex digits. */
const PREFIXED_ADDRESS_HEX = /^0[xX][0-9a-fA-F]{40}$/;

/** Why a typed EVM address cannot be trusted: not `0x` and 40 hex digits, or a mixed case that is not its EIP-55 checksum. */
export type AddressProblem = 'format' | 'checksum';

/**
 * The one EIP-55 rule of Wraith (server, web app, CLI): `0x` and 40 hex digits, and, when the
 * digits mix upper and lower case, exactly the EIP-55 checksum of the address. One case throughout
 * carries no checksum and is accepted as is (EIP-55: "all lowercase or all uppercase"). A mixed
 * case that is not the checksum means a mistyped character: paying it would send money to an
 * address nobody holds the key of. Returns null when `address` passes.
 * @example
 * import { checksumProblem } from '@wraith-pq/sdk';
 * checksumProblem('0x52908400098527886E0F7030069857D2E4169EE7'); // null: a valid checksum
 * checksumProblem('0x52908400098527886e0F7030069857D2E4169EE7'); // 'checksum': one letter's case is wrong
 * checksumProblem('0x52908400098527886e0f7030069857d2e4169ee7'); // null: all lowercase, no checksum to check
 * checksumProblem('0x5290'); // 'format'
 */
export function checksumProblem(address: string): AddressProblem | null {
  if (typeof address !== 'string' || !PREFIXED_ADDRESS_HEX.test(address)) return 'format';
  const digits = address.slice(2);
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return null;
  return toChecksumAddress(digits).slice(2) === digits ? null : 'checksum';
}

/**
 * EIP-55 address of the 20 raw bytes at `offset` in `bytes` (a decoded binary page's stealth
 * address): the hex digits go straight into the Keccak block, with no string to parse first.
 */
export function checksumAddressOfBytes(bytes: Uint8Array, offset = 0): string {
  if (!Number.isInteger(offset) || offset < 0 || offset + 20 > bytes.length) throw new RangeError('An EVM address is 20 bytes.');
  if (!littleEndian) return toChecksumAddress(bytesToHex(bytes.subarray(offset, offset + 20)));
  for (let i = 0; i < 20; i++) {
    const byte = bytes[offset + i]!;
    checksumBytes[2 * i] = HEX_DIGITS[byte >> 4]!;
    checksumBytes[2 * i + 1] = HEX_DIGITS[byte & 0x0f]!;
  }
  return checksumOfLoadedHex();
}

/** Lowercase ASCII hex digits of 0..15. */
const HEX_DIGITS = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
/** The output's character codes, "0x" then the 40 digits (a plain array: `fromCharCode.apply` takes it fastest). */
const checksumOut: number[] = Array.from({ length: 42 }, (_, i) => (i === 0 ? 0x30 : i === 1 ? 0x78 : 0));

/**
 * The checksum of the 40 lowercase hex digits in `checksumBytes[0..40)`: hashed in place (one
 * block, Keccak padding), then each letter is upper-cased where its hash nibble is 8 or more.
 */
function checksumOfLoadedHex(): string {
  for (let i = 0; i < 40; i++) checksumOut[2 + i] = checksumBytes[i]!;
  for (let i = 10; i < 50; i++) checksumState[i] = 0; // bytes 40..199
  checksumBytes[40] = 0x01; // Keccak padding (original, not SHA-3): 0x01 ... 0x80
  checksumBytes[KECCAK_256_RATE - 1] = 0x80;
  keccakF1600(checksumState);
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? checksumBytes[i >> 1]! >> 4 : checksumBytes[i >> 1]! & 0x0f;
    if (nibble >= 8 && checksumOut[2 + i]! >= 0x61) checksumOut[2 + i] = checksumOut[2 + i]! - 0x20;
  }
  return String.fromCharCode.apply(null, checksumOut);
}

/** The checksum from a computed hash (big-endian hosts). */
function checksumOfHash(lower: string, hash: Uint8Array): string {
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower[i]!;
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/** EIP-55 EVM address of a secp256k1 public key. */
export function evmAddressOf(point: CurvePoint): string {
  const xy = point.toBytes(false).subarray(1); // drop the 0x04 byte
  return toChecksumAddress(bytesToHex(keccak_256(xy).subarray(12)));
}

/** Sui address of a secp256k1 public key. */
export function suiAddressOf(point: CurvePoint): string {
  const input = new Uint8Array(34);
  input[0] = SUI_SECP256K1_FLAG;
  input.set(point.toBytes(true), 1);
  return '0x' + bytesToHex(blake2b(input, { dkLen: 32 }));
}
