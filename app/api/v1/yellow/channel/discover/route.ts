/**
 * POST /api/v1/yellow/channel/discover (INTERFACE.md 4.6): the channels opened to the
 * recipient's keys. Request and response carry secret keys (secretBearing).
 */
import { discoverChannels } from '@/lib/channels/discover.ts';
import { getChannelStores } from '@/lib/channels/instance.ts';
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { discoverChannelsRequest } from '@/lib/schemas/channels.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/yellow/channel/discover',
  secretBearing: true,
  methods: {
    POST: endpoint({
      body: discoverChannelsRequest,
      handler: async ({ body }) => discoverChannels(body, await getChannelStores()),
    }),
  },
});
