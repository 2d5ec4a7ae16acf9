/**
 * POST /api/v1/ipfs/upload and GET /api/v1/ipfs/:cid (INTERFACE.md 4.5). The download answers
 * raw bytes (`application/octet-stream`), so it has no JSON response schema.
 */
import { z } from 'zod';
import { metaAddressInput, optional } from './fields.ts';

/** Longest pin name passed to the pinning service. */
export const MAX_PIN_NAME_LENGTH = 100;

export const uploadRequest = z
  .object({
    meta_address: metaAddressInput('Meta-address to publish: hex (0x optional) or st:<chain>:0x<hex>; validated (PROTOCOL.md section 3) and stored as its 1218 raw bytes'),
    name: optional(
      z
        .string()
        .trim()
        .min(1)
        .max(MAX_PIN_NAME_LENGTH)
        .describe('Display name of the pin at the pinning service (ignored by the embedded store)'),
    ),
  })
  .describe('UploadMetaAddressRequest');

export const uploadResponse = z
  .object({
    cid: z.string().describe('CID of the uploaded bytes (CIDv1, raw, sha2-256 from the embedded store)'),
    text_record: z.string().describe('ipfs://<cid>: write it into the name\'s stealth-meta text record (ENS) or use the CID as its content hash'),
  })
  .describe('UploadMetaAddressResponse');
