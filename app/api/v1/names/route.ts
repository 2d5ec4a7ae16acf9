/**
 * GET /api/v1/names: whether this server runs the ENS gateway (and its parent name).
 * POST /api/v1/names: register, change or release a name served by the ENS gateway, proved by a
 * signature (lib/names/gateway/registration.ts). 404 when ENS_GATEWAY_* are unset.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { changeName, gatewayStatus } from '@/lib/names/gateway/registration.ts';
import { nameChangeRequest } from '@/lib/schemas/ccip.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/names',
  methods: {
    GET: endpoint({ handler: () => gatewayStatus() }),
    POST: endpoint({ body: nameChangeRequest, handler: ({ body }) => changeName(body) }),
  },
});
