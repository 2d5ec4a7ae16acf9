/**
 * The announcement registry's storage interface (PROTOCOL.md section 6, API issue 3).
 *
 * Every implementation (memory, embedded SQLite, PostgreSQL) gives the same semantics: ids
 * increase from 1 in the order rows are stored and are never reused; HTTP publishes get the
 * server's timestamp, chain events their block's; lists are ordered by id ascending; an
 * acknowledged write is durable (for the persistent stores).
 *
 * Uniqueness (PROTOCOL.md section 6): an HTTP publish is refused when any row has its
 * normalised tx_hash (trimmed, lowercased), also under concurrent publishes; chain events are
 * unique by (normalised tx_hash, log index), since one transaction may announce several payments;
 * an HTTP row and the chain event it references are stored once. Rows of chain events can be
 * removed again when a reorganisation drops their block.
 * Bytes are `Uint8Array` here; hex exists only at the HTTP boundary.
 */
import { CIPHERTEXT_BYTES, ERC8441_EPHEMERAL_KEY_BYTES, ERC8441_SCHEME_ID, isSealedNoteLength, SEALED_NOTE_BYTES, SEALED_NOTE_V1_BYTES } from '@wraith-pq/sdk';

/** This format's ERC-5564 scheme id (PROTOCOL.md section 7): the scheme of every row that names none. */
export const WRAITH_SCHEME_ID = 1000;

/** The ephemeral key's length under each scheme a row may have (PROTOCOL.md sections 6 and 10). */
export function ephemeralKeyBytesOf(schemeId: number): number | undefined {
  return schemeId === WRAITH_SCHEME_ID ? CIPHERTEXT_BYTES : schemeId === ERC8441_SCHEME_ID ? ERC8441_EPHEMERAL_KEY_BYTES : undefined;
}

/**
 * An announcement as stored. Every store writes a row's fields once, when it stores the row, except
 * `blockNumber`, `logIndex`, `stealthAddress`, `metadata` and `chainId`: an HTTP publish is
 * completed in place by its chain event and goes back on a reorganisation (keeping the chain id
 * it learned), and a chain row stored before rows carried chain ids gets its chain's id once
 * (`labelLegacyChainRows`). The binary page's ETag hashes only the ids and those five fields
 * (lib/service/registry-binary.ts `pageEtag`): a store that changes any other field in place must
 * add it there.
 */
export type StoredAnnouncement = {
  id: number;
  /** ERC-5564 scheme: 1000 (this format) or 3 (ERC-8441). */
  schemeId: number;
  /** Scheme 1000: the ML-KEM ciphertext, 1088 bytes. Scheme 3: `epk || ct`, 1121 bytes. */
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
  /**
   * EIP-155 id of the chain the announcement is on: always set for chain events, as named (or
   * null) for HTTP publishes (API.md "Several chains").
   */
  chainId: number | null;
  /**
   * The one-time EVM address the announcement names (EIP-55): chain events, and HTTP publishes of
   * scheme 3 (whose scanner decides on it); null for other HTTP publishes.
   */
  stealthAddress: string | null;
  /**
   * What follows the view tag in the ERC-5564 metadata, or null: the sealed note (PROTOCOL.md
   * section 8: 92 bytes, or 112 for the note that names its asset, 8.1) under scheme 1000; under scheme 3 any bytes (a note, ERC-5564 token
   * metadata, or other; section 10).
   */
  metadata: Uint8Array | null;
  /** Chain events: where the event sits; null for HTTP publishes. */
  blockNumber: number | null;
  logIndex: number | null;
};

/** What an HTTP publisher supplies (already validated by the HTTP layer). */
export type NewAnnouncement = Omit<StoredAnnouncement, 'id' | 'timestamp' | 'stealthAddress' | 'metadata' | 'blockNumber' | 'logIndex' | 'chainId' | 'schemeId'> & {
  metadata?: Uint8Array | null;
  /** The chain the publisher names (API.md "Several chains"); absent or null: none. */
  chainId?: number | null;
  /** Absent: 1000. */
  schemeId?: number;
  /** Required for scheme 3 (the HTTP layer checks it), absent otherwise. */
  stealthAddress?: string | null;
};

/** One Announcer event as the indexer stores it (PROTOCOL.md sections 6 and 7). */
export type ChainEvent = {
  ephemeralKey: Uint8Array;
  viewTag: number;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  /** The block's Unix seconds. */
  timestamp: number;
  stealthAddress: string;
  metadata: Uint8Array | null;
  chain: string | null;
  /** EIP-155 id of the chain that emitted the event. */
  chainId: number;
  /** The event's scheme id; absent: 1000. */
  schemeId?: number;
};

