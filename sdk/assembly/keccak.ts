// @ts-nocheck AssemblyScript (compiled by sdk/scripts/build-wasm.mjs), not part of the SDK's TypeScript program.
/**
 * Keccak-f[1600] (FIPS 202 section 3.3) on two states at once — each i64x2 holds the same lane
 * of two announcements' states — and the two single-block hashes of the scan hot path (the
 * same work as src/keccak-block.ts):
 *
 *     (K', r') = SHA3-512(m' || H(ek))                                   64 bytes, rate 72
 *     view tag = SHAKE256(u32le(19) || "SPECTER_VIEW_TAG_V1" || K')[0]   55 bytes, rate 136
 *
 * Both inputs fit one block, so each hash is one permutation of a state holding the message
 * and its padding (FIPS 202 section 5.1: SHA3 domain bits 01 + pad10*1 -> byte 0x06, SHAKE bits
 * 1111 -> 0x1f; the last byte of the rate block gets 0x80). Lane `x + 5y` of both states is
 * the v128 at `STATE + 16(x + 5y)` (state A in the low 64 bits), bytes little-endian as in
 * FIPS 202. 64-bit rotations are two shifts and an or (WebAssembly SIMD has no rotate).
 */
import { EK_HASH, ROUND_CONSTANTS, STATE } from './layout';

/** Round constants RC[i] from the rc(t) LFSR (FIPS 202 Algorithms 5 and 6). */
export function initRoundConstants(): void {
  let r: u32 = 1;
  for (let round: usize = 0; round < 24; round++) {
    let value: u64 = 0;
    for (let j: u64 = 0; j < 7; j++) {
      if (r & 1) value |= (<u64>1) << ((<u64>1 << j) - 1);
      r = ((r << 1) ^ ((r >> 7) & 1) * 0x71) & 0xff;
    }
    store<u64>(ROUND_CONSTANTS + (round << 3), value);
  }
}

@inline function rotl64x2(x: v128, r: i32): v128 {
  return v128.or(i64x2.shl(x, r), i64x2.shr_u(x, 64 - r));
}

