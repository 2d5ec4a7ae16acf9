/**
 * The FIPS 203 re-encryption check (Algorithm 18 lines 7–10) on its own, for scan kernels'
 * `confirm` (PROTOCOL.md section 5 step 3), without full decapsulation:
 *
 *     m' = K-PKE.Decrypt(dk_pke, c)              (k-pke-decrypt.ts)
 *     (K', r') = SHA3-512(m' || H(ek))
 *     c' = K-PKE.Encrypt(ek, m', r')             (k-pke-encrypt.ts)
 *     confirmed  <=>  c' == c (all 1088 bytes)  and  K' == candidate
 *
 * Decapsulation returns `K'` exactly when `c' == c` and the implicit-rejection key otherwise, so
 * this gives what "decapsulate(c) == candidate" gives (up to a 2^-256 collision of the
 * rejection key with the candidate, which that form would accept). Both comparisons touch every
 * byte whatever the data (no early exit); the scan as a whole still runs the check only after a
 * tag match (see the scanner's `mode: 'constant'`).
 *
 * The public matrix `A_hat^T` (9 SampleNTT calls) is sampled on the first check, not when the
 * kernel is created: most keys scan most registries without a single tag match among a few
 * hundred announcements, and bench/sdk.ts measures the preparation at about the cost of one
 * check. Big-endian hosts (none current) fall back to @noble/post-quantum decapsulation.
 * @module
 */
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { available as blockHashAvailable } from './keccak-block.ts';
import { keccakF1600 } from './keccak-f1600.ts';
import { createDecryptor, prepareDecryptionKey } from './k-pke-decrypt.ts';
import { CIPHERTEXT_BYTES, createEncryptor, prepareEncryptionKey, type Encryptor } from './k-pke-encrypt.ts';

const SHARED_SECRET_BYTES = 32;
const SHA3_512_RATE = 72;

/** The parts of an ML-KEM-768 decapsulation key the check needs (see viewing-key.ts). */
export type ReencryptionCheckKey = {
  /** The full 2400-byte decapsulation key (only for the big-endian fallback). */
  dk: Uint8Array;
  /** `s_hat`, ByteEncode_12, 1152 bytes. */
  dkPke: Uint8Array;
  /** The 1184-byte encapsulation key (`t_hat` || `rho`), already modulus-checked. */
  ek: Uint8Array;
  /** `H(ek)` = SHA3-256(ek), 32 bytes. */
  ekHash: Uint8Array;
};

/** Whether `ciphertext` passes the re-encryption check for the key and `candidate` is its shared secret. */
export type ReencryptionCheck = (ciphertext: Uint8Array, candidate: Uint8Array) => boolean;

/** Prepare the check for one key (buffers reused: not shared between concurrent callers). */
export function createReencryptionCheck(key: ReencryptionCheckKey): ReencryptionCheck {
  if (!blockHashAvailable) {
    return (c, candidate) => constantTimeEqual(ml_kem768.decapsulate(c, key.dk), candidate);
  }
  const decrypt = createDecryptor(prepareDecryptionKey(key.dkPke));
  const ekHash = key.ekHash.slice();
  const message = new Uint8Array(32);
  const state = new Uint32Array(50);
  const bytes = new Uint8Array(state.buffer);
  const reencrypted = new Uint8Array(CIPHERTEXT_BYTES);
  let encrypt: Encryptor | undefined; // A_hat^T sampled on the first check
  return (c, candidate) => {
    if (c.length !== CIPHERTEXT_BYTES || candidate.length !== SHARED_SECRET_BYTES) return false;
    decrypt(c, message);
    // (K', r') = SHA3-512(m' || H(ek)): 64 bytes in, one block (FIPS 202: 0x06 ... 0x80 padding).
    state.fill(0);
    bytes.set(message, 0);
    bytes.set(ekHash, 32);
    bytes[64] = 0x06;
    bytes[SHA3_512_RATE - 1] = 0x80;
    keccakF1600(state);
    encrypt ??= createEncryptor(prepareEncryptionKey(key.ek));
    encrypt(message, bytes.subarray(32, 64), reencrypted);
    let diff = 0;
    for (let i = 0; i < CIPHERTEXT_BYTES; i++) diff |= c[i]! ^ reencrypted[i]!;
    for (let i = 0; i < SHARED_SECRET_BYTES; i++) diff |= candidate[i]! ^ bytes[i]!;
    return diff === 0;
  };
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
