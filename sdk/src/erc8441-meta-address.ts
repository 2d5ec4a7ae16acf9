/**
 * ERC-8441 meta-addresses (schemeId 3, the ERC's Section 2.2; PROTOCOL.md section 10):
 *
 *     meta = spending_pk (33) || viewing_pk_ec (33) || ek (1184)          1250 bytes, no version byte
 *
 * Both points must be SEC1-compressed (tag 02/03) and on secp256k1, and `ek` must pass FIPS 203's
 * encapsulation-key check, all before the meta-address is used for anything: a decoder that
 * checks only the length and tag bytes lets a non-point reach the ECDH, far from its cause (the
 * ERC's vectors V3-03, V3-11, V3-12). Wraith's own 1218-byte form (version byte 0x02) is
 * `decodeMetaAddress`; `decodeAnyMetaAddress` tells the two apart by length.
 * @module
 */
import { concatBytes, type BytesInput } from './bytes.ts';
import { InvalidMetaAddressError } from './errors.ts';
import { asMetaAddressError, decodeMetaAddress, META_ADDRESS_BYTES, metaAddressBytes, metaAddressUri, type MetaAddress } from './meta-address.ts';
import { parseSpendingPublicKey, SPENDING_PUBLIC_KEY_BYTES, type CurvePoint } from './spending-key.ts';
import { parseViewingPublicKey, VIEWING_PUBLIC_KEY_BYTES } from './viewing-key.ts';

/** ERC-5564 scheme id of ERC-8441 (hybrid ML-KEM-768 + secp256k1 ECDH). */
export const ERC8441_SCHEME_ID = 3;
/** Wraith's own scheme id (PROTOCOL.md section 7). */
export const WRAITH_SCHEME_ID_1000 = 1000;
export const ERC8441_META_ADDRESS_BYTES = 2 * SPENDING_PUBLIC_KEY_BYTES + VIEWING_PUBLIC_KEY_BYTES; // 1250

/** A decoded, validated ERC-8441 meta-address. */
export type Erc8441MetaAddress = {
  schemeId: typeof ERC8441_SCHEME_ID;
  /** The 1250 bytes. */
  bytes: Uint8Array;
  /** `spending_pk` (33 bytes, compressed). */
  spendingPublicKey: Uint8Array;
  /** `viewing_pk_ec` (33 bytes, compressed). */
  viewingPublicKeyEc: Uint8Array;
  /** ML-KEM-768 `ek` (1184 bytes). */
  encapsulationKey: Uint8Array;
  /** The `st:<chain>:` short name when it came as a URI. */
  chain?: string;
};

/** Either form a sender may be given, tagged by the scheme it is paid with by default. */
export type AnyMetaAddress = Erc8441MetaAddress | (MetaAddress & { schemeId: typeof WRAITH_SCHEME_ID_1000 });

/** `spending_pk || viewing_pk_ec || ek`, each validated first. */
export function encodeErc8441MetaAddress(parts: { spendingPublicKey: BytesInput; viewingPublicKeyEc: BytesInput; encapsulationKey: BytesInput }): Uint8Array {
  const B = parseSpendingPublicKey(parts.spendingPublicKey, 'spendingPublicKey');
  const V = parseSpendingPublicKey(parts.viewingPublicKeyEc, 'viewingPublicKeyEc');
  const ek = parseViewingPublicKey(parts.encapsulationKey, 'encapsulationKey');
  return concatBytes(B.toBytes(true), V.toBytes(true), ek);
}

/**
 * Decode and validate an ERC-8441 meta-address: bytes, hex or `st:<chain>:0x…`.
 * @example
 * const recipient = decodeErc8441MetaAddress(await readRegistry(address));
 * @throws {InvalidMetaAddressError} for any length but 1250, a point that is not a compressed
 * secp256k1 point, or an `ek` that fails FIPS 203's check (the message names the field).
 */
export function decodeErc8441MetaAddress(input: BytesInput): Erc8441MetaAddress {
  const { bytes, chain } = metaAddressBytes(input);
  if (bytes.length !== ERC8441_META_ADDRESS_BYTES) {
    throw new InvalidMetaAddressError(`an ERC-8441 meta-address is ${ERC8441_META_ADDRESS_BYTES} bytes, got ${bytes.length}`);
  }
  const spendingPublicKey = bytes.slice(0, SPENDING_PUBLIC_KEY_BYTES);
  const viewingPublicKeyEc = bytes.slice(SPENDING_PUBLIC_KEY_BYTES, 2 * SPENDING_PUBLIC_KEY_BYTES);
  const encapsulationKey = bytes.slice(2 * SPENDING_PUBLIC_KEY_BYTES);
  asMetaAddressError(() => {
    parseSpendingPublicKey(spendingPublicKey, 'spending key');
    parseSpendingPublicKey(viewingPublicKeyEc, 'viewing key (secp256k1)');
    parseViewingPublicKey(encapsulationKey, 'viewing key (ML-KEM)');
  });
  return { schemeId: ERC8441_SCHEME_ID, bytes: bytes.slice(), spendingPublicKey, viewingPublicKeyEc, encapsulationKey, ...(chain ? { chain } : {}) };
}

/**
 * Decode either meta-address form by its length (PROTOCOL.md section 10): 1250 bytes is ERC-8441
 * (paid with scheme 3), 1218 bytes Wraith's own (scheme 1000).
 * @throws {InvalidMetaAddressError} / {LegacyMetaAddressError} as the form's own decoder does.
 */
export function decodeAnyMetaAddress(input: BytesInput): AnyMetaAddress {
  const { bytes, chain } = metaAddressBytes(input);
  if (bytes.length === ERC8441_META_ADDRESS_BYTES) return { ...decodeErc8441MetaAddress(bytes), ...(chain ? { chain } : {}) };
  if (bytes.length !== META_ADDRESS_BYTES && bytes[0] === 0x02) {
    throw new InvalidMetaAddressError(`expected ${META_ADDRESS_BYTES} bytes (Wraith) or ${ERC8441_META_ADDRESS_BYTES} (ERC-8441), got ${bytes.length}`);
  }
  return { ...decodeMetaAddress(bytes), ...(chain ? { chain } : {}), schemeId: WRAITH_SCHEME_ID_1000 };
}

/** The ERC-5564 URI of an ERC-8441 meta-address. */
export function formatErc8441MetaAddressUri(metaAddress: Uint8Array, chain = 'eth'): string {
  return metaAddressUri(decodeErc8441MetaAddress(metaAddress).bytes, chain);
}

/** The two points of a decoded meta-address, for the arithmetic. */
export function erc8441Points(meta: Erc8441MetaAddress): { spending: CurvePoint; viewing: CurvePoint } {
  return { spending: parseSpendingPublicKey(meta.spendingPublicKey), viewing: parseSpendingPublicKey(meta.viewingPublicKeyEc) };
}
