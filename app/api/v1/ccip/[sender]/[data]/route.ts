/**
 * GET /api/v1/ccip/{sender}/{data}.json: the ENS gateway's CCIP-Read lookup (EIP-3668, the URL
 * the deployment's OffchainResolver names; lib/names/gateway/lookup.ts), answered `{ data }`
 * signed for the resolver. 404 when ENS_GATEWAY_* are unset.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { answerCcipRequest, ccipPathValues } from '@/lib/names/gateway/http.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/ccip/:sender/:data',
  methods: {
    GET: endpoint({
      handler: ({ request, url }) => {
        const { sender, data } = ccipPathValues(url);
        return answerCcipRequest(request, sender, data);
      },
    }),
  },
});
