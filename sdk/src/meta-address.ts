/**
 * Meta-address, PROTOCOL.md section 3:
 *
 *     meta_address = 0x02 || B (33) || ek (1184)          -- 1218 bytes
 *
 * Decoding accepts bytes, hex (with or without `0x`) and the ERC-5564 URI `st:<chain>:0x<hex>`,
 * and enforces every rule: exact length, version byte, `B` a valid compressed secp256k1 point,
 * `ek` passing the FIPS 203 modulus check. The legacy version-1 format (two ML-KEM keys) is
 * recognised and refused with {@link LegacyMetaAddressError}: under it the sender can spend.
 * @module
 */
import { bytesToHex, concatBytes, hexToBytes, type BytesInput } from './bytes.ts';
import { InvalidKeyError, InvalidMetaAddressError, LegacyMetaAddressError, WraithError } from './errors.ts';
import { parseSpendingPublicKey, SPENDING_PUBLIC_KEY_BYTES } from './spending-key.ts';
import { parseViewingPublicKey, VIEWING_PUBLIC_KEY_BYTES } from './viewing-key.ts';

export const META_ADDRESS_VERSION = 0x02;
export const META_ADDRESS_BYTES = 1 + SPENDING_PUBLIC_KEY_BYTES + VIEWING_PUBLIC_KEY_BYTES; // 1218
const LEGACY_VERSION = 0x01;
const LEGACY_META_ADDRESS_BYTES = 1 + 2 * VIEWING_PUBLIC_KEY_BYTES; // 2369: 01 || ek || ek
const URI_PATTERN = /^st:([A-Za-z0-9-]{1,32}):(.*)$/s;

/** A decoded, validated meta-address. */
export type MetaAddress = {
  /** The 1218 encoded bytes. */
  bytes: Uint8Array;
  /** `B`, compressed secp256k1 (33 bytes). */
  spendingPublicKey: Uint8Array;
  /** `ek`, ML-KEM-768 encapsulation key (1184 bytes). */
  viewingPublicKey: Uint8Array;
  /** The chain short name when decoded from an `st:<chain>:` URI. */
  chain?: string;
};

export type EncodeMetaAddressParameters = {
  spendingPublicKey: BytesInput;
  viewingPublicKey: BytesInput;
};

/** Encode (and validate) `0x02 || B || ek`. */
export function encodeMetaAddress({ spendingPublicKey, viewingPublicKey }: EncodeMetaAddressParameters): Uint8Array {
  const B = parseSpendingPublicKey(spendingPublicKey, 'spendingPublicKey');
  const ek = parseViewingPublicKey(viewingPublicKey, 'viewingPublicKey');
  return concatBytes(Uint8Array.of(META_ADDRESS_VERSION), B.toBytes(true), ek);
}

/** The ERC-5564 URI form `st:<chain>:0x<hex>`. */
export function formatMetaAddressUri(metaAddress: Uint8Array, chain = 'eth'): string {
  return metaAddressUri(decodeMetaAddress(metaAddress).bytes, chain);
}

/** `st:<chain>:0x<hex>` of bytes already validated by their form's decoder. */
export function metaAddressUri(validated: Uint8Array, chain: string): string {
  if (!/^[A-Za-z0-9-]{1,32}$/.test(chain)) throw new InvalidMetaAddressError('the chain short name must be 1-32 letters, digits or dashes');
  return `st:${chain}:0x${bytesToHex(validated)}`;
}

/** The bytes (and URI chain) of a meta-address given as bytes, hex or `st:<chain>:0x…`, unchecked. */
export function metaAddressBytes(input: BytesInput): { bytes: Uint8Array; chain?: string } {
  if (input instanceof Uint8Array) return { bytes: input };
  if (typeof input !== 'string') throw new InvalidMetaAddressError('expected bytes, hex text or an st:<chain>:0x… URI');
  const text = input.trim();
  const uri = URI_PATTERN.exec(text);
  const chain = uri?.[1];
  try {
    return { bytes: hexToBytes(uri ? uri[2]! : text, 'meta_address'), ...(chain ? { chain } : {}) };
  } catch (cause) {
    const issue = cause instanceof WraithError ? cause.details[0]?.issue ?? 'not hex' : 'not hex';
    throw new InvalidMetaAddressError(`not valid hex (${issue})`, { cause });
  }
}

/**
 * Decode and validate a meta-address.
 *
 * @example
 * const { spendingPublicKey, viewingPublicKey } = decodeMetaAddress('st:eth:0x0203…');
 * @throws {LegacyMetaAddressError} for a version-1 meta-address.
 * @throws {InvalidMetaAddressError} for anything else that breaks PROTOCOL.md section 3.
 */
export function decodeMetaAddress(input: BytesInput | MetaAddress): MetaAddress {
  const { bytes, chain } = isDecodedMetaAddress(input) ? input : metaAddressBytes(input);
  if (bytes[0] === LEGACY_VERSION && bytes.length === LEGACY_META_ADDRESS_BYTES) {
    throw new LegacyMetaAddressError();
  }
  if (bytes.length !== META_ADDRESS_BYTES) {
    throw new InvalidMetaAddressError(`expected ${META_ADDRESS_BYTES} bytes, got ${bytes.length}`);
  }
  if (bytes[0] !== META_ADDRESS_VERSION) {
    throw new InvalidMetaAddressError('unknown version byte (expected 2)');
  }
  const spendingPublicKey = bytes.slice(1, 1 + SPENDING_PUBLIC_KEY_BYTES);
  const viewingPublicKey = bytes.slice(1 + SPENDING_PUBLIC_KEY_BYTES);
  asMetaAddressError(() => {
    parseSpendingPublicKey(spendingPublicKey, 'spending key');
    parseViewingPublicKey(viewingPublicKey, 'viewing key');
  });
  return { bytes: bytes.slice(), spendingPublicKey, viewingPublicKey, ...(chain ? { chain } : {}) };
}

/** Run a meta-address's key checks, reporting a bad key as InvalidMetaAddressError naming it. */
export function asMetaAddressError(checks: () => void): void {
  try {
    checks();
  } catch (cause) {
    if (cause instanceof InvalidKeyError) {
      const detail = cause.details[0]!;
      throw new InvalidMetaAddressError(`${detail.path} ${detail.issue}`, { cause });
    }
    throw cause;
  }
}

function isDecodedMetaAddress(input: unknown): input is MetaAddress {
  return typeof input === 'object' && input !== null && !(input instanceof Uint8Array) && (input as MetaAddress).bytes instanceof Uint8Array;
}
