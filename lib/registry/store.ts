/**
 * The announcement registry's storage interface (PROTOCOL.md section 6, API issue 3).
 *
 * Every implementation (memory, embedded SQLite, later PostgreSQL) gives the same semantics:
 * ids increase from 1 in publication order; the server sets the timestamp; the normalised
 * tx_hash (trimmed, lowercased) is unique, also under concurrent publishes; lists are ordered
 * by id ascending; an acknowledged publish is durable (for the persistent stores).
 * Bytes are `Uint8Array` here; hex exists only at the HTTP boundary.
 */

/** A stored announcement. */
export type StoredAnnouncement = {
  id: number;
  /** ML-KEM ciphertext, 1088 bytes. */
  ephemeralKey: Uint8Array;
  viewTag: number;
  /** Unix seconds, set by the store on publication. */
  timestamp: number;
  /** 32 bytes or null. */
  channelId: Uint8Array | null;
  /** As published (trimmed); uniqueness is on its lowercase form. */
  txHash: string;
  amount: string | null;
  chain: string | null;
};

/** What a publisher supplies (already validated by the HTTP layer). */
export type NewAnnouncement = Omit<StoredAnnouncement, 'id' | 'timestamp'>;

/**
 * Selection of announcements. API rule order: `viewTags` (any of them) when given, else the
 * inclusive time range when both bounds are given, else everything. `afterId` (cursor) and the
 * selection combine. `withChannelId` narrows any selection to announcements that carry a
 * channel id (private channels, lib/channels), and `total` counts only those.
 */
export type AnnouncementFilter = {
  viewTags?: readonly number[];
  fromTimestamp?: number;
  toTimestamp?: number;
  withChannelId?: boolean;
};

/**
 * Paging through a selection: rows with an id above `afterId` (cursor), then skip `offset`,
 * then at most `limit`. Non-negative integers. None of them changes `total`.
 * `countTotal: false` lets the store skip counting the selection (cursor walks over millions of
 * rows read one page after another and never show a total); a store that skips it returns
 * `total: -1`.
 */
export type ListOptions = { offset?: number; limit: number; afterId?: number; countTotal?: boolean };

export type RegistryStats = {
  totalAnnouncements: number;
  /** Non-zero buckets only, ascending by tag. */
  viewTagDistribution: { tag: number; count: number }[];
};

export type StoreHealth = { ok: boolean; kind: 'memory' | 'sqlite' | 'postgres' | 'libsql'; error?: string };

export interface RegistryStore {
  readonly kind: StoreHealth['kind'];
  /** Store one announcement. @throws {DuplicateAnnouncementError} when its normalised tx_hash exists. */
  publish(announcement: NewAnnouncement): Promise<StoredAnnouncement>;
  /** One page, ordered by id ascending; `total` counts the whole selection before paging. */
  list(filter: AnnouncementFilter, options: ListOptions): Promise<{ announcements: StoredAnnouncement[]; total: number }>;
  stats(): Promise<RegistryStats>;
  count(): Promise<number>;
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}

/** Normalised form of a tx_hash for the uniqueness rule (PROTOCOL.md section 6). */
export function normalizeTxHash(txHash: string): string {
  return txHash.trim().toLowerCase();
}

export class DuplicateAnnouncementError extends Error {
  override name = 'DuplicateAnnouncementError';
  readonly code = 'DUPLICATE_ANNOUNCEMENT';
  constructor() {
    super('An announcement with this tx_hash is already in the registry.');
  }
}

/** The store could not be reached or failed (maps to 503). */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  readonly code = 'STORE_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
