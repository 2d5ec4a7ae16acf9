/**
 * The binary answer of GET /api/v1/registry/announcements (`Accept: application/octet-stream`),
 * in the page format of sdk/src/announcement-binary.ts, for streaming scans.
 *
 * Caching: the binary page carries no registry total, so a page read with an `after_id`
 * cursor that came back full (as many rows as `limit`) and holds only HTTP-published rows
 * neither grows nor loses rows: ids only grow and such rows are never deleted. Those pages are
 * `public, max-age=1 year, immutable`; every other page may still grow, or lose chain rows to a
 * reorganisation, and must be revalidated (`no-cache`), as must pages filtered by `chain_id`
 * (a row may join them when the indexer completes it). Not covered: the indexer may still
 * complete one of those HTTP rows in place with its chain event's fields (store.ts), which a
 * cache holding the page does not see (the payment is still found; its chain position, and a
 * note only the chain carried, are not). Every page has a strong ETag (`pageEtag`) and
 * `If-None-Match` answers 304.
 */
import { createHash } from 'node:crypto';
import { ANNOUNCEMENT_PAGE_MEDIA_TYPE, ANNOUNCEMENT_PAGE_VERSION, encodeAnnouncementPage } from '@wraith-pq/sdk';
import sdkPackage from '../../sdk/package.json';
import packageJson from '../../package.json';
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
  const etag = pageEtag(rows);
  // A reorganisation may remove chain rows, so a page holding one may still change. A page
  // filtered by chain may gain a row: an HTTP row that named no chain takes its chain event's
  // chain_id when the indexer completes it, and a cached page would hide it from the scan.
  const complete =
    page.afterId !== undefined &&
    page.offset === 0 &&
    rows.length === page.limit &&
    !new URL(request.url).searchParams.has('chain_id') &&
    rows.every((row) => row.blockNumber === null);
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

/** What else the bytes of a page depend on: its layout version and the code that writes it. */
const ETAG_CONTEXT = `WRA${ANNOUNCEMENT_PAGE_VERSION} ${packageJson.version} sdk ${sdkPackage.version}`;

/**
 * The strong ETag of the binary page of `rows`, without hashing their ciphertexts.
 *
 * A row's fields are written once, when it is stored, except those a chain event sets in place
 * (`StoredAnnouncement` in store.ts: position, stealth address, note, and `chainId`, which an
 * HTTP row that named no chain gets from its chain event), and ids are never handed out twice.
 * So the page's bytes are fixed by its ids and those fields, and hashing them gives equal tags
 * only to equal pages. (`schemeId` is fixed by the ephemeral key's length, written once.)
 * Hashing the whole page instead (5.5 MB for 5,000 rows, almost all of it ciphertext) cost about
 * half the server's time per page on a CPU without SHA extensions (`npm run bench -- api`,
 * BENCHMARKS.md).
 */
export function pageEtag(rows: readonly StoredAnnouncement[]): string {
  // Column by column: ids, block numbers, log indexes and chain ids (NaN for none), the stealth
  // addresses (hex text, one per row, '' for none: fixed width or empty, so unambiguous) and the
  // notes (their lengths, then their bytes).
  const numbers = new Float64Array(rows.length * 4);
  const noteLengths = new Uint32Array(rows.length);
  const notes: Uint8Array[] = [];
  let addresses = '';
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    numbers[4 * i] = row.id;
    numbers[4 * i + 1] = row.blockNumber ?? Number.NaN;
    numbers[4 * i + 2] = row.logIndex ?? Number.NaN;
    numbers[4 * i + 3] = row.chainId ?? Number.NaN;
    addresses += `${row.stealthAddress ?? ''},`;
    if (row.metadata !== null) notes.push(row.metadata);
    noteLengths[i] = row.metadata?.length ?? 0;
  }
  const hash = createHash('sha256').update(ETAG_CONTEXT).update(new Uint8Array(numbers.buffer)).update(addresses, 'latin1');
  return `"${hash.update(new Uint8Array(noteLengths.buffer)).update(Buffer.concat(notes)).digest('hex').slice(0, 32)}"`;
}
