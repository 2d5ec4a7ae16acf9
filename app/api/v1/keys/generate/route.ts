/**
 * POST /api/v1/keys/generate (INTERFACE.md 4.1): a fresh key bundle; nothing is stored.
 * The response carries secret keys: never cached, never logged (secretBearing).
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { generateKeyBundle } from '@/lib/service/key-bundle.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/keys/generate',
  secretBearing: true,
  methods: {
    POST: endpoint({ handler: () => generateKeyBundle() }),
  },
});
