// @ts-nocheck AssemblyScript (compiled by sdk/scripts/build-wasm.mjs), not part of the SDK's TypeScript program.
/**
 * K-PKE decryption for ML-KEM-768 (FIPS 203 Algorithm 15) on 8 announcements at once:
 *
 *     u = Decompress_10(ByteDecode_10(c1)),  v = Decompress_4(ByteDecode_4(c2))
 *     w = v - NTT^-1( sum_i s_hat[i] ∘ NTT(u[i]) ),   m' = ByteEncode_1(Compress_1(w))
 *
 * Coefficients are i16 in the lane layout of layout.ts (one announcement per i16x8 lane), so
 * the NTTs are the scalar algorithm with v128 operations. Decoding and the message step
 * transpose 8x8 blocks between "8 coefficients of one announcement" and "one coefficient of
 * 8 announcements".
 *
 * Arithmetic mod q in i16 lanes, no Montgomery form:
 *
 * - `mulConst(a, b, b')` = a*b mod± q for a per-key or NTT constant b with precomputed
 *   b' = round(b * 2^15 / q) ("Barrett multiplication", Shoup's trick):
 *   `a*b - q * q15mulr(a, b')`, where `q15mulr(x, y) = floor((x*y + 2^14) / 2^15)` is
 *   `i16x8.q15mulr_sat_s` (it saturates only for -2^15 * -2^15; |b'| <= 2^14 here). With
 *   b' = b*2^15/q + e (|e| <= 1/2) and the rounding error rho (|rho| <= 1/2) the exact result is
 *   r = -q*(a*e/2^15 + rho), so |r| <= q*(1/2 + |a|/2^16) < q for every |a| < 2^15. Since |r| < 2^15,
 *   computing `a*b - q*t` modulo 2^16 (i16x8.mul keeps the low half) gives r exactly.
 * - `reduce(x)` = x - q * q15mulr(x, 10): 10/2^15 approximates 1/q within 522/(2^15 q), so
 *   |r| <= q/2 + |x| * 522/2^15, e.g. < 1665 + 0.016|x|.
 *
 * Bounds (absolute values, all integers; every intermediate stays <= 31116 < 2^15):
 *
 * - Decompressed u: [0, 3326]. Forward NTT (Cooley-Tukey, a ± mulConst(b)): each layer adds at
 *   most q*(1/2 + B/2^16) to the bound B: 3326 -> 5159 -> 7085 -> 9109 -> 11236 -> 13471 ->
 *   15819 -> 18287 after 7 layers (no reduction needed).
 * - Base multiplication: each of the 6 products per output is a mulConst of |a| <= 18287,
 *   so <= q*(1/2 + 18287/2^16) -> 2593; their sum <= 15558. The 6 products are accumulated as two
 *   separate sums (low halves `a*b`, quotients `q15mulr(a, b')`) and combined once: modulo 2^16
 *   that is the sum of the six r's, exact because the sum fits in i16.
 * - Inverse NTT (Gentleman-Sande, a + b and mulConst(b - a)): products are <= q*(1/2 +
 *   |b-a|/2^16) < q; sums double per layer. Layer 1: sums and differences <= 31116, sums reduced
 *   (-> 2160), products <= 3245. Layers 2, 3: sums <= 6490, 12980. Layer 4: sums <= 25960,
 *   reduced (-> 2078); products <= 2983. Layers 5, 6: sums <= 5966, 11932. Layer 7 is merged
 *   with the final scaling by f = 128^-1 (FIPS 203 Algorithm 10 line 14): (a + b)*f and
 *   (b - a)*(zeta_1*f), both multiplying values <= 23864, so the result is <= 2876.
 * - Message: v in [0, 3121], w = v - acc in [-5997, 5997], reduce(w) in [-1760, 1760].
 *   Compress_1 is 1 exactly for w mod q in [833, 2496]; for r in [-1760, 1760] that is |r| >= 833
 *   (r in [-1760, -833] means r + q in [1569, 2496]; |r| < 833 means a residue in [0, 832] or
 *   [2497, 3328]).
 *
 * Tests compare m' with a schoolbook oracle on edge inputs (all-zero, all-0xff, coefficient
 * q-1 and 4095 secrets, ...).
 */
