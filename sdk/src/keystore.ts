/**
 * Encrypted keystore: secrets are persisted only in encrypted form (INTERFACE.md section 5).
 *
 * `sealKeys(keys, password)` returns a versioned JSON envelope; `openKeys(blob, password)`
 * restores the keys. Design:
 * - KDF: PBKDF2-HMAC-SHA256 with 600,000 iterations (OWASP 2023 guidance) through WebCrypto, or
 *   scrypt (N = 2^17, r = 8, p = 1; @noble/hashes) for memory hardness; random 16-byte salt.
 *   The KDF yields 64 bytes: an AES-256 key and a password verifier.
 * - Cipher: AES-256-GCM through WebCrypto, random 12-byte nonce; the envelope header (version,
 *   KDF, contents) is the additional authenticated data, so it cannot be swapped silently.
 * - Wrong password vs. tampering: the envelope stores SHA-256 of the verifier half (as the
 *   Ethereum keystore stores a MAC). A verifier mismatch means the password is wrong; a right
 *   verifier with a failing GCM tag means the ciphertext was modified. Edits to the KDF
 *   parameters change the derived key and read as a wrong password.
 * - Contents: the 32-byte spending secret and the 64-byte ML-KEM seed when the keys carry it
 *   (`generateKeys` output), else the 2,400-byte viewing secret key.
 * @module
 */
import { scryptAsync } from '@noble/hashes/scrypt.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64ToBytes, bytesToBase64 } from './base64.ts';
import { bytesToHex, concatBytes, equalBytes, hexToBytes, randomBytes, toBytes, type BytesInput } from './bytes.ts';
import { InvalidArgumentError, InvalidKeystoreError, KeystoreTamperedError, WraithError, WrongPasswordError } from './errors.ts';
import { generateKeys, type RecipientKeys } from './keys.ts';
import { encodeMetaAddress } from './meta-address.ts';
import { parseSpendingSecret, scalarToBytes, spendingPublicKeyFromSecret } from './spending-key.ts';
import { computeViewTag } from './view-tag.ts';
import { parseViewingSecretKey, VIEWING_SECRET_KEY_BYTES, VIEWING_SEED_BYTES } from './viewing-key.ts';

export const KEYSTORE_VERSION = 1;
export const PBKDF2_ITERATIONS = 600_000;
const MIN_PBKDF2_ITERATIONS = 100_000;
const SCRYPT = { N: 2 ** 17, r: 8, p: 1 } as const;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

type KdfParams =
  | { name: 'pbkdf2-sha256'; iterations: number; salt: string }
  | { name: 'scrypt'; N: number; r: number; p: number; salt: string };

/** The JSON envelope (all binary fields base64). */
export type KeystoreEnvelope = {
  kind: 'wraith-keystore';
  version: 1;
  kdf: KdfParams;
  cipher: { name: 'aes-256-gcm'; nonce: string };
  /** `seed`: spending secret + ML-KEM seed (96 bytes); `viewing-key`: spending secret + dk (2,432 bytes). */
  contents: 'seed' | 'viewing-key';
  /** base64 SHA-256 of the password verifier. */
  check: string;
  ciphertext: string;
  /** Public, for display: the spending public key (hex), so a wallet can tell keystores apart. */
  spendingPublicKey: string;
};

export type SealKeysOptions = {
  kdf?: 'pbkdf2' | 'scrypt';
  /** PBKDF2 iterations (default 600,000, minimum 100,000). */
  iterations?: number;
};

/** Keys a keystore can hold: `generateKeys` output, or the secrets alone. */
export type SealableKeys = {
  spendingSecretKey: BytesInput;
  viewingSeed?: BytesInput;
  viewingSecretKey?: BytesInput;
};

/** WebCrypto wants ArrayBuffer-backed views (TypeScript 5.9 `BufferSource`); copy into one. */
const buffer = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(bytes);

function assertPassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length === 0) throw new InvalidArgumentError('password', 'must be a non-empty string');
}

