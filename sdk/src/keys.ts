/**
 * Key generation (PROTOCOL.md section 2).
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { randomBytes, toBytes, type BytesInput } from './bytes.ts';
import { encodeMetaAddress } from './meta-address.ts';
import { parseSpendingSecret, scalarToBytes, spendingPublicKeyFromSecret } from './spending-key.ts';
import { computeViewTag } from './view-tag.ts';
import { VIEWING_SEED_BYTES, viewingKeyPairFromSeed } from './viewing-key.ts';

export type GenerateKeysParameters = {
  /** 32-byte spending scalar `b` (1 <= b < n). Random when omitted. */
  spendingSecret?: BytesInput;
  /** 64-byte ML-KEM seed `d || z`. Random when omitted. */
  viewingSeed?: BytesInput;
};

/** A recipient's full key set. Every `*Secret*` field and `viewingSeed` can reveal or spend funds. */
export type RecipientKeys = {
  /** `B = b*G`, compressed (33 bytes). */
  spendingPublicKey: Uint8Array;
  /** `b`, 32 bytes big-endian. Secret: spends every payment. */
  spendingSecretKey: Uint8Array;
  /** ML-KEM-768 `ek` (1184 bytes). */
  viewingPublicKey: Uint8Array;
  /** ML-KEM-768 `dk` (2400 bytes). Secret: finds (not spends) every payment. */
  viewingSecretKey: Uint8Array;
  /** The 64-byte seed `d || z` the viewing key pair was generated from; regenerates it. Secret. */
  viewingSeed: Uint8Array;
  /** `0x02 || B || ek` (1218 bytes): what the recipient publishes. */
  metaAddress: Uint8Array;
  /** `H("SPECTER_VIEW_TAG_V1", ek, 1)[0]`: informational only, not a registry filter. */
  baseViewTag: number;
};

/**
 * Generate a recipient's keys: a secp256k1 spending key and an ML-KEM-768 viewing key.
 * Both optional inputs make it deterministic (test vectors, key backup/restore).
 *
 * @example
 * const keys = generateKeys();
 * publish(bytesToHex(keys.metaAddress));
 */
export function generateKeys(params: GenerateKeysParameters = {}): RecipientKeys {
  const b =
    params.spendingSecret === undefined
      ? parseSpendingSecret(secp256k1.utils.randomSecretKey(), 'spendingSecret')
      : parseSpendingSecret(params.spendingSecret, 'spendingSecret');
  const viewingSeed =
    params.viewingSeed === undefined
      ? randomBytes(VIEWING_SEED_BYTES)
      : toBytes(params.viewingSeed, 'viewingSeed', VIEWING_SEED_BYTES).slice();
  const spendingPublicKey = spendingPublicKeyFromSecret(b);
  const { publicKey: viewingPublicKey, secretKey: viewingSecretKey } = viewingKeyPairFromSeed(viewingSeed);
  return {
    spendingPublicKey,
    spendingSecretKey: scalarToBytes(b),
    viewingPublicKey,
    viewingSecretKey,
    viewingSeed,
    metaAddress: encodeMetaAddress({ spendingPublicKey, viewingPublicKey }),
    baseViewTag: computeViewTag(viewingPublicKey),
  };
}
