/**
 * The registry endpoints' work (INTERFACE.md 4.3): publish, list and stats, between the JSON
 * of the API and the store's byte form.
 *
 * Duplicates: the store refuses a second announcement with the same normalised tx_hash, also
 * when publishes race (it throws DuplicateAnnouncementError, answered 409 by lib/http/errors.ts).
 */
import type { AnnouncementFilter, RegistryStore } from '../registry/store.ts';
import { validationError } from '../http/errors.ts';
import {
  DEFAULT_LIST_LIMIT,
  MAX_BINARY_PAGE_LIMIT,
  MAX_LIST_LIMIT,
  type ListAnnouncementsQuery,
  type ListAnnouncementsResponse,
  type PublishAnnouncementRequest,
  type RegistryStatsResponse,
} from '../schemas/registry.ts';
import { announcementToJson } from './announcement-json.ts';
import { binaryPageResponse } from './registry-binary.ts';

/** Store a validated announcement; the store assigns id and timestamp. */
export async function publishAnnouncement(store: RegistryStore, request: PublishAnnouncementRequest): Promise<{ id: number; success: true }> {
  const stored = await store.publish({
    ephemeralKey: request.ephemeral_key,
    viewTag: request.view_tag,
    txHash: request.tx_hash,
    channelId: request.channel_id ?? null,
    amount: request.amount ?? null,
    chain: request.chain ?? null,
    chainId: request.chain_id ?? null,
    schemeId: request.scheme_id,
    stealthAddress: request.stealth_address ?? null,
    metadata: request.metadata ?? null,
  });
  return { id: stored.id, success: true };
}

/**
 * Filter rules (INTERFACE.md 4.3): view_tag when present, else both timestamps, else all; then
 * narrowed to the chains `chain_id` names and the scheme `scheme_id` names (API.md "Several
 * chains, two schemes").
 */
export function listSelection(query: ListAnnouncementsQuery): AnnouncementFilter {
  const chains: AnnouncementFilter = {
    ...(query.chain_id === undefined ? {} : { chainIds: query.chain_id }),
    ...(query.scheme_id === undefined ? {} : { schemeIds: [query.scheme_id] }),
  };
  if (query.view_tag !== undefined) return { viewTags: [query.view_tag], ...chains };
  if (query.from_timestamp !== undefined && query.to_timestamp !== undefined) {
    return { fromTimestamp: query.from_timestamp, toTimestamp: query.to_timestamp, ...chains };
  }
  return chains;
}

/** One page of the selection, ordered by id, with the selection's total. */
export async function listAnnouncements(store: RegistryStore, query: ListAnnouncementsQuery): Promise<ListAnnouncementsResponse> {
  if (query.limit !== undefined && query.limit > MAX_LIST_LIMIT) {
    const issue = `must be at most ${MAX_LIST_LIMIT} (${MAX_BINARY_PAGE_LIMIT} for binary pages: Accept: application/octet-stream)`;
    throw validationError([{ path: 'limit', issue }]);
  }
  const { announcements, total } = await store.list(listSelection(query), pageOptions(query));
  return { announcements: announcements.map(announcementToJson), total };
}

/** The same page in the binary form (registry-binary.ts), when the client asks for it. */
export async function listAnnouncementsBinary(store: RegistryStore, query: ListAnnouncementsQuery, request: Request): Promise<Response> {
  const options = pageOptions(query);
  const { announcements } = await store.list(listSelection(query), { ...options, countTotal: false });
  return binaryPageResponse(request, announcements, { afterId: query.after_id, offset: options.offset, limit: options.limit });
}

function pageOptions(query: ListAnnouncementsQuery): { offset: number; limit: number; afterId?: number } {
  return {
    offset: query.offset ?? 0,
    limit: query.limit ?? DEFAULT_LIST_LIMIT,
    ...(query.after_id === undefined ? {} : { afterId: query.after_id }),
  };
}

export async function registryStats(store: RegistryStore): Promise<RegistryStatsResponse> {
  const stats = await store.stats();
  return {
    total_announcements: stats.totalAnnouncements,
    view_tag_distribution: stats.viewTagDistribution.map(({ tag, count }) => ({ tag, count })),
  };
}