async function deriveKeyMaterial(password: string, kdf: KdfParams): Promise<{ aesKey: CryptoKey; check: Uint8Array }> {
  if (!globalThis.crypto?.subtle) {
    throw new WraithError(
      'INVALID_ARGUMENT',
      'WebCrypto (crypto.subtle) is not available here: browsers expose it only in secure contexts (https:// or http://localhost).',
    );
  }
  const secret = new TextEncoder().encode(password.normalize('NFKC'));
  const salt = base64ToBytes(kdf.salt, 'kdf.salt');
  let material: Uint8Array;
  if (kdf.name === 'pbkdf2-sha256') {
    const base = await crypto.subtle.importKey('raw', buffer(secret), 'PBKDF2', false, ['deriveBits']);
    material = new Uint8Array(await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: buffer(salt), iterations: kdf.iterations }, base, 512));
  } else {
    material = await scryptAsync(secret, salt, { N: kdf.N, r: kdf.r, p: kdf.p, dkLen: 64, maxmem: 2 ** 29 });
  }
  const aesKey = await crypto.subtle.importKey('raw', buffer(material.subarray(0, 32)), 'AES-GCM', false, ['encrypt', 'decrypt']);
  return { aesKey, check: sha256(material.subarray(32, 64)) };
}

/** Additional authenticated data: the header fields that decide how the plaintext is read. */
function headerBytes(envelope: Pick<KeystoreEnvelope, 'version' | 'kdf' | 'contents' | 'spendingPublicKey'>): Uint8Array {
  return new TextEncoder().encode(JSON.stringify([envelope.version, envelope.kdf, envelope.contents, envelope.spendingPublicKey]));
}

/**
 * Encrypt a recipient's secrets under a password.
 *
 * @example
 * const blob = await sealKeys(generateKeys(), password);
 * localStorage.setItem('wraith-keys', blob);
 */
export async function sealKeys(keys: SealableKeys, password: string, options: SealKeysOptions = {}): Promise<string> {
  assertPassword(password);
  if (typeof keys !== 'object' || keys === null) throw new InvalidArgumentError('keys', 'must be an object');
  const b = parseSpendingSecret(keys.spendingSecretKey, 'spendingSecretKey');
  let contents: KeystoreEnvelope['contents'];
  let plaintext: Uint8Array;
  if (keys.viewingSeed !== undefined) {
    contents = 'seed';
    plaintext = concatBytes(scalarToBytes(b), toBytes(keys.viewingSeed, 'viewingSeed', VIEWING_SEED_BYTES));
  } else if (keys.viewingSecretKey !== undefined) {
    contents = 'viewing-key';
    plaintext = concatBytes(scalarToBytes(b), parseViewingSecretKey(keys.viewingSecretKey, 'viewingSecretKey').dk);
  } else {
    throw new InvalidArgumentError('keys', 'need viewingSeed or viewingSecretKey');
  }
  const salt = bytesToBase64(randomBytes(16));
  let kdf: KdfParams;
  if ((options.kdf ?? 'pbkdf2') === 'pbkdf2') {
    const iterations = options.iterations ?? PBKDF2_ITERATIONS;
    if (!Number.isSafeInteger(iterations) || iterations < MIN_PBKDF2_ITERATIONS) {
      throw new InvalidArgumentError('iterations', `must be an integer of at least ${MIN_PBKDF2_ITERATIONS}`);
    }
    kdf = { name: 'pbkdf2-sha256', iterations, salt };
  } else if (options.kdf === 'scrypt') {
    kdf = { name: 'scrypt', ...SCRYPT, salt };
  } else {
    throw new InvalidArgumentError('kdf', "must be 'pbkdf2' or 'scrypt'");
  }
  const header = { version: KEYSTORE_VERSION, kdf, contents, spendingPublicKey: bytesToHex(spendingPublicKeyFromSecret(b)) } as const;
  const { aesKey, check } = await deriveKeyMaterial(password, kdf);
  const nonce = randomBytes(12);
  const ciphertext = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv: buffer(nonce), additionalData: buffer(headerBytes(header)) }, aesKey, buffer(plaintext)),
  );
  plaintext.fill(0);
  const envelope: KeystoreEnvelope = {
    kind: 'wraith-keystore',
    ...header,
    cipher: { name: 'aes-256-gcm', nonce: bytesToBase64(nonce) },
    check: bytesToBase64(check),
    ciphertext: bytesToBase64(ciphertext),
  };
  return JSON.stringify(envelope);
}

