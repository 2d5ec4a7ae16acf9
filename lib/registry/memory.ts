/**
 * Process-local announcement registry (`REGISTRY_URL=memory:`, API.md "Configuration").
 *
 * For tests and throwaway instances: everything is lost on restart and nothing is shared
 * between processes. It keeps the same contract as the persistent stores (store.ts,
 * PROTOCOL.md section 6): ids from 1 in publication order, server timestamps, a unique
 * normalised tx_hash and lists ordered by id.
 *
 * Layout: rows in id order (ids keep growing; rows of chain events a reorganisation removed
 * leave gaps), a map from normalised tx_hash to its rows for the uniqueness rules, and one
 * id-ordered row list per view tag so a view-tag selection never walks the whole registry. Every
 * method checks and writes without awaiting in between, so concurrent calls cannot interleave:
 * concurrent publishes of one tx_hash store exactly one, and the indexer's commits are atomic.
 *
 * Bytes are copied on the way in and on the way out: a caller mutating a returned
 * `Uint8Array` cannot change what the registry holds, as with a database.
 */
import { resolvePage, resolveSelection, type Page } from './list-query.ts';
import { chainEventRow, copyRow, publishedRow, verifiedRow } from './row.ts';
import {
  DuplicateAnnouncementError,
  IndexerLeaseLostError,
  MAX_CHECKPOINTS,
  StoreUnavailableError,
  WRAITH_SCHEME_ID,
  eventsInChainOrder,
  normalizeTxHash,
  type ChainEvent,
  type CommitResult,
  type IndexedRange,
  type IndexerCheckpoint,
  type IndexerState,
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

type IndexerRecord = { owner: string | null; leaseExpiresAt: number; nextBlock: number | null; checkpoints: IndexerCheckpoint[] };

class MemoryStore implements RegistryStore {
  readonly kind = 'memory' as const;
  /** Every row, in id order. */
  readonly #rows: StoredAnnouncement[] = [];
  #lastId = 0;
  /** Rows per normalised tx_hash (HTTP and chain), for the publish rule. */
  readonly #rowsByTxHash = new Map<string, StoredAnnouncement[]>();
  readonly #rowsByViewTag = new Map<number, StoredAnnouncement[]>();
  /** Rows with a channel id, in id order: the `withChannelId` selection of everything. */
  readonly #channelRows: StoredAnnouncement[] = [];
  /** Ids of rows that came from the chain (indexer or verified publish), not from an HTTP publish. */
  readonly #fromChain = new Set<number>();
  readonly #indexers = new Map<string, IndexerRecord>();
  #closed = false;

  async publish(announcement: NewAnnouncement): Promise<StoredAnnouncement> {
    this.#checkOpen();
    const txHash = announcement.txHash.trim();
    if (this.#rowsByTxHash.has(normalizeTxHash(txHash))) throw new DuplicateAnnouncementError();
    // The timestamp is set by the server (PROTOCOL.md section 6).
    return copyRow(this.#insert((id) => publishedRow(id, announcement, Math.floor(Date.now() / 1000)), false));
  }

  async publishVerified(event: ChainEvent & { amount: string | null; channelId: Uint8Array | null }): Promise<StoredAnnouncement> {
    this.#checkOpen();
    const existing = this.#rowsByTxHash.get(normalizeTxHash(event.txHash)) ?? [];
    if (existing.some((row) => row.logIndex === null || isEvent(row, event.chainId, event.logIndex))) throw new DuplicateAnnouncementError();
    return copyRow(this.#insert((id) => verifiedRow(id, event), true));
  }

  async acquireIndexerLease(key: string, owner: string, leaseMs: number): Promise<IndexerState | null> {
    this.#checkOpen();
    const now = Date.now();
    let record = this.#indexers.get(key);
    if (record === undefined) {
      record = { owner: null, leaseExpiresAt: 0, nextBlock: null, checkpoints: [] };
      this.#indexers.set(key, record);
    }
    if (record.owner !== owner && record.owner !== null && record.leaseExpiresAt > now) return null;
    record.owner = owner;
    record.leaseExpiresAt = now + leaseMs;
    return { nextBlock: record.nextBlock, checkpoints: record.checkpoints.map((c) => ({ ...c })) };
  }

  async releaseIndexerLease(key: string, owner: string): Promise<void> {
    this.#checkOpen();
    const record = this.#indexers.get(key);
    if (record?.owner === owner) {
      record.owner = null;
      record.leaseExpiresAt = 0;
    }
  }

  async commitIndexedRange(key: string, owner: string, range: IndexedRange): Promise<CommitResult> {
    this.#checkOpen();
    const record = this.#leased(key, owner);
    const { chainId } = range;
    const events = eventsInChainOrder(range.events);
    const wanted = new Set(events.map((e) => chainKey(e.txHash, e.logIndex)));
    // This chain's rows stored ahead of the indexer (verified publishes) whose event the chain no longer has.
    const read = (row: StoredAnnouncement) => range.schemeIds === undefined || range.schemeIds.includes(row.schemeId);
    for (const row of this.#rows.filter((r) => this.#fromChain.has(r.id) && r.chainId === chainId && r.blockNumber !== null && r.blockNumber >= range.fromBlock && r.blockNumber <= range.toBlock && read(r))) {
      if (!wanted.has(chainKey(row.txHash, row.logIndex!))) this.#remove(row);
    }
    const result: CommitResult = { inserted: 0, completed: 0, existing: 0 };
    for (const event of events) {
      const sameTx = this.#rowsByTxHash.get(normalizeTxHash(event.txHash)) ?? [];
      if (sameTx.some((row) => isEvent(row, chainId, event.logIndex))) continue;
      const published = sameTx.find(
        (row) => row.logIndex === null && (row.chainId === null || row.chainId === chainId) && equalBytes(row.ephemeralKey, event.ephemeralKey),
      );
      if (published !== undefined) {
        Object.assign(published, {
          chainId,
          blockNumber: event.blockNumber,
          logIndex: event.logIndex,
          stealthAddress: event.stealthAddress,
          metadata: published.metadata ?? (event.metadata === null ? null : event.metadata.slice()),
        });
        result.completed++;
        continue;
      }
      this.#insert((id) => chainEventRow(id, { ...event, chainId }), true);
      result.inserted++;
    }
    // Events stored already, and repeats within the range, are `existing` (as in the SQL stores).
    result.existing = range.events.length - result.inserted - result.completed;
    record.nextBlock = range.toBlock + 1;
    record.checkpoints = mergeCheckpoints(record.checkpoints, range);
    return result;
  }

  async rewindIndexedRange(key: string, owner: string, toBlock: number, chainId: number): Promise<{ removed: number }> {
    this.#checkOpen();
    const record = this.#leased(key, owner);
    const indexedUpTo = record.nextBlock === null ? -1 : record.nextBlock - 1;
    let removed = 0;
    for (const row of this.#rows.filter((r) => r.chainId === chainId && r.blockNumber !== null && r.blockNumber > toBlock && r.blockNumber <= indexedUpTo)) {
      if (this.#fromChain.has(row.id)) {
        this.#remove(row);
        removed++;
      } else {
        // A scheme-3 publisher named the stealth address itself (its scanner decides on it).
        Object.assign(row, { blockNumber: null, logIndex: null, stealthAddress: row.schemeId === WRAITH_SCHEME_ID ? null : row.stealthAddress });
      }
    }
    record.checkpoints = record.checkpoints.filter((c) => c.blockNumber <= toBlock);
    record.nextBlock = toBlock + 1;
    return { removed };
  }

  async labelLegacyChainRows(chainName: string, chainId: number): Promise<number> {
    this.#checkOpen();
    let labelled = 0;
    for (const row of this.#rows) {
      if (this.#fromChain.has(row.id) && row.chainId === null && row.chain === chainName) {
        row.chainId = chainId;
        labelled++;
      }
    }
    // HTTP rows the one-chain indexer completed before chain ids belong to the chain those rows name.
    if (this.#rows.some((row) => this.#fromChain.has(row.id) && row.chain === chainName && row.chainId === chainId)) {
      for (const row of this.#rows) {
        if (!this.#fromChain.has(row.id) && row.chainId === null && row.logIndex !== null) {
          row.chainId = chainId;
          labelled++;
        }
      }
    }
    return labelled;
  }

  async indexerStatus(key: string): Promise<{ nextBlock: number | null; owner: string | null; leaseExpiresAt: number | null }> {
    this.#checkOpen();
    const record = this.#indexers.get(key);
    if (record === undefined) return { nextBlock: null, owner: null, leaseExpiresAt: null };
    const live = record.owner !== null && record.leaseExpiresAt > Date.now();
    return { nextBlock: record.nextBlock, owner: live ? record.owner : null, leaseExpiresAt: live ? record.leaseExpiresAt : null };
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
        // Timestamps follow the wall clock (or block times), which may step back, so they are
        // not guaranteed to be sorted by id: filter rather than binary-search.
        lists = [this.#rows.filter((row) => row.timestamp >= selection.from && row.timestamp <= selection.to)];
        break;
      case 'all':
        lists = [filter.withChannelId === true ? this.#channelRows : this.#rows];
        break;
    }
    if (filter.withChannelId === true && selection.kind !== 'all') {
      lists = lists.map((rows) => rows.filter((row) => row.channelId !== null));
    }
    if (filter.chainIds !== undefined) {
      const chainIds = new Set(filter.chainIds);
      lists = lists.map((rows) => rows.filter((row) => row.chainId !== null && chainIds.has(row.chainId)));
    }
    if (filter.schemeIds !== undefined) {
      const schemeIds = new Set(filter.schemeIds);
      lists = lists.map((rows) => rows.filter((row) => schemeIds.has(row.schemeId)));
    }
    return {
      announcements: takePage(lists, page).map(copyRow),
      total: lists.reduce((sum, rows) => sum + rows.length, 0),
    };
  }

  async stats(): Promise<RegistryStats> {
    this.#checkOpen();
    const viewTagDistribution = [...this.#rowsByViewTag]
      .filter(([, rows]) => rows.length > 0)
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

  /** The indexer record of `key` when `owner` holds its unexpired lease. */
  #leased(key: string, owner: string): IndexerRecord {
    const record = this.#indexers.get(key);
    if (record === undefined || record.owner !== owner || record.leaseExpiresAt <= Date.now()) throw new IndexerLeaseLostError();
    return record;
  }

  /** Store a row with the next id; `fromChain` marks rows the chain proves (removed again by a reorganisation). */
  #insert(rowWithId: (id: number) => StoredAnnouncement, fromChain: boolean): StoredAnnouncement {
    const row = rowWithId(++this.#lastId);
    this.#rows.push(row);
    listFor(this.#rowsByTxHash, normalizeTxHash(row.txHash)).push(row);
    listFor(this.#rowsByViewTag, row.viewTag).push(row);
    if (row.channelId !== null) this.#channelRows.push(row);
    if (fromChain) this.#fromChain.add(row.id);
    return row;
  }

  #remove(row: StoredAnnouncement): void {
    removeById(this.#rows, row.id);
    removeById(this.#rowsByViewTag.get(row.viewTag) ?? [], row.id);
    if (row.channelId !== null) removeById(this.#channelRows, row.id);
    const key = normalizeTxHash(row.txHash);
    const sameTx = (this.#rowsByTxHash.get(key) ?? []).filter((r) => r.id !== row.id);
    if (sameTx.length === 0) this.#rowsByTxHash.delete(key);
    else this.#rowsByTxHash.set(key, sameTx);
    this.#fromChain.delete(row.id);
  }
}

function listFor<K>(map: Map<K, StoredAnnouncement[]>, key: K): StoredAnnouncement[] {
  let list = map.get(key);
  if (list === undefined) map.set(key, (list = []));
  return list;
}

/** Remove the row with `id` from an id-ordered list. */
function removeById(rows: StoredAnnouncement[], id: number): void {
  const at = firstIndexAfter(rows, id - 1);
  if (rows[at]?.id === id) rows.splice(at, 1);
}

/** The row is chain `chainId`'s event at `logIndex` (of a transaction the caller matched). */
function isEvent(row: StoredAnnouncement, chainId: number, logIndex: number): boolean {
  return row.logIndex === logIndex && row.chainId === chainId;
}

/**
 * The checkpoints after committing `range`: those below it, the hashes of blocks inside it, then
 * its end; the newest MAX_CHECKPOINTS (as the SQL stores keep them).
 */
function mergeCheckpoints(checkpoints: readonly IndexerCheckpoint[], range: IndexedRange): IndexerCheckpoint[] {
  const inside = (range.blockHashes ?? []).filter((c) => c.blockNumber >= range.fromBlock && c.blockNumber < range.toBlock);
  const byBlock = new Map<number, IndexerCheckpoint>();
  for (const c of [...checkpoints.filter((c) => c.blockNumber < range.fromBlock), ...inside, { blockNumber: range.toBlock, blockHash: range.toBlockHash }]) {
    byBlock.set(c.blockNumber, { ...c });
  }
  return [...byBlock.values()].sort((a, b) => a.blockNumber - b.blockNumber).slice(-MAX_CHECKPOINTS);
}

function chainKey(txHash: string, logIndex: number): string {
  return `${normalizeTxHash(txHash)}:${logIndex}`;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
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
