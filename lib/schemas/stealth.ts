/**
 * POST /api/v1/stealth/create and POST /api/v1/stealth/scan (INTERFACE.md 4.2, PROTOCOL.md
 * sections 4 and 5).
 */
import { z } from 'zod';
import { announcementJson } from './announcement.ts';
import { evmAddressOutput, hexBytes, hexOutput, metaAddressInput, optional, prefixedHash32Output, scanMode, suiAddressOutput, unixTimestamp, viewTag } from './fields.ts';

/** Decimal digits of an unsigned integer below 2^bits, as a bigint. */
function unsignedDecimal(bits: number, description: string) {
  return z
    .union([z.string().trim().regex(/^\d{1,78}$/, 'must be a decimal integer'), z.int().min(0)])
    .transform((value) => BigInt(value))
    .refine((value) => value < 2n ** BigInt(bits), `must be below 2^${bits}`)
    .describe(description);
}

/** What a note names as paid (PROTOCOL.md 8.1): the chain's coin, or an ERC-20 contract. */
const noteToken = z
  .union([z.literal('coin'), z.string().trim().regex(/^0[xX][0-9a-fA-F]{40}$/, "must be 'coin' or a token contract's address: 0x and 40 hex digits")])
  .describe("The asset paid: 'coin' (the chain's native coin; the zero address means the same) or the ERC-20 contract's address. Given, the note names its asset (PROTOCOL.md 8.1: 112 bytes sealed, metadata 113), so the recipient's wallet shows what was paid at once");

/** The sealed note's fields (PROTOCOL.md section 8); each absent one is sealed as zero. */
export const noteInput = z
  .object({
    tx_hash: optional(hexBytes(32, 'Transaction that paid, when it differs from the announcing one (32 bytes)')),
    amount: optional(unsignedDecimal(256, 'Amount paid in base units (wei, or the token\'s smallest unit), decimal')),
    chain_id: optional(unsignedDecimal(64, 'EIP-155 id of the chain that holds the funds, decimal')),
    token: optional(noteToken),
  })
  .describe('Note sealed for the recipient (only they can open it): what was paid, of which asset, where');

/** An opened note in responses (PROTOCOL.md section 8): null fields were absent (zero). */
export const openedNoteJson = z
  .object({
    tx_hash: prefixedHash32Output('0x + 64 hex').nullable().describe('0x + 64 hex, or null'),
    amount: z.string().nullable().describe('Base units, decimal, or null'),
    chain_id: z.string().nullable().describe('EIP-155 chain id, decimal, or null'),
    token: z
      .union([z.literal('coin'), evmAddressOutput('The ERC-20 contract paid (EIP-55)')])
      .nullable()
      .describe("The asset the sender names (PROTOCOL.md 8.1): 'coin' for the chain's native coin, the ERC-20 contract's EIP-55 address, or null when the note does not say (version 0). The sender's claim: name a token from a list you trust or its contract, and read balances from the chain"),
  })
  .describe('OpenedNote');

export type OpenedNoteJson = z.output<typeof openedNoteJson>;

export const createStealthRequest = z
  .object({
    meta_address: metaAddressInput(
      'Recipient meta-address: Wraith\'s 1218 bytes (paid with scheme 1000) or ERC-8441\'s 1250 bytes (paid with scheme 3), as hex (0x optional) or the ERC-5564 URI st:<chain>:0x<hex> (PROTOCOL.md sections 3 and 10)',
    ),
    scheme_id: optional(
      z.union([z.literal(1000), z.literal(3)]).describe('Pay a 1250-byte (ERC-8441) recipient with scheme 1000 instead of 3; default: the scheme the meta-address offers'),
    ),
    channel_id: optional(z.string()).describe('Accepted for compatibility and ignored'),
    note: optional(noteInput),
  })
  .describe('CreateStealthRequest');

export type CreateStealthRequest = z.output<typeof createStealthRequest>;

export const createStealthResponse = z
  .object({
    stealth_address: evmAddressOutput('EIP-55 EVM address to pay'),
    stealth_sui_address: suiAddressOutput('Sui address of the same one-time key (0x + 64 hex)'),
    scheme_id: z.union([z.literal(1000), z.literal(3)]).describe('The ERC-5564 scheme this payment uses: announce it under this id'),
    ephemeral_ciphertext: z
      .string()
      .regex(/^([0-9a-f]{2176}|[0-9a-f]{2242})$/)
      .describe('What to announce as ephemeralPubKey and publish as ephemeral_key: the ML-KEM-768 ciphertext (1088 bytes, scheme 1000) or epk || ct (1121 bytes, scheme 3)'),
    view_tag: z.int().min(0).max(255).describe('View tag: publish it with the ciphertext'),
    announcement: announcementJson.describe('The announcement to publish (id 0, nothing is published by this call): POST it to /registry/announcements as it is, with tx_hash filled in. Its stealth_address is null for scheme 1000 (a scheme-1000 row takes its address from the chain, never from a publish) and the one-time address for scheme 3 (required there)'),
    metadata: z
      .string()
      .regex(/^([0-9a-f]{186}|[0-9a-f]{226})$/)
      .describe(
        'ERC-5564 metadata to announce on chain (PROTOCOL.md sections 7, 8 and 8.1): the view tag, then the sealed note (the request\'s note, or an empty one): 113 bytes when the note names its token, else 93. Only the recipient can open the note',
      ),
  })
  .describe('CreateStealthResponse');

