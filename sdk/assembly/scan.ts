// @ts-nocheck AssemblyScript (compiled by sdk/scripts/build-wasm.mjs), not part of the SDK's TypeScript program.
/**
 * WebAssembly SIMD scan kernel (PROTOCOL.md section 5, "a fast scanner may ..."): per
 * announcement, K-PKE decryption m' = Decrypt(dk_pke, c), then K' = SHA3-512(m' || H(ek))[0..32]
 * and its view tag. The re-encryption check after a tag match stays on the host
 * (src/scan-kernel-wasm.ts), as in the TypeScript kernel.
 *
 * Host protocol (addresses are the exported globals, see layout.ts):
 * 1. once per key: write dk_pke to DK_PKE and H(ek) to EK_HASH, call `prepareKey()`;
 * 2. per batch: write `count` <= MAX_BATCH ciphertexts to INPUT (1088 bytes apart), call
 *    `candidates(count)`: K' of ciphertext i at OUT_SECRETS + 32i, its view tag at OUT_TAGS + i.
 *    `decrypt(count)` writes m' instead of K' (tests).
 * Announcements go through in SIMD groups of 8; a last, partial group computes the unused
 * lanes from whatever the input slots hold and discards them.
 *
 * ERC-8441 (scheme 3) adds `ecdhBatch(count, programLength)`: ECDH.x of up to EC_MAX_BATCH
 * ephemeral keys under one scalar (assembly/secp256k1.ts, protocol there), and `combine(count)`:
 * the hybrid combiner's SHA3-256 over messages the host lays out at COMBINE_INPUT.
 */
import { initRoundConstants, secretsAndViewTags, sha3_256Padded } from './keccak';
import { decryptGroup, initZetas, prepareSecret } from './k-pke';
import { CIPHERTEXT_BYTES, COMBINE_BLOCKS, COMBINE_INPUT, COMBINE_MAX_BATCH, COMBINE_OUTPUT, COMBINE_TAGS, COMBINE_STRIDE, INPUT, LANES, MAX_BATCH, MESSAGES, OUT_SECRETS, OUT_TAGS, SECRET_BYTES } from './layout';
import { initSecp256k1 } from './secp256k1';
import { initSha256, viewTag } from './sha256';

export { DK_PKE, EK_HASH, INPUT, MAX_BATCH, OUT_SECRETS, OUT_TAGS } from './layout';
export { EC_END, EC_INPUT, EC_MAX_BATCH, EC_OUTPUT, EC_PROGRAM, EC_PROGRAM_MAX, EC_STATUS } from './layout';
export { COMBINE_INPUT, COMBINE_MAX_BATCH, COMBINE_OUTPUT, COMBINE_STRIDE, COMBINE_TAGS } from './layout';
export { ecdhBatch } from './secp256k1';

/**
 * ERC-8441 hybrid combiner: SHA3-256 of `count` padded messages at COMBINE_INPUT, digests at
 * COMBINE_OUTPUT, and each digest's view tag at COMBINE_TAGS.
 */
export function combine(count: i32): void {
  count = min(count, COMBINE_MAX_BATCH);
  sha3_256Padded(COMBINE_INPUT, COMBINE_STRIDE, COMBINE_BLOCKS, count, COMBINE_OUTPUT);
  for (let i = 0; i < count; i++) store<u8>(COMBINE_TAGS + <usize>i, viewTag(COMBINE_OUTPUT + <usize>i * 32));
}

initZetas();
initRoundConstants();
initSecp256k1();
initSha256();

/** Per-key work: the base-multiplication table from dk_pke (H(ek) is read from EK_HASH as is). */
export function prepareKey(): void {
  prepareSecret();
}

function run(count: i32, hash: bool): void {
  count = min(count, MAX_BATCH); // the host splits longer batches; never write past the buffers
  for (let first = 0; first < count; first += LANES) {
    const group = INPUT + <usize>first * CIPHERTEXT_BYTES;
    decryptGroup(group);
    const lanes = min(LANES, count - first);
    if (hash) {
      // Two announcements per permutation; for an odd `lanes` the spare one writes slot `count`,
      // which exists (count < MAX_BATCH then) and is not read by the host.
      for (let a = 0; a < lanes; a += 2) {
        secretsAndViewTags(MESSAGES + <usize>a * SECRET_BYTES, OUT_SECRETS + <usize>(first + a) * SECRET_BYTES, OUT_TAGS + <usize>(first + a));
      }
    } else {
      memory.copy(OUT_SECRETS + <usize>first * SECRET_BYTES, MESSAGES, <usize>lanes * SECRET_BYTES);
    }
  }
}

/** K' and view tags of `count` ciphertexts at INPUT. */
export function candidates(count: i32): void {
  run(count, true);
}

/** m' of `count` ciphertexts at INPUT, to OUT_SECRETS (for tests against a schoolbook oracle). */
export function decrypt(count: i32): void {
  run(count, false);
}
