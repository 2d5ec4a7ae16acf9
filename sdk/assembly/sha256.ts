// @ts-nocheck AssemblyScript (compiled by sdk/scripts/build-wasm.mjs), not part of the SDK's TypeScript program.
/**
 * ERC-8441's view tag `SHA256("pq-stealth/view-tag/v1" || ss)[0]` (src/erc8441-payment.ts),
 * for the hybrid combiner's digests: the 54-byte message is one padded block (FIPS 180-4
 * section 5.1.1: 0x80, zeros, the bit length 432 as a 64-bit big-endian integer), so a tag is
 * one compression of the initial hash value (section 6.2.2). Constant-time (no branch or index
 * on the secret).
 */
import { SHA256_BLOCK, SHA256_K, SHA256_W } from './layout';

/** The round constants and the block's fixed bytes: the domain separator and the padding. */
export function initSha256(): void {
  store<u32>(SHA256_K, 0x428a2f98, 0); store<u32>(SHA256_K, 0x71374491, 4); store<u32>(SHA256_K, 0xb5c0fbcf, 8); store<u32>(SHA256_K, 0xe9b5dba5, 12);
  store<u32>(SHA256_K, 0x3956c25b, 16); store<u32>(SHA256_K, 0x59f111f1, 20); store<u32>(SHA256_K, 0x923f82a4, 24); store<u32>(SHA256_K, 0xab1c5ed5, 28);
  store<u32>(SHA256_K, 0xd807aa98, 32); store<u32>(SHA256_K, 0x12835b01, 36); store<u32>(SHA256_K, 0x243185be, 40); store<u32>(SHA256_K, 0x550c7dc3, 44);
  store<u32>(SHA256_K, 0x72be5d74, 48); store<u32>(SHA256_K, 0x80deb1fe, 52); store<u32>(SHA256_K, 0x9bdc06a7, 56); store<u32>(SHA256_K, 0xc19bf174, 60);
  store<u32>(SHA256_K, 0xe49b69c1, 64); store<u32>(SHA256_K, 0xefbe4786, 68); store<u32>(SHA256_K, 0x0fc19dc6, 72); store<u32>(SHA256_K, 0x240ca1cc, 76);
  store<u32>(SHA256_K, 0x2de92c6f, 80); store<u32>(SHA256_K, 0x4a7484aa, 84); store<u32>(SHA256_K, 0x5cb0a9dc, 88); store<u32>(SHA256_K, 0x76f988da, 92);
  store<u32>(SHA256_K, 0x983e5152, 96); store<u32>(SHA256_K, 0xa831c66d, 100); store<u32>(SHA256_K, 0xb00327c8, 104); store<u32>(SHA256_K, 0xbf597fc7, 108);
  store<u32>(SHA256_K, 0xc6e00bf3, 112); store<u32>(SHA256_K, 0xd5a79147, 116); store<u32>(SHA256_K, 0x06ca6351, 120); store<u32>(SHA256_K, 0x14292967, 124);
  store<u32>(SHA256_K, 0x27b70a85, 128); store<u32>(SHA256_K, 0x2e1b2138, 132); store<u32>(SHA256_K, 0x4d2c6dfc, 136); store<u32>(SHA256_K, 0x53380d13, 140);
  store<u32>(SHA256_K, 0x650a7354, 144); store<u32>(SHA256_K, 0x766a0abb, 148); store<u32>(SHA256_K, 0x81c2c92e, 152); store<u32>(SHA256_K, 0x92722c85, 156);
  store<u32>(SHA256_K, 0xa2bfe8a1, 160); store<u32>(SHA256_K, 0xa81a664b, 164); store<u32>(SHA256_K, 0xc24b8b70, 168); store<u32>(SHA256_K, 0xc76c51a3, 172);
  store<u32>(SHA256_K, 0xd192e819, 176); store<u32>(SHA256_K, 0xd6990624, 180); store<u32>(SHA256_K, 0xf40e3585, 184); store<u32>(SHA256_K, 0x106aa070, 188);
  store<u32>(SHA256_K, 0x19a4c116, 192); store<u32>(SHA256_K, 0x1e376c08, 196); store<u32>(SHA256_K, 0x2748774c, 200); store<u32>(SHA256_K, 0x34b0bcb5, 204);
  store<u32>(SHA256_K, 0x391c0cb3, 208); store<u32>(SHA256_K, 0x4ed8aa4a, 212); store<u32>(SHA256_K, 0x5b9cca4f, 216); store<u32>(SHA256_K, 0x682e6ff3, 220);
  store<u32>(SHA256_K, 0x748f82ee, 224); store<u32>(SHA256_K, 0x78a5636f, 228); store<u32>(SHA256_K, 0x84c87814, 232); store<u32>(SHA256_K, 0x8cc70208, 236);
  store<u32>(SHA256_K, 0x90befffa, 240); store<u32>(SHA256_K, 0xa4506ceb, 244); store<u32>(SHA256_K, 0xbef9a3f7, 248); store<u32>(SHA256_K, 0xc67178f2, 252);

  memory.fill(SHA256_BLOCK, 0, 64);
  // "pq-stealth/view-tag/v1" (22 bytes; no string literal: the static memory map owns low memory)
  store<u8>(SHA256_BLOCK, 0x70, 0); store<u8>(SHA256_BLOCK, 0x71, 1); store<u8>(SHA256_BLOCK, 0x2d, 2); store<u8>(SHA256_BLOCK, 0x73, 3); store<u8>(SHA256_BLOCK, 0x74, 4); store<u8>(SHA256_BLOCK, 0x65, 5); store<u8>(SHA256_BLOCK, 0x61, 6); store<u8>(SHA256_BLOCK, 0x6c, 7); store<u8>(SHA256_BLOCK, 0x74, 8); store<u8>(SHA256_BLOCK, 0x68, 9); store<u8>(SHA256_BLOCK, 0x2f, 10); store<u8>(SHA256_BLOCK, 0x76, 11); store<u8>(SHA256_BLOCK, 0x69, 12); store<u8>(SHA256_BLOCK, 0x65, 13); store<u8>(SHA256_BLOCK, 0x77, 14); store<u8>(SHA256_BLOCK, 0x2d, 15); store<u8>(SHA256_BLOCK, 0x74, 16); store<u8>(SHA256_BLOCK, 0x61, 17); store<u8>(SHA256_BLOCK, 0x67, 18); store<u8>(SHA256_BLOCK, 0x2f, 19); store<u8>(SHA256_BLOCK, 0x76, 20); store<u8>(SHA256_BLOCK, 0x31, 21);
  store<u8>(SHA256_BLOCK, 0x80, 54);
  store<u8>(SHA256_BLOCK, 0x01, 62); // 432 = 0x01b0 bits
  store<u8>(SHA256_BLOCK, 0xb0, 63);
}

