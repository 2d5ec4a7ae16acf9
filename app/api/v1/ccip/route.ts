/**
 * POST /api/v1/ccip `{sender, data}`: the ENS gateway's CCIP-Read lookup in its POST form
 * (EIP-3668; lib/names/gateway/lookup.ts). 404 when ENS_GATEWAY_* are unset.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { answerCcipRequest } from '@/lib/names/gateway/http.ts';
import { ccipRequest } from '@/lib/schemas/ccip.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/ccip',
  methods: {
    POST: endpoint({ body: ccipRequest, handler: ({ request, body }) => answerCcipRequest(request, body.sender, body.data) }),
  },
});
