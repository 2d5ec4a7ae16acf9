/**
 * POST /api/v1/yellow/channel/fund (INTERFACE.md 4.6): a placeholder funding; no transaction
 * is submitted (404 for an unknown channel, 409 for a closed one).
 */
import { getChannelStores } from '@/lib/channels/instance.ts';
import { fundChannel } from '@/lib/channels/lifecycle.ts';
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { fundChannelRequest } from '@/lib/schemas/channels.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/yellow/channel/fund',
  methods: {
    POST: endpoint({
      body: fundChannelRequest,
      handler: async ({ body }) => fundChannel((await getChannelStores()).channels, body),
    }),
  },
});
