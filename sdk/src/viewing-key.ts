/**
 * Viewing keys: ML-KEM-768 (FIPS 203), PROTOCOL.md section 2.
 *
 * Encapsulation key `ek` is 1184 bytes; decapsulation key `dk` is 2400 bytes with the FIPS 203
 * layout `dk_pke(1152) || ek(1184) || H(ek)(32) || z(32)`. A keypair may be generated from a
 * 64-byte seed `d || z` (FIPS 203 Algorithm 16, ML-KEM.KeyGen_internal).
 *
 * The KEM itself is @noble/post-quantum; this module adds the input checks the protocol
 * requires and the implicit-rejection key used to confirm a discovery (section 5 step 3).
 * @module
 */
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { sha3_256, shake256 } from '@noble/hashes/sha3.js';
import { equalBytes, isAllZero, toBytes, type BytesInput } from './bytes.ts';
import { InvalidKeyError, KeyMismatchError } from './errors.ts';

export const VIEWING_PUBLIC_KEY_BYTES = 1184; // 384*k + 32, k = 3
export const VIEWING_SECRET_KEY_BYTES = 2400; // 768*k + 96
export const VIEWING_SEED_BYTES = 64; // d || z
export const CIPHERTEXT_BYTES = 1088; // 32*(du*k + dv) = 32*(10*3 + 4)
export const SHARED_SECRET_BYTES = 32;
export const ENCAPSULATION_MESSAGE_BYTES = 32;
const Q = 3329; // 13*2^8 + 1
const T_HAT_BYTES = 1152; // 3 polynomials of 256 12-bit coefficients

/** The parts of a decapsulation key (views into one buffer). */
export type ViewingSecretKeyParts = {
  dk: Uint8Array;
  dkPke: Uint8Array;
  ek: Uint8Array;
  ekHash: Uint8Array;
  z: Uint8Array;
};

/**
 * FIPS 203 section 7.2 encapsulation-key modulus check: every 12-bit coefficient of `t_hat`
 * must be `< q`, i.e. ByteEncode12(ByteDecode12(ek)) == ek.
 */
export function hasCanonicalCoefficients(ek: Uint8Array): boolean {
  for (let i = 0; i < T_HAT_BYTES; i += 3) {
    const b0 = ek[i]!;
    const b1 = ek[i + 1]!;
    const b2 = ek[i + 2]!;
    if ((b0 | ((b1 & 0x0f) << 8)) >= Q) return false;
    if (((b1 >> 4) | (b2 << 4)) >= Q) return false;
  }
  return true;
}

/**
 * Throw unless `ek` passes the modulus check and its `t_hat` is not zero; `what` names it in
 * messages. A zero `t_hat` passes the FIPS 203 checks, but encapsulation to it hides nothing:
 * `v = Compress(e2 + Decompress(m))` carries the message `m` in the clear, so anyone recovers
 * `K` and links the payment to the recipient (the sender's noise alone does not mask it). A real
 * key generation never yields it; it is refused like any malformed key.
 */
function assertUsableEncapsulationKey(ek: Uint8Array, field: string, what: string): void {
  if (!hasCanonicalCoefficients(ek)) {
    throw new InvalidKeyError(field, `${what} has an ML-KEM coefficient not below 3329 (FIPS 203 modulus check)`);
  }
  if (isAllZero(ek.subarray(0, T_HAT_BYTES))) throw new InvalidKeyError(field, `${what} is all zero (t_hat = 0): payments to it could be read by anyone`);
}

/** Validate an encapsulation key: 1184 bytes, the modulus check, and not a zero `t_hat`. */
export function parseViewingPublicKey(input: BytesInput, field = 'viewing_pk'): Uint8Array {
  const ek = toBytes(input, field, VIEWING_PUBLIC_KEY_BYTES);
  assertUsableEncapsulationKey(ek, field, 'the ML-KEM key');
  return ek;
}

/**
 * Validate a decapsulation key: 2400 bytes, the embedded `H(ek)` matches (FIPS 203 section 7.3
 * input check), and the embedded `ek` passes the modulus check.
 */
export function parseViewingSecretKey(input: BytesInput, field = 'viewing_sk'): ViewingSecretKeyParts {
  const dk = toBytes(input, field, VIEWING_SECRET_KEY_BYTES);
  const ek = dk.subarray(1152, 1152 + VIEWING_PUBLIC_KEY_BYTES);
  const ekHash = dk.subarray(2336, 2368);
  if (!equalBytes(sha3_256(ek), ekHash)) {
    throw new InvalidKeyError(field, 'the embedded hash of the encapsulation key does not match (corrupted key)');
  }
  assertUsableEncapsulationKey(ek, field, 'the embedded encapsulation key');
  return { dk, dkPke: dk.subarray(0, 1152), ek, ekHash, z: dk.subarray(2368, 2400) };
}

/** Throw unless the public key given beside a secret key is the one embedded in it. */
export function assertViewingKeyPair(parts: ViewingSecretKeyParts, publicKey: Uint8Array): void {
  if (!equalBytes(parts.ek, publicKey)) {
    throw new KeyMismatchError('viewing_pk', 'the viewing public key is not the one inside the viewing secret key');
  }
}

/** ML-KEM-768 key pair from a 64-byte seed `d || z` (FIPS 203 Algorithm 16). */
export function viewingKeyPairFromSeed(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  return ml_kem768.keygen(toBytes(seed, 'viewingSeed', VIEWING_SEED_BYTES));
}

/** `(c, K) = ML-KEM-768.Encaps(ek)`; `message` is the 32-byte `m` (deterministic vectors only). */
export function encapsulate(ek: Uint8Array, message?: Uint8Array): { ciphertext: Uint8Array; sharedSecret: Uint8Array } {
  const { cipherText, sharedSecret } = ml_kem768.encapsulate(ek, message);
  return { ciphertext: cipherText, sharedSecret };
}

/** Full FIPS 203 decapsulation (Algorithm 18); never fails, rejects implicitly. */
export function decapsulate(ciphertext: Uint8Array, dk: Uint8Array): Uint8Array {
  return ml_kem768.decapsulate(ciphertext, dk);
}

/** The implicit-rejection key `Kbar = SHAKE256(z || c)[0..32]` (FIPS 203 Algorithm 18 line 7). */
export function implicitRejectionKey(z: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  return shake256.create({ dkLen: SHARED_SECRET_BYTES }).update(z).update(ciphertext).digest();
}
