/**
 * K-PKE decryption for ML-KEM-768 (FIPS 203 Algorithm 15), specialised for scanning.
 *
 * Scanning computes, for every announcement, only `m' = Decrypt(dk_pke, c)`:
 *
 *     u = Decompress_10(ByteDecode_10(c1)),  v = Decompress_4(ByteDecode_4(c2))
 *     w = v - NTT^-1( sum_i s_hat[i] ∘ NTT(u[i]) )
 *     m' = ByteEncode_1(Compress_1(w))
 *
 * The secret `s_hat` is decoded once per key, its odd coefficients premultiplied by gamma
 * ({@link prepareDecryptionKey}); per call, buffers are reused, so decryption allocates nothing.
 * The scan kernel takes `m'` as bit-interleaved Keccak lanes ({@link createInterleavedDecryptor}),
 * the re-encryption check as bytes ({@link createDecryptor}).
 *
 * Lazy reduction: butterflies do not reduce their sums. Every product is reduced with `%`
 * (JS keeps the dividend's sign, so results lie in (-q, q)), and each NTT layer grows the bound
 * by at most q: inputs in [0, q) stay below 8q = 26,632 after 7 layers, so every product
 * (< 8q * q ≈ 8.9e7) is exact in float64 and int32 alike. The inverse NTT starts from sums
 * reduced to (-q, q); its unreduced sums at most double per layer, so after 7 layers they stay
 * below 2^7 * q ≈ 4.3e5 and every product with a zeta or with 128^-1 (< 4.3e5 * 3329 ≈ 1.4e9)
 * is below 2^31. The final scaling reduces again to (-q, q); the message step maps residues
 * to [0, q) before compressing.
 * Tests check `m'` against a straightforward, fully reduced implementation on edge inputs.
 * @module
 */
import { deinterleaveToBytes } from './bit-interleave.ts';

const N = 256;
const K = 3; // ML-KEM-768 module rank
const Q = 3329; // 13*2^8 + 1
const DU = 10;
const C1_BYTES = (N * DU * K) / 8; // 960
const N_INV_128 = 3303; // 128^-1 mod q (FIPS 203 Algorithm 10 line 14)

function bitRev7(i: number): number {
  let r = 0;
  for (let b = 0; b < 7; b++) r |= ((i >> b) & 1) << (6 - b);
  return r;
}

function powMod(base: number, exp: number): number {
  let result = 1;
  let b = base % Q;
  for (let e = exp; e > 0; e >>= 1) {
    if (e & 1) result = (result * b) % Q;
    b = (b * b) % Q;
  }
  return result;
}

/** zeta^BitRev7(i) with zeta = 17 (FIPS 203 section 4.3). */
const ZETAS = Int32Array.from({ length: 128 }, (_, i) => powMod(17, bitRev7(i)));
/** gamma_i = 17^(2*BitRev7(i)+1) for the base-case multiplication (FIPS 203 Algorithm 12). */
const GAMMAS = Int32Array.from({ length: 128 }, (_, i) => powMod(17, 2 * bitRev7(i) + 1));

/** zeta^BitRev7(1) * 128^-1 mod q: the last inverse layer with the final scaling folded in. */
const ZETA_1_SCALED = (ZETAS[1]! * N_INV_128) % Q;

/**
 * FIPS 203 Algorithm 9, in place, lazy sums (see module comment). Layers go three at a time
 * (len 128+64+32, then 16+8+4: each element is loaded and stored once per three layers, eight
 * elements and seven zetas per step), then len 2 with its 64 groups of two butterflies
 * unrolled. Every element sees the same operations in the same order as the one-layer-at-a-time
 * loop, so the values and bounds are those of Algorithm 9.
 */
