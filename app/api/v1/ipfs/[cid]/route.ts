/**
 * GET /api/v1/ipfs/:cid (INTERFACE.md 4.5): the raw bytes of a CID as
 * `application/octet-stream`, from the dedicated gateway (or the embedded store), verified
 * against the CID and cached in memory by CID.
 */
import { parseCid } from '@wraith-pq/sdk';
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { downloadVerified } from '@/lib/ipfs/download.ts';
import { lastPathSegment } from '@/lib/ipfs/path-segment.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/ipfs/:cid',
  methods: {
    GET: endpoint({
      handler: async ({ url }) => {
        const content = await downloadVerified(parseCid(lastPathSegment(url)));
        return new Response(content.slice(), {
          headers: { 'content-type': 'application/octet-stream', 'content-length': String(content.length) },
        });
      },
    }),
  },
});
