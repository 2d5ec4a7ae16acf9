/**
 * GET /api/v1/yellow/channel/:id/status (INTERFACE.md 4.6): what this instance knows about a
 * channel; `status: "unknown"` (200) for a well-formed id it has no record of, 400 for a
 * malformed one.
 */
import { getChannelStores } from '@/lib/channels/instance.ts';
import { channelStatus } from '@/lib/channels/lifecycle.ts';
import { channelIdFromStatusPath } from '@/lib/channels/path.ts';
import { defineRoute, endpoint } from '@/lib/http/route.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/yellow/channel/:id/status',
  methods: {
    GET: endpoint({
      handler: async ({ url }) => channelStatus((await getChannelStores()).channels, channelIdFromStatusPath(url)),
    }),
  },
});
