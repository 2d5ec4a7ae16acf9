/**
 * The announcement record in JSON (PROTOCOL.md section 6), as the registry lists it and as
 * stealth/create returns it ready for publication.
 */
import { z } from 'zod';
import { hexOutput } from './fields.ts';

export const announcementJson = z
  .object({
    id: z.int().describe('Registry id, assigned on publication and increasing from 1 (0 in a stealth/create response)'),
    ephemeral_key: hexOutput('ML-KEM-768 ciphertext (1088 bytes)'),
    view_tag: z.int().min(0).max(255).describe('View tag, 0 to 255'),
    timestamp: z.int().describe('Unix seconds, set by the server'),
    channel_id: hexOutput('32-byte channel id').nullable(),
    tx_hash: z.string().nullable().describe('Transaction hash of the payment'),
    amount: z.string().nullable().describe('Human-readable amount'),
    chain: z.string().nullable().describe('Chain identifier, e.g. ethereum or sui'),
  })
  .describe('Announcement');

export type AnnouncementJson = z.output<typeof announcementJson>;
