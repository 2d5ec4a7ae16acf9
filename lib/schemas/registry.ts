/**
 * The announcement registry: POST/GET /api/v1/registry/announcements and
 * GET /api/v1/registry/stats (INTERFACE.md 4.3, PROTOCOL.md section 6).
 */
import { z } from 'zod';
import { announcementJson } from './announcement.ts';
import { checksumProblem, hexToBytes, isCompressedPoint, isSealedNoteLength, SEALED_NOTE_BYTES, SEALED_NOTE_V1_BYTES, toChecksumAddress } from '@wraith-pq/sdk';
import { hexBytes, optional, plainText, queryInteger, viewTag } from './fields.ts';

/** Longest accepted tx_hash (after trimming); real hashes are 66 characters or fewer. */
export const MAX_TX_HASH_LENGTH = 256;
/** Longest accepted amount and chain strings. */
export const MAX_LABEL_LENGTH = 64;
/** Largest page of GET /registry/announcements as JSON. */
export const MAX_LIST_LIMIT = 1000;

/** An EIP-155 chain id: a positive integer (JSON numbers are exact up to 2^53 - 1). */
const chainId = z.int().min(1).max(Number.MAX_SAFE_INTEGER);
/**
 * Largest binary page (`Accept: application/octet-stream`, about 5.5 MB): streaming scans read
 * the registry in fewer requests. Against the real server on loopback, a million announcements
 * streamed in 1,000-row pages took 18.1 s and in 5,000-row pages 11.2 s (BENCHMARKS.md): the cost
 * per request, not per row, had become the larger part.
 */
export const MAX_BINARY_PAGE_LIMIT = 5000;
export const DEFAULT_LIST_LIMIT = 100;

/** Scheme-1000 ML-KEM ciphertext or scheme-3 `epk || ct` (PROTOCOL.md sections 6 and 10). */
const EPHEMERAL_KEY_PATTERN = /^(0[xX])?([0-9a-fA-F]{2176}|[0-9a-fA-F]{2242})$/;
/**
 * What may follow the view tag of a scheme-3 record over HTTP: ERC-5564 token metadata or a sealed
 * note of either version (PROTOCOL.md sections 8.1 and 10).
 */
const SCHEME3_METADATA_BYTES = [56, SEALED_NOTE_BYTES, SEALED_NOTE_V1_BYTES];
/** Scheme 1000's metadata as published: the ERC-5564 metadata with its view tag (93 or 113 bytes), or the sealed note alone (92 or 112). */
const withViewTag = (metadata: Uint8Array): boolean => isSealedNoteLength(metadata.length - 1);

