/**
 * Process-local announcement registry (`REGISTRY_URL=memory:`, API.md "Configuration").
 *
 * For tests and throwaway instances: everything is lost on restart and nothing is shared
 * between processes. It keeps the same contract as the persistent stores (store.ts,
 * PROTOCOL.md section 6): ids from 1 in publication order, server timestamps, a unique
 * normalised tx_hash and lists ordered by id.
 *
 * Layout: rows in id order (`rows[i].id === i + 1`, there are no deletions), a map from
 * normalised tx_hash for the uniqueness check, and one id-ordered row list per view tag so
 * a view-tag selection never walks the whole registry. `publish` checks and inserts without
 * awaiting in between, so concurrent publishes of one tx_hash store exactly one.
 *
 * Bytes are copied on the way in and on the way out: a caller mutating a returned
 * `Uint8Array` cannot change what the registry holds, as with a database.
 */
import { resolvePage, resolveSelection, type Page } from './list-query.ts';
import {
  DuplicateAnnouncementError,
  StoreUnavailableError,
  normalizeTxHash,
  type AnnouncementFilter,
  type ListOptions,
  type NewAnnouncement,
  type RegistryStats,
  type RegistryStore,
  type StoreHealth,
  type StoredAnnouncement,
} from './store.ts';

/** Create an empty process-local registry. */
export function createMemoryStore(): RegistryStore {
  return new MemoryStore();
}

class MemoryStore implements RegistryStore {
  readonly kind = 'memory' as const;
  readonly #rows: StoredAnnouncement[] = [];
  readonly #idByTxHash = new Map<string, number>();
  readonly #rowsByViewTag = new Map<number, StoredAnnouncement[]>();
  /** Rows with a channel id, in id order: the `withChannelId` selection of everything. */
  readonly #channelRows: StoredAnnouncement[] = [];
  #closed = false;

  async publish(announcement: NewAnnouncement): Promise<StoredAnnouncement> {
    this.#checkOpen();
    const txHash = announcement.txHash.trim();
    const key = normalizeTxHash(txHash);
    if (this.#idByTxHash.has(key)) throw new DuplicateAnnouncementError();
    const row: StoredAnnouncement = {
      id: this.#rows.length + 1,
      ephemeralKey: announcement.ephemeralKey.slice(),
      viewTag: announcement.viewTag,
      timestamp: Math.floor(Date.now() / 1000), // set by the server (PROTOCOL.md section 6)
      channelId: announcement.channelId === null ? null : announcement.channelId.slice(),
      txHash,
      amount: announcement.amount,
      chain: announcement.chain,
    };
    this.#rows.push(row);
    this.#idByTxHash.set(key, row.id);
    const tagRows = this.#rowsByViewTag.get(row.viewTag);
    if (tagRows === undefined) this.#rowsByViewTag.set(row.viewTag, [row]);
    else tagRows.push(row);
    if (row.channelId !== null) this.#channelRows.push(row);
    return copyRow(row);
  }

  async list(
    filter: AnnouncementFilter,
    options: ListOptions,
  ): Promise<{ announcements: StoredAnnouncement[]; total: number }> {
    this.#checkOpen();
    const page = resolvePage(options);
    const selection = resolveSelection(filter);
    let lists: readonly (readonly StoredAnnouncement[])[];
    switch (selection.kind) {
      case 'viewTags':
        lists = selection.tags.map((tag) => this.#rowsByViewTag.get(tag) ?? []);
        break;
      case 'timeRange':
        // Timestamps follow the wall clock, which may step back, so they are not
        // guaranteed to be sorted by id: filter rather than binary-search.
        lists = [this.#rows.filter((row) => row.timestamp >= selection.from && row.timestamp <= selection.to)];
        break;
      case 'all':
        lists = [filter.withChannelId === true ? this.#channelRows : this.#rows];
        break;
    }
    if (filter.withChannelId === true && selection.kind !== 'all') {
      lists = lists.map((rows) => rows.filter((row) => row.channelId !== null));
    }
    return {
      announcements: takePage(lists, page).map(copyRow),
      total: lists.reduce((sum, rows) => sum + rows.length, 0),
    };
  }

  async stats(): Promise<RegistryStats> {
    this.#checkOpen();
    const viewTagDistribution = [...this.#rowsByViewTag]
      .map(([tag, rows]) => ({ tag, count: rows.length }))
      .sort((a, b) => a.tag - b.tag);
    return { totalAnnouncements: this.#rows.length, viewTagDistribution };
  }

  async count(): Promise<number> {
    this.#checkOpen();
    return this.#rows.length;
  }

  async health(): Promise<StoreHealth> {
    return this.#closed ? { ok: false, kind: this.kind, error: 'The store is closed.' } : { ok: true, kind: this.kind };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreUnavailableError('The memory registry is closed.');
  }
}

/**
 * One page of the union of disjoint id-ordered lists (one per view tag, or a single list):
 * each list is entered by binary search past `afterId`, then merged by id only as far as
 * `offset + limit`, so a page costs O(lists × log n + (offset + limit) × lists).
 */
function takePage(lists: readonly (readonly StoredAnnouncement[])[], page: Page): StoredAnnouncement[] {
  const cursors = lists.map((rows) => ({
    rows,
    next: page.afterId === undefined ? 0 : firstIndexAfter(rows, page.afterId),
  }));
  const [only] = cursors;
  if (cursors.length === 1 && only !== undefined) {
    const start = only.next + page.offset;
    return only.rows.slice(start, start + page.limit);
  }
  const out: StoredAnnouncement[] = [];
  let skip = page.offset;
  while (out.length < page.limit) {
    let best: (typeof cursors)[number] | undefined;
    let bestRow: StoredAnnouncement | undefined;
    for (const cursor of cursors) {
      const row = cursor.rows[cursor.next];
      if (row !== undefined && (bestRow === undefined || row.id < bestRow.id)) {
        best = cursor;
        bestRow = row;
      }
    }
    if (best === undefined || bestRow === undefined) break;
    best.next++;
    if (skip > 0) skip--;
    else out.push(bestRow);
  }
  return out;
}

/** Index of the first row with an id above `afterId` in an id-ordered list. */
function firstIndexAfter(rows: readonly StoredAnnouncement[], afterId: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((rows[mid]?.id ?? Infinity) <= afterId) low = mid + 1;
    else high = mid;
  }
  return low;
}

function copyRow(row: StoredAnnouncement): StoredAnnouncement {
  return {
    ...row,
    ephemeralKey: row.ephemeralKey.slice(),
    channelId: row.channelId === null ? null : row.channelId.slice(),
  };
}
