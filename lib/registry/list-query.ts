/**
 * How a `list` request is read, decided once for every store.
 *
 * API rule order (store.ts, issue 3): `viewTags` (any of them) when given and non-empty,
 * else the inclusive time range when both bounds are given, else everything. A single
 * time bound alone selects everything, as if absent. Paging (`afterId`, then `offset`,
 * then `limit`) applies to the selection afterwards and never changes its `total`.
 * Each store turns these resolved values into its own query, so the precedence cannot
 * drift between the memory, SQLite and a later PostgreSQL store.
 */
import type { AnnouncementFilter, ListOptions } from './store.ts';

export type Selection =
  | { kind: 'viewTags'; /** Distinct, ascending. */ tags: number[] }
  | { kind: 'timeRange'; /** Inclusive Unix seconds. */ from: number; to: number }
  | { kind: 'all' };

export type Page = { afterId: number | undefined; offset: number; limit: number };

/** Resolve a filter to the one rule that applies to it. */
export function resolveSelection(filter: AnnouncementFilter): Selection {
  if (filter.viewTags !== undefined && filter.viewTags.length > 0) {
    const tags = [...new Set(filter.viewTags)].sort((a, b) => a - b);
    return { kind: 'viewTags', tags };
  }
  if (filter.fromTimestamp !== undefined && filter.toTimestamp !== undefined) {
    return { kind: 'timeRange', from: filter.fromTimestamp, to: filter.toTimestamp };
  }
  return { kind: 'all' };
}

/**
 * Check the paging options. The HTTP layer validates query parameters first, so a bad
 * value here is a bug; failing loudly keeps stores from diverging on it (SQLite, for one,
 * reads `LIMIT -1` as "no limit").
 * @throws {RangeError} when a value is not a non-negative safe integer.
 */
export function resolvePage(options: ListOptions): Page {
  const offset = options.offset ?? 0;
  requireCount('offset', offset);
  requireCount('limit', options.limit);
  if (options.afterId !== undefined) requireCount('afterId', options.afterId);
  return { afterId: options.afterId, offset, limit: options.limit };
}

function requireCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`List option ${name} must be a non-negative integer.`);
  }
}