@inline function ror(x: u32, n: u32): u32 {
  return rotr<u32>(x, n);
}

/** The view tag of the 32-byte `ss` at `ss`. */
export function viewTag(ss: usize): u8 {
  memory.copy(SHA256_BLOCK + 22, ss, 32);
  for (let t: usize = 0; t < 16; t++) store<u32>(SHA256_W + (t << 2), bswap<u32>(load<u32>(SHA256_BLOCK + (t << 2))));
  for (let t: usize = 16; t < 64; t++) {
    const w15 = load<u32>(SHA256_W + ((t - 15) << 2));
    const w2 = load<u32>(SHA256_W + ((t - 2) << 2));
    const s0 = ror(w15, 7) ^ ror(w15, 18) ^ (w15 >> 3);
    const s1 = ror(w2, 17) ^ ror(w2, 19) ^ (w2 >> 10);
    store<u32>(SHA256_W + (t << 2), load<u32>(SHA256_W + ((t - 16) << 2)) + s0 + load<u32>(SHA256_W + ((t - 7) << 2)) + s1);
  }
  let a: u32 = 0x6a09e667; let b: u32 = 0xbb67ae85; let c: u32 = 0x3c6ef372; let d: u32 = 0xa54ff53a;
  let e: u32 = 0x510e527f; let f: u32 = 0x9b05688c; let g: u32 = 0x1f83d9ab; let h: u32 = 0x5be0cd19;
  for (let t: usize = 0; t < 64; t++) {
    const t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + load<u32>(SHA256_K + (t << 2)) + load<u32>(SHA256_W + (t << 2));
    const t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g; g = f; f = e; e = d + t1;
    d = c; c = b; b = a; a = t1 + t2;
  }
  return <u8>((a + 0x6a09e667) >> 24); // the digest's first byte: the top byte of H0
}
