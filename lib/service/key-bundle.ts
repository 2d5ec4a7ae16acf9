/**
 * Key generation for POST /api/v1/keys/generate (PROTOCOL.md section 2): a fresh identity in
 * JSON form. Nothing is stored; the response is the only copy of the secrets.
 */
import { bytesToHex, erc8441KeysOf, generateKeys, type RecipientKeys } from '@wraith-pq/sdk';
import type { KeyBundle } from '../schemas/keys.ts';

export function generateKeyBundle(): KeyBundle {
  return keyBundleJson(generateKeys());
}

/** A recipient's keys in the response form (also the document's example bundle, lib/openapi/examples.ts). */
export function keyBundleJson(keys: RecipientKeys): KeyBundle {
  // The same identity under ERC-8441 (PROTOCOL.md section 10): derived, nothing more to keep.
  const erc8441 = erc8441KeysOf(keys);
  return {
    spending_pk: bytesToHex(keys.spendingPublicKey),
    spending_sk: bytesToHex(keys.spendingSecretKey),
    viewing_pk: bytesToHex(keys.viewingPublicKey),
    viewing_sk: bytesToHex(keys.viewingSecretKey),
    meta_address: bytesToHex(keys.metaAddress),
    view_tag: keys.baseViewTag,
    tracking_key: bytesToHex(erc8441.trackingKey),
    erc8441_meta_address: bytesToHex(erc8441.metaAddress),
  };
}
