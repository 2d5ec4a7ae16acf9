/**
 * Domain-separated hash of PROTOCOL.md section 1:
 *
 *     H(domain, input, len) = SHAKE256( u32le(len(domain)) || domain || input )[0 .. len]
 *
 * The 4-byte little-endian length prefix is part of the wire format (compatibility with
 * existing deployments), so it must never be "simplified" away.
 * @module
 */
import { shake256 } from '@noble/hashes/sha3.js';

/** Domain strings (PROTOCOL.md section 1). */
export const DOMAIN = {
  viewTag: 'SPECTER_VIEW_TAG_V1',
  stealthTweak: 'SPECTER_STEALTH_TWEAK_V2',
} as const;

const encoder = new TextEncoder();
const PREFIXES = new Map<string, Uint8Array>();

/** `u32le(len(domain)) || domain`, cached per domain. */
export function domainPrefix(domain: string): Uint8Array {
  let prefix = PREFIXES.get(domain);
  if (!prefix) {
    const name = encoder.encode(domain);
    prefix = new Uint8Array(4 + name.length);
    new DataView(prefix.buffer).setUint32(0, name.length, true); // u32le(len(domain))
    prefix.set(name, 4);
    PREFIXES.set(domain, prefix);
  }
  return prefix;
}

/** `H(domain, input, len)`; several `input` parts are hashed as their concatenation. */
export function domainHash(domain: string, len: number, ...input: Uint8Array[]): Uint8Array {
  const h = shake256.create({ dkLen: len }).update(domainPrefix(domain));
  for (const part of input) h.update(part);
  return h.digest();
}
