/**
 * Walking the whole registry with the `after_id` cursor (GET /api/v1/registry/announcements),
 * one page at a time, in id order. Pages are asked for in the compact binary form
 * (sdk/src/announcement-binary.ts, `Accept: application/octet-stream`: half the bytes of hex
 * JSON, no hex parsing) and read as JSON when the server answers JSON instead, so the same
 * code works against servers without the binary answer.
 *
 * The page source has the shape of {@link RegistryPageSource}: `scanRegistry` consumes it
 * directly and keeps memory bounded by one page. One walk covers every chain the server follows
 * (ids are the registry's, across chains), or the chains of `chainIds` (`chain_id` filter), so
 * its one cursor resumes them all.
 * @module
 */
import { ANNOUNCEMENT_PAGE_MEDIA_TYPE, decodeAnnouncementPage, UnsupportedPageVersionError, type RegistryAnnouncement } from '../announcement-binary.ts';
import { InvalidArgumentError } from '../errors.ts';
import type { RegistryPageSource } from '../scan-registry.ts';
import { announcementFromJson } from './convert.ts';
import { ApiError } from './errors.ts';
import type { CallOptions, RequestSpec, Transport } from './transport.ts';
import type { ListAnnouncementsReturnType } from './types.ts';

/** Largest JSON page the server serves (lib/schemas/registry.ts MAX_LIST_LIMIT). */
export const MAX_ANNOUNCEMENT_PAGE_SIZE = 1000;
/**
 * Largest binary page the server serves (lib/schemas/registry.ts MAX_BINARY_PAGE_LIMIT), about
 * 5.5 MB: the default page size of binary walks. Fewer requests make streaming a large registry
 * markedly faster (BENCHMARKS.md).
 */
export const MAX_BINARY_ANNOUNCEMENT_PAGE_SIZE = 5000;

export type AnnouncementPagesParameters = Omit<CallOptions, 'signal'> & {
  /** Start after this announcement id (a saved cursor). Default 0: from the first. */
  afterId?: number;
  /**
   * Announcements per request. Default and maximum: 5000 with `format: 'auto'` (binary pages),
   * 1000 with `format: 'json'`.
   */
  pageSize?: number;
  /**
   * `auto` (default): binary when the server offers it, else JSON (also from the first binary page
   * of a layout version this SDK does not read on). `json`: always JSON.
   */
  format?: 'auto' | 'json';
  /**
   * Only the rows of these chains (EIP-155 ids), sent as `chain_id`; default: every chain the
   * server follows, and rows published over HTTP without a chain. A server that answers rows of
   * other chains (one older than the filter) fails the walk with `INVALID_RESPONSE`.
   */
  chainIds?: readonly number[];
  signal?: AbortSignal;
};

/**
 * The `chain_id` query value of one id or a list (comma-separated), each a positive safe integer.
 * @throws {InvalidArgumentError} naming `field`, for an empty list or an id that is not one.
 */
export function chainIdQuery(chainIds: number | readonly number[], field: string): string {
  const ids = typeof chainIds === 'number' ? [chainIds] : chainIds;
  if (!Array.isArray(ids) || ids.length === 0) throw new InvalidArgumentError(field, 'must name at least one chain id (leave it out for every chain)');
  for (const id of ids) if (!Number.isSafeInteger(id) || id < 1) throw new InvalidArgumentError(field, `must hold positive integer EIP-155 chain ids (got ${String(id)})`);
  return ids.join(',');
}

const decoder = new TextDecoder();

