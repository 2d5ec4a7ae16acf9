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
  })
  .describe('Health');

export type HealthResponse = z.output<typeof healthResponse>;
