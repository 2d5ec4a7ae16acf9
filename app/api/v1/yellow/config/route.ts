/**
 * GET /api/v1/yellow/config (INTERFACE.md 4.6): the channel network's endpoint, contracts and
 * supported tokens, from the YELLOW_* variables.
 */
import { yellowConfigJson } from '@/lib/channels/config-json.ts';
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { getConfig } from '@/lib/server/config.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/yellow/config',
  methods: {
    GET: endpoint({ handler: () => yellowConfigJson(getConfig().yellow) }),
  },
});
