/**
 * The announcement record in JSON (PROTOCOL.md section 6), as the registry lists it and as
 * stealth/create returns it ready for publication.
 */
import { z } from 'zod';
import { evmAddressOutput, hexOutput } from './fields.ts';

export const announcementJson = z
  .object({
    id: z.int().describe('Registry id, assigned on publication and increasing from 1 (0 in a stealth/create response)'),
    ephemeral_key: hexOutput(1088, 'ML-KEM-768 ciphertext (1088 bytes)'),
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
    stealth_address: evmAddressOutput('EIP-55 one-time EVM address').nullable().describe('Chain events: the one-time EVM address the announcement named (EIP-55); null for HTTP publishes'),
    metadata: hexOutput(92, 'The 92-byte sealed note (PROTOCOL.md section 8): the ERC-5564 metadata after its view tag; only the recipient can open it').nullable(),
    block_number: z.int().nullable().describe('Chain events: the block of the Announcement event; null for HTTP publishes'),
    log_index: z.int().nullable().describe('Chain events: the log index of the event in its block; null for HTTP publishes'),
  })
  .describe('Announcement');

export type AnnouncementJson = z.output<typeof announcementJson>;
