/**
 * GET /api/v1/registry/stats (INTERFACE.md 4.3): total and per-view-tag counts.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { getRegistry } from '@/lib/server/registry.ts';
import { registryStats } from '@/lib/service/registry-api.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/registry/stats',
  methods: {
    GET: endpoint({ handler: async () => registryStats(await getRegistry()) }),
  },
});
