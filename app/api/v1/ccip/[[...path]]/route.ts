/**
 * The ENS gateway (EIP-3668 CCIP-Read for the deployment's ENSIP-10 OffchainResolver, issue 33):
 * GET /api/v1/ccip/{sender}/{data}.json or POST /api/v1/ccip `{sender, data}`, answered
 * `{ data }` signed for the resolver (lib/names/gateway/lookup.ts). 404 when ENS_GATEWAY_* are unset.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { answerCcipRequest, ccipPathValues } from '@/lib/names/gateway/http.ts';
import { ccipRequest } from '@/lib/schemas/ccip.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/ccip',
  methods: {
    GET: endpoint({
      handler: ({ request, url }) => {
        const { sender, data } = ccipPathValues(url);
        return answerCcipRequest(request, sender, data);
      },
    }),
    POST: endpoint({
      body: ccipRequest,
      handler: ({ request, body }) => answerCcipRequest(request, body.sender, body.data),
    }),
  },
});
