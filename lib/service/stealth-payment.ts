/**
 * POST /api/v1/stealth/create (PROTOCOL.md sections 4, 7, 8 and 10): a one-time payment to a
 * meta-address of either form (scheme 3 for an ERC-8441 recipient unless scheme 1000 is asked), the announcement to publish for it and the ERC-5564 metadata to announce on chain. Publishes nothing: the sender pays first, then publishes
 * with the transaction hash. Meta-address errors come from the SDK with the codes
 * INVALID_META_ADDRESS / LEGACY_META_ADDRESS, which the API keeps.
 */
import { announcementMetadata, bytesToHex, createStealthPayment, type CreateStealthPaymentOptions } from '@wraith-pq/sdk';
import type { CreateStealthRequest, CreateStealthResponse } from '../schemas/stealth.ts';

/**
 * The payment, and the ERC-5564 metadata that carries its sealed note (the request's, else an
 * empty one, so announcements of this API all look alike on chain).
 * @param nowSeconds Unix seconds for the announcement's timestamp.
 * @param options Only the document's fixed example (lib/openapi/examples.ts) passes a message; requests never do.
 */
export function createStealthPaymentJson(
  request: CreateStealthRequest,
  nowSeconds = Math.floor(Date.now() / 1000),
  options: CreateStealthPaymentOptions = {},
): CreateStealthResponse {
  const payment = createStealthPayment(request.meta_address, { ...options, ...(request.scheme_id === undefined ? {} : { schemeId: request.scheme_id }) });
  const note = request.note;
  const metadata = announcementMetadata(payment, {
    txHash: note?.tx_hash ?? null,
    amount: note?.amount ?? null,
    chainId: note?.chain_id ?? null,
    // Naming the asset seals the note of PROTOCOL.md 8.1 (113 bytes of metadata), which senders should write.
    token: note?.token ?? null,
  });
  const ephemeralKey = bytesToHex(payment.ephemeralCiphertext);
  return {
    scheme_id: payment.schemeId,
    stealth_address: payment.stealthAddress,
    stealth_sui_address: payment.stealthSuiAddress,
    ephemeral_ciphertext: ephemeralKey,
    view_tag: payment.viewTag,
    announcement: {
      id: 0, // not in the registry yet: ids are assigned on publication
      scheme_id: payment.schemeId,
      ephemeral_key: ephemeralKey,
      view_tag: payment.viewTag,
      timestamp: nowSeconds,
      channel_id: null,
      tx_hash: null,
      amount: null,
      chain: null,
      chain_id: null,
      // As the registry will list it: a scheme-1000 row's address comes from the chain, never from a
      // publish (API.md), so a client can publish this object with its tx_hash as it is.
      stealth_address: payment.schemeId === 3 ? payment.stealthAddress : null,
      metadata: bytesToHex(metadata.subarray(1)), // the record keeps the note after the view tag (PROTOCOL.md section 6)
      block_number: null,
      log_index: null,
    },
    metadata: bytesToHex(metadata),
  };
}