import { C2_OFFSET, CIPHERTEXT_BYTES, DK_PKE, INV_LAST, KEY, MESSAGES, POLY, POLY_BYTES, SCRATCH, ZETAS } from './layout';

const Q: i32 = 3329; // 13*2^8 + 1
const HALF_Q: i32 = 1664; // centred representatives lie in [-1664, 1664]
const N_INV: i32 = 3303; // 128^-1 mod q (FIPS 203 Algorithm 10 line 14)
const BARRETT: i16 = 10; // round(2^15 / q)

function powMod(base: i32, exp: i32): i32 {
  let result = 1;
  let b = base % Q;
  for (let e = exp; e > 0; e >>= 1) {
    if (e & 1) result = (result * b) % Q;
    b = (b * b) % Q;
  }
  return result;
}

function bitRev7(i: i32): i32 {
  let r = 0;
  for (let b = 0; b < 7; b++) r |= ((i >> b) & 1) << (6 - b);
  return r;
}

/** x mod q as a centred representative in [-1664, 1664]. */
function centred(x: i32): i32 {
  let r = x % Q;
  if (r < 0) r += Q;
  return r > HALF_Q ? r - Q : r;
}

/** b' = round(b * 2^15 / q) for a centred b, |b'| <= 16380. */
function twist(b: i32): i32 {
  const n = b < 0 ? -b : b;
  const t = (n * 65536 + Q) / (2 * Q);
  return b < 0 ? -t : t;
}

/** b (centred) and its twist, each splatted to 8 lanes: 32 bytes at `at`. */
function storeConstant(at: usize, b: i32): void {
  const c = centred(b);
  v128.store(at, i16x8.splat(<i16>c));
  v128.store(at, i16x8.splat(<i16>twist(c)), 16);
}

/** zeta_i = 17^BitRev7(i) (FIPS 203 section 4.3) and the last inverse layer's constants. */
export function initZetas(): void {
  for (let i = 0; i < 128; i++) storeConstant(ZETAS + (<usize>i << 5), powMod(17, bitRev7(i)));
  storeConstant(INV_LAST, N_INV);
  storeConstant(INV_LAST + 32, powMod(17, bitRev7(1)) * N_INV);
}

/**
 * ByteDecode_12 of dk_pke into the base-multiplication table: for pair p, polynomial k, with
 * gamma_p = 17^(2 BitRev7(p) + 1) (FIPS 203 Algorithm 12), the constants b0 = s_hat[k][2p],
 * b1 = s_hat[k][2p+1] and b1*gamma_p, each reduced mod q (non-canonical 12-bit values such as
 * 4095 included) and centred, with their twists.
 */
export function prepareSecret(): void {
  for (let k = 0; k < 3; k++) {
    for (let p = 0; p < 128; p++) {
      const src = DK_PKE + <usize>(k * 384 + p * 3);
      const x0 = <i32>load<u8>(src, 0);
      const x1 = <i32>load<u8>(src, 1);
      const x2 = <i32>load<u8>(src, 2);
      const b0 = x0 | ((x1 & 0x0f) << 8); // reduced by storeConstant
      const b1 = (x1 >> 4) | (x2 << 4);
      const gamma = powMod(17, 2 * bitRev7(p) + 1);
      const at = KEY + <usize>(p * 288 + k * 96);
      storeConstant(at, b0);
      storeConstant(at + 32, b1);
      storeConstant(at + 64, b1 * gamma);
    }
  }
}

// ---- i16x8 arithmetic mod q (see the module comment for the bounds)