export function ntt(f: Int32Array): void {
  for (let len = 128, base = 1; len >= 16; len >>= 3, base <<= 3) {
    const step = len >> 2; // distance between the eight elements of one step
    for (let start = 0, group = 0; start < N; start += 2 * len, group++) {
      const z1 = ZETAS[base + group]!; // layer len
      const z2a = ZETAS[2 * base + 2 * group]!, z2b = ZETAS[2 * base + 2 * group + 1]!; // len/2
      const z3a = ZETAS[4 * base + 4 * group]!, z3b = ZETAS[4 * base + 4 * group + 1]!; // len/4
      const z3c = ZETAS[4 * base + 4 * group + 2]!, z3d = ZETAS[4 * base + 4 * group + 3]!;
      for (let j = start; j < start + step; j++) {
        const x0 = f[j]!, x1 = f[j + step]!, x2 = f[j + 2 * step]!, x3 = f[j + 3 * step]!;
        const x4 = f[j + 4 * step]!, x5 = f[j + 5 * step]!, x6 = f[j + 6 * step]!, x7 = f[j + 7 * step]!;
        let t = ((z1 * x4) % Q) | 0; // | 0: a remainder of -0 would deoptimise to floats
        const y0 = x0 + t, y4 = x0 - t;
        t = ((z1 * x5) % Q) | 0;
        const y1 = x1 + t, y5 = x1 - t;
        t = ((z1 * x6) % Q) | 0;
        const y2 = x2 + t, y6 = x2 - t;
        t = ((z1 * x7) % Q) | 0;
        const y3 = x3 + t, y7 = x3 - t;
        t = ((z2a * y2) % Q) | 0;
        const w0 = y0 + t, w2 = y0 - t;
        t = ((z2a * y3) % Q) | 0;
        const w1 = y1 + t, w3 = y1 - t;
        t = ((z2b * y6) % Q) | 0;
        const w4 = y4 + t, w6 = y4 - t;
        t = ((z2b * y7) % Q) | 0;
        const w5 = y5 + t, w7 = y5 - t;
        t = ((z3a * w1) % Q) | 0;
        f[j] = w0 + t;
        f[j + step] = w0 - t;
        t = ((z3b * w3) % Q) | 0;
        f[j + 2 * step] = w2 + t;
        f[j + 3 * step] = w2 - t;
        t = ((z3c * w5) % Q) | 0;
        f[j + 4 * step] = w4 + t;
        f[j + 5 * step] = w4 - t;
        t = ((z3d * w7) % Q) | 0;
        f[j + 6 * step] = w6 + t;
        f[j + 7 * step] = w6 - t;
      }
    }
  }
  for (let start = 0, k = 64; start < N; start += 4, k++) {
    const zeta = ZETAS[k]!;
    const a = f[start]!, b = f[start + 1]!;
    let t = ((zeta * f[start + 2]!) % Q) | 0;
    f[start] = a + t;
    f[start + 2] = a - t;
    t = ((zeta * f[start + 3]!) % Q) | 0;
    f[start + 1] = b + t;
    f[start + 3] = b - t;
  }
}

/**
 * FIPS 203 Algorithm 10, in place; the result is reduced to (-q, q). Layers three at a time
 * (len 2+4+8, then 16+32+64), then len 128 with the final multiplication by 128^-1 folded into
 * it (its zeta premultiplied): the same residues as Algorithm 10, each in (-q, q). Layer `len`
 * uses zeta index `256/len - 1 - g` for its group `g` (Algorithm 10 counts i down from 127).
 */
export function inverseNtt(f: Int32Array): void {
  for (let len = 2; len <= 16; len <<= 3) {
    const top1 = 256 / len, top2 = 128 / len, top3 = 64 / len; // layers len, 2 len, 4 len
    for (let start = 0, group = 0; start < N; start += 8 * len, group++) {
      const z1a = ZETAS[top1 - 1 - 4 * group]!, z1b = ZETAS[top1 - 2 - 4 * group]!;
      const z1c = ZETAS[top1 - 3 - 4 * group]!, z1d = ZETAS[top1 - 4 - 4 * group]!;
      const z2a = ZETAS[top2 - 1 - 2 * group]!, z2b = ZETAS[top2 - 2 - 2 * group]!;
      const z3 = ZETAS[top3 - 1 - group]!;
      for (let j = start; j < start + len; j++) {
        const x0 = f[j]!, x1 = f[j + len]!, x2 = f[j + 2 * len]!, x3 = f[j + 3 * len]!;
        const x4 = f[j + 4 * len]!, x5 = f[j + 5 * len]!, x6 = f[j + 6 * len]!, x7 = f[j + 7 * len]!;
        const y0 = x0 + x1, y1 = ((z1a * (x1 - x0)) % Q) | 0;
        const y2 = x2 + x3, y3 = ((z1b * (x3 - x2)) % Q) | 0;
        const y4 = x4 + x5, y5 = ((z1c * (x5 - x4)) % Q) | 0;
        const y6 = x6 + x7, y7 = ((z1d * (x7 - x6)) % Q) | 0;
        const w0 = y0 + y2, w2 = ((z2a * (y2 - y0)) % Q) | 0;
        const w1 = y1 + y3, w3 = ((z2a * (y3 - y1)) % Q) | 0;
        const w4 = y4 + y6, w6 = ((z2b * (y6 - y4)) % Q) | 0;
        const w5 = y5 + y7, w7 = ((z2b * (y7 - y5)) % Q) | 0;
        f[j] = w0 + w4;
        f[j + 4 * len] = ((z3 * (w4 - w0)) % Q) | 0;
        f[j + len] = w1 + w5;
        f[j + 5 * len] = ((z3 * (w5 - w1)) % Q) | 0;
        f[j + 2 * len] = w2 + w6;
        f[j + 6 * len] = ((z3 * (w6 - w2)) % Q) | 0;
        f[j + 3 * len] = w3 + w7;
        f[j + 7 * len] = ((z3 * (w7 - w3)) % Q) | 0;
      }
    }
  }
  for (let j = 0; j < 128; j++) {
    const t = f[j]!, b = f[j + 128]!;
    f[j] = (((t + b) * N_INV_128) % Q) | 0;
    f[j + 128] = ((ZETA_1_SCALED * (b - t)) % Q) | 0;
  }
}

