/**
 * Addresses of a one-time public key `P` (PROTOCOL.md section 4 steps 5 and 6).
 *
 * - EVM: last 20 bytes of `keccak256(X || Y)`, rendered EIP-55 with `0x`.
 * - Sui: `BLAKE2b-256(0x01 || P_compressed)` (flag `0x01` = secp256k1), `0x` + 64 lowercase hex.
 * @module
 */
import { blake2b } from '@noble/hashes/blake2.js';
import { keccak_256, keccakP } from '@noble/hashes/sha3.js';
import { bytesToHex } from './bytes.ts';
import type { CurvePoint } from './spending-key.ts';

const SUI_SECP256K1_FLAG = 0x01;
const encoder = new TextEncoder();

/** Keccak-256's rate: the 40 hex digits of an address fit one block. */
const KECCAK_256_RATE = 136;
const ADDRESS_HEX = /^(?:0[xX])?[0-9a-fA-F]{40}$/;
const checksumState = new Uint32Array(50);
const checksumBytes = new Uint8Array(checksumState.buffer);
/** keccakP keeps lanes as little-endian words, so its bytes are the state's only on such hosts. */
const littleEndian = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * EIP-55 mixed-case checksum of a 40-hex-digit address (with or without `0x`). One Keccak block
 * on a reused state (the permutation of @noble/hashes, already in the bundle): an indexer
 * checksums two addresses per announcement, and hash objects and caches cost several times the
 * permutation.
 * @throws {RangeError} when `address` is not 40 hex digits.
 */
export function toChecksumAddress(address: string): string {
  if (!ADDRESS_HEX.test(address)) throw new RangeError('An EVM address is 40 hex digits, optionally after 0x.');
  const lower = address.slice(address.length - 40).toLowerCase();
  let hash: Uint8Array;
  if (littleEndian) {
    checksumState.fill(0);
    for (let i = 0; i < 40; i++) checksumBytes[i] = lower.charCodeAt(i);
    checksumBytes[40] = 0x01; // Keccak padding (original, not SHA-3): 0x01 ... 0x80
    checksumBytes[KECCAK_256_RATE - 1] = 0x80;
    keccakP(checksumState);
    hash = checksumBytes;
  } else {
    hash = keccak_256(encoder.encode(lower));
  }
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
