// @ts-nocheck AssemblyScript (compiled by sdk/scripts/build-wasm.mjs), not part of the SDK's TypeScript program.
/**
 * Static memory map of the scan kernel. Nothing is allocated at run time: every buffer has a
 * fixed address, so pointer arithmetic folds into load/store immediates and the module needs
 * no allocator (`--runtime stub`, 3 pages, no growth).
 *
 * Lane layout ("SIMD across announcements"): a group of 8 announcements is processed at once;
 * coefficient `j` of polynomial `k` of announcement `a` is the i16 at
 * `POLY + k*POLY_BYTES + j*16 + 2a`, so one v128 holds the same coefficient of 8 announcements
 * and the scalar algorithm maps 1:1 to i16x8 operations, with no shuffles in the NTTs.
 */

/** Announcements per SIMD group (i16x8 lanes). */
export const LANES: i32 = 8;
/** Ciphertexts per call of `candidates` / `decrypt`; the host splits longer batches. */
export const MAX_BATCH: i32 = 64;
export const CIPHERTEXT_BYTES: usize = 1088; // c1 (3 x 320) || c2 (128), FIPS 203 with d_u = 10, d_v = 4
export const C2_OFFSET: usize = 960;
export const SECRET_BYTES: usize = 32;

/**
 * Constants are stored pre-splatted (each i16 value repeated in all 8 lanes, 16 bytes), so the
 * hot loops read them with plain v128 loads.
 */
/** 128 x (zeta, twist(zeta)), zeta = 17^BitRev7(i) centred mod q: 32 bytes each. */
export const ZETAS: usize = 1024; // 4096 bytes
/** Constants of the merged last inverse-NTT layer: (f, f'), (zeta_1 f, (zeta_1 f)') with f = 128^-1. */
export const INV_LAST: usize = 5120; // 64 bytes
/** Keccak-f[1600] round constants, 24 x u64. */
export const ROUND_CONSTANTS: usize = 5248; // 192 bytes
/** dk_pke (1152 bytes), written by the host before `prepareKey`. */
export const DK_PKE: usize = 5632;
/** H(ek) (32 bytes), written by the host before `prepareKey`. */
export const EK_HASH: usize = 6784;
/** m' of the 8 announcements of the current group, 32 bytes each. */
export const MESSAGES: usize = 6912; // 256 bytes
/** Two Keccak states, 25 x i64x2. */
export const STATE: usize = 7168; // 400 bytes
/** Scratch block of 8 v128 for transposes. */
export const SCRATCH: usize = 7680; // 128 bytes
/** Three polynomials in lane layout (256 coefficients x 16 bytes each). */
export const POLY: usize = 8192; // 3 x 4096 bytes
export const POLY_BYTES: usize = 4096;
/**
 * Per pair p (0..127), per polynomial k (0..2), at KEY + 288p + 96k: b0, b0', b1, b1',
 * b1*gamma_p, (b1*gamma_p)' (16 bytes each).
 */
export const KEY: usize = 20480; // 36864 bytes
/** Up to MAX_BATCH ciphertexts back to back, written by the host. */
export const INPUT: usize = 65536;
/** Outputs: 32 bytes per ciphertext (K', or m' for `decrypt`), then one view tag byte each. */
export const OUT_SECRETS: usize = INPUT + <usize>MAX_BATCH * CIPHERTEXT_BYTES; // 135168
export const OUT_TAGS: usize = OUT_SECRETS + <usize>MAX_BATCH * SECRET_BYTES; // 137216
/** End of the used memory: must stay within the 3 pages (196608 bytes) set in build-wasm.mjs. */
export const MEMORY_END: usize = OUT_TAGS + <usize>MAX_BATCH; // 137280
