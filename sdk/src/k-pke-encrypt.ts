/**
 * K-PKE encryption for ML-KEM-768 (FIPS 203 Algorithm 14) with a prepared public key, for the
 * scanner's re-encryption check (PROTOCOL.md section 5 step 3, k-pke-reencryption-check.ts).
 *
 * Per key, once ({@link prepareEncryptionKey}): `t_hat = ByteDecode_12(ek[0..1152])` and the
 * transposed matrix `A_hat^T`, sampled from `rho = ek[1152..1184]` (Algorithm 14 lines 4–8:
 * `A_hat[i][j] = SampleNTT(rho || j || i)`, so `A_hat^T[i][j] = SampleNTT(rho || i || j)`).
 * Per call, with reused buffers ({@link createEncryptor}):
 *
 *     y[i] = CBD_2(PRF(r, i)), e1[i] = CBD_2(PRF(r, 3 + i)), e2 = CBD_2(PRF(r, 6))   (eta1 = eta2 = 2)
 *     u[i] = NTT^-1( sum_j A_hat^T[i][j] ∘ NTT(y[j]) ) + e1[i]
 *     v    = NTT^-1( sum_j t_hat[j] ∘ NTT(y[j]) ) + e2 + Decompress_1(m)
 *     c    = ByteEncode_10(Compress_10(u)) || ByteEncode_4(Compress_4(v))
 *
 * with PRF(r, N) = SHAKE256(r || N) (128 bytes, one Keccak permutation) and the XOF of SampleNTT
 * SHAKE128, both on one reused Keccak state (little-endian hosts, as keccak-block.ts).
 *
 * Lazy reduction (the NTT and base multiplication of k-pke-decrypt.ts): `y` has coefficients in
 * [-2, 2], so after the 7 NTT layers `|y_hat| < 2 + 7q < 8q`, the bound those routines are
 * argued for; the matrix and `t_hat` lie in [0, q). The inverse NTT returns (-q, q); adding the
 * noise (|e| <= 2) and `mu` (0 or 1665) keeps every value in (-q - 2, 2q + 1667), mapped to
 * [0, q) by one `%` and a conditional add before compressing.
 * Tests compare the ciphertexts with @noble/post-quantum's encapsulation byte for byte.
 * @module
 */
import { keccakF1600 } from './keccak-f1600.ts';
import { baseMultiplySum, decodeVector12, inverseNtt, ntt, prepareVector, type PreparedVector } from './k-pke-decrypt.ts';

const N = 256;
const K = 3; // ML-KEM-768 module rank
const Q = 3329; // 13*2^8 + 1
const T_HAT_BYTES = 1152; // ByteEncode_12(t_hat), 3 x 384
const RHO_BYTES = 32;
const C1_BYTES = 960; // ByteEncode_10 of 3 polynomials
/** Ciphertext length of ML-KEM-768: 960 + 128. */
export const CIPHERTEXT_BYTES = 1088;
const SHAKE128_RATE = 168;
const SHAKE256_RATE = 136;
const PRF_BYTES = 128; // 64 * eta with eta = 2

/** A public key prepared once: `t_hat` and the rows of `A_hat^T`, coefficients in [0, q). */
export type EncryptionKey = {
  /** 3 polynomials of 256 coefficients. */
  tHat: PreparedVector;
  /** Row `i` (3 polynomials, 768 coefficients) is `A_hat^T[i]`. */
  aHatT: [PreparedVector, PreparedVector, PreparedVector];
};

/** One Keccak-f[1600] state reused by every sponge below (one block in, up to one block out). */
type Sponge = { state: Uint32Array; bytes: Uint8Array };

function createSponge(): Sponge {
  const state = new Uint32Array(50);
  return { state, bytes: new Uint8Array(state.buffer) };
}

/**
 * FIPS 203 Algorithm 7 (SampleNTT) on SHAKE128(rho || a || b): rejection sampling of 12-bit
 * values below q, three bytes giving two candidates; squeezes further blocks as needed.
 */
function sampleNtt({ state, bytes }: Sponge, rho: Uint8Array, a: number, b: number, out: Int32Array): void {
  state.fill(0);
  bytes.set(rho, 0);
  bytes[RHO_BYTES] = a;
  bytes[RHO_BYTES + 1] = b;
  bytes[RHO_BYTES + 2] = 0x1f; // SHAKE domain bits 1111 + first pad bit (FIPS 202 section 5.1)
  bytes[SHAKE128_RATE - 1] = 0x80;
  keccakF1600(state);
  let pos = 0;
  for (let j = 0; j < N; ) {
    if (pos === SHAKE128_RATE) {
      keccakF1600(state); // the rate (168) is a multiple of 3, so no triple straddles blocks
      pos = 0;
    }
    const c0 = bytes[pos]!, c1 = bytes[pos + 1]!, c2 = bytes[pos + 2]!;
    pos += 3;
    const d1 = c0 | ((c1 & 0x0f) << 8);
    const d2 = (c1 >> 4) | (c2 << 4);
    if (d1 < Q) out[j++] = d1;
    if (d2 < Q && j < N) out[j++] = d2;
  }
}

