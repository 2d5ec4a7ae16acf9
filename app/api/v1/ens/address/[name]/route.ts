/**
 * GET /api/v1/ens/address/:name: the Ethereum address a `.eth` name resolves to (ENSIP-1), for a
 * sender who then reads its ERC-6538 registration through their own wallet.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { lastPathSegment } from '@/lib/ipfs/path-segment.ts';
import { ensAddressJson } from '@/lib/service/erc6538-ens.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/ens/address/:name',
  methods: {
    GET: endpoint({
      handler: async ({ url }) => ensAddressJson(lastPathSegment(url)),
    }),
  },
});
