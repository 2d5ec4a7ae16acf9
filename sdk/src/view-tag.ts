/**
 * View tags (PROTOCOL.md sections 2 and 4): `H("SPECTER_VIEW_TAG_V1", x, 1)[0]`.
 *
 * Of a payment's shared secret `K` it is the 1-byte tag published with the announcement, so a
 * recipient can discard 255/256 of foreign announcements after one decapsulation. Of the
 * viewing public key it is the informational "base view tag" of a key bundle.
 * @module
 */
import { DOMAIN, domainHash } from './hash.ts';

/** The view tag (0..255) of `input`: a shared secret, or a viewing public key. */
export function computeViewTag(input: Uint8Array): number {
  return domainHash(DOMAIN.viewTag, 1, input)[0]!;
}
