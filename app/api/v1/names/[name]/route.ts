/**
 * GET /api/v1/names/:name: a name at the ENS gateway, its meta-address and the nonce the next
 * change must sign (lib/names/gateway/registration.ts). 404 when ENS_GATEWAY_* are unset.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { lastPathSegment } from '@/lib/ipfs/path-segment.ts';
import { showName } from '@/lib/names/gateway/registration.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/names/:name',
  methods: {
    GET: endpoint({ handler: ({ url }) => showName(lastPathSegment(url)) }),
  },
});
