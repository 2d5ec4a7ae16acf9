/**
 * POST /api/v1/stealth/create (INTERFACE.md 4.2, PROTOCOL.md section 4): a one-time address
 * for a meta-address and the announcement to publish once paid. Publishes nothing.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { createStealthRequest } from '@/lib/schemas/stealth.ts';
import { createStealthPaymentJson } from '@/lib/service/stealth-payment.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/stealth/create',
  methods: {
    POST: endpoint({
      body: createStealthRequest,
      handler: ({ body }) => createStealthPaymentJson(body),
    }),
  },
});