export const publishAnnouncementRequest = z
  .object({
    ephemeral_key: z
      .string()
      .trim()
      .regex(EPHEMERAL_KEY_PATTERN, 'must be 1088 bytes (scheme 1000: the ML-KEM ciphertext) or 1121 bytes (scheme 3: epk || ct), in hex')
      .transform((text) => hexToBytes(text))
      .refine((bytes) => bytes.some((byte) => byte !== 0), 'must not be all zero') // PROTOCOL.md section 6
      .describe('From stealth/create: the ML-KEM-768 ciphertext (1088 bytes, scheme 1000) or epk || ct (1121 bytes, scheme 3); not all zero'),
    scheme_id: optional(
      z
        .union([z.literal(1000), z.literal(3)])
        .describe('ERC-5564 scheme: 1000 (Wraith) or 3 (ERC-8441); inferred from the ephemeral_key length when absent, which it must agree with'),
    ),
    view_tag: viewTag,
    tx_hash: z
      .string()
      .trim()
      .min(1)
      .max(MAX_TX_HASH_LENGTH)
      .pipe(plainText(MAX_TX_HASH_LENGTH))
      .describe(
        'Transaction hash of the payment, as text: 0x + 64 hex on EVM chains, a base58 digest on Sui, channel:<id> for channels; unique in the registry after trim + lowercase',
      ),
    channel_id: optional(hexBytes(32, '32-byte channel id')),
    amount: optional(plainText(MAX_LABEL_LENGTH).describe('Human-readable amount')),
    chain: optional(plainText(MAX_LABEL_LENGTH).describe('Chain identifier, e.g. ethereum or sui')),
    chain_id: optional(
      chainId.describe(
        'EIP-155 id of the chain the payment is on; with REGISTRY_PUBLISH=verified the transaction is looked up on that chain (422 CHAIN_NOT_FOLLOWED when the server does not follow it)',
      ),
    ),
    stealth_address: optional(
      z
        .string()
        .trim()
        .regex(/^0[xX][0-9a-fA-F]{40}$/, 'must be an EVM address: 0x and 40 hex digits')
        .describe('Scheme 3 (required there): the announced one-time address the scanner decides on; any case, a mixed-case address must carry a valid EIP-55 checksum'),
    ),
    metadata: optional(
      z
        .string()
        .trim()
        .regex(/^(0[xX])?([0-9a-fA-F]{2})+$/, 'must be hex')
        .transform((text) => hexToBytes(text))
        .describe(
          'Scheme 1000: the ERC-5564 metadata from stealth/create (view tag + sealed note: 113 bytes for the note that names its asset, PROTOCOL.md 8.1, or 93) or the sealed note alone (112 or 92 bytes, section 8). Scheme 3: what follows the view tag, 56 bytes (ERC-5564 token metadata) or a sealed note (112 or 92)',
        ),
    ),
  })
  .superRefine((request, ctx) => {
    // Only fields that parsed are cross-checked (zod runs this even when one of them failed).
    if (!(request.ephemeral_key instanceof Uint8Array) || (request.metadata !== undefined && !(request.metadata instanceof Uint8Array))) return;
    const keyScheme = request.ephemeral_key.length === 1121 ? 3 : 1000;
    if (request.scheme_id !== undefined && request.scheme_id !== keyScheme) {
      ctx.addIssue({ code: 'custom', path: ['scheme_id'], message: `a ${request.ephemeral_key.length}-byte ephemeral_key is scheme ${keyScheme}` });
    }
    const metadata = request.metadata;
    if (keyScheme === 1000) {
      if (request.stealth_address !== undefined) ctx.addIssue({ code: 'custom', path: ['stealth_address'], message: 'is taken from the chain for scheme 1000 rows, not from a publish' });
      if (metadata !== undefined && !withViewTag(metadata) && !isSealedNoteLength(metadata.length)) {
        ctx.addIssue({ code: 'custom', path: ['metadata'], message: 'must be the ERC-5564 metadata (view tag + sealed note: 113 or 93 bytes) or the sealed note alone (112 or 92 bytes), in hex' });
      } else if (metadata !== undefined && withViewTag(metadata) && metadata[0] !== request.view_tag) {
        ctx.addIssue({ code: 'custom', path: ['metadata'], message: 'its first byte (the view tag) must equal view_tag' });
      }
      return;
    }
    if (!isCompressedPoint(request.ephemeral_key.subarray(0, 33))) {
      ctx.addIssue({ code: 'custom', path: ['ephemeral_key'], message: 'its first 33 bytes (epk) must be a compressed secp256k1 point (02 or 03, on the curve)' });
    }
    if (request.stealth_address === undefined) {
      ctx.addIssue({ code: 'custom', path: ['stealth_address'], message: 'is required for scheme 3: the scanner decides on the announced address' });
    } else if (checksumProblem(request.stealth_address) !== null) {
      // The SDK's one EIP-55 rule: a mixed case that is not the checksum is a typo; one case throughout is accepted.
      ctx.addIssue({ code: 'custom', path: ['stealth_address'], message: 'a mixed-case address must carry a valid EIP-55 checksum' });
    }
    if (metadata !== undefined && !SCHEME3_METADATA_BYTES.includes(metadata.length)) {
      ctx.addIssue({ code: 'custom', path: ['metadata'], message: 'for scheme 3 must be what follows the view tag: 56 bytes (ERC-5564 token metadata) or a sealed note (112 or 92 bytes)' });
    }
  })
  .transform((request) => ({
    ...request,
    scheme_id: request.ephemeral_key.length === 1121 ? (3 as const) : (1000 as const),
    stealth_address: request.stealth_address === undefined ? undefined : toChecksumAddress(request.stealth_address),
    // The record keeps what follows the view tag (PROTOCOL.md section 6).
    metadata: request.metadata === undefined ? undefined : request.ephemeral_key.length !== 1121 && withViewTag(request.metadata) ? request.metadata.subarray(1) : request.metadata,
  }))
  .describe('PublishAnnouncementRequest');

