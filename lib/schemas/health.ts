/**
 * GET/HEAD /health (INTERFACE.md 4.7): liveness plus the state of the registry.
 */
import { z } from 'zod';

export const healthResponse = z
  .object({
    status: z.enum(['ok', 'degraded']).describe('degraded (HTTP 503) when the registry is unreachable'),
    version: z.string().describe('Version of the service (package.json)'),
    uptime_seconds: z.int().describe('Seconds since the process started'),
    announcements_count: z.int().nullable().describe('Announcements in the registry; null when it is unreachable'),
    registry: z.object({
      kind: z.enum(['memory', 'sqlite', 'postgres', 'libsql']),
      ok: z.boolean(),
    }),
    chain: z
      .object({
        name: z.string().describe('CHAIN_NAME'),
        indexed_block: z.int().nullable().describe('Last block whose announcements are in the registry; null before the first range'),
        head_block: z.int().nullable().describe('Newest chain head this instance read; null before the first read'),
        lag_blocks: z.int().nullable().describe('head_block - indexed_block; INDEXER_CONFIRMATIONS when fully caught up'),
        indexing: z.boolean().describe('This instance holds the indexer lease (one instance indexes at a time)'),
        ok: z.boolean().describe('false when the last indexing attempts failed (provider or registry down); the indexer keeps retrying'),
        error: z.string().nullable().describe('The last failure, in words (no URLs or values)'),
      })
      .nullable()
      .describe('The chain indexer (CHAIN_RPC_URL); null when no chain is configured or the registry is unreachable'),
  })
  .describe('Health');

export type HealthResponse = z.output<typeof healthResponse>;
