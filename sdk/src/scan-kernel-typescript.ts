/**
 * The pure TypeScript fast kernel (PROTOCOL.md section 5, "a fast scanner may ..."):
 *
 * - per key, once: decode `s_hat`, keep `H(ek)`, pre-expand the public matrix for the
 *   re-encryption check (@noble/post-quantum `prepare`);
 * - per announcement: K-PKE decryption only, `(K', r') = SHA3-512(m' || H(ek))`, view tag of `K'`;
 * - after a tag match only: full decapsulation with the prepared key; a discovery requires it
 *   to return exactly `K'` (the re-encryption check passed and the fast path agrees).
 *
 * For honest ciphertexts `K' = K`. Forged ones may match the tag (an attacker who encrypts a
 * chosen `m` with the wrong randomness controls `K'`), which is why confirmation is mandatory.
 * Timing: the fast path does more work on a tag match, so scan time depends on ciphertext
 * contents an attacker can choose; see the scanner's `mode: 'constant'` for the alternative.
 * @module
 */
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { equalBytes } from './bytes.ts';
import { DOMAIN, domainPrefix } from './hash.ts';
import { createBlockHasher, available as blockHashAvailable } from './keccak-block.ts';
import { createDecryptor, prepareDecryptionKey } from './k-pke-decrypt.ts';
import { referenceKernel, type ScanKernelFactory } from './scan-kernel.ts';

/** Whether this engine can run the TypeScript kernel (little-endian typed arrays). */
export const typescriptKernelAvailable = blockHashAvailable;

export const typescriptKernel: ScanKernelFactory = (key) => {
  if (!typescriptKernelAvailable) return referenceKernel(key);
  const decrypt = createDecryptor(prepareDecryptionKey(key.dkPke));
  const hasher = createBlockHasher();
  const viewTagPrefix = domainPrefix(DOMAIN.viewTag);
  const ekHash = key.ekHash.slice();
  const m = new Uint8Array(32);
  let prepared: { decapsulate(c: Uint8Array, dk: Uint8Array): Uint8Array } | undefined; // expanded on the first tag match
  return {
    candidate(ciphertext, out) {
      decrypt(ciphertext, m);
      hasher.sha3_512_first32(m, ekHash, out);
      return hasher.shake256_firstByte(viewTagPrefix, out);
    },
    confirm(ciphertext, candidate) {
      const kem = (prepared ??= ml_kem768.prepare(key.ek));
      return equalBytes(kem.decapsulate(ciphertext, key.dk), candidate);
    },
  };
};