/** Fetch one page after `afterId`, in byte form; `binary` says which form the server answered. */
export async function fetchAnnouncementPage(
  transport: Transport,
  params: { afterId: number; pageSize: number; format: 'auto' | 'json'; chainIds?: readonly number[] | undefined },
  options: CallOptions = {},
): Promise<{ page: RegistryAnnouncement[]; binary: boolean }> {
  const spec: RequestSpec = {
    method: 'GET',
    path: '/api/v1/registry/announcements',
    query: { after_id: params.afterId, limit: params.pageSize, chain_id: params.chainIds === undefined ? undefined : chainIdQuery(params.chainIds, 'chainIds') },
    accept: params.format === 'json' ? 'application/json' : `${ANNOUNCEMENT_PAGE_MEDIA_TYPE}, application/json;q=0.5`,
  };
  const answer = await transport.request(spec, options);
  const type = (answer.headers.get('content-type') ?? '').toLowerCase();
  const invalid = (shortMessage: string, cause?: unknown) =>
    new ApiError({
      code: 'INVALID_RESPONSE',
      shortMessage,
      status: answer.status,
      requestId: answer.headers.get('x-request-id') ?? undefined,
      method: spec.method,
      path: spec.path,
      cause,
    });
  const binary = type.startsWith(ANNOUNCEMENT_PAGE_MEDIA_TYPE);
  let page: RegistryAnnouncement[];
  try {
    page = binary
      ? decodeAnnouncementPage(answer.body)
      : (JSON.parse(decoder.decode(answer.body)) as ListAnnouncementsReturnType).announcements.map(announcementFromJson);
  } catch (cause) {
    throw invalid('The server answered a page of announcements the client cannot read.', cause);
  }
  // A server that ignored the cursor would hand out the same page forever.
  if (page.length > 0 && !(page[0]!.id > params.afterId && page.every((a, i) => i === 0 || a.id > page[i - 1]!.id))) {
    throw invalid('The server answered a page that does not follow the after_id cursor (ids must grow past it).');
  }
  // A server that ignores chain_id would hand out every chain's rows as the asked ones.
  if (params.chainIds !== undefined) {
    const asked = new Set(params.chainIds);
    const foreign = page.find((a) => a.chainId == null || !asked.has(a.chainId));
    if (foreign !== undefined) {
      throw invalid(`The server answered row ${foreign.id} of chain ${foreign.chainId ?? 'none'} to a request for chain_id=${[...asked].join(',')}: it does not filter by chain.`);
    }
  }
  return { page, binary };
}

/**
 * Pages of announcements in id order from `afterId` to the end of the registry as it is when
 * the walk gets there. A {@link RegistryPageSource}: pass it to `scanRegistry` as is.
 */
export type AnnouncementPageSource = (params?: AnnouncementPagesParameters) => AsyncGenerator<RegistryAnnouncement[]>;

// Compile-time proof that the client's page source fits scanRegistry.
const _fits: (source: AnnouncementPageSource) => RegistryPageSource<RegistryAnnouncement> = (source) => source;

/** The registry of `transport` as an {@link AnnouncementPageSource}. */
export function announcementPageSource(transport: Transport): AnnouncementPageSource {
  return async function* announcementPages(params: AnnouncementPagesParameters = {}) {
    const { format = 'auto', ...rest } = params;
    const largest = format === 'json' ? MAX_ANNOUNCEMENT_PAGE_SIZE : MAX_BINARY_ANNOUNCEMENT_PAGE_SIZE;
    const { afterId = 0, pageSize = largest, chainIds, ...options } = rest;
    if (!Number.isSafeInteger(afterId) || afterId < 0) throw new InvalidArgumentError('afterId', 'must be a non-negative integer');
    if (chainIds !== undefined) chainIdQuery(chainIds, 'chainIds');
    if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > largest) {
      throw new InvalidArgumentError('pageSize', `must be an integer 1..${largest}${format === 'json' ? ' for JSON pages' : ''}`);
    }
    let cursor = afterId;
    let asked = { pageSize, format };
    for (;;) {
      let answer: { page: RegistryAnnouncement[]; binary: boolean };
      try {
        answer = await fetchAnnouncementPage(transport, { afterId: cursor, ...asked, chainIds }, options);
      } catch (error) {
        // A server newer than this SDK writes a page layout it cannot read: walk on in JSON, which
        // every version serves, rather than stop the scan.
        if (!(error instanceof ApiError && error.cause instanceof UnsupportedPageVersionError && error.cause.version !== null) || asked.format === 'json') throw error;
        asked = { pageSize: Math.min(pageSize, MAX_ANNOUNCEMENT_PAGE_SIZE), format: 'json' };
        continue;
      }
      const { page, binary } = answer;
      if (page.length > 0) {
        cursor = page[page.length - 1]!.id;
        yield page;
      }
      // A short binary page is the end. A JSON answer may come from a server whose largest page
      // is smaller than the one asked for, so there only an empty page is.
      if (page.length === 0 || (binary && page.length < asked.pageSize)) return;
    }
  };
}
