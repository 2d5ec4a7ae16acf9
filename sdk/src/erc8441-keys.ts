/**
 * ERC-8441 keys (schemeId 3, the ERC's Section 2.1; PROTOCOL.md section 10).
 *
 * Key generation is deterministic in a 128-byte seed
 *
 *     seed = spending_seed (32) || viewing_ec_seed (32) || d (32) || z (32)
 *
 * and fails (InvalidKeyError) for any other length, for a spending or viewing scalar outside
 * 0 < k < n (never reduced mod n: `n` would become 0, a key anyone can spend with), and when
 * `spending_seed` equals `viewing_ec_seed`, `d` or `z` (the tracking key `viewing_ec || d || z`
 * goes to scanning services, so it must not carry the spending key anywhere). It gives the
 * 1250-byte meta-address, the master spending key and the 96-byte tracking key.
 *
 * A Wraith identity (`b`, `d || z`) gains its scheme-3 viewing scalar by derivation, so every
 * existing keystore and key-from-signature receives under both schemes with nothing stored:
 *
 *     viewing_ec = H("WRAITH_ERC8441_VIEWING_EC_V1", b || d || z || ctr, 32) for the first ctr
 *                  in 0..255 that is a valid scalar differing from b, d and z
 * @module
 */
import { bytesToBigInt, concatBytes, equalBytes, toBytes, type BytesInput } from './bytes.ts';
import { InvalidKeyError } from './errors.ts';
import { domainHash } from './hash.ts';
import { CURVE_ORDER, Point, SPENDING_SECRET_BYTES } from './spending-key.ts';
import { VIEWING_SEED_BYTES, viewingKeyPairFromSeed } from './viewing-key.ts';

export const ERC8441_SEED_BYTES = 128;
export const ERC8441_TRACKING_KEY_BYTES = 96; // viewing_ec || d || z

/** The three outputs of ERC-8441 key generation, and the parts they are made of. */
export type Erc8441Keys = {
  /** `spending_pk || viewing_pk_ec || ek` (1250 bytes): published through ERC-6538 under scheme 3. */
  metaAddress: Uint8Array;
  /** `spending_sk` (32 bytes). Secret: spends every payment; never leaves the owner. */
  spendingSecretKey: Uint8Array;
  /** `viewing_ec || d || z` (96 bytes). Finds (cannot spend) every payment: may go to a scanning service. */
  trackingKey: Uint8Array;
  spendingPublicKey: Uint8Array;
  viewingPublicKeyEc: Uint8Array;
  /** ML-KEM-768 `ek` (1184 bytes). */
  encapsulationKey: Uint8Array;
};

/** The parts of a tracking key, checked. */
export type Erc8441TrackingKey = {
  /** `viewing_ec` as a scalar. */
  viewingScalar: bigint;
  /** ML-KEM `d || z`. */
  kemSeed: Uint8Array;
};

/**
 * ERC-8441 key generation from its 128-byte seed, with every check of the ERC's Section 2.1.
 * @example
 * const { metaAddress, trackingKey } = erc8441KeysFromSeed(crypto.getRandomValues(new Uint8Array(128)));
 * @throws {InvalidKeyError} for a seed of another length, an invalid scalar, or a spending seed
 * repeated in the tracking key.
 */
export function erc8441KeysFromSeed(seed: BytesInput): Erc8441Keys {
  const bytes = toBytes(seed, 'seed');
  if (bytes.length !== ERC8441_SEED_BYTES) throw new InvalidKeyError('seed', `must be ${ERC8441_SEED_BYTES} bytes (spending || viewing || d || z), got ${bytes.length}`);
  const spendingSeed = bytes.subarray(0, 32);
  const b = validScalar(spendingSeed, 'spending_seed');
  const v = validScalar(bytes.subarray(32, 64), 'viewing_ec_seed');
  for (const [offset, name] of [[32, 'viewing_ec_seed'], [64, 'd'], [96, 'z']] as const) {
    if (equalBytes(spendingSeed, bytes.subarray(offset, offset + 32))) {
      throw new InvalidKeyError('seed', `spending_seed must not equal ${name}: the tracking key would carry the spending key`);
    }
  }
  const kemSeed = bytes.slice(64);
  const { publicKey: encapsulationKey } = viewingKeyPairFromSeed(kemSeed);
  const spendingPublicKey = Point.BASE.multiply(b).toBytes(true);
  const viewingPublicKeyEc = Point.BASE.multiply(v).toBytes(true);
  return {
    metaAddress: concatBytes(spendingPublicKey, viewingPublicKeyEc, encapsulationKey),
    spendingSecretKey: spendingSeed.slice(),
    trackingKey: bytes.slice(32),
    spendingPublicKey,
    viewingPublicKeyEc,
    encapsulationKey,
  };
}

/**
 * Split and check a 96-byte tracking key `viewing_ec || d || z`.
 * @throws {InvalidKeyError} for another length or a viewing scalar outside 0 < v < n.
 */
export function parseTrackingKey(input: BytesInput, field = 'tracking_key'): Erc8441TrackingKey {
  const bytes = toBytes(input, field, ERC8441_TRACKING_KEY_BYTES);
  return { viewingScalar: validScalar(bytes.subarray(0, 32), field), kemSeed: bytes.slice(32) };
}

/**
 * The scheme-3 viewing scalar of a Wraith identity (PROTOCOL.md section 10) and the counter that
 * gave it (0 but with negligible probability).
 */
export function wraithViewingScalar(spendingSecretKey: BytesInput, viewingSeed: BytesInput): { viewingEc: Uint8Array; counter: number } {
  const b = toBytes(spendingSecretKey, 'spendingSecretKey', SPENDING_SECRET_BYTES);
  const seed = toBytes(viewingSeed, 'viewingSeed', VIEWING_SEED_BYTES);
  const d = seed.subarray(0, 32);
  const z = seed.subarray(32);
  for (let counter = 0; counter < 256; counter++) {
    const v = domainHash('WRAITH_ERC8441_VIEWING_EC_V1', 32, b, seed, Uint8Array.of(counter));
    const value = bytesToBigInt(v);
    if (value > 0n && value < CURVE_ORDER && !equalBytes(v, b) && !equalBytes(v, d) && !equalBytes(v, z)) return { viewingEc: v, counter };
  }
  // 256 failures in a row have probability below 2^-30000.
  throw new InvalidKeyError('viewingSeed', 'no viewing scalar could be derived');
}

/** A Wraith identity's ERC-8441 keys: `b || viewing_ec || d || z` through the ERC's key generation. */
export function erc8441KeysOf(identity: { spendingSecretKey: BytesInput; viewingSeed: BytesInput }): Erc8441Keys {
  const b = toBytes(identity.spendingSecretKey, 'spendingSecretKey', SPENDING_SECRET_BYTES);
  const seed = toBytes(identity.viewingSeed, 'viewingSeed', VIEWING_SEED_BYTES);
  return erc8441KeysFromSeed(concatBytes(b, wraithViewingScalar(b, seed).viewingEc, seed));
}

function validScalar(bytes: Uint8Array, field: string): bigint {
  const k = bytesToBigInt(bytes);
  if (k === 0n || k >= CURVE_ORDER) throw new InvalidKeyError(field, 'must be a secp256k1 scalar with 0 < k < n (not reduced mod n)');
  return k;
}