/**
 * A vector of 3 polynomials in the NTT domain, prepared for {@link baseMultiplySum}: the
 * coefficients in [0, q), and each odd coefficient premultiplied by its pair's gamma
 * (`b_{2i+1} * gamma_i mod q`, FIPS 203 Algorithm 12), so the per-call base multiplication
 * needs no multiplication by gamma and no intermediate reduction.
 */
export type PreparedVector = { coefficients: Int32Array; oddTimesGamma: Int32Array };

/** Prepare 3 polynomials of 256 coefficients in [0, q) (NTT domain) for {@link baseMultiplySum}. */
export function prepareVector(coefficients: Int32Array): PreparedVector {
  const oddTimesGamma = new Int32Array((K * N) / 2);
  for (let i = 0; i < (K * N) / 2; i++) oddTimesGamma[i] = (coefficients[2 * i + 1]! * GAMMAS[i & 127]!) % Q;
  return { coefficients, oddTimesGamma };
}

/** ByteDecode_12 of 1152 bytes (`dk_pke`, or the `t_hat` part of `ek`), reduced mod q. */
export function decodeVector12(bytes: Uint8Array): Int32Array {
  const coefficients = new Int32Array(K * N);
  for (let i = 0, j = 0; i < K * N; i += 2, j += 3) {
    const b0 = bytes[j]!;
    const b1 = bytes[j + 1]!;
    const b2 = bytes[j + 2]!;
    coefficients[i] = (b0 | ((b1 & 0x0f) << 8)) % Q;
    coefficients[i + 1] = ((b1 >> 4) | (b2 << 4)) % Q;
  }
  return coefficients;
}

/** A decryption key prepared once: `s_hat` decoded and prepared for the base multiplication. */
export type DecryptionKey = { sHat: PreparedVector };

/** ByteDecode_12 of `dk_pke` (1152 bytes), reduced mod q, prepared for the base multiplication. */
export function prepareDecryptionKey(dkPke: Uint8Array): DecryptionKey {
  return { sHat: prepareVector(decodeVector12(dkPke)) };
}

/** Reusable buffers of one decryptor (not shared between concurrent callers). */
export type Decryptor = (ciphertext: Uint8Array, out: Uint8Array) => void;

/**
 * Build a decryptor writing `m'` of the 1088-byte ciphertext at `offset` in `c` (default 0)
 * into `lanes` as 4 bit-interleaved 64-bit lanes (8 words: bit-interleave.ts), ready for the
 * Keccak block that hashes it (keccak-block.ts).
 */
export function createInterleavedDecryptor({ sHat }: DecryptionKey): (c: Uint8Array, lanes: Int32Array, offset?: number) => void {
  const u0 = new Int32Array(N);
  const u1 = new Int32Array(N);
  const u2 = new Int32Array(N);
  const acc = new Int32Array(N);
  return (c, lanes, offset = 0) => {
    decodeDecompress10(c, offset, u0);
    decodeDecompress10(c, offset + 320, u1);
    decodeDecompress10(c, offset + 640, u2);
    ntt(u0);
    ntt(u1);
    ntt(u2);
    baseMultiplySum(u0, u1, u2, sHat, acc);
    inverseNtt(acc);
    compressMessage(c, offset + C1_BYTES, acc, lanes);
  };
}

/** Build a decryptor writing the 32-byte `m'` of a 1088-byte ciphertext into `out`. */
export function createDecryptor(key: DecryptionKey): Decryptor {
  const decrypt = createInterleavedDecryptor(key);
  const lanes = new Int32Array(8);
  return (c, out) => {
    decrypt(c, lanes);
    deinterleaveToBytes(lanes, 4, out);
  };
}

