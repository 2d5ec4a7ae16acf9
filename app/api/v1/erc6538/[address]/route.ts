/**
 * GET /api/v1/erc6538/:address (API.md "Several chains, two schemes"): the meta-address an
 * address registered in the ERC-6538 registry of a chain this server follows, scheme 3
 * preferred; 404 NO_STEALTH_RECORD when none is (or it was cleared).
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { lastPathSegment } from '@/lib/ipfs/path-segment.ts';
import { erc6538Query } from '@/lib/schemas/erc6538.ts';
import { registeredMetaAddress } from '@/lib/service/erc6538.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/erc6538/:address',
  methods: {
    GET: endpoint({
      query: erc6538Query,
      handler: ({ url, query }) => registeredMetaAddress(lastPathSegment(url), query),
    }),
  },
});
