/**
 * ERC-8441 payments (schemeId 3): the common definitions of the ERC's Section 1 and the sender of
 * its Section 2.4.
 *
 *     ss       = SHA3-256("pq-stealth/hybrid-payment/v1" || ss_ec || ss_pq || epk || ct || viewing_pk_ec || ek)
 *     H(ss)    = u256be(SHA256("pq-stealth/offset/v1" || ss)) if 0 < it < n, else the payment fails
 *     view_tag = SHA256("pq-stealth/view-tag/v1" || ss)[0]
 *     stealth  = spending_pk + H(ss)·G, its EVM address keccak256(uncompressed[1..65])[12..32]
 *
 * `ss_ec` is the x-coordinate of `esk·viewing_pk_ec` alone; `H(ss)` is never reduced mod n (a
 * digest outside the range fails: the sender draws again, a scanner skips). The announcement is
 * `announce(3, address, epk || ct, view_tag || extra)`: the 1121-byte `ephemeralPubKey` is `epk`
 * first. A sender's randomness (`esk` and the encapsulation's `m`) comes from the platform's
 * CSPRNG; the deterministic inputs exist for test vectors only.
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { evmAddressOf, suiAddressOf } from './address.ts';
import { bytesToBigInt, concatBytes, randomBytes, toBytes, type BytesInput } from './bytes.ts';
import { InvalidArgumentError } from './errors.ts';
import { decodeErc8441MetaAddress, erc8441Points, type Erc8441MetaAddress } from './erc8441-meta-address.ts';
import { sealNote, type PaymentNoteInput } from './note.ts';
import { CURVE_ORDER, Point, type CurvePoint } from './spending-key.ts';
import { encapsulate } from './viewing-key.ts';
import { HYBRID_DS } from './erc8441-domains.ts';

const encoder = new TextEncoder();
const OFFSET_DS = encoder.encode('pq-stealth/offset/v1');
const VIEW_TAG_DS = encoder.encode('pq-stealth/view-tag/v1');

/** `epk (33) || ct (1088)`: the scheme-3 `ephemeralPubKey`. */
export const ERC8441_EPHEMERAL_KEY_BYTES = 1121;
const EPK_BYTES = 33;

/** The ERC's `hybrid_combine` with scheme 3's domain separator (its Section 1.1): the payment secret `ss`. */
export function hybridCombine(parts: { ssEc: Uint8Array; ssPq: Uint8Array; epk: Uint8Array; ciphertext: Uint8Array; viewingPublicKeyEc: Uint8Array; encapsulationKey: Uint8Array }): Uint8Array {
  return sha3_256.create().update(HYBRID_DS).update(parts.ssEc).update(parts.ssPq).update(parts.epk).update(parts.ciphertext).update(parts.viewingPublicKeyEc).update(parts.encapsulationKey).digest();
}

/** `u256be(SHA256("pq-stealth/offset/v1" || ss))` before the range check (the vectors' `base`). */
export function erc8441OffsetBase(ss: Uint8Array): Uint8Array {
  return sha256.create().update(OFFSET_DS).update(ss).digest();
}

/** `H(ss)` of a digest `base`: its value when 0 < base < n, null otherwise (never reduced mod n). */
export function erc8441OffsetOfBase(base: Uint8Array): bigint | null {
  const value = bytesToBigInt(base);
  return value > 0n && value < CURVE_ORDER ? value : null;
}

/** `H(ss)`, or null when the digest is out of range (the payment fails; probability below 2^-127). */
export function erc8441Offset(ss: Uint8Array): bigint | null {
  return erc8441OffsetOfBase(erc8441OffsetBase(ss));
}

/** `SHA256("pq-stealth/view-tag/v1" || ss)[0]`. */
export function erc8441ViewTag(ss: Uint8Array): number {
  return sha256.create().update(VIEW_TAG_DS).update(ss).digest()[0]!;
}

/** `ECDH(k, P).x`: the 32-byte x-coordinate of `k·P` alone. */
export function ecdhX(scalar: bigint, point: CurvePoint): Uint8Array {
  return point.multiply(scalar).toBytes(true).subarray(1);
}

export type CreateErc8441PaymentOptions = {
  /**
   * Sealed into the announcement's metadata after the view tag (PROTOCOL.md sections 8 and 10,
   * `K := ss`): version 1 (112 bytes, 8.1) when it names its `token`, else version 0 (92 bytes).
   */
  note?: PaymentNoteInput;
  /** Test vectors only: the ephemeral scalar `esk` (32 bytes). Random when omitted. */
  ephemeralSecretKey?: BytesInput;
  /** Test vectors only: the encapsulation message `m` (32 bytes, ML-KEM.Encaps_internal). Random when omitted. */
  encapsulationMessage?: BytesInput;
};