/** A block the indexer stored up to, with its hash then: how it notices reorganisations. */
export type IndexerCheckpoint = { blockNumber: number; blockHash: string };

/** Where the indexer of one key stands. */
export type IndexerState = {
  /** The next block to index; null when it never ran. */
  nextBlock: number | null;
  /** Newest last, at most {@link MAX_CHECKPOINTS}. */
  checkpoints: IndexerCheckpoint[];
};

/** Checkpoints kept per indexer key: a reorganisation deeper than this many ranges rewinds to the start block. */
export const MAX_CHECKPOINTS = 256;

/**
 * The blocks [fromBlock, toBlock] of chain `chainId` read from the chain, with the hash of the last
 * and the events in them. `blockHashes` are hashes of blocks inside the range the indexer knows
 * (those its events sit in): they are kept as checkpoints too, so a reorganisation is undone back
 * to the newest block whose hash still matches (every block at or below it is unchanged, by hash
 * chaining) rather than to the previous range's end.
 */
export type IndexedRange = {
  chainId: number;
  fromBlock: number;
  toBlock: number;
  toBlockHash: string;
  events: ChainEvent[];
  blockHashes?: readonly IndexerCheckpoint[];
  /**
   * The scheme ids these blocks were read for; rows of other schemes in them are left alone (a
   * scheme backfill reads one id over blocks already indexed for the others). Absent: every scheme.
   */
  schemeIds?: readonly number[];
};

/** Counts of one committed range. */
export type CommitResult = { inserted: number; completed: number; existing: number };

/**
 * Selection of announcements. API rule order: `viewTags` (any of them) when given, else the
 * inclusive time range when both bounds are given, else everything. `afterId` (cursor) and the
 * selection combine. `withChannelId` narrows any selection to announcements that carry a
 * channel id (private channels, lib/channels), and `total` counts only those; `chainIds`
 * narrows the same way.
 */
export type AnnouncementFilter = {
  viewTags?: readonly number[];
  /** Narrows any selection to rows of these chains (EIP-155 ids); rows without a chain id never match. */
  chainIds?: readonly number[];
  /** Narrows any selection to rows of these schemes. */
  schemeIds?: readonly number[];
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

  // The chain indexer (lib/chain/indexer.ts). `key` names one chain + Announcer + scheme.
  /**
   * Take the indexer lease of `key` for `owner` when it is free, expired or already `owner`'s
   * (then renewed for `leaseMs`). Returns the indexer state when `owner` holds it now, null when
   * another owner's lease is still running. Of owners racing, exactly one wins.
   */
  acquireIndexerLease(key: string, owner: string, leaseMs: number): Promise<IndexerState | null>;
  /** Free the lease if `owner` holds it (a clean shutdown: another instance takes over at once). */
  releaseIndexerLease(key: string, owner: string): Promise<void>;
  /**
   * In one transaction fenced by the lease (IndexerLeaseLostError, nothing written, when `owner`
   * no longer holds an unexpired lease): store the events of blocks [fromBlock, toBlock] of chain
   * `range.chainId` in (block, log index) order, set nextBlock to toBlock + 1 and append the
   * checkpoints (`blockHashes`, then the range's end). An event already stored (same chain id,
   * tx_hash and log index) is left as it is; an HTTP-published row of the same tx_hash and
   * ciphertext, naming this chain or none, is completed in place with the chain's fields; chain
   * rows of this chain stored in those blocks earlier (verified publishes) that the chain no longer
   * has are removed.
   */
  commitIndexedRange(key: string, owner: string, range: IndexedRange): Promise<CommitResult>;
  /**
   * A reorganisation of chain `chainId`: in one transaction fenced by the lease, remove that
   * chain's rows of blocks after `toBlock` (HTTP-published rows the indexer had completed go back
   * to plain HTTP rows, keeping the chain id), drop the checkpoints after it, and set nextBlock to
   * toBlock + 1. Other chains' rows are untouched.
   */
  rewindIndexedRange(key: string, owner: string, toBlock: number, chainId: number): Promise<{ removed: number }>;
  /**
   * Chain rows stored before rows carried chain ids (one chain per server then) get `chainId` when
   * their `chain` label is `chainName`, and so do the HTTP rows that indexer completed in place
   * (their `chain` is their publisher's label), once rows of that name are this chain's; the
   * indexer of the chain calls this once when it leads. Idempotent; returns how many rows it labelled.
   */
  labelLegacyChainRows(chainName: string, chainId: number): Promise<number>;
  /** Any instance: how far the indexer of `key` got and who holds its lease (for /health). */
  indexerStatus(key: string): Promise<{ nextBlock: number | null; owner: string | null; leaseExpiresAt: number | null }>;
  /**
   * A publish proved on the chain (REGISTRY_PUBLISH=verified), stored as that chain row plus the
   * publisher's amount and channel id. DuplicateAnnouncementError when the event is stored already
   * (same chain id, tx_hash and log index) or an HTTP-published row has its tx_hash.
   */
  publishVerified(event: ChainEvent & { amount: string | null; channelId: Uint8Array | null }): Promise<StoredAnnouncement>;
}

