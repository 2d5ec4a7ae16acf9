/**
 * Single-block SHA3-512 and SHAKE256 on a reused state, for the scan hot path.
 *
 * The scanner hashes two short inputs per announcement: `(K', r') = SHA3-512(m' || H(ek))`
 * (64 bytes, one block of rate 72) and the view tag `SHAKE256(u32le(19) || domain || K')[0]`
 * (55 bytes, one block of rate 136). Generic hash objects allocate per call and cost as much
 * as the permutation itself; here the unrolled Keccak-f[1600] permutation (keccak-f1600.ts)
 * runs on one preallocated state with the padding written in place (FIPS 202 section 5.1:
 * SHA3 domain bits 01 + pad10*1 → byte 0x06; SHAKE bits 1111 → 0x1f; last byte |= 0x80).
 * Little-endian hosts only (every current browser and Node platform); `available` says so.
 * @module
 */
import { keccakF1600 } from './keccak-f1600.ts';

export const available = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

export type BlockHasher = {
  /** SHA3-512 of exactly 64 bytes (`a` 32 bytes || `b` 32 bytes); writes the first 32 output bytes to `out`. */
  sha3_512_first32(a: Uint8Array, b: Uint8Array, out: Uint8Array): void;
  /** First output byte of SHAKE256(`prefix` || `data`) where the input fits one 136-byte block. */
  shake256_firstByte(prefix: Uint8Array, data: Uint8Array): number;
};

export function createBlockHasher(): BlockHasher {
  const state = new Uint32Array(50);
  const bytes = new Uint8Array(state.buffer);
  return {
    sha3_512_first32(a, b, out) {
      state.fill(0);
      bytes.set(a, 0);
      bytes.set(b, 32);
      bytes[64] = 0x06;
      bytes[71] = 0x80; // rate 72 - 1
      keccakF1600(state);
      out.set(bytes.subarray(0, 32));
    },
    shake256_firstByte(prefix, data) {
      state.fill(0);
      bytes.set(prefix, 0);
      bytes.set(data, prefix.length);
      bytes[prefix.length + data.length] = 0x1f;
      bytes[135] = bytes[135]! | 0x80; // rate 136 - 1
      keccakF1600(state);
      return bytes[0]!;
    },
  };
}