/** A scheme-3 payment: what to pay and what to announce. */
export type Erc8441Payment = {
  schemeId: 3;
  /** EIP-55 one-time address: pay it, and pass it as the announcement's `stealthAddress`. */
  stealthAddress: string;
  /** The Sui address of the same one-time key. */
  stealthSuiAddress: string;
  /** `stealth_pk`, compressed. */
  stealthPublicKey: Uint8Array;
  /** `epk || ct` (1121 bytes): the announcement's `ephemeralPubKey`. */
  ephemeralPubKey: Uint8Array;
  viewTag: number;
  /** The announcement's `metadata`: the view tag, then the sealed note (112 bytes naming its token, else 92) when one was given. */
  metadata: Uint8Array;
  /** `ss`. Secret to the payment: with the one-time key it gives the recipient's spending key. */
  sharedSecret: Uint8Array;
};

/**
 * Pay an ERC-8441 recipient (the ERC's Section 2.4).
 * @example
 * const payment = createErc8441Payment(recipientMeta, { note: { amount: 10n ** 17n, chainId: 8453n, token: 'coin' } });
 * await wallet.sendTransaction({ to: payment.stealthAddress, value: 10n ** 17n });
 * // then announce(3, payment.stealthAddress, payment.ephemeralPubKey, payment.metadata)
 * @throws {InvalidMetaAddressError} for a meta-address that fails the ERC's Section 2.2.
 */
export function createErc8441Payment(recipient: BytesInput | Erc8441MetaAddress, options: CreateErc8441PaymentOptions = {}): Erc8441Payment {
  const meta = typeof recipient === 'object' && !(recipient instanceof Uint8Array) ? recipient : decodeErc8441MetaAddress(recipient);
  const { spending, viewing } = erc8441Points(meta);
  const deterministic = options.ephemeralSecretKey !== undefined || options.encapsulationMessage !== undefined;
  // A digest out of range (below 2^-127) or a drawn esk outside the scalar range: draw again.
  for (let attempt = 0; attempt < 16; attempt++) {
    const esk = options.ephemeralSecretKey === undefined ? secp256k1.utils.randomSecretKey() : toBytes(options.ephemeralSecretKey, 'ephemeralSecretKey', 32);
    const eskValue = bytesToBigInt(esk);
    if (eskValue === 0n || eskValue >= CURVE_ORDER) {
      if (deterministic) throw new InvalidArgumentError('ephemeralSecretKey', 'must be a secp256k1 scalar with 0 < k < n');
      continue;
    }
    const message = options.encapsulationMessage === undefined ? randomBytes(32) : toBytes(options.encapsulationMessage, 'encapsulationMessage', 32);
    const epk = Point.BASE.multiply(eskValue).toBytes(true);
    const { ciphertext, sharedSecret: ssPq } = encapsulate(meta.encapsulationKey, message);
    const ss = hybridCombine({ ssEc: ecdhX(eskValue, viewing), ssPq, epk, ciphertext, viewingPublicKeyEc: meta.viewingPublicKeyEc, encapsulationKey: meta.encapsulationKey });
    const offset = erc8441Offset(ss);
    if (offset === null) {
      if (deterministic) throw new InvalidArgumentError('ephemeralSecretKey', 'these inputs give an offset outside the scalar range; draw others');
      continue;
    }
    const stealth = spending.add(Point.BASE.multiply(offset));
    const viewTag = erc8441ViewTag(ss);
    return {
      schemeId: 3,
      stealthAddress: evmAddressOf(stealth),
      stealthSuiAddress: suiAddressOf(stealth),
      stealthPublicKey: stealth.toBytes(true),
      ephemeralPubKey: concatBytes(epk, ciphertext),
      viewTag,
      metadata: options.note === undefined ? Uint8Array.of(viewTag) : concatBytes(Uint8Array.of(viewTag), sealNote(ss, options.note)),
      sharedSecret: ss,
    };
  }
  throw new InvalidArgumentError('randomness', 'the platform random generator gave 16 unusable draws in a row');
}

/** Where `epk` and `ct` sit in a scheme-3 `ephemeralPubKey`. */
export function splitErc8441EphemeralKey(ephemeralPubKey: Uint8Array): { epk: Uint8Array; ciphertext: Uint8Array } {
  return { epk: ephemeralPubKey.subarray(0, EPK_BYTES), ciphertext: ephemeralPubKey.subarray(EPK_BYTES) };
}
