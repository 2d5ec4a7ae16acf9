/**
 * GET /api/v1/openapi.json: the OpenAPI 3.1 document of this API, generated from the zod schemas
 * the handlers validate with (lib/openapi). Public and the same for every request, so cacheable.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { openApiDocument } from '@/lib/openapi/document.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/openapi.json',
  methods: {
    GET: endpoint({
      handler: () => Response.json(openApiDocument(), { headers: { 'Cache-Control': 'public, max-age=300' } }),
    }),
  },
});