/** Prepare `ek` (1184 bytes, already checked by the caller: FIPS 203 section 7.2) for encryption. */
export function prepareEncryptionKey(ek: Uint8Array): EncryptionKey {
  const sponge = createSponge();
  const rho = ek.subarray(T_HAT_BYTES, T_HAT_BYTES + RHO_BYTES);
  const rows = [0, 1, 2].map((i) => {
    const row = new Int32Array(K * N);
    for (let j = 0; j < K; j++) sampleNtt(sponge, rho, i, j, row.subarray(j * N, (j + 1) * N));
    return row;
  });
  return {
    tHat: prepareVector(decodeVector12(ek.subarray(0, T_HAT_BYTES))),
    aHatT: [prepareVector(rows[0]!), prepareVector(rows[1]!), prepareVector(rows[2]!)],
  };
}

/** Writes the 1088-byte `Encrypt(ek, m, r)` of a 32-byte message `m` and 32-byte randomness `r` to `out`. */
export type Encryptor = (message: Uint8Array, randomness: Uint8Array, out: Uint8Array) => void;

/** Build an encryptor with reusable buffers (not shared between concurrent callers). */
export function createEncryptor({ tHat, aHatT }: EncryptionKey): Encryptor {
  const sponge = createSponge();
  const y0 = new Int32Array(N);
  const y1 = new Int32Array(N);
  const y2 = new Int32Array(N);
  const acc = new Int32Array(N);
  const ys = [y0, y1, y2];

  /** PRF_2(r, n) = SHAKE256(r || n)[0..128] (FIPS 203 section 4.1), left in `sponge.bytes`. */
  const prf = (r: Uint8Array, n: number) => {
    const { state, bytes } = sponge;
    state.fill(0);
    bytes.set(r, 0);
    bytes[32] = n;
    bytes[33] = 0x1f;
    bytes[SHAKE256_RATE - 1] = 0x80;
    keccakF1600(state);
    return bytes; // first PRF_BYTES bytes
  };

  return (m, r, out) => {
    for (let i = 0; i < K; i++) {
      const y = ys[i]!;
      cbd2(prf(r, i), y, false);
      ntt(y);
    }
    for (let i = 0; i < K; i++) {
      baseMultiplySum(y0, y1, y2, aHatT[i]!, acc);
      inverseNtt(acc);
      cbd2(prf(r, K + i), acc, true); // + e1[i]
      compressEncode10(acc, out, 320 * i);
    }
    baseMultiplySum(y0, y1, y2, tHat, acc);
    inverseNtt(acc);
    cbd2(prf(r, 2 * K), acc, true); // + e2
    compressEncode4(acc, m, out);
  };
}

/**
 * FIPS 203 Algorithm 8 with eta = 2: coefficient `i` is `b[4i] + b[4i+1] - b[4i+2] - b[4i+3]`
 * over the bits of the 128 PRF bytes, in [-2, 2] (not reduced: the NTT bounds allow it).
 * With `add`, the noise is added to `f` instead of overwriting it.
 */
function cbd2(src: Uint8Array, f: Int32Array, add: boolean): void {
  for (let i = 0, j = 0; i < PRF_BYTES; i++, j += 2) {
    const b = src[i]!;
    const lo = (b & 1) + ((b >> 1) & 1) - ((b >> 2) & 1) - ((b >> 3) & 1);
    const hi = ((b >> 4) & 1) + ((b >> 5) & 1) - ((b >> 6) & 1) - ((b >> 7) & 1);
    if (add) {
      f[j] = f[j]! + lo;
      f[j + 1] = f[j + 1]! + hi;
    } else {
      f[j] = lo;
      f[j + 1] = hi;
    }
  }
}

/** `x mod q` in [0, q) for |x| < 2^31 (the `| 0` keeps -0 out: see k-pke-decrypt.ts). */
function reduce(x: number): number {
  const r = (x % Q) | 0;
  return r < 0 ? r + Q : r;
}

/**
 * Compress_d(x) = round(2^d x / q) mod 2^d for x in [0, q). q is odd, so 2^d x / q is never a
 * half-integer and rounding is `floor((2^d x + (q - 1) / 2) / q)`; the quotient is an exact
 * small integer, so float division then `| 0` is exact.
 */
function compressEncode10(u: Int32Array, out: Uint8Array, offset: number): void {
  for (let i = 0, j = offset; i < N; i += 4, j += 5) {
    const a0 = ((((reduce(u[i]!) << 10) + 1664) / Q) | 0) & 0x3ff;
    const a1 = ((((reduce(u[i + 1]!) << 10) + 1664) / Q) | 0) & 0x3ff;
    const a2 = ((((reduce(u[i + 2]!) << 10) + 1664) / Q) | 0) & 0x3ff;
    const a3 = ((((reduce(u[i + 3]!) << 10) + 1664) / Q) | 0) & 0x3ff;
    out[j] = a0; // Uint8Array stores keep the low 8 bits
    out[j + 1] = (a0 >> 8) | (a1 << 2);
    out[j + 2] = (a1 >> 6) | (a2 << 4);
    out[j + 3] = (a2 >> 4) | (a3 << 6);
    out[j + 4] = a3 >> 2;
  }
}

/** v + Decompress_1(m) (bit * 1665 = round(q/2)), then Compress_4 and ByteEncode_4 (low nibble first). */
function compressEncode4(v: Int32Array, m: Uint8Array, out: Uint8Array): void {
  for (let i = 0, j = C1_BYTES; i < N; i += 2, j++) {
    const bits = m[i >> 3]! >> (i & 7);
    const a0 = ((((reduce(v[i]! + (bits & 1) * 1665) << 4) + 1664) / Q) | 0) & 0x0f;
    const a1 = ((((reduce(v[i + 1]! + ((bits >> 1) & 1) * 1665) << 4) + 1664) / Q) | 0) & 0x0f;
    out[j] = a0 | (a1 << 4);
  }
}