/** Keccak-f[1600] on the two states at STATE: theta, rho, pi, chi, iota, 24 rounds, lanes in locals. */
function permute2(): void {
  let a0 = v128.load(STATE, 0); let a1 = v128.load(STATE, 16); let a2 = v128.load(STATE, 32); let a3 = v128.load(STATE, 48); let a4 = v128.load(STATE, 64);
  let a5 = v128.load(STATE, 80); let a6 = v128.load(STATE, 96); let a7 = v128.load(STATE, 112); let a8 = v128.load(STATE, 128); let a9 = v128.load(STATE, 144);
  let a10 = v128.load(STATE, 160); let a11 = v128.load(STATE, 176); let a12 = v128.load(STATE, 192); let a13 = v128.load(STATE, 208); let a14 = v128.load(STATE, 224);
  let a15 = v128.load(STATE, 240); let a16 = v128.load(STATE, 256); let a17 = v128.load(STATE, 272); let a18 = v128.load(STATE, 288); let a19 = v128.load(STATE, 304);
  let a20 = v128.load(STATE, 320); let a21 = v128.load(STATE, 336); let a22 = v128.load(STATE, 352); let a23 = v128.load(STATE, 368); let a24 = v128.load(STATE, 384);
  for (let round: usize = 0; round < 24; round++) {
    const c0 = v128.xor(v128.xor(v128.xor(a0, a5), v128.xor(a10, a15)), a20);
    const c1 = v128.xor(v128.xor(v128.xor(a1, a6), v128.xor(a11, a16)), a21);
    const c2 = v128.xor(v128.xor(v128.xor(a2, a7), v128.xor(a12, a17)), a22);
    const c3 = v128.xor(v128.xor(v128.xor(a3, a8), v128.xor(a13, a18)), a23);
    const c4 = v128.xor(v128.xor(v128.xor(a4, a9), v128.xor(a14, a19)), a24);
    const d0 = v128.xor(c4, rotl64x2(c1, 1));
    const d1 = v128.xor(c0, rotl64x2(c2, 1));
    const d2 = v128.xor(c1, rotl64x2(c3, 1));
    const d3 = v128.xor(c2, rotl64x2(c4, 1));
    const d4 = v128.xor(c3, rotl64x2(c0, 1));
    const b0 = v128.xor(a0, d0);
    const b16 = rotl64x2(v128.xor(a5, d0), 36);
    const b7 = rotl64x2(v128.xor(a10, d0), 3);
    const b23 = rotl64x2(v128.xor(a15, d0), 41);
    const b14 = rotl64x2(v128.xor(a20, d0), 18);
    const b10 = rotl64x2(v128.xor(a1, d1), 1);
    const b1 = rotl64x2(v128.xor(a6, d1), 44);
    const b17 = rotl64x2(v128.xor(a11, d1), 10);
    const b8 = rotl64x2(v128.xor(a16, d1), 45);
    const b24 = rotl64x2(v128.xor(a21, d1), 2);
    const b20 = rotl64x2(v128.xor(a2, d2), 62);
    const b11 = rotl64x2(v128.xor(a7, d2), 6);
    const b2 = rotl64x2(v128.xor(a12, d2), 43);
    const b18 = rotl64x2(v128.xor(a17, d2), 15);
    const b9 = rotl64x2(v128.xor(a22, d2), 61);
    const b5 = rotl64x2(v128.xor(a3, d3), 28);
    const b21 = rotl64x2(v128.xor(a8, d3), 55);
    const b12 = rotl64x2(v128.xor(a13, d3), 25);
    const b3 = rotl64x2(v128.xor(a18, d3), 21);
    const b19 = rotl64x2(v128.xor(a23, d3), 56);
    const b15 = rotl64x2(v128.xor(a4, d4), 27);
    const b6 = rotl64x2(v128.xor(a9, d4), 20);
    const b22 = rotl64x2(v128.xor(a14, d4), 39);
    const b13 = rotl64x2(v128.xor(a19, d4), 8);
    const b4 = rotl64x2(v128.xor(a24, d4), 14);
    a0 = v128.xor(b0, v128.andnot(b2, b1));
    a1 = v128.xor(b1, v128.andnot(b3, b2));
    a2 = v128.xor(b2, v128.andnot(b4, b3));
    a3 = v128.xor(b3, v128.andnot(b0, b4));
    a4 = v128.xor(b4, v128.andnot(b1, b0));
    a5 = v128.xor(b5, v128.andnot(b7, b6));
    a6 = v128.xor(b6, v128.andnot(b8, b7));
    a7 = v128.xor(b7, v128.andnot(b9, b8));
    a8 = v128.xor(b8, v128.andnot(b5, b9));
    a9 = v128.xor(b9, v128.andnot(b6, b5));
    a10 = v128.xor(b10, v128.andnot(b12, b11));
    a11 = v128.xor(b11, v128.andnot(b13, b12));
    a12 = v128.xor(b12, v128.andnot(b14, b13));
    a13 = v128.xor(b13, v128.andnot(b10, b14));
    a14 = v128.xor(b14, v128.andnot(b11, b10));
    a15 = v128.xor(b15, v128.andnot(b17, b16));
    a16 = v128.xor(b16, v128.andnot(b18, b17));
    a17 = v128.xor(b17, v128.andnot(b19, b18));
    a18 = v128.xor(b18, v128.andnot(b15, b19));
    a19 = v128.xor(b19, v128.andnot(b16, b15));
    a20 = v128.xor(b20, v128.andnot(b22, b21));
    a21 = v128.xor(b21, v128.andnot(b23, b22));
    a22 = v128.xor(b22, v128.andnot(b24, b23));
    a23 = v128.xor(b23, v128.andnot(b20, b24));
    a24 = v128.xor(b24, v128.andnot(b21, b20));
    a0 = v128.xor(a0, v128.load64_splat(ROUND_CONSTANTS + (round << 3)));
  }
  v128.store(STATE, a0, 0); v128.store(STATE, a1, 16); v128.store(STATE, a2, 32); v128.store(STATE, a3, 48); v128.store(STATE, a4, 64);
  v128.store(STATE, a5, 80); v128.store(STATE, a6, 96); v128.store(STATE, a7, 112); v128.store(STATE, a8, 128); v128.store(STATE, a9, 144);
  v128.store(STATE, a10, 160); v128.store(STATE, a11, 176); v128.store(STATE, a12, 192); v128.store(STATE, a13, 208); v128.store(STATE, a14, 224);
  v128.store(STATE, a15, 240); v128.store(STATE, a16, 256); v128.store(STATE, a17, 272); v128.store(STATE, a18, 288); v128.store(STATE, a19, 304);
  v128.store(STATE, a20, 320); v128.store(STATE, a21, 336); v128.store(STATE, a22, 352); v128.store(STATE, a23, 368); v128.store(STATE, a24, 384);
}

// u32le(19) || "SPECTER_VIEW_TAG_V1" (23 bytes, PROTOCOL.md section 1) as little-endian lanes.
const TAG_PREFIX_0: u64 = 0x4345505300000013; // 13 00 00 00 'S' 'P' 'E' 'C'
const TAG_PREFIX_1: u64 = 0x574549565f524554; // 'T' 'E' 'R' '_' 'V' 'I' 'E' 'W'
const TAG_PREFIX_2: u64 = 0x0031565f4741545f; // '_' 'T' 'A' 'G' '_' 'V' '1', then K'[0]

/** Lane i (8 bytes) of two 32-byte strings at a and a + 32, as (A, B). */
@inline function pairLane(a: usize, i: usize): v128 {
  return i64x2.shuffle(v128.load(a + (i << 3)), v128.load(a + 32 + (i << 3)), 0, 2);
}