function parseEnvelope(blob: string | KeystoreEnvelope): KeystoreEnvelope {
  let value: unknown = blob;
  if (typeof blob === 'string') {
    try {
      value = JSON.parse(blob);
    } catch {
      throw new InvalidKeystoreError('not JSON');
    }
  }
  const e = value as Partial<KeystoreEnvelope> | null;
  if (typeof e !== 'object' || e === null || e.kind !== 'wraith-keystore') throw new InvalidKeystoreError('not a Wraith keystore');
  if (e.version !== KEYSTORE_VERSION) throw new InvalidKeystoreError(`unsupported version (this SDK reads version ${KEYSTORE_VERSION})`);
  const kdf = e.kdf as KdfParams | undefined;
  const kdfOk =
    (kdf?.name === 'pbkdf2-sha256' && Number.isSafeInteger(kdf.iterations) && kdf.iterations >= 1 && kdf.iterations <= 10_000_000) ||
    (kdf?.name === 'scrypt' && [kdf.N, kdf.r, kdf.p].every(Number.isSafeInteger) && kdf.N <= 2 ** 20 && kdf.r <= 32 && kdf.p <= 16);
  if (!kdfOk || typeof kdf.salt !== 'string') throw new InvalidKeystoreError('bad kdf parameters');
  if (e.cipher?.name !== 'aes-256-gcm' || typeof e.cipher.nonce !== 'string') throw new InvalidKeystoreError('bad cipher parameters');
  if (e.contents !== 'seed' && e.contents !== 'viewing-key') throw new InvalidKeystoreError('unknown contents');
  const base64Fields = [kdf.salt, e.cipher.nonce, e.check, e.ciphertext];
  if (!base64Fields.every((f) => typeof f === 'string' && BASE64.test(f)) || typeof e.spendingPublicKey !== 'string') {
    throw new InvalidKeystoreError('missing or malformed fields');
  }
  return e as KeystoreEnvelope;
}

/**
 * Decrypt a keystore made by {@link sealKeys}.
 *
 * @throws {WrongPasswordError} the password does not open it.
 * @throws {KeystoreTamperedError} the password is right but the contents were modified.
 * @throws {InvalidKeystoreError} the blob is not a readable keystore.
 */
export async function openKeys(blob: string | KeystoreEnvelope, password: string): Promise<RecipientKeys | Omit<RecipientKeys, 'viewingSeed'>> {
  assertPassword(password);
  const envelope = parseEnvelope(blob);
  const { aesKey, check } = await deriveKeyMaterial(password, envelope.kdf);
  if (!equalBytes(check, base64ToBytes(envelope.check, 'check'))) throw new WrongPasswordError();
  let plaintext: Uint8Array;
  try {
    plaintext = new Uint8Array(
      await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: buffer(base64ToBytes(envelope.cipher.nonce, 'cipher.nonce')), additionalData: buffer(headerBytes(envelope)) },
        aesKey,
        buffer(base64ToBytes(envelope.ciphertext, 'ciphertext')),
      ),
    );
  } catch {
    throw new KeystoreTamperedError();
  }
  const expected = 32 + (envelope.contents === 'seed' ? VIEWING_SEED_BYTES : VIEWING_SECRET_KEY_BYTES);
  if (plaintext.length !== expected) throw new KeystoreTamperedError();
  const spendingSecret = plaintext.slice(0, 32);
  if (envelope.contents === 'seed') return generateKeys({ spendingSecret, viewingSeed: plaintext.slice(32) });
  const viewing = parseViewingSecretKey(plaintext.slice(32), 'viewingSecretKey');
  const spendingPublicKey = spendingPublicKeyFromSecret(parseSpendingSecret(spendingSecret));
  if (!equalBytes(spendingPublicKey, hexToBytes(envelope.spendingPublicKey))) throw new KeystoreTamperedError();
  return {
    spendingPublicKey,
    spendingSecretKey: spendingSecret,
    viewingPublicKey: viewing.ek.slice(),
    viewingSecretKey: viewing.dk.slice(),
    metaAddress: encodeMetaAddress({ spendingPublicKey, viewingPublicKey: viewing.ek }),
    baseViewTag: computeViewTag(viewing.ek),
  };
}
