/**
 * Every other path under /api/v1: 404 NOT_FOUND as JSON for any method (API.md "Errors": every
 * error under /api/v1 is JSON, framework-level ones included). Static routes take precedence
 * over this catch-all.
 */
import { defineRoute } from '@/lib/http/route.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/[...path]',
  methods: {},
  notFound: true,
});
