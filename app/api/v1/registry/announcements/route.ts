/**
 * /api/v1/registry/announcements (INTERFACE.md 4.3, PROTOCOL.md section 6).
 *
 * POST publishes one announcement and answers 201 Created with its id (409 for a tx_hash
 * already in the registry; under REGISTRY_PUBLISH=verified 422 TX_NOT_VERIFIED unless the chain
 * proves it, under closed 403 PUBLISH_CLOSED: lib/service/registry-publish.ts). GET lists a page
 * of the selection, ordered by id: JSON with the selection's total, or with `Accept: application/octet-stream` the compact binary page for
 * streaming scans (lib/service/registry-binary.ts), cacheable once full.
 */
import { defineRoute, endpoint } from '@/lib/http/route.ts';
import { listAnnouncementsQuery, publishAnnouncementRequest } from '@/lib/schemas/registry.ts';
import { getRegistry } from '@/lib/server/registry.ts';
import { listAnnouncements, listAnnouncementsBinary } from '@/lib/service/registry-api.ts';
import { publishInMode } from '@/lib/service/registry-publish.ts';
import { wantsBinaryPage } from '@/lib/service/registry-binary.ts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute({
  path: '/api/v1/registry/announcements',
  methods: {
    GET: endpoint({
      query: listAnnouncementsQuery,
      handler: async ({ query, request }) =>
        wantsBinaryPage(request)
          ? listAnnouncementsBinary(await getRegistry(), query, request)
          : listAnnouncements(await getRegistry(), query),
    }),
    POST: endpoint({
      body: publishAnnouncementRequest,
      status: 201,
      handler: async ({ body }) => publishInMode(await getRegistry(), body),
    }),
  },
});
