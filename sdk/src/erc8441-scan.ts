/**
 * The ERC-8441 scanner and one-time key (schemeId 3, the ERC's Sections 2.5-2.7).
 *
 * For each announcement: `ss_ec = ECDH(viewing_ec, epk).x`, `ss_pq = Decaps(dk, ct)`, `ss` by the
 * hybrid combiner; the view tag only lets 255 of 256 foreign announcements skip the point
 * arithmetic, and the announced `stealthAddress` decides: a row whose derived address differs is
 * skipped, never reported (decapsulation never fails, so it is never a match by itself). Every
 * malformed announcement is a skip with its reason, never an exception: `announce()` is
 * permissionless, and a scanner that throws on a shape stops at the first junk event.
 *
 * Timing: the ECDH and the decapsulation run for every well-formed announcement; what follows
 * (offset, point addition, address) runs only on a view-tag match, so a scan's duration reveals how
 * many rows passed the view tag (about 1 in 256 of foreign rows), not which matched.
 * @module
 */
import { evmAddressOf } from './address.ts';
import { equalBytes, toBytes, type BytesInput } from './bytes.ts';
import { KeyMismatchError } from './errors.ts';
import { parseTrackingKey } from './erc8441-keys.ts';
import { decodeErc8441MetaAddress, erc8441Points, type Erc8441MetaAddress } from './erc8441-meta-address.ts';
import { ecdhX, ERC8441_EPHEMERAL_KEY_BYTES, erc8441Offset, erc8441ViewTag, hybridCombine, splitErc8441EphemeralKey } from './erc8441-payment.ts';
import { CURVE_ORDER, parseSpendingSecret, Point, scalarToBytes, type CurvePoint } from './spending-key.ts';
import { decapsulate, viewingKeyPairFromSeed } from './viewing-key.ts';

/** Why an announcement was skipped (the ERC's Section 2.7). */
export type Erc8441SkipReason = 'malformed' | 'invalid_epk' | 'view_tag' | 'offset_out_of_range' | 'address_mismatch';

/** A scheme-3 announcement as the chain holds it. */
export type Erc8441Announcement = {
  /** `epk || ct`, 1121 bytes. */
  ephemeralPubKey: Uint8Array;
  /** The announcement's metadata: the view tag first, anything after it. */
  metadata: Uint8Array;
  /** The announced one-time address (any case). */
  stealthAddress: string;
};

export type Erc8441Check = { match: true; stealthAddress: string; sharedSecret: Uint8Array; viewTag: number } | { match: false; reason: Erc8441SkipReason };

/** A tracking key checked against its meta-address, expanded once for a scan. */
export type Erc8441Scanner = {
  readonly meta: Erc8441MetaAddress;
  /** Check one announcement; never throws for an announcement's content. */
  check(announcement: Erc8441Announcement): Erc8441Check;
};

/**
 * Prepare a scan with a tracking key (`viewing_ec || d || z`, 96 bytes) and the recipient's
 * registered meta-address. The key is checked against the meta-address first (`viewing_ec·G`
 * and `ek`, the ERC's Section 2.5): a corrupted key would otherwise find nothing, silently.
 * @example
 * const scanner = createErc8441Scanner({ trackingKey, metaAddress });
 * const found = announcements.filter((a) => scanner.check(a).match);
 * @throws {KeyMismatchError} (code KEY_MISMATCH) when the tracking key is not the meta-address's.
 */
export function createErc8441Scanner(parameters: { trackingKey: BytesInput; metaAddress: BytesInput | Erc8441MetaAddress }): Erc8441Scanner {
  const meta = typeof parameters.metaAddress === 'object' && !(parameters.metaAddress instanceof Uint8Array) ? parameters.metaAddress : decodeErc8441MetaAddress(parameters.metaAddress);
  const { viewingScalar, kemSeed } = parseTrackingKey(parameters.trackingKey);
  const { publicKey: ek, secretKey: dk } = viewingKeyPairFromSeed(kemSeed);
  if (!equalBytes(Point.BASE.multiply(viewingScalar).toBytes(true), meta.viewingPublicKeyEc) || !equalBytes(ek, meta.encapsulationKey)) {
    throw new KeyMismatchError('tracking_key', 'the tracking key does not belong to this meta-address (viewing_ec·G or ek differ)');
  }
  const { spending } = erc8441Points(meta);
  return {
    meta,
    check: (announcement) => checkWith(announcement, viewingScalar, dk, spending, meta),
  };
}

function checkWith(announcement: Erc8441Announcement, viewingScalar: bigint, dk: Uint8Array, spending: CurvePoint, meta: Erc8441MetaAddress): Erc8441Check {
  const { ephemeralPubKey, metadata } = announcement;
  if (ephemeralPubKey.length !== ERC8441_EPHEMERAL_KEY_BYTES || metadata.length === 0) return { match: false, reason: 'malformed' };
  const { epk, ciphertext } = splitErc8441EphemeralKey(ephemeralPubKey);
  let ephemeral: CurvePoint;
  try {
    if (epk[0] !== 0x02 && epk[0] !== 0x03) return { match: false, reason: 'invalid_epk' };
    ephemeral = Point.fromBytes(epk);
    ephemeral.assertValidity();
  } catch {
    return { match: false, reason: 'invalid_epk' };
  }
  const ss = hybridCombine({
    ssEc: ecdhX(viewingScalar, ephemeral),
    ssPq: decapsulate(ciphertext, dk),
    epk,
    ciphertext,
    viewingPublicKeyEc: meta.viewingPublicKeyEc,
    encapsulationKey: meta.encapsulationKey,
  });
  const viewTag = erc8441ViewTag(ss);
  if (viewTag !== metadata[0]) return { match: false, reason: 'view_tag' };
  const offset = erc8441Offset(ss);
  if (offset === null) return { match: false, reason: 'offset_out_of_range' };
  const address = evmAddressOf(spending.add(Point.BASE.multiply(offset)));
  if (address.toLowerCase() !== announcement.stealthAddress.toLowerCase()) return { match: false, reason: 'address_mismatch' };
  return { match: true, stealthAddress: address, sharedSecret: ss, viewTag };
}

/**
 * The one-time key of a found payment (the ERC's Section 2.6): `(spending_sk + H(ss)) mod n`,
 * checked to give `stealthAddress` when it is passed. Never disclose it together with its `ss`:
 * the two give the spending key.
 * @throws {KeyMismatchError} when the key does not give `stealthAddress`.
 */
export function erc8441StealthKey(parameters: { spendingSecretKey: BytesInput; sharedSecret: BytesInput; stealthAddress?: string }): Uint8Array {
  const b = parseSpendingSecret(parameters.spendingSecretKey, 'spendingSecretKey');
  const offset = erc8441Offset(toBytes(parameters.sharedSecret, 'sharedSecret', 32));
  if (offset === null) throw new KeyMismatchError('sharedSecret', 'its offset is outside the scalar range: no payment uses it');
  const p = (b + offset) % CURVE_ORDER;
  if (p === 0n) throw new KeyMismatchError('sharedSecret', 'the one-time key would be zero'); // probability 2^-256
  if (parameters.stealthAddress !== undefined && evmAddressOf(Point.BASE.multiply(p)).toLowerCase() !== parameters.stealthAddress.toLowerCase()) {
    throw new KeyMismatchError('spendingSecretKey', 'the one-time key does not give the stealth address');
  }
  return scalarToBytes(p);
}
