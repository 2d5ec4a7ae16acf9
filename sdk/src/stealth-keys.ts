/**
 * One-time (stealth) keys, PROTOCOL.md sections 4 and 5.
 *
 * From the payment's shared secret `K` both sides derive the tweak `t`; the one-time public
 * key is `P = B + t*G` and only the holder of the spending secret `b` can compute its secret
 * `p = (b + t) mod n`. The sender knows `K` and `t` but not `b`, so it cannot spend.
 * @module
 */
import { bytesToBigInt, equalBytes, toBytes, type BytesInput } from './bytes.ts';
import { evmAddressOf, suiAddressOf } from './address.ts';
import { InvalidKeyError, KeyMismatchError, WraithError } from './errors.ts';
import { DOMAIN, domainHash } from './hash.ts';
import {
  CURVE_ORDER,
  Point,
  parseSpendingPublicKey,
  parseSpendingSecret,
  scalarToBytes,
  type CurvePoint,
} from './spending-key.ts';
import { SHARED_SECRET_BYTES } from './viewing-key.ts';

/** Addresses of a one-time key; everything here is public. */
export type StealthAddress = {
  /** `P`, SEC1 compressed (33 bytes). */
  stealthPublicKey: Uint8Array;
  /** EIP-55 EVM address of `P`. */
  stealthAddress: string;
  /** Sui address of `P` (secp256k1 flag). */
  stealthSuiAddress: string;
};

/** Addresses plus the one-time secret `p`. */
export type StealthKeys = StealthAddress & {
  /** `p = (b + t) mod n`, 32 bytes big-endian. Spends the funds: keep it secret. */
  stealthSecretKey: Uint8Array;
};

/**
 * The stealth tweak `t` (section 4 step 3): the first `H("SPECTER_STEALTH_TWEAK_V2", K || ctr, 32)`
 * for `ctr = 0, 1, ...` that read big-endian satisfies `1 <= t < n`.
 */
export function deriveStealthTweak(sharedSecret: BytesInput): bigint {
  const K = toBytes(sharedSecret, 'sharedSecret', SHARED_SECRET_BYTES);
  const ctr = new Uint8Array(1);
  for (let i = 0; i < 256; i++) {
    ctr[0] = i;
    const t = bytesToBigInt(domainHash(DOMAIN.stealthTweak, 32, K, ctr));
    if (t >= 1n && t < CURVE_ORDER) return t;
  }
  // Probability ~2^-32768; reachable only with a broken hash.
  throw new WraithError('INVALID_ARGUMENT', 'No valid stealth tweak for this shared secret.');
}

/** `P = B + t*G` for an already parsed `B`; rejects the identity (section 4 step 4). */
export function stealthPointFrom(spendingPoint: CurvePoint, tweak: bigint): CurvePoint {
  const P = spendingPoint.add(Point.BASE.multiply(tweak));
  if (P.is0()) throw new WraithError('INVALID_ARGUMENT', 'The stealth public key is the identity point.');
  return P;
}

export function stealthAddressOf(P: CurvePoint): StealthAddress {
  return { stealthPublicKey: P.toBytes(true), stealthAddress: evmAddressOf(P), stealthSuiAddress: suiAddressOf(P) };
}

export type DeriveStealthAddressParameters = {
  spendingPublicKey: BytesInput;
  sharedSecret: BytesInput;
};

/** The one-time addresses for a shared secret. Public data only; yields no secret. */
export function deriveStealthAddress({ spendingPublicKey, sharedSecret }: DeriveStealthAddressParameters): StealthAddress {
  const B = parseSpendingPublicKey(spendingPublicKey, 'spendingPublicKey');
  return stealthAddressOf(stealthPointFrom(B, deriveStealthTweak(sharedSecret)));
}

export type DeriveStealthKeysParameters = {
  /** The recipient's spending secret `b`. Without it there is no way to `p`. */
  spendingSecretKey: BytesInput;
  sharedSecret: BytesInput;
  /** When given, it must equal `b*G` (else {@link KeyMismatchError}). */
  spendingPublicKey?: BytesInput;
};

/**
 * The one-time secret `p = (b + t) mod n` and its addresses (section 5 step 4).
 *
 * @example
 * const { stealthSecretKey, stealthAddress } = deriveStealthKeys({
 *   spendingSecretKey: keys.spendingSecretKey,
 *   spendingPublicKey: keys.spendingPublicKey,
 *   sharedSecret: discovery.sharedSecret,
 * });
 */
export function deriveStealthKeys(params: DeriveStealthKeysParameters): StealthKeys {
  if (params == null || params.spendingSecretKey == null) {
    throw new InvalidKeyError('spendingSecretKey', 'required: the one-time secret exists only for the holder of the spending secret');
  }
  const b = parseSpendingSecret(params.spendingSecretKey, 'spendingSecretKey');
  const B = Point.BASE.multiply(b);
  if (params.spendingPublicKey !== undefined) {
    const given = parseSpendingPublicKey(params.spendingPublicKey, 'spendingPublicKey');
    if (!equalBytes(given.toBytes(true), B.toBytes(true))) {
      throw new KeyMismatchError('spendingSecretKey', 'the spending secret key does not belong to the spending public key');
    }
  }
  return deriveStealthKeysFor(b, B, deriveStealthTweak(params.sharedSecret));
}

/** Core of {@link deriveStealthKeys} for parsed inputs (used by the scanner per discovery). */
export function deriveStealthKeysFor(b: bigint, B: CurvePoint, tweak: bigint): StealthKeys {
  const p = (b + tweak) % CURVE_ORDER;
  if (p === 0n) throw new WraithError('INVALID_ARGUMENT', 'The one-time secret key is zero.');
  return { ...stealthAddressOf(stealthPointFrom(B, tweak)), stealthSecretKey: scalarToBytes(p) };
}
