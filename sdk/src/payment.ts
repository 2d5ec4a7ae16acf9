/**
 * Creating a payment (sender side, public data only), PROTOCOL.md section 4.
 * @module
 */
import { toBytes, type BytesInput } from './bytes.ts';
import { decodeMetaAddress, type MetaAddress } from './meta-address.ts';
import { parseSpendingPublicKey } from './spending-key.ts';
import { deriveStealthTweak, stealthAddressOf, stealthPointFrom } from './stealth-keys.ts';
import { computeViewTag } from './view-tag.ts';
import { ENCAPSULATION_MESSAGE_BYTES, encapsulate } from './viewing-key.ts';

export type CreateStealthPaymentOptions = {
  /**
   * The 32-byte encapsulation message `m` (FIPS 203 Algorithm 17). Only for deterministic
   * test vectors: a reused or predictable `m` lets anyone compute the shared secret.
   */
  message?: BytesInput;
};

export type StealthPayment = {
  /** EIP-55 EVM address to pay. */
  stealthAddress: string;
  /** Sui address to pay (same one-time key). */
  stealthSuiAddress: string;
  /** `P = B + t*G`, compressed. */
  stealthPublicKey: Uint8Array;
  /** ML-KEM ciphertext `c` (1088 bytes): publish as the announcement's `ephemeral_key`. */
  ephemeralCiphertext: Uint8Array;
  /** 1-byte view tag: publish as the announcement's `view_tag`. */
  viewTag: number;
  /**
   * The shared secret `K`. The sender may keep it (it reveals the link between this payment
   * and the recipient) but it does not allow spending. Never publish it.
   */
  sharedSecret: Uint8Array;
};

/**
 * Create a one-time payment to a meta-address.
 *
 * @example
 * const payment = createStealthPayment('st:eth:0x0203…');
 * // send funds to payment.stealthAddress, then announce:
 * // { ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash }
 */
export function createStealthPayment(
  metaAddress: BytesInput | MetaAddress,
  options: CreateStealthPaymentOptions = {},
): StealthPayment {
  const meta = decodeMetaAddress(metaAddress);
  const message = options.message === undefined ? undefined : toBytes(options.message, 'message', ENCAPSULATION_MESSAGE_BYTES);
  const { ciphertext, sharedSecret } = encapsulate(meta.viewingPublicKey, message);
  const B = parseSpendingPublicKey(meta.spendingPublicKey);
  const P = stealthPointFrom(B, deriveStealthTweak(sharedSecret));
  return {
    ...stealthAddressOf(P),
    ephemeralCiphertext: ciphertext,
    viewTag: computeViewTag(sharedSecret),
    sharedSecret,
  };
}
