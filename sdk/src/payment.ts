/**
 * Creating a payment (sender side, public data only), PROTOCOL.md section 4, under either scheme:
 * a recipient who offers ERC-8441 (a 1250-byte meta-address) is paid with scheme 3 (its Section
 * 2.3, PROTOCOL.md section 10), Wraith's 1218-byte form with scheme 1000. The payment says which.
 * @module
 */
import { toBytes, type BytesInput } from './bytes.ts';
import { InvalidArgumentError } from './errors.ts';
import { decodeAnyMetaAddress, ERC8441_SCHEME_ID, WRAITH_SCHEME_ID_1000, type AnyMetaAddress } from './erc8441-meta-address.ts';
import { createErc8441Payment } from './erc8441-payment.ts';
import { type MetaAddress } from './meta-address.ts';
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
  /**
   * Pay a 1250-byte (ERC-8441) recipient with scheme 1000 instead of 3 (its meta-address holds
   * the keys both need). Default: the scheme the recipient's form offers.
   */
  schemeId?: 1000 | 3;
  /** Scheme 3, test vectors only: the ephemeral secp256k1 scalar `esk` (32 bytes). */
  ephemeralSecretKey?: BytesInput;
};

export type StealthPayment = {
  /** The ERC-5564 scheme the payment uses and must be announced under: 1000 (Wraith) or 3 (ERC-8441). */
  schemeId: 1000 | 3;
  /** EIP-55 EVM address to pay. */
  stealthAddress: string;
  /** Sui address to pay (same one-time key). */
  stealthSuiAddress: string;
  /** `P = B + t*G`, compressed. */
  stealthPublicKey: Uint8Array;
  /**
   * What the announcement carries as `ephemeralPubKey` / `ephemeral_key`: the ML-KEM ciphertext
   * `c` (1088 bytes) under scheme 1000, `epk || c` (1121 bytes) under scheme 3.
   */
  ephemeralCiphertext: Uint8Array;
  /** 1-byte view tag: publish as the announcement's `view_tag`. */
  viewTag: number;
  /**
   * The shared secret (`K` under scheme 1000, the hybrid `ss` under scheme 3; it seals the note).
   * The sender may keep it (it reveals the link between this payment and the recipient) but it
   * does not allow spending. Never publish it.
   */
  sharedSecret: Uint8Array;
};

/**
 * Create a one-time payment to a meta-address of either form (hex, bytes or `st:<chain>:0x…`).
 *
 * @example
 * const payment = createStealthPayment('st:eth:0x0203…');
 * // send funds to payment.stealthAddress, then announce under payment.schemeId:
 * // { ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash }
 * @throws {InvalidMetaAddressError} / {LegacyMetaAddressError} for a meta-address neither form accepts.
 */
export function createStealthPayment(
  metaAddress: BytesInput | MetaAddress | AnyMetaAddress,
  options: CreateStealthPaymentOptions = {},
): StealthPayment {
  const meta = isDecoded(metaAddress) ? ('schemeId' in metaAddress ? metaAddress : decodeAnyMetaAddress(metaAddress.bytes)) : decodeAnyMetaAddress(metaAddress);
  const schemeId = options.schemeId ?? meta.schemeId;
  if (schemeId !== WRAITH_SCHEME_ID_1000 && schemeId !== ERC8441_SCHEME_ID) throw new InvalidArgumentError('schemeId', 'must be 1000 or 3');
  if (schemeId === ERC8441_SCHEME_ID) {
    if (meta.schemeId !== ERC8441_SCHEME_ID) throw new InvalidArgumentError('schemeId', 'a 1218-byte meta-address offers scheme 1000 only');
    const payment = createErc8441Payment(meta, {
      ...(options.ephemeralSecretKey === undefined ? {} : { ephemeralSecretKey: options.ephemeralSecretKey }),
      ...(options.message === undefined ? {} : { encapsulationMessage: options.message }),
    });
    const { stealthAddress, stealthSuiAddress, stealthPublicKey, ephemeralPubKey, viewTag, sharedSecret } = payment;
    return { schemeId, stealthAddress, stealthSuiAddress, stealthPublicKey, ephemeralCiphertext: ephemeralPubKey, viewTag, sharedSecret };
  }
  const viewingPublicKey = meta.schemeId === ERC8441_SCHEME_ID ? meta.encapsulationKey : meta.viewingPublicKey;
  const message = options.message === undefined ? undefined : toBytes(options.message, 'message', ENCAPSULATION_MESSAGE_BYTES);
  const { ciphertext, sharedSecret } = encapsulate(viewingPublicKey, message);
  const B = parseSpendingPublicKey(meta.spendingPublicKey);
  const P = stealthPointFrom(B, deriveStealthTweak(sharedSecret));
  return {
    schemeId,
    ...stealthAddressOf(P),
    ephemeralCiphertext: ciphertext,
    viewTag: computeViewTag(sharedSecret),
    sharedSecret,
  };
}

function isDecoded(input: unknown): input is MetaAddress | AnyMetaAddress {
  return typeof input === 'object' && input !== null && !(input instanceof Uint8Array) && (input as MetaAddress).bytes instanceof Uint8Array;
}