/**
 * For the two 32-byte messages m' at `messages` and `messages + 32`: writes
 * K' = SHA3-512(m' || H(ek))[0..32] to `secrets` and `secrets + 32` and the view tags to
 * `tags` and `tags + 1`.
 */
export function secretsAndViewTags(messages: usize, secrets: usize, tags: usize): void {
  memory.fill(STATE, 0, 400);
  v128.store(STATE, pairLane(messages, 0), 0);
  v128.store(STATE, pairLane(messages, 1), 16);
  v128.store(STATE, pairLane(messages, 2), 32);
  v128.store(STATE, pairLane(messages, 3), 48);
  v128.store(STATE, v128.load64_splat(EK_HASH, 0), 64);
  v128.store(STATE, v128.load64_splat(EK_HASH, 8), 80);
  v128.store(STATE, v128.load64_splat(EK_HASH, 16), 96);
  v128.store(STATE, v128.load64_splat(EK_HASH, 24), 112);
  v128.store(STATE, i64x2.splat(0x8000000000000006), 128); // byte 64 = 0x06, byte 71 (end of the 72-byte rate) |= 0x80
  permute2();
  const k0 = v128.load(STATE, 0);
  const k1 = v128.load(STATE, 16);
  const k2 = v128.load(STATE, 32);
  const k3 = v128.load(STATE, 48);
  v128.store(secrets, i64x2.shuffle(k0, k1, 0, 2), 0);
  v128.store(secrets, i64x2.shuffle(k2, k3, 0, 2), 16);
  v128.store(secrets, i64x2.shuffle(k0, k1, 1, 3), 32);
  v128.store(secrets, i64x2.shuffle(k2, k3, 1, 3), 48);

  // K' starts at byte 23, so its lanes straddle state lanes 2..6.
  memory.fill(STATE, 0, 400);
  v128.store(STATE, i64x2.splat(TAG_PREFIX_0), 0);
  v128.store(STATE, i64x2.splat(TAG_PREFIX_1), 16);
  v128.store(STATE, v128.or(i64x2.splat(TAG_PREFIX_2), i64x2.shl(k0, 56)), 32);
  v128.store(STATE, v128.or(i64x2.shr_u(k0, 8), i64x2.shl(k1, 56)), 48);
  v128.store(STATE, v128.or(i64x2.shr_u(k1, 8), i64x2.shl(k2, 56)), 64);
  v128.store(STATE, v128.or(i64x2.shr_u(k2, 8), i64x2.shl(k3, 56)), 80);
  v128.store(STATE, v128.or(i64x2.shr_u(k3, 8), i64x2.splat(<u64>0x1f << 56)), 96); // byte 55 = 0x1f
  v128.store(STATE, i64x2.splat(<u64>0x80 << 56), 256); // byte 135 (end of the 136-byte rate) = 0x80
  permute2();
  store<u8>(tags, load<u8>(STATE, 0), 0);
  store<u8>(tags, load<u8>(STATE, 8), 1);
}

/**
 * SHA3-256 (rate 136 bytes) of `count` messages already padded to `blocks` blocks (FIPS 202
 * pad10*1 with the SHA3 domain bits, done by the host), `stride` bytes apart from `messages`;
 * digest i (32 bytes) to `digests + 32i`. Two messages per permutation (ERC-8441's hybrid
 * combiner: 18 blocks per announcement); an odd last one is hashed beside itself.
 */
export function sha3_256Padded(messages: usize, stride: usize, blocks: i32, count: i32, digests: usize): void {
  for (let m = 0; m < count; m += 2) {
    const a = messages + <usize>m * stride;
    const b = m + 1 < count ? a + stride : a;
    memory.fill(STATE, 0, 400);
    for (let block = 0; block < blocks; block++) {
      const offset = <usize>block * 136;
      for (let j: usize = 0; j < 17; j++) {
        const lane = i64x2.replace_lane(v128.load64_splat(a + offset + (j << 3)), 1, load<u64>(b + offset + (j << 3)));
        v128.store(STATE + (j << 4), v128.xor(v128.load(STATE + (j << 4)), lane));
      }
      permute2();
    }
    const k0 = v128.load(STATE, 0);
    const k1 = v128.load(STATE, 16);
    const k2 = v128.load(STATE, 32);
    const k3 = v128.load(STATE, 48);
    const out = digests + <usize>m * 32;
    v128.store(out, i64x2.shuffle(k0, k1, 0, 2), 0);
    v128.store(out, i64x2.shuffle(k2, k3, 0, 2), 16);
    if (m + 1 < count) {
      v128.store(out, i64x2.shuffle(k0, k1, 1, 3), 32);
      v128.store(out, i64x2.shuffle(k2, k3, 1, 3), 48);
    }
  }
}
