/**
 * GET /api/v1/chains: every followed chain's tokens and gasless withdrawal settings (bundler,
 * paymaster, accepted tokens), from `CHAINS`. Never an RPC URL.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { chainsJson } from '@/lib/service/chains.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/chains',
  methods: {
    GET: endpoint({ handler: () => chainsJson() }),
  },
});
