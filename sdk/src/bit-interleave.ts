/**
 * Bit interleaving of 64-bit Keccak lanes (Keccak implementation overview, section 2.1): a lane
 * is held as two 32-bit words, its even bits (0, 2, ..., 62) and its odd bits (1, 3, ..., 63),
 * the layout of `keccakF1600Interleaved` (keccak-f1600.ts). Lanes are little-endian in bytes,
 * as in FIPS 202.
 * @module
 */

/** Bits 0..15 of `x` moved to the even bit positions 0, 2, ..., 30. */
function spreadEven(x: number): number {
  x = (x | (x << 8)) & 0x00ff00ff;
  x = (x | (x << 4)) & 0x0f0f0f0f;
  x = (x | (x << 2)) & 0x33333333;
  return (x | (x << 1)) & 0x55555555;
}

/** The even bits of `x` (0, 2, ..., 30) gathered to bits 0..15: the inverse of `spreadEven`. */
function gatherEven(x: number): number {
  x &= 0x55555555;
  x = (x | (x >>> 1)) & 0x33333333;
  x = (x | (x >>> 2)) & 0x0f0f0f0f;
  x = (x | (x >>> 4)) & 0x00ff00ff;
  return (x | (x >>> 8)) & 0x0000ffff;
}

/**
 * Interleave the lanes in `bytes` (a multiple of 8 bytes) into `out` (two words per lane,
 * even bits first), starting at lane 0.
 */
export function interleaveBytes(bytes: Uint8Array, out: Int32Array): void {
  for (let lane = 0; lane < bytes.length >> 3; lane++) {
    const at = lane * 8;
    const low = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
    const high = bytes[at + 4]! | (bytes[at + 5]! << 8) | (bytes[at + 6]! << 16) | (bytes[at + 7]! << 24);
    out[2 * lane] = gatherEven(low) | (gatherEven(high) << 16);
    out[2 * lane + 1] = gatherEven(low >>> 1) | (gatherEven(high >>> 1) << 16);
  }
}

/** Write the first `lanes` lanes of `words` (interleaved) to `out` at `offset` as `8 * lanes` bytes. */
export function deinterleaveToBytes(words: Int32Array, lanes: number, out: Uint8Array, offset = 0): void {
  for (let lane = 0, at = offset; lane < lanes; lane++, at += 8) {
    const even = words[2 * lane]!, odd = words[2 * lane + 1]!;
    const low = spreadEven(even & 0xffff) | (spreadEven(odd & 0xffff) << 1);
    const high = spreadEven(even >>> 16) | (spreadEven(odd >>> 16) << 1);
    out[at] = low;
    out[at + 1] = low >>> 8;
    out[at + 2] = low >>> 16;
    out[at + 3] = low >>> 24;
    out[at + 4] = high;
    out[at + 5] = high >>> 8;
    out[at + 6] = high >>> 16;
    out[at + 7] = high >>> 24;
  }
}

/** Byte 0 of the lane whose even and odd bits are `even` and `odd`. */
export function firstByte(even: number, odd: number): number {
  return spreadEven(even & 0x0f) | (spreadEven(odd & 0x0f) << 1);
}