export type CreateStealthResponse = z.output<typeof createStealthResponse>;

export const scanRequest = z
  .object({
    viewing_sk: optional(hexBytes(2400, 'Scheme 1000: viewing secret key, the ML-KEM-768 decapsulation key (2400 bytes); with spending_pk')),
    spending_pk: optional(hexBytes(33, 'Scheme 1000: spending public key, secp256k1 compressed (33 bytes); with viewing_sk')),
    tracking_key: optional(
      hexBytes(96, 'Scheme 3 (ERC-8441): the tracking key viewing_ec || d || z (96 bytes), with meta_address; it finds payments and cannot spend them'),
    ),
    meta_address: optional(
      metaAddressInput('Scheme 3: the recipient\'s 1250-byte ERC-8441 meta-address (hex or st:<chain>:0x<hex>) that tracking_key belongs to'),
    ),
    spending_sk: optional(
      hexBytes(32, 'Spending secret (32 bytes), for either scheme. Without it the scan is view-only: scheme-1000 discoveries carry shared_secret, scheme-3 ones no secret'),
    ),
    view_tags: optional(z.array(viewTag).max(256).describe('Scan only announcements with these view tags (an empty list means no filter)')),
    from_timestamp: optional(unixTimestamp.describe('Start of the time window (inclusive); used only with to_timestamp')),
    to_timestamp: optional(unixTimestamp.describe('End of the time window (inclusive); used only with from_timestamp')),
    mode: optional(scanMode),
  })
  .superRefine((request, ctx) => {
    const pairs = [
      ['viewing_sk', 'spending_pk'],
      ['tracking_key', 'meta_address'],
    ] as const;
    for (const [a, b] of pairs) {
      if ((request[a] === undefined) !== (request[b] === undefined)) {
        const missing = request[a] === undefined ? a : b;
        ctx.addIssue({ code: 'custom', path: [missing], message: `is required with ${missing === a ? b : a}` });
      }
    }
    if (request.viewing_sk === undefined && request.spending_pk === undefined && request.tracking_key === undefined && request.meta_address === undefined) {
      ctx.addIssue({ code: 'custom', path: ['viewing_sk'], message: 'is required: give viewing_sk and spending_pk (scheme 1000), tracking_key and meta_address (scheme 3), or both' });
    }
  })
  .describe('ScanRequest');

export type ScanRequest = z.output<typeof scanRequest>;

export const discoveryJson = z
  .object({
    scheme_id: z.union([z.literal(1000), z.literal(3)]).describe('The scheme the payment was found under: 1000 (Wraith) or 3 (ERC-8441)'),
    stealth_address: evmAddressOutput('EIP-55 EVM address of the payment (equals stealth/create stealth_address)'),
    stealth_sui_address: suiAddressOutput('Sui address of the payment'),
    announcement_id: z.int().describe('Registry id of the announcement'),
    timestamp: z.int().describe('Unix seconds the announcement was published'),
    channel_id: hexOutput(32, '32-byte channel id').nullable(),
    tx_hash: z.string().nullable(),
    amount: z.string().nullable(),
    chain: z.string().nullable(),
    chain_id: z.int().nullable().describe('EIP-155 id of the chain the announcement is on, or null'),
    view_tag: z.int().min(0).max(255).describe('The announcement\'s view tag'),
    stealth_sk: hexOutput(32, 'One-time secret p (32 bytes). Secret: spends the payment').optional(),
    eth_private_key: prefixedHash32Output('0x + p, the form EVM wallets import. Secret').optional(),
    shared_secret: hexOutput(32, 'View-only scans of scheme 1000: shared secret K (32 bytes), from which the key holder derives p. Never for scheme 3 (ERC-8441 Section 2.6)').optional(),
    stealth_address_announced: evmAddressOutput('EIP-55 address').nullable().describe('The stealth address the announcement named (chain events), or null'),
    stealth_address_mismatch: z
      .boolean()
      .describe('true when the announced stealth address differs from the derived one: a buggy or hostile sender; the funds are at stealth_address'),
    note_status: z.enum(['absent', 'opened', 'unreadable']).describe('Whether the announcement carried a sealed note, and whether it opened'),
    note: openedNoteJson.nullable().describe('The opened note, or null'),
    block_number: z.int().nullable().describe('Block of the chain event, or null for HTTP publishes'),
    log_index: z.int().nullable().describe('Log index of the chain event in its block, or null'),
  })
  .describe('Discovery');

export type DiscoveryJson = z.output<typeof discoveryJson>;

export const scanResponse = z
  .object({
    discoveries: z.array(discoveryJson),
    stats: z
      .object({
        total_scanned: z.int().describe('Announcements scanned'),
        view_tag_matches: z.int().describe('Announcements whose view tag matched'),
        discoveries: z.int().describe('Payments found'),
        duration_ms: z.int().describe('Total scan duration in milliseconds'),
        rate: z.number().describe('Announcements per second'),
      })
      .describe('ScanStats'),
  })
  .describe('ScanResponse');

export type ScanResponse = z.output<typeof scanResponse>;