/** a*b mod± q, |result| <= q*(1/2 + |a|/2^16). */
@inline function mulConst(a: v128, b: v128, bTwist: v128): v128 {
  return i16x8.sub(i16x8.mul(a, b), i16x8.mul(i16x8.q15mulr_sat_s(a, bTwist), i16x8.splat(<i16>Q)));
}

/** x mod± q, |result| <= q/2 + |x|*522/2^15. */
@inline function reduce(x: v128): v128 {
  return i16x8.sub(x, i16x8.mul(i16x8.q15mulr_sat_s(x, i16x8.splat(BARRETT)), i16x8.splat(<i16>Q)));
}

/**
 * 8x8 transpose of i16 lanes: vector i of the result holds lane i of r0..r7. Three rounds of
 * interleaves (16-, 32-, 64-bit), stored to dst + 16i.
 */
@inline function transposeStore(r0: v128, r1: v128, r2: v128, r3: v128, r4: v128, r5: v128, r6: v128, r7: v128, dst: usize): void {
  const t0 = i16x8.shuffle(r0, r1, 0, 8, 1, 9, 2, 10, 3, 11);
  const t1 = i16x8.shuffle(r0, r1, 4, 12, 5, 13, 6, 14, 7, 15);
  const t2 = i16x8.shuffle(r2, r3, 0, 8, 1, 9, 2, 10, 3, 11);
  const t3 = i16x8.shuffle(r2, r3, 4, 12, 5, 13, 6, 14, 7, 15);
  const t4 = i16x8.shuffle(r4, r5, 0, 8, 1, 9, 2, 10, 3, 11);
  const t5 = i16x8.shuffle(r4, r5, 4, 12, 5, 13, 6, 14, 7, 15);
  const t6 = i16x8.shuffle(r6, r7, 0, 8, 1, 9, 2, 10, 3, 11);
  const t7 = i16x8.shuffle(r6, r7, 4, 12, 5, 13, 6, 14, 7, 15);
  const u0 = i32x4.shuffle(t0, t2, 0, 4, 1, 5);
  const u1 = i32x4.shuffle(t0, t2, 2, 6, 3, 7);
  const u2 = i32x4.shuffle(t1, t3, 0, 4, 1, 5);
  const u3 = i32x4.shuffle(t1, t3, 2, 6, 3, 7);
  const u4 = i32x4.shuffle(t4, t6, 0, 4, 1, 5);
  const u5 = i32x4.shuffle(t4, t6, 2, 6, 3, 7);
  const u6 = i32x4.shuffle(t5, t7, 0, 4, 1, 5);
  const u7 = i32x4.shuffle(t5, t7, 2, 6, 3, 7);
  v128.store(dst, i64x2.shuffle(u0, u4, 0, 2), 0);
  v128.store(dst, i64x2.shuffle(u0, u4, 1, 3), 16);
  v128.store(dst, i64x2.shuffle(u1, u5, 0, 2), 32);
  v128.store(dst, i64x2.shuffle(u1, u5, 1, 3), 48);
  v128.store(dst, i64x2.shuffle(u2, u6, 0, 2), 64);
  v128.store(dst, i64x2.shuffle(u2, u6, 1, 3), 80);
  v128.store(dst, i64x2.shuffle(u3, u7, 0, 2), 96);
  v128.store(dst, i64x2.shuffle(u3, u7, 1, 3), 112);
}

/**
 * Decompress_10(ByteDecode_10) of 8 coefficients (10 bytes at p, 16 bytes read). Coefficient i
 * sits at bit 10i: bytes (10i)>>3 and the next, shifted by s = (10i)&7 in {0, 2, 4, 6}.
 * Multiplying the 16-bit word by 2^(6-s) puts the value x at bits 6..15; masking and one right
 * shift give x*2^5 < 2^15, and q15mulr(x*2^5, q) = floor((x*q + 512) / 2^10) = round(x*q / 2^10).
 */
