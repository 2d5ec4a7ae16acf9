/**
 * POST /api/v1/yellow/channel/create (INTERFACE.md 4.6): open a channel to a recipient's
 * one-time address and announce it (201 Created; 409 for a channel id already announced).
 */
import { createChannel } from '@/lib/channels/create.ts';
import { getChannelStores } from '@/lib/channels/instance.ts';
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { createChannelRequest } from '@/lib/schemas/channels.ts';
import { getConfig } from '@/lib/server/config.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/yellow/channel/create',
  methods: {
    POST: endpoint({
      body: createChannelRequest,
      status: 201,
      handler: async ({ body }) => createChannel(body, { ...(await getChannelStores()), config: getConfig().yellow }),
    }),
  },
});
