/**
 * GET /api/v1/ens/resolve/:name (INTERFACE.md 4.4): the meta-address a `.eth` name publishes
 * in its `stealth-meta` text record (or, failing that, its content hash).
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { lastPathSegment } from '@/lib/ipfs/path-segment.ts';
import { ensResolveJson, resolveEnsName } from '@/lib/names/resolve.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/ens/resolve/:name',
  methods: {
    GET: endpoint({
      handler: async ({ url }) => ensResolveJson(await resolveEnsName(lastPathSegment(url))),
    }),
  },
});
