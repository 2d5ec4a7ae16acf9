/**
 * The announcement record in JSON (PROTOCOL.md section 6), as the registry lists it and as
 * stealth/create returns it ready for publication.
 */
import { z } from 'zod';
import { evmAddressOutput, hexOutput } from './fields.ts';

export const announcementJson = z
  .object({
    id: z.int().describe('Registry id, assigned on publication and increasing from 1 (0 in a stealth/create response)'),
    scheme_id: z.union([z.literal(1000), z.literal(3)]).describe('ERC-5564 scheme: 1000 (Wraith, PROTOCOL.md section 7) or 3 (ERC-8441, section 10)'),
    ephemeral_key: z
      .string()
      .regex(/^([0-9a-f]{2176}|[0-9a-f]{2242})$/)
      .describe('Scheme 1000: the ML-KEM-768 ciphertext (1088 bytes). Scheme 3: epk || ct (1121 bytes)'),
    view_tag: z.int().min(0).max(255).describe('View tag, 0 to 255'),
    timestamp: z.int().describe('Unix seconds, set by the server'),
    channel_id: hexOutput(32, '32-byte channel id').nullable(),
    tx_hash: z.string().nullable().describe('Transaction hash of the payment'),
    amount: z.string().nullable().describe('Human-readable amount'),
    chain: z.string().nullable().describe('Chain identifier, e.g. ethereum or sui'),
    chain_id: z
      .int()
      .min(1)
      .nullable()
      .describe('EIP-155 id of the chain the announcement is on: set for chain events, as published (or null) for HTTP publishes'),
    stealth_address: evmAddressOutput('EIP-55 one-time EVM address')
      .nullable()
      .describe('The one-time EVM address the announcement names (EIP-55): chain events and scheme-3 publishes; null for other HTTP publishes'),
    metadata: z
      .string()
      .regex(/^([0-9a-f]{2})*$/)
      .nullable()
      .describe('The ERC-5564 metadata after its view tag: the sealed note (PROTOCOL.md section 8: 92 bytes, or 112 for the note that names its asset, 8.1) for scheme 1000; any bytes for scheme 3 (a note, token metadata)'),
    block_number: z.int().nullable().describe('Chain events: the block of the Announcement event; null for HTTP publishes'),
    log_index: z.int().nullable().describe('Chain events: the log index of the event in its block; null for HTTP publishes'),
  })
  .describe('Announcement');

export type AnnouncementJson = z.output<typeof announcementJson>;
