// @ts-nocheck AssemblyScript (compiled by sdk/scripts/build-wasm.mjs), not part of the SDK's TypeScript program.
/**
 * Static memory map of the scan kernel. Nothing is allocated at run time: every buffer has a
 * fixed address, so pointer arithmetic folds into load/store immediates and the module needs
 * no allocator (`--runtime stub`, 15 pages, no growth: ML-KEM in the first 3, the secp256k1
 * batch and ERC-8441's combiner after them).
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
/** End of the ML-KEM part: must stay below EC_BASE (196608, 3 pages; build-wasm.mjs checks it). */
export const MEMORY_END: usize = OUT_TAGS + <usize>MAX_BATCH; // 137280

/*
 * secp256k1 batch ECDH (assembly/secp256k1.ts), pages 3 and up. A field element is ten u64
 * limbs (80 bytes); each per-lane array holds EC_MAX_BATCH elements, lane i at + 80i.
 */
/** Announcements per `ecdhBatch` call (lanes in lockstep: one inversion per step for all). */
export const EC_MAX_BATCH: i32 = 256;
export const FE_BYTES: usize = 80;
const EC_ARRAY: usize = <usize>EC_MAX_BATCH * FE_BYTES; // 20480
export const EC_BASE: usize = 196608;
/** x-coordinates of the ephemeral keys, 32 bytes big-endian each, written by the host (each < p). */
export const EC_INPUT: usize = EC_BASE;
/** ECDH(k, P).x, 32 bytes big-endian each. */
export const EC_OUTPUT: usize = EC_INPUT + <usize>EC_MAX_BATCH * 32;
/** Per lane: 0 computed, 1 not on the curve (x^3 + 7 is not a square), 2 exceptional (the host recomputes it). */
export const EC_STATUS: usize = EC_OUTPUT + <usize>EC_MAX_BATCH * 32;
/** The scalar's operation sequence, written by the host (see secp256k1.ts), up to EC_PROGRAM_MAX bytes. */
export const EC_PROGRAM: usize = EC_STATUS + <usize>EC_MAX_BATCH;
export const EC_PROGRAM_MAX: i32 = 1024;
/** Scratch field elements and constants, 32 x 80 bytes. */
export const EC_TEMP: usize = EC_PROGRAM + <usize>EC_PROGRAM_MAX;
export const ACC_X: usize = EC_TEMP + 32 * FE_BYTES;
export const ACC_Y: usize = ACC_X + EC_ARRAY;
/** x^3 + 7 per lane: the twist factor (see secp256k1.ts). */
export const TWIST: usize = ACC_Y + EC_ARRAY;
/** Denominators of the current step, and their prefix products (Montgomery's trick). */
export const DENOMINATORS: usize = TWIST + EC_ARRAY;
export const PREFIX: usize = DENOMINATORS + EC_ARRAY;
/** Odd multiples 1P, 3P, ..., 15P (x, y), and beta * x of each (the endomorphism's images). */
export const TABLE_X: usize = PREFIX + EC_ARRAY;
export const TABLE_Y: usize = TABLE_X + 8 * EC_ARRAY;
export const TABLE_LX: usize = TABLE_Y + 8 * EC_ARRAY;
/**
 * ERC-8441's hybrid combiner input of up to COMBINE_MAX_BATCH announcements, one padded
 * SHA3-256 message each (DS || ss_ec || ss_pq || epk || ct || viewing_pk_ec || ek, 2430 bytes,
 * padded to 18 blocks of 136), written by the host; their digests after them.
 */
export const COMBINE_MAX_BATCH: i32 = 64;
export const COMBINE_STRIDE: usize = 2448;
export const COMBINE_BLOCKS: i32 = 18;
export const COMBINE_INPUT: usize = TABLE_LX + 8 * EC_ARRAY; // 810752
export const COMBINE_OUTPUT: usize = COMBINE_INPUT + <usize>COMBINE_MAX_BATCH * COMBINE_STRIDE;
/** The view tags `SHA256("pq-stealth/view-tag/v1" || ss)[0]` of the digests at COMBINE_OUTPUT. */
export const COMBINE_TAGS: usize = COMBINE_OUTPUT + <usize>COMBINE_MAX_BATCH * 32;
/** SHA-256's 64 round constants, its message schedule and its one padded block (assembly/sha256.ts). */
export const SHA256_K: usize = COMBINE_TAGS + <usize>COMBINE_MAX_BATCH; // 256 bytes
export const SHA256_W: usize = SHA256_K + 256; // 256 bytes
export const SHA256_BLOCK: usize = SHA256_W + 256; // 64 bytes
export const EC_END: usize = SHA256_BLOCK + 64; // 970112: within the 15 pages (983040) set in build-wasm.mjs