@inline function decompress10(p: usize): v128 {
  const bytes = v128.load(p);
  const words = i8x16.shuffle(bytes, bytes, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6, 7, 7, 8, 8, 9);
  const high = v128.and(i16x8.mul(words, i16x8(64, 16, 4, 1, 64, 16, 4, 1)), i16x8.splat(<i16>0xffc0));
  return i16x8.q15mulr_sat_s(i16x8.shr_u(high, 1), i16x8.splat(<i16>Q));
}

/**
 * Decompress_4(ByteDecode_4) of 8 coefficients (4 bytes at p, low nibble first): byte k goes to
 * lanes 2k and 2k+1, shifted so its low / high nibble x lands at bits 11..14; then
 * q15mulr(x*2^11, q) = floor((x*q + 8) / 2^4) = round(x*q / 16).
 */
@inline function decompress4(p: usize): v128 {
  const bytes = v128.load32_zero(p);
  const words = i8x16.shuffle(bytes, bytes, 0, 4, 0, 4, 1, 4, 1, 4, 2, 4, 2, 4, 3, 4, 3, 4); // byte 4 is zero
  const nibbles = v128.and(i16x8.mul(words, i16x8(2048, 128, 2048, 128, 2048, 128, 2048, 128)), i16x8.splat(<i16>0x7800));
  return i16x8.q15mulr_sat_s(nibbles, i16x8.splat(<i16>Q));
}

/** u[0..2] of the 8 ciphertexts at `group` (1088 bytes apart) into POLY, lane layout. */
function decodeU(group: usize): void {
  for (let k: usize = 0; k < 3; k++) {
    for (let block: usize = 0; block < 32; block++) {
      const src = group + k * 320 + block * 10;
      transposeStore(
        decompress10(src),
        decompress10(src + CIPHERTEXT_BYTES),
        decompress10(src + 2 * CIPHERTEXT_BYTES),
        decompress10(src + 3 * CIPHERTEXT_BYTES),
        decompress10(src + 4 * CIPHERTEXT_BYTES),
        decompress10(src + 5 * CIPHERTEXT_BYTES),
        decompress10(src + 6 * CIPHERTEXT_BYTES),
        decompress10(src + 7 * CIPHERTEXT_BYTES),
        POLY + k * POLY_BYTES + block * 128,
      );
    }
  }
}

/**
 * FIPS 203 Algorithm 9 on the three polynomials at POLY at once (they share every zeta), lazy
 * sums (bounds in the module comment).
 */
function ntt3(): void {
  let k: usize = 1;
  for (let len: usize = 128; len >= 2; len >>= 1) {
    const stride = len << 4;
    for (let start: usize = 0; start < 256; start += len << 1) {
      const z = v128.load(ZETAS + (k << 5));
      const zt = v128.load(ZETAS + (k << 5), 16);
      k++;
      const end = POLY + ((start + len) << 4);
      for (let p = POLY + (start << 4); p < end; p += 16) {
        butterfly(p, p + stride, z, zt);
        butterfly(p + POLY_BYTES, p + POLY_BYTES + stride, z, zt);
        butterfly(p + 2 * POLY_BYTES, p + 2 * POLY_BYTES + stride, z, zt);
      }
    }
  }
}

/** Cooley-Tukey butterfly: (a, b) <- (a + zeta*b, a - zeta*b). */
@inline function butterfly(pa: usize, pb: usize, z: v128, zt: v128): void {
  const a = v128.load(pa);
  const t = mulConst(v128.load(pb), z, zt);
  v128.store(pa, i16x8.add(a, t));
  v128.store(pb, i16x8.sub(a, t));
}

/**
 * acc = sum_k s_hat[k] ∘ u_hat[k] (FIPS 203 Algorithms 11, 12), written over u_hat[0]:
 * c0 = sum a0*b0 + a1*(b1*gamma), c1 = sum a0*b1 + a1*b0, with the six products of each output
 * accumulated unreduced (see the module comment).
 */