/** ByteDecode_10 then Decompress_10 of one polynomial (320 bytes: 4 coefficients per 5 bytes). */
function decodeDecompress10(c: Uint8Array, offset: number, u: Int32Array): void {
  for (let i = 0, j = offset; i < N; i += 4, j += 5) {
    const b0 = c[j]!, b1 = c[j + 1]!, b2 = c[j + 2]!, b3 = c[j + 3]!, b4 = c[j + 4]!;
    u[i] = ((b0 | ((b1 & 0x03) << 8)) * Q + 512) >> 10;
    u[i + 1] = (((b1 >> 2) | ((b2 & 0x0f) << 6)) * Q + 512) >> 10;
    u[i + 2] = (((b2 >> 4) | ((b3 & 0x3f) << 4)) * Q + 512) >> 10;
    u[i + 3] = (((b3 >> 6) | (b4 << 2)) * Q + 512) >> 10;
  }
}

/**
 * acc = sum_i s_hat[i] ∘ NTT(u[i]) (FIPS 203 Algorithms 11/12), reduced once per coefficient:
 * with the odd coefficients of `s_hat` premultiplied by gamma ({@link prepareVector}), each
 * output coefficient is a sum of six products. Bounds: |NTT(u)| < 8q and the prepared values
 * are in [0, q), so each product is < 8q^2 ≈ 8.9e7 and the sum of six stays below 5.4e8 < 2^30
 * (a small integer for V8 even where those are 31 bits, as in Chromium).
 * K-PKE encryption (k-pke-encrypt.ts) calls it with `y_hat` as `u` and the matrix or `t_hat` as
 * `s_hat`: the same bounds hold (`|y_hat| < 8q`, matrix and `t_hat` in [0, q)).
 */
export function baseMultiplySum(u0: Int32Array, u1: Int32Array, u2: Int32Array, sHat: PreparedVector, acc: Int32Array): void {
  const b = sHat.coefficients;
  const g = sHat.oddTimesGamma;
  for (let i = 0, h = 0; i < N; i += 2, h++) {
    const a00 = u0[i]!, a01 = u0[i + 1]!, a10 = u1[i]!, a11 = u1[i + 1]!, a20 = u2[i]!, a21 = u2[i + 1]!;
    const b00 = b[i]!, b01 = b[i + 1]!, b10 = b[N + i]!, b11 = b[N + i + 1]!, b20 = b[2 * N + i]!, b21 = b[2 * N + i + 1]!;
    const g0 = g[h]!, g1 = g[128 + h]!, g2 = g[256 + h]!;
    acc[i] = ((a00 * b00 + a01 * g0 + a10 * b10 + a11 * g1 + a20 * b20 + a21 * g2) % Q) | 0;
    acc[i + 1] = ((a00 * b01 + a01 * b00 + a10 * b11 + a11 * b10 + a20 * b21 + a21 * b20) % Q) | 0;
  }
}

/**
 * w = v - acc, then Compress_1 and ByteEncode_1, as 4 bit-interleaved lanes: bit `i` of lane
 * `L`'s even word is message bit `64L + 2i`, of its odd word bit `64L + 2i + 1`. `v` =
 * Decompress_4 of c2 (the 128 bytes of c at `c2`, two coefficients per byte, low nibble first),
 * so each byte of c2 gives one even and one odd bit.
 * Compress_1(w) = round(2w/q) mod 2 is 1 exactly when q/4 < w < 3q/4, i.e. 833 <= w <= 2496
 * for w in [0, q). Here v is in [0, q] and acc in (-q, q), so w = v - acc lies in (-q, 2q):
 * adding q when negative and subtracting q when >= q (branch-free, sign masks) gives w mod q
 * without a division; the range test is two sign bits ({@link messageBit}).
 */
function compressMessage(c: Uint8Array, c2: number, acc: Int32Array, lanes: Int32Array): void {
  for (let word = 0, idx = 0, src = c2; word < 8; word += 2) {
    let even = 0, odd = 0;
    for (let bit = 0; bit < 32; bit++, idx += 2, src++) {
      const packed = c[src]!;
      even |= messageBit((((packed & 0x0f) * Q + 8) >> 4) - acc[idx]!) << bit;
      odd |= messageBit((((packed >> 4) * Q + 8) >> 4) - acc[idx + 1]!) << bit;
    }
    lanes[word] = even;
    lanes[word + 1] = odd;
  }
}

/**
 * Compress_1 of w in (-q, 2q): 1 when w mod q is in [833, 2496]. With x = (w mod q) - 833, that
 * is 0 <= x < 1664: exactly then x and x - 1664 differ in sign, so the XOR of their sign bits is
 * the answer, with no comparison (twice as fast in V8 as `(x >>> 0) <= 1663`; a test checks
 * every w in the range).
 */
export function messageBit(w: number): number {
  w += (w >> 31) & Q; // [0, 2q)
  w -= Q & ~((w - Q) >> 31); // [0, q)
  const x = w - 833;
  return ((x >> 31) ^ ((x - 1664) >> 31)) & 1;
}
