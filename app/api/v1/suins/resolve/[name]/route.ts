/**
 * GET /api/v1/suins/resolve/:name[?no_cache] (INTERFACE.md 4.4): the meta-address a `.sui`
 * name publishes in its content hash. `no_cache` present clears the CID download cache first.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { lastPathSegment } from '@/lib/ipfs/path-segment.ts';
import { resolveSuinsName, suinsResolveJson } from '@/lib/names/resolve.ts';
import { suinsResolveQuery } from '@/lib/schemas/names.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/suins/resolve/:name',
  methods: {
    GET: endpoint({
      query: suinsResolveQuery,
      handler: async ({ url, query }) =>
        suinsResolveJson(await resolveSuinsName(lastPathSegment(url), { noCache: query.no_cache !== undefined })),
    }),
  },
});
