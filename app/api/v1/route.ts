/**
 * /api/v1 itself is not an endpoint: 404 NOT_FOUND as JSON, like any unknown path under it
 * (the catch-all `[...path]` needs at least one segment).
 */
import { defineRoute } from '@/lib/http/route.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1',
  methods: {},
  notFound: true,
});
