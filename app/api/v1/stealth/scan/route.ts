/**
 * POST /api/v1/stealth/scan (INTERFACE.md 4.2, PROTOCOL.md section 5): find the recipient's
 * payments in the registry. Request and response carry secret keys (secretBearing).
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { scanRequest } from '@/lib/schemas/stealth.ts';
import { getRegistry } from '@/lib/server/registry.ts';
import { scanRegistry } from '@/lib/service/registry-scan.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/stealth/scan',
  secretBearing: true,
  methods: {
    POST: endpoint({
      body: scanRequest,
      handler: async ({ body }) => scanRegistry(await getRegistry(), body),
    }),
  },
});
