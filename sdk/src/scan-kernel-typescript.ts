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
import { createBlockHasher, available as blockHashAvailable } from './keccak-block.ts';
import { createDecryptor, prepareDecryptionKey } from './k-pke-decrypt.ts';
import { createReencryptionCheck } from './k-pke-reencryption-check.ts';
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
  return {
    candidate(ciphertext, out) {
      decrypt(ciphertext, m);
      hasher.sha3_512_first32(m, ekHash, out);
      return hasher.shake256_firstByte(viewTagPrefix, out);
    },
    confirm: createReencryptionCheck(key),
  };
};
