/**
 * Spending keys: secp256k1 (PROTOCOL.md section 2).
 *
 * The secret scalar `b` is 32 bytes big-endian with `1 <= b < n`; the public key `B = b*G`
 * is SEC1 compressed (33 bytes, `02`/`03`). secp256k1 because the chains holding the funds
 * (EVM, Sui secp256k1 accounts) sign with it, so the one-time key must be one of theirs.
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bigIntToBytes, bytesToBigInt, equalBytes, toBytes, type BytesInput } from './bytes.ts';
import { InvalidKeyError, KeyMismatchError } from './errors.ts';

/** A point on secp256k1 (noble's projective point). */
export type CurvePoint = InstanceType<typeof secp256k1.Point>;

export const Point = secp256k1.Point;
/** Group order `n` of secp256k1. */
export const CURVE_ORDER = secp256k1.Point.Fn.ORDER;
export const SPENDING_SECRET_BYTES = 32;
export const SPENDING_PUBLIC_KEY_BYTES = 33; // SEC1 compressed

/** Parse and range-check a spending secret `b` (1 <= b < n). */
export function parseSpendingSecret(input: BytesInput, field = 'spending_sk'): bigint {
  const bytes = toBytes(input, field, SPENDING_SECRET_BYTES);
  const b = bytesToBigInt(bytes);
  if (b === 0n) throw new InvalidKeyError(field, 'the scalar is zero');
  if (b >= CURVE_ORDER) throw new InvalidKeyError(field, 'the scalar is not below the secp256k1 group order');
  return b;
}

/**
 * The point a SEC1-compressed encoding names: 33 bytes, tag `02`/`03`, an x on secp256k1; null
 * otherwise (never throws). The one check behind every compressed point the SDK and the server
 * read: spending and viewing keys, and an ERC-8441 announcement's `epk` (its Section 2.7).
 */
export function compressedPointOrNull(bytes: Uint8Array): CurvePoint | null {
  if (bytes.length !== SPENDING_PUBLIC_KEY_BYTES || (bytes[0] !== 0x02 && bytes[0] !== 0x03)) return null;
  try {
    const point = Point.fromBytes(bytes);
    point.assertValidity();
    return point;
  } catch {
    return null;
  }
}

/**
 * Whether `bytes` is a SEC1-compressed secp256k1 point (33 bytes, `02`/`03`, on the curve).
 * @example
 * isCompressedPoint(hexToBytes('02' + '00'.repeat(31) + '05')); // false: x = 5 has no y
 */
export function isCompressedPoint(bytes: Uint8Array): boolean {
  return compressedPointOrNull(bytes) !== null;
}

/** Parse a compressed spending public key: 33 bytes, `02`/`03`, on the curve, not identity. */
export function parseSpendingPublicKey(input: BytesInput, field = 'spending_pk'): CurvePoint {
  const bytes = toBytes(input, field, SPENDING_PUBLIC_KEY_BYTES);
  if (bytes[0] !== 0x02 && bytes[0] !== 0x03) {
    throw new InvalidKeyError(field, 'must be a compressed secp256k1 point (prefix 02 or 03)');
  }
  const point = compressedPointOrNull(bytes);
  if (point === null) throw new InvalidKeyError(field, 'not a point on secp256k1');
  if (point.is0()) throw new InvalidKeyError(field, 'the identity point is not a key');
  return point;
}

/** `B = b*G`, compressed. */
export function spendingPublicKeyFromSecret(b: bigint): Uint8Array {
  return Point.BASE.multiply(b).toBytes(true);
}

/** Throw unless `b*G == B` (PROTOCOL.md section 5 step 4: "check b*G == B first"). */
export function assertSpendingKeyPair(b: bigint, publicKey: Uint8Array, field = 'spending_sk'): void {
  if (!equalBytes(spendingPublicKeyFromSecret(b), publicKey)) {
    throw new KeyMismatchError(field, 'the spending secret key does not belong to the spending public key');
  }
}

export function scalarToBytes(value: bigint): Uint8Array {
  return bigIntToBytes(value, SPENDING_SECRET_BYTES);
}
