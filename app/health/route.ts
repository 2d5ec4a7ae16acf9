/**
 * GET/HEAD /health (INTERFACE.md 4.7): liveness and registry state; 503 "degraded" when the
 * registry is unreachable. Public: no API key, unversioned path.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { healthReport } from '@/lib/service/health.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/health',
  apiKey: 'never',
  methods: {
    GET: endpoint({
      handler: async () => {
        const { httpStatus, body } = await healthReport();
        return Response.json(body, { status: httpStatus });
      },
    }),
  },
});