function baseMultiply(): void {
  const q = i16x8.splat(<i16>Q);
  for (let p: usize = 0; p < 128; p++) {
    const a = POLY + (p << 5);
    const t = KEY + p * 288;
    let lo0 = i16x8.splat(0), hi0 = i16x8.splat(0), lo1 = i16x8.splat(0), hi1 = i16x8.splat(0);
    // k = 0
    let a0 = v128.load(a, 0);
    let a1 = v128.load(a, 16);
    let b0 = v128.load(t, 0), b0t = v128.load(t, 16);
    let b1 = v128.load(t, 32), b1t = v128.load(t, 48);
    let g = v128.load(t, 64), gt = v128.load(t, 80);
    lo0 = i16x8.add(i16x8.mul(a0, b0), i16x8.mul(a1, g));
    hi0 = i16x8.add(i16x8.q15mulr_sat_s(a0, b0t), i16x8.q15mulr_sat_s(a1, gt));
    lo1 = i16x8.add(i16x8.mul(a0, b1), i16x8.mul(a1, b0));
    hi1 = i16x8.add(i16x8.q15mulr_sat_s(a0, b1t), i16x8.q15mulr_sat_s(a1, b0t));
    // k = 1
    a0 = v128.load(a, 4096);
    a1 = v128.load(a, 4112);
    b0 = v128.load(t, 96); b0t = v128.load(t, 112);
    b1 = v128.load(t, 128); b1t = v128.load(t, 144);
    g = v128.load(t, 160); gt = v128.load(t, 176);
    lo0 = i16x8.add(lo0, i16x8.add(i16x8.mul(a0, b0), i16x8.mul(a1, g)));
    hi0 = i16x8.add(hi0, i16x8.add(i16x8.q15mulr_sat_s(a0, b0t), i16x8.q15mulr_sat_s(a1, gt)));
    lo1 = i16x8.add(lo1, i16x8.add(i16x8.mul(a0, b1), i16x8.mul(a1, b0)));
    hi1 = i16x8.add(hi1, i16x8.add(i16x8.q15mulr_sat_s(a0, b1t), i16x8.q15mulr_sat_s(a1, b0t)));
    // k = 2
    a0 = v128.load(a, 8192);
    a1 = v128.load(a, 8208);
    b0 = v128.load(t, 192); b0t = v128.load(t, 208);
    b1 = v128.load(t, 224); b1t = v128.load(t, 240);
    g = v128.load(t, 256); gt = v128.load(t, 272);
    lo0 = i16x8.add(lo0, i16x8.add(i16x8.mul(a0, b0), i16x8.mul(a1, g)));
    hi0 = i16x8.add(hi0, i16x8.add(i16x8.q15mulr_sat_s(a0, b0t), i16x8.q15mulr_sat_s(a1, gt)));
    lo1 = i16x8.add(lo1, i16x8.add(i16x8.mul(a0, b1), i16x8.mul(a1, b0)));
    hi1 = i16x8.add(hi1, i16x8.add(i16x8.q15mulr_sat_s(a0, b1t), i16x8.q15mulr_sat_s(a1, b0t)));
    v128.store(a, i16x8.sub(lo0, i16x8.mul(hi0, q)), 0);
    v128.store(a, i16x8.sub(lo1, i16x8.mul(hi1, q)), 16);
  }
}

/** One Gentleman-Sande layer; `reduceSums` reduces a + b (layers 1 and 4). */
@inline function inverseLayer(f: usize, len: usize, k: usize, reduceSums: bool): usize {
  const stride = len << 4;
  for (let start: usize = 0; start < 256; start += len << 1) {
    const z = v128.load(ZETAS + (k << 5));
    const zt = v128.load(ZETAS + (k << 5), 16);
    k--;
    const end = f + ((start + len) << 4);
    for (let p = f + (start << 4); p < end; p += 16) {
      const a = v128.load(p);
      const b = v128.load(p + stride);
      const sum = i16x8.add(a, b);
      v128.store(p, reduceSums ? reduce(sum) : sum);
      v128.store(p + stride, mulConst(i16x8.sub(b, a), z, zt));
    }
  }
  return k;
}