/** Normalised form of a tx_hash for the uniqueness rule (PROTOCOL.md section 6). */
export function normalizeTxHash(txHash: string): string {
  return txHash.trim().toLowerCase();
}

/**
 * The events of a range as every store commits them: in chain order (block, then log index), so
 * ids follow the chain whatever order the caller passed, and each (tx_hash, log index) once (the
 * first in chain order), so one range cannot collide with itself. Returns `events` itself when
 * it already is so (the indexer's usual case), else a new array.
 */
export function eventsInChainOrder(events: readonly ChainEvent[]): readonly ChainEvent[] {
  let ordered = true;
  for (let i = 1; i < events.length && ordered; i++) ordered = compareChainPosition(events[i - 1]!, events[i]!) < 0;
  const sorted = ordered ? events : [...events].sort(compareChainPosition);
  const seen = new Set<string>();
  const unique = sorted.filter((event) => {
    const key = `${normalizeTxHash(event.txHash)}:${event.logIndex}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.length === events.length && ordered ? events : unique;
}

/**
 * The bytes of a range's events as the SQL stores send them: every ephemeral key in one buffer and
 * every note in another, each event's slice given as a 1-based start (as SQL's `substring`
 * counts) and a length (null start: no note), sliced by position in SQL. Thousands of byte strings
 * as array or JSON elements cost several times more to encode and parse.
 * @throws {RangeError} for a key of the wrong length for its scheme, or a scheme-1000 note that is
 * neither 92 nor 112 bytes (PROTOCOL.md sections 7 and 8.1; the decoder never yields either).
 */
export function packChainEventBytes(events: readonly ChainEvent[]): {
  keys: Buffer;
  keyStarts: number[];
  keyLengths: number[];
  notes: Buffer;
  noteStarts: (number | null)[];
  noteLengths: number[];
} {
  const keyStarts: number[] = [];
  const noteStarts: (number | null)[] = [];
  const noteLengths: number[] = [];
  let keyAt = 0;
  let noteAt = 0;
  for (const x of events) {
    const schemeId = x.schemeId ?? WRAITH_SCHEME_ID;
    if (x.ephemeralKey.length !== ephemeralKeyBytesOf(schemeId)) throw new RangeError(`A chain event of scheme ${schemeId} carries an ephemeral key of the wrong length.`);
    if (schemeId === WRAITH_SCHEME_ID && x.metadata !== null && !isSealedNoteLength(x.metadata.length)) {
      throw new RangeError(`Chain events of scheme ${WRAITH_SCHEME_ID} carry ${SEALED_NOTE_BYTES}- or ${SEALED_NOTE_V1_BYTES}-byte notes.`);
    }
    keyStarts.push(keyAt + 1);
    keyAt += x.ephemeralKey.length;
    noteStarts.push(x.metadata === null ? null : noteAt + 1);
    noteLengths.push(x.metadata?.length ?? 0);
    noteAt += x.metadata?.length ?? 0;
  }
  return {
    keys: Buffer.concat(events.map((x) => x.ephemeralKey)),
    keyStarts,
    keyLengths: events.map((x) => x.ephemeralKey.length),
    notes: Buffer.concat(events.flatMap((x) => (x.metadata === null ? [] : [x.metadata]))),
    noteStarts,
    noteLengths,
  };
}

function compareChainPosition(a: ChainEvent, b: ChainEvent): number {
  return a.blockNumber - b.blockNumber || a.logIndex - b.logIndex;
}

export class DuplicateAnnouncementError extends Error {
  override name = 'DuplicateAnnouncementError';
  readonly code = 'DUPLICATE_ANNOUNCEMENT';
  constructor() {
    super('An announcement with this tx_hash is already in the registry.');
  }
}

/** The indexer's lease passed to another instance: the write was refused. */
export class IndexerLeaseLostError extends Error {
  override name = 'IndexerLeaseLostError';
  readonly code = 'INDEXER_LEASE_LOST';
  constructor() {
    super('This instance no longer holds the indexer lease; nothing was written.');
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
