/**
 * POST /api/v1/ipfs/upload (INTERFACE.md 4.5): validate a meta-address, store its raw bytes
 * (pinning service with PINNING_JWT, else the embedded store) and answer the CID and the
 * `ipfs://<cid>` record to write into a name.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { uploadMetaAddress } from '@/lib/ipfs/upload.ts';
import { uploadRequest } from '@/lib/schemas/ipfs.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/ipfs/upload',
  methods: {
    POST: endpoint({
      body: uploadRequest,
      handler: ({ body }) => uploadMetaAddress(body.meta_address, body.name),
    }),
  },
});
