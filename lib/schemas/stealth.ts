/**
 * POST /api/v1/stealth/create and POST /api/v1/stealth/scan (INTERFACE.md 4.2, PROTOCOL.md
 * sections 4 and 5).
 */
import { z } from 'zod';
import { announcementJson } from './announcement.ts';
import { hexBytes, hexOutput, optional, scanMode, unixTimestamp, viewTag } from './fields.ts';

export const createStealthRequest = z
  .object({
    meta_address: z
      .string()
      .describe('Recipient meta-address: hex (0x optional) or the ERC-5564 URI st:<chain>:0x<hex> (PROTOCOL.md section 3)'),
    channel_id: optional(z.string()).describe('Accepted for compatibility and ignored'),
  })
  .describe('CreateStealthRequest');

export const createStealthResponse = z
  .object({
    stealth_address: z.string().describe('EIP-55 EVM address to pay'),
    stealth_sui_address: z.string().describe('Sui address of the same one-time key (0x + 64 hex)'),
    ephemeral_ciphertext: hexOutput('ML-KEM-768 ciphertext (1088 bytes): publish it as ephemeral_key'),
    view_tag: z.int().min(0).max(255).describe('View tag: publish it with the ciphertext'),
    announcement: announcementJson.describe('The announcement to publish (id 0, nothing is published by this call)'),
  })
  .describe('CreateStealthResponse');

export type CreateStealthResponse = z.output<typeof createStealthResponse>;

export const scanRequest = z
  .object({
    viewing_sk: hexBytes(2400, 'Viewing secret key: ML-KEM-768 decapsulation key (2400 bytes)'),
    spending_pk: hexBytes(33, 'Spending public key: secp256k1, compressed (33 bytes)'),
    spending_sk: optional(
      hexBytes(32, 'Spending secret (32 bytes). Without it the scan is view-only and discoveries carry shared_secret'),
    ),
    view_tags: optional(z.array(viewTag).max(256).describe('Scan only announcements with these view tags (an empty list means no filter)')),
    from_timestamp: optional(unixTimestamp.describe('Start of the time window (inclusive); used only with to_timestamp')),
    to_timestamp: optional(unixTimestamp.describe('End of the time window (inclusive); used only with from_timestamp')),
    mode: optional(scanMode),
  })
  .describe('ScanRequest');

export type ScanRequest = z.output<typeof scanRequest>;

export const discoveryJson = z
  .object({
    stealth_address: z.string().describe('EIP-55 EVM address of the payment (equals stealth/create stealth_address)'),
    stealth_sui_address: z.string().describe('Sui address of the payment'),
    announcement_id: z.int().describe('Registry id of the announcement'),
    timestamp: z.int().describe('Unix seconds the announcement was published'),
    channel_id: hexOutput('32-byte channel id').nullable(),
    tx_hash: z.string().nullable(),
    amount: z.string().nullable(),
    chain: z.string().nullable(),
    stealth_sk: hexOutput('One-time secret p (32 bytes). Secret: spends the payment').optional(),
    eth_private_key: z.string().describe('0x + p, the form EVM wallets import. Secret').optional(),
    shared_secret: hexOutput('View-only scans: shared secret K (32 bytes), from which the key holder derives p').optional(),
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
