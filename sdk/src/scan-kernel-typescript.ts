/**
 * The pure TypeScript fast kernel (PROTOCOL.md section 5, "a fast scanner may ..."):
 *
 * - per key, once: decode `s_hat`, keep `H(ek)`;
 * - per announcement: K-PKE decryption only, `(K', r') = SHA3-512(m' || H(ek))`, view tag of `K'`;
 * - after a tag match only: the FIPS 203 re-encryption check (k-pke-reencryption-check.ts:
 *   K-PKE encryption of `m'` with `r'` must reproduce `c`, and `K'` must be its secret), which
 *   samples the public matrix on the first match.
 *
 * For honest ciphertexts `K' = K`. Forged ones may match the tag (an attacker who encrypts a
 * chosen `m` with the wrong randomness controls `K'`), which is why confirmation is mandatory.
 * Timing: the fast path does more work on a tag match, so scan time depends on ciphertext
 * contents an attacker can choose; see the scanner's `mode: 'constant'` for the alternative.
 * @module
 */
import { DOMAIN, domainPrefix } from './hash.ts';
import { createCandidateHasher, available as blockHashAvailable } from './keccak-block.ts';
import { createInterleavedDecryptor, prepareDecryptionKey } from './k-pke-decrypt.ts';
import { createReencryptionCheck } from './k-pke-reencryption-check.ts';
import { assertBatchBuffers, referenceKernel, type ScanKernelFactory } from './scan-kernel.ts';
import { CIPHERTEXT_BYTES, SHARED_SECRET_BYTES } from './viewing-key.ts';

/** Whether this engine can run the TypeScript kernel (little-endian typed arrays). */
export const typescriptKernelAvailable = blockHashAvailable;

export const typescriptKernel: ScanKernelFactory = (key) => {
  if (!typescriptKernelAvailable) return referenceKernel(key);
  const decrypt = createInterleavedDecryptor(prepareDecryptionKey(key.dkPke));
  const hash = createCandidateHasher(key.ekHash, domainPrefix(DOMAIN.viewTag));
  const messageLanes = new Int32Array(8); // m', bit-interleaved
  return {
    candidate(ciphertext, out) {
      decrypt(ciphertext, messageLanes);
      return hash(messageLanes, out);
    },
    // The batch form reads and writes at offsets, so a chunk allocates no subarrays.
    candidates(ciphertexts, count, candidates, tags) {
      assertBatchBuffers(ciphertexts, count, candidates, tags);
      for (let k = 0; k < count; k++) {
        decrypt(ciphertexts, messageLanes, k * CIPHERTEXT_BYTES);
        tags[k] = hash(messageLanes, candidates, k * SHARED_SECRET_BYTES);
      }
    },
    confirm: createReencryptionCheck(key),
  };
};