/** FIPS 203 Algorithm 10 on the polynomial at f, result in [-2876, 2876] (module comment). */
function inverseNtt(f: usize): void {
  let k: usize = 127;
  k = inverseLayer(f, 2, k, true);
  k = inverseLayer(f, 4, k, false);
  k = inverseLayer(f, 8, k, false);
  k = inverseLayer(f, 16, k, true);
  k = inverseLayer(f, 32, k, false);
  k = inverseLayer(f, 64, k, false);
  // Layer 7 (len 128, zeta_1) with the scaling by 128^-1 folded into its constants.
  const s = v128.load(INV_LAST, 0), st = v128.load(INV_LAST, 16);
  const z = v128.load(INV_LAST, 32), zt = v128.load(INV_LAST, 48);
  for (let p = f; p < f + 2048; p += 16) {
    const a = v128.load(p);
    const b = v128.load(p, 2048);
    v128.store(p, mulConst(i16x8.add(a, b), s, st));
    v128.store(p, mulConst(i16x8.sub(b, a), z, zt), 2048);
  }
}

/** One byte of m': Compress_1(v - acc) of 8 coefficients of one announcement (acc in coefficient order). */
@inline function messageByte(acc: v128, c2: usize): i32 {
  const w = reduce(i16x8.sub(decompress4(c2), acc));
  return i16x8.bitmask(i16x8.gt_s(i16x8.abs(w), i16x8.splat(832)));
}

/** m' of the 8 announcements to MESSAGES (32 bytes each), from acc in POLY (lane layout). */
function encodeMessages(group: usize): void {
  for (let block: usize = 0; block < 32; block++) {
    const src = POLY + (block << 7);
    transposeStore(
      v128.load(src, 0), v128.load(src, 16), v128.load(src, 32), v128.load(src, 48),
      v128.load(src, 64), v128.load(src, 80), v128.load(src, 96), v128.load(src, 112),
      SCRATCH,
    );
    const c2 = group + C2_OFFSET + (block << 2);
    store<u8>(MESSAGES + block, messageByte(v128.load(SCRATCH, 0), c2), 0);
    store<u8>(MESSAGES + block, messageByte(v128.load(SCRATCH, 16), c2 + CIPHERTEXT_BYTES), 32);
    store<u8>(MESSAGES + block, messageByte(v128.load(SCRATCH, 32), c2 + 2 * CIPHERTEXT_BYTES), 64);
    store<u8>(MESSAGES + block, messageByte(v128.load(SCRATCH, 48), c2 + 3 * CIPHERTEXT_BYTES), 96);
    store<u8>(MESSAGES + block, messageByte(v128.load(SCRATCH, 64), c2 + 4 * CIPHERTEXT_BYTES), 128);
    store<u8>(MESSAGES + block, messageByte(v128.load(SCRATCH, 80), c2 + 5 * CIPHERTEXT_BYTES), 160);
    store<u8>(MESSAGES + block, messageByte(v128.load(SCRATCH, 96), c2 + 6 * CIPHERTEXT_BYTES), 192);
    store<u8>(MESSAGES + block, messageByte(v128.load(SCRATCH, 112), c2 + 7 * CIPHERTEXT_BYTES), 224);
  }
}

/** m' of the 8 ciphertexts at `group` (1088 bytes apart) to MESSAGES + 32a. */
export function decryptGroup(group: usize): void {
  decodeU(group);
  ntt3();
  baseMultiply();
  inverseNtt(POLY);
  encodeMessages(group);
}
