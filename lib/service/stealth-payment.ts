/**
 * POST /api/v1/stealth/create (PROTOCOL.md section 4): a one-time payment to a meta-address and
 * the announcement to publish for it. Publishes nothing: the sender pays first, then publishes
 * with the transaction hash. Meta-address errors come from the SDK with the codes
 * INVALID_META_ADDRESS / LEGACY_META_ADDRESS, which the API keeps.
 */
import { bytesToHex, createStealthPayment } from '@wraith-pq/sdk';
import type { CreateStealthResponse } from '../schemas/stealth.ts';

/** @param nowSeconds Unix seconds for the announcement's timestamp. */
export function createStealthPaymentJson(metaAddress: string, nowSeconds = Math.floor(Date.now() / 1000)): CreateStealthResponse {
  const payment = createStealthPayment(metaAddress);
  const ephemeralKey = bytesToHex(payment.ephemeralCiphertext);
  return {
    stealth_address: payment.stealthAddress,
    stealth_sui_address: payment.stealthSuiAddress,
    ephemeral_ciphertext: ephemeralKey,
    view_tag: payment.viewTag,
    announcement: {
      id: 0, // not in the registry yet: ids are assigned on publication
      ephemeral_key: ephemeralKey,
      view_tag: payment.viewTag,
      timestamp: nowSeconds,
      channel_id: null,
      tx_hash: null,
      amount: null,
      chain: null,
    },
  };
}
