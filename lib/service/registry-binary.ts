/**
 * The binary answer of GET /api/v1/registry/announcements (`Accept: application/octet-stream`),
 * in the page format of sdk/src/announcement-binary.ts, for streaming scans.
 *
 * Caching: the binary page carries no registry total, so a page read with an `after_id`
 * cursor that came back full (as many rows as `limit`) and holds only HTTP-published rows can
 * never change: ids only grow and such rows are never deleted. Those pages are `public,
 * max-age=1 year, immutable`; every other page may still grow, or lose chain rows to a
 * reorganisation, and must be revalidated (`no-cache`). Every page has a strong ETag (the
 * hash of its bytes) and `If-None-Match` answers 304.
 */
import { createHash } from 'node:crypto';
import { ANNOUNCEMENT_PAGE_MEDIA_TYPE, encodeAnnouncementPage } from '@wraith-pq/sdk';
import type { StoredAnnouncement } from '../registry/store.ts';

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

/** Whether the client asked for the binary page. */
export function wantsBinaryPage(request: Request): boolean {
  return (request.headers.get('accept') ?? '').toLowerCase().includes(ANNOUNCEMENT_PAGE_MEDIA_TYPE);
}

export type BinaryPageRequest = { afterId: number | undefined; offset: number; limit: number };

export function binaryPageResponse(request: Request, rows: StoredAnnouncement[], page: BinaryPageRequest): Response {
  const body = encodeAnnouncementPage(rows);
  const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
  // A reorganisation may remove chain rows, so a page holding one may still change.
  const complete = page.afterId !== undefined && page.offset === 0 && rows.length === page.limit && rows.every((row) => row.blockNumber === null);
  const headers = {
    'Content-Type': ANNOUNCEMENT_PAGE_MEDIA_TYPE,
    ETag: etag,
    'Cache-Control': complete ? IMMUTABLE : REVALIDATE,
    Vary: 'Accept',
  };
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch !== null && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers: { ...headers, 'Content-Length': String(body.length) } });
}
