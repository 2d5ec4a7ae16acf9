/**
 * GET/HEAD /health (INTERFACE.md 4.7, API.md "Several chains"): liveness, the state of the
 * registry and of every followed chain.
 */
import { z } from 'zod';

export const healthResponse = z
  .object({
    status: z.enum(['ok', 'degraded']).describe('degraded with HTTP 503 when the registry is unreachable; degraded with HTTP 200 while a followed chain\'s RPC fails'),
    version: z.string().describe('Version of the service (package.json)'),
    uptime_seconds: z.int().describe('Seconds since the process started'),
    announcements_count: z.int().nullable().describe('Announcements in the registry; null when it is unreachable'),
    registry: z.object({
      kind: z.enum(['memory', 'sqlite', 'postgres', 'libsql']),
      ok: z.boolean(),
    }),
    chains: z
      .array(
        z.object({
          name: z.string().describe('The chain\'s name (`name` of its CHAINS entry, or CHAIN_NAME): the `chain` value of its rows'),
          chain_id: z.int().nullable().describe('EIP-155 id its RPC answered; null until the RPC answered it'),
          indexed_block: z.int().nullable().describe('Last block whose announcements are in the registry; null before the first range'),
          head_block: z.int().nullable().describe('Newest chain head this instance read; null before the first read'),
          lag_blocks: z.int().nullable().describe('head_block - indexed_block; the chain\'s confirmations when fully caught up'),
          indexing: z.boolean().describe('This instance holds the chain\'s indexer lease (one instance indexes a chain at a time)'),
          error: z.string().nullable().describe('The RPC\'s current failure, in words (no URLs or values); null while it works. Makes `status` degraded'),
        }),
      )
      .describe('One entry per followed chain (CHAINS or CHAIN_RPC_URL), in configuration order; empty when none is followed or the registry is unreachable'),
    chain: z
      .object({
        name: z.string(),
        indexed_block: z.int().nullable(),
        head_block: z.int().nullable(),
        lag_blocks: z.int().nullable(),
        indexing: z.boolean(),
        ok: z.boolean().describe('false while the RPC fails'),
        error: z.string().nullable(),
      })
      .nullable()
      .describe('Deprecated (read `chains`): the first entry of `chains` as one-chain servers reported it, without chain_id; null when no chain is followed'),
  })
  .describe('Health');

export type HealthResponse = z.output<typeof healthResponse>;
