/**
 * K-PKE decryption for ML-KEM-768 (FIPS 203 Algorithm 15), specialised for scanning.
 *
 * Scanning computes, for every announcement, only `m' = Decrypt(dk_pke, c)`:
 *
 *     u = Decompress_10(ByteDecode_10(c1)),  v = Decompress_4(ByteDecode_4(c2))
 *     w = v - NTT^-1( sum_i s_hat[i] ∘ NTT(u[i]) )
 *     m' = ByteEncode_1(Compress_1(w))
 *
 * The secret `s_hat` is decoded once per key ({@link prepareDecryptionKey}); per call, buffers
 * are reused, so decryption allocates nothing.
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
 * FIPS 203 Algorithm 9, in place, lazy sums (see module comment). Layers go two at a time
 * (len 128+64, 32+16, 8+4: each element is loaded and stored once per pair), then len 2 with
 * its 64 groups of two butterflies unrolled. Every element sees the same operations in the same
 * order as the one-layer-at-a-time loop, so the values and bounds are those of Algorithm 9.
 */
export function ntt(f: Int32Array): void {
  for (let len = 128, base = 1; len >= 8; len >>= 2, base <<= 2) {
    const half = len >> 1;
    for (let start = 0, group = 0; start < N; start += 2 * len, group++) {
      const zeta = ZETAS[base + group]!; // layer len
      const zetaLow = ZETAS[2 * base + 2 * group]!; // layer len/2, first half
      const zetaHigh = ZETAS[2 * base + 2 * group + 1]!; // layer len/2, second half
      for (let j = start; j < start + half; j++) {
        const a = f[j]!, b = f[j + half]!, c = f[j + len]!, d = f[j + len + half]!;
        let t = ((zeta * c) % Q) | 0; // | 0: a remainder of -0 would deoptimise to floats
        const c1 = a - t, a1 = a + t;
        t = ((zeta * d) % Q) | 0;
        const d1 = b - t, b1 = b + t;
        t = ((zetaLow * b1) % Q) | 0;
        f[j] = a1 + t;
        f[j + half] = a1 - t;
        t = ((zetaHigh * d1) % Q) | 0;
        f[j + len] = c1 + t;
        f[j + len + half] = c1 - t;
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
 * FIPS 203 Algorithm 10, in place; the result is reduced to (-q, q). Layers two at a time
 * (len 2+4, 8+16, 32+64), then len 128 with the final multiplication by 128^-1 folded into it
 * (its zeta premultiplied): the same residues as Algorithm 10, each in (-q, q).
 */
export function inverseNtt(f: Int32Array): void {
  for (let len = 2, top = 128; len <= 32; len <<= 2, top >>= 2) {
    for (let start = 0, group = 0; start < N; start += 4 * len, group++) {
      const zetaLow = ZETAS[top - 1 - 2 * group]!; // layer len, first group
      const zetaHigh = ZETAS[top - 2 - 2 * group]!; // layer len, second group
      const zeta = ZETAS[(top >> 1) - 1 - group]!; // layer 2 * len
      for (let j = start; j < start + len; j++) {
        const a = f[j]!, b = f[j + len]!, c = f[j + 2 * len]!, d = f[j + 3 * len]!;
        const a1 = a + b, b1 = ((zetaLow * (b - a)) % Q) | 0;
        const c1 = c + d, d1 = ((zetaHigh * (d - c)) % Q) | 0;
        f[j] = a1 + c1;
        f[j + 2 * len] = ((zeta * (c1 - a1)) % Q) | 0;
        f[j + len] = b1 + d1;
        f[j + 3 * len] = ((zeta * (d1 - b1)) % Q) | 0;
      }
    }
  }
  for (let j = 0; j < 128; j++) {
    const t = f[j]!, b = f[j + 128]!;
    f[j] = (((t + b) * N_INV_128) % Q) | 0;
    f[j + 128] = ((ZETA_1_SCALED * (b - t)) % Q) | 0;
  }
}

/** A decryption key prepared once: `s_hat` as 3 polynomials of 256 coefficients in [0, q). */
export type DecryptionKey = { sHat: Int32Array };

/** ByteDecode_12 of `dk_pke` (1152 bytes), reduced mod q. */
export function prepareDecryptionKey(dkPke: Uint8Array): DecryptionKey {
  const sHat = new Int32Array(K * N);
  for (let i = 0, j = 0; i < K * N; i += 2, j += 3) {
    const b0 = dkPke[j]!;
    const b1 = dkPke[j + 1]!;
    const b2 = dkPke[j + 2]!;
    sHat[i] = (b0 | ((b1 & 0x0f) << 8)) % Q;
    sHat[i + 1] = ((b1 >> 4) | (b2 << 4)) % Q;
  }
  return { sHat };
}

/** Reusable buffers of one decryptor (not shared between concurrent callers). */
export type Decryptor = (ciphertext: Uint8Array, out: Uint8Array) => void;

/** Build a decryptor writing the 32-byte `m'` of a 1088-byte ciphertext into `out`. */
export function createDecryptor({ sHat }: DecryptionKey): Decryptor {
  const u0 = new Int32Array(N);
  const u1 = new Int32Array(N);
  const u2 = new Int32Array(N);
  const acc = new Int32Array(N);
  return (c, out) => {
    decodeDecompress10(c, 0, u0);
    decodeDecompress10(c, 320, u1);
    decodeDecompress10(c, 640, u2);
    ntt(u0);
    ntt(u1);
    ntt(u2);
    baseMultiplySum(u0, u1, u2, sHat, acc);
    inverseNtt(acc);
    compressMessage(c, acc, out);
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
 * acc = sum_i s_hat[i] ∘ NTT(u[i]) (FIPS 203 Algorithms 11/12), reduced once per coefficient.
 * Bounds: |NTT(u)| < 8q and s_hat in [0, q), so each product is < 8q^2 ≈ 8.9e7 and the sum of
 * three terms (each `a1*b1` reduced before multiplying by gamma < q) stays below 3e8 < 2^31.
 * K-PKE encryption (k-pke-encrypt.ts) calls it with `y_hat` as `u` and the matrix or `t_hat` as
 * `s_hat`: the same bounds hold (`|y_hat| < 8q`, matrix and `t_hat` in [0, q)).
 */
export function baseMultiplySum(u0: Int32Array, u1: Int32Array, u2: Int32Array, sHat: Int32Array, acc: Int32Array): void {
  for (let i = 0; i < N; i += 2) {
    const gamma = GAMMAS[i >> 1]!;
    const a00 = u0[i]!, a01 = u0[i + 1]!, a10 = u1[i]!, a11 = u1[i + 1]!, a20 = u2[i]!, a21 = u2[i + 1]!;
    const b00 = sHat[i]!, b01 = sHat[i + 1]!, b10 = sHat[N + i]!, b11 = sHat[N + i + 1]!, b20 = sHat[2 * N + i]!, b21 = sHat[2 * N + i + 1]!;
    const odd = (((a01 * b01) % Q) | 0) + (((a11 * b11) % Q) | 0) + (((a21 * b21) % Q) | 0); // < 3q
    acc[i] = ((a00 * b00 + a10 * b10 + a20 * b20 + ((odd % Q) | 0) * gamma) % Q) | 0;
    acc[i + 1] = ((a00 * b01 + a01 * b00 + a10 * b11 + a11 * b10 + a20 * b21 + a21 * b20) % Q) | 0;
  }
}

/**
 * w = v - acc, then Compress_1 and ByteEncode_1 into 32 bytes. `v` = Decompress_4 of c2
 * (the last 128 bytes of c, two coefficients per byte, low nibble first).
 * Compress_1(w) = round(2w/q) mod 2 is 1 exactly when q/4 < w < 3q/4, i.e. 833 <= w <= 2496
 * for w in [0, q). Here v is in [0, q] and acc in (-q, q), so w = v - acc lies in (-q, 2q):
 * adding q when negative and subtracting q when >= q (branch-free, sign masks) gives w mod q
 * without a division; `(w - 833) >>> 0 <= 1663` is the range test in one unsigned comparison.
 */
function compressMessage(c: Uint8Array, acc: Int32Array, out: Uint8Array): void {
  for (let byte = 0, idx = 0, src = C1_BYTES; byte < 32; byte++) {
    let bits = 0;
    for (let bit = 0; bit < 8; bit += 2, idx += 2, src++) {
      const packed = c[src]!;
      bits |= messageBit((((packed & 0x0f) * Q + 8) >> 4) - acc[idx]!) << bit;
      bits |= messageBit((((packed >> 4) * Q + 8) >> 4) - acc[idx + 1]!) << (bit + 1);
    }
    out[byte] = bits;
  }
}

/** Compress_1 of w in (-q, 2q): 1 when w mod q is in [833, 2496]. */
function messageBit(w: number): number {
  w += (w >> 31) & Q; // [0, 2q)
  w -= Q & ~((w - Q) >> 31); // [0, q)
  return (w - 833) >>> 0 <= 1663 ? 1 : 0;
}