export type PublishAnnouncementRequest = z.output<typeof publishAnnouncementRequest>;

export const publishAnnouncementResponse = z
  .object({
    id: z.int().describe('Registry id assigned to the announcement'),
    success: z.literal(true),
  })
  .describe('PublishAnnouncementResponse');

const MAX_ID = Number.MAX_SAFE_INTEGER;

/** Most chain ids one list request may name. */
export const MAX_CHAIN_IDS = 32;

export const listAnnouncementsQuery = z
  .object({
    view_tag: queryInteger(0, 255, 'Only announcements with this view tag (takes precedence over the time range)'),
    from_timestamp: queryInteger(0, MAX_ID, 'Start of the time range (inclusive); used only with to_timestamp'),
    to_timestamp: queryInteger(0, MAX_ID, 'End of the time range (inclusive); used only with from_timestamp'),
    offset: queryInteger(0, MAX_ID, 'Rows of the selection to skip (default 0)'),
    limit: queryInteger(
      1,
      MAX_BINARY_PAGE_LIMIT,
      `Page size (default ${DEFAULT_LIST_LIMIT}; at most ${MAX_LIST_LIMIT} as JSON, ${MAX_BINARY_PAGE_LIMIT} as a binary page)`,
    ),
    after_id: queryInteger(0, MAX_ID, 'Cursor: only announcements with a larger id (pass the last id of the previous page)'),
    scheme_id: z
      .string()
      .regex(/^(1000|3)$/, 'must be 1000 or 3')
      .transform(Number)
      .optional()
      .describe('Only announcements of this ERC-5564 scheme: 1000 (Wraith) or 3 (ERC-8441); combines with the other filters'),
    chain_id: z
      .string()
      .regex(/^\d{1,15}(,\d{1,15})*$/, 'must be a chain id or a comma-separated list of chain ids')
      .transform((text) => [...new Set(text.split(',').map(Number))])
      .refine((ids) => ids.every((id) => id >= 1), 'chain ids are positive integers')
      .refine((ids) => ids.length <= MAX_CHAIN_IDS, `must name at most ${MAX_CHAIN_IDS} chains`)
      .optional()
      .describe('Only announcements on these chains (EIP-155 ids, comma-separated); combines with the other filters. Rows without a chain id never match'),
  })
  .describe('ListAnnouncementsQuery');

export type ListAnnouncementsQuery = z.output<typeof listAnnouncementsQuery>;

export const listAnnouncementsResponse = z
  .object({
    announcements: z.array(announcementJson).describe('One page, ordered by id ascending'),
    total: z.int().describe('Rows in the selection before paging'),
  })
  .describe('ListAnnouncementsResponse');

export type ListAnnouncementsResponse = z.output<typeof listAnnouncementsResponse>;

export const registryStatsResponse = z
  .object({
    total_announcements: z.int(),
    view_tag_distribution: z
      .array(z.object({ tag: z.int().min(0).max(255), count: z.int().min(1) }))
      .describe('Non-zero buckets, ascending by tag'),
  })
  .describe('RegistryStats');

export type RegistryStatsResponse = z.output<typeof registryStatsResponse>;
