/**
 * Paths under /health (`/health/x`): 404 NOT_FOUND as JSON with the API's headers, like any
 * unknown API path, instead of the framework's HTML page.
 */
import { defineRoute } from '@/lib/http/route.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/health/[...path]',
  methods: {},
  notFound: true,
});
