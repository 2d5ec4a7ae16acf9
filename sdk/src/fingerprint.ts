/**
 * A short fingerprint of a meta-address, for people who copy one by hand.
 *
 * A meta-address is 1218 bytes (Wraith, scheme 1000) or 1250 bytes (ERC-8441, scheme 3), and most
 * of its bytes (the ML-KEM key's) pass every structural check after a typo: a one-character
 * change still decodes, and a payment to it is lost. The fingerprint is 80 bits of
 * `H("WRAITH_META_FINGERPRINT_V1", bytes, 10)` (PROTOCOL.md section 1) written as 16 Crockford
 * base32 characters in four groups (`7KQ2-M9XD-4RTV-B0NE`): the recipient reads it from their
 * Receive page or `wraith keys show`, the payer compares it before signing. Any change of the
 * bytes changes it; finding another valid meta-address with the same fingerprint takes about
 * 2^80 work.
 * @module
 */
import type { BytesInput } from './bytes.ts';
import { domainHash } from './hash.ts';
import { metaAddressBytes, decodeMetaAddress, type MetaAddress } from './meta-address.ts';
import { decodeAnyMetaAddress } from './erc8441-meta-address.ts';

const FINGERPRINT_DOMAIN = 'WRAITH_META_FINGERPRINT_V1';
const FINGERPRINT_BYTES = 10; // 80 bits: 16 base32 characters
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // no I, L, O, U: nothing to misread

/**
 * The fingerprint of a meta-address in either form (bytes, hex or `st:<chain>:0x…`), checked
 * first: a value that is not a valid meta-address throws rather than getting a fingerprint.
 *
 * @example
 * import { generateKeys, metaAddressFingerprint } from '@wraith-pq/sdk';
 * const { metaAddress } = generateKeys();
 * metaAddressFingerprint(metaAddress); // e.g. 'T3KX-9QM2-RD4V-8BNA'
 * @throws {InvalidMetaAddressError} when the input is not a meta-address.
 */
export function metaAddressFingerprint(metaAddress: BytesInput | MetaAddress): string {
  const bytes = metaAddress instanceof Uint8Array || typeof metaAddress === 'string'
    ? decodeAnyMetaAddress(metaAddressBytes(metaAddress).bytes).bytes
    : decodeMetaAddress(metaAddress).bytes;
  return formatFingerprint(domainHash(FINGERPRINT_DOMAIN, FINGERPRINT_BYTES, bytes));
}

/**
 * Whether `typed` is the fingerprint of `metaAddress`, ignoring case, spaces and dashes, and
 * reading the look-alikes O as 0 and I/L as 1 (Crockford base32).
 */
export function fingerprintMatches(metaAddress: BytesInput | MetaAddress, typed: string): boolean {
  return normalizeFingerprint(typed) === normalizeFingerprint(metaAddressFingerprint(metaAddress));
}

function normalizeFingerprint(text: string): string {
  return text.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

function formatFingerprint(digest: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out.match(/.{4}/g)!.join('-');
}
