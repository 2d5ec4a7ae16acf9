/**
 * /api and every path under it outside /api/v1 (`/api/v2/...`, `/api/foo`): 404 NOT_FOUND as
 * JSON with the API's headers, not the framework's HTML page (API.md "Errors"). The routes
 * under /api/v1 are more specific and take precedence.
 */
import { defineRoute } from '@/lib/http/route.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/[[...path]]',
  methods: {},
  notFound: true,
});
