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
import type { CurvePoint } from './spending-key.ts';

const SUI_SECP256K1_FLAG = 0x01;
const encoder = new TextEncoder();

/** EIP-55 mixed-case checksum of a 40-hex-digit address (with or without `0x`). */
export function toChecksumAddress(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/, '');
  const hash = bytesToHex(keccak_256(encoder.encode(lower)));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    const c = lower[i]!;
    out += parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c;
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
