/**
 * POST /api/v1/yellow/channel/close (INTERFACE.md 4.6): a placeholder close; no transaction is
 * submitted. Idempotent (a closed channel answers its first close); 404 for an unknown channel.
 */
import { getChannelStores } from '@/lib/channels/instance.ts';
import { closeChannel } from '@/lib/channels/lifecycle.ts';
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { closeChannelRequest } from '@/lib/schemas/channels.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/yellow/channel/close',
  methods: {
    POST: endpoint({
      body: closeChannelRequest,
      handler: async ({ body }) => closeChannel((await getChannelStores()).channels, body),
    }),
  },
});
