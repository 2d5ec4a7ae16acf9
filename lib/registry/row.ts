/**
 * A registry row, one way for every store (memory, SQLite / libSQL, PostgreSQL): how a publish, a
 * verified publish and a chain event become a {@link StoredAnnouncement}, and how a database row
 * is read back into one. The stores differ in how they find and write rows, never in what a row
 * holds, so a field added here (as `chainId` was) reaches all three at once.
 *
 * Reading: a SQL store selects {@link ANNOUNCEMENT_COLUMNS} (under these names; PostgreSQL's
 * `published_at` is selected `AS timestamp`) and hands {@link announcementFromColumns} a reader of
 * one column. Drivers disagree on value types (libSQL's ArrayBuffer blobs and bigint integers,
 * pg's Buffers and decimal-string BIGINTs), so every column goes through one check that turns an
 * unexpected value into StoreUnavailableError naming the column, never the value: tx hashes and
 * keys stay out of messages.
 */
import {
  StoreUnavailableError,
  WRAITH_SCHEME_ID,
  type ChainEvent,
  type NewAnnouncement,
  type StoredAnnouncement,
} from './store.ts';

/** The columns a stored announcement is read from, in the order every SQL store selects them. */
export const ANNOUNCEMENT_COLUMNS = [
  'id',
  'scheme_id',
  'ephemeral_key',
  'view_tag',
  'timestamp',
  'channel_id',
  'tx_hash',
  'amount',
  'chain',
  'chain_id',
  'stealth_address',
  'metadata',
  'block_number',
  'log_index',
] as const;

export type AnnouncementColumn = (typeof ANNOUNCEMENT_COLUMNS)[number];

/** A database row, read one column at a time. */
export type ColumnReader = (column: AnnouncementColumn) => unknown;

/** The row a reader describes. @throws {StoreUnavailableError} naming the first column of an unexpected type. */
export function announcementFromColumns(read: ColumnReader): StoredAnnouncement {
  return {
    id: integerColumn(read, 'id'),
    schemeId: integerColumn(read, 'scheme_id'),
    ephemeralKey: bytesColumn(read, 'ephemeral_key'),
    viewTag: integerColumn(read, 'view_tag'),
    timestamp: integerColumn(read, 'timestamp'),
    channelId: nullable(read, 'channel_id', bytesColumn),
    txHash: textColumn(read, 'tx_hash'),
    amount: nullable(read, 'amount', textColumn),
    chain: nullable(read, 'chain', textColumn),
    chainId: nullable(read, 'chain_id', integerColumn),
    stealthAddress: nullable(read, 'stealth_address', textColumn),
    metadata: nullable(read, 'metadata', bytesColumn),
    blockNumber: nullable(read, 'block_number', integerColumn),
    logIndex: nullable(read, 'log_index', integerColumn),
  };
}

/** An HTTP publish as stored (PROTOCOL.md section 6): as given, trimmed tx_hash, the server's timestamp, no chain position. */
export function publishedRow(id: number, announcement: NewAnnouncement, timestamp: number): StoredAnnouncement {
  return {
    id,
    schemeId: announcement.schemeId ?? WRAITH_SCHEME_ID,
    ephemeralKey: announcement.ephemeralKey.slice(),
    viewTag: announcement.viewTag,
    timestamp,
    channelId: copyOrNull(announcement.channelId),
    txHash: announcement.txHash.trim(),
    amount: announcement.amount,
    chain: announcement.chain,
    chainId: announcement.chainId ?? null,
    stealthAddress: announcement.stealthAddress ?? null,
    metadata: copyOrNull(announcement.metadata ?? null),
    blockNumber: null,
    logIndex: null,
  };
}

/** A chain event as the indexer stores it: no amount, no channel id. */
export function chainEventRow(id: number, event: ChainEvent): StoredAnnouncement {
  return verifiedRow(id, { ...event, amount: null, channelId: null });
}

/** A verified publish as stored (PROTOCOL.md section 6): the chain event's fields, the publisher's amount and channel id. */
export function verifiedRow(id: number, event: ChainEvent & { amount: string | null; channelId: Uint8Array | null }): StoredAnnouncement {
  return {
    id,
    schemeId: event.schemeId ?? WRAITH_SCHEME_ID,
    ephemeralKey: event.ephemeralKey.slice(),
    viewTag: event.viewTag,
    timestamp: event.timestamp,
    channelId: copyOrNull(event.channelId),
    txHash: event.txHash.trim(),
    amount: event.amount,
    chain: event.chain,
    chainId: event.chainId,
    stealthAddress: event.stealthAddress,
    metadata: copyOrNull(event.metadata),
    blockNumber: event.blockNumber,
    logIndex: event.logIndex,
  };
}

/** A row whose bytes a caller may change without changing the original. */
export function copyRow(row: StoredAnnouncement): StoredAnnouncement {
  return { ...row, ephemeralKey: row.ephemeralKey.slice(), channelId: copyOrNull(row.channelId), metadata: copyOrNull(row.metadata) };
}

function copyOrNull(bytes: Uint8Array | null): Uint8Array | null {
  return bytes === null ? null : bytes.slice();
}

function nullable<T>(read: ColumnReader, column: AnnouncementColumn, parse: (read: ColumnReader, column: AnnouncementColumn) => T): T | null {
  return read(column) === null ? null : parse(read, column);
}

/** Integers arrive as numbers, bigints (libSQL) or decimal strings (pg BIGINT). */
function integerColumn(read: ColumnReader, column: AnnouncementColumn): number {
  const value = read(column);
  const number = typeof value === 'bigint' ? Number(value) : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof number === 'number' && Number.isSafeInteger(number)) return number;
  throw unexpectedColumn(column);
}

/** Blobs arrive as ArrayBuffer (libSQL client) or Buffer (libsql driver, pg); the store's contract is a plain Uint8Array. */
function bytesColumn(read: ColumnReader, column: AnnouncementColumn): Uint8Array {
  const value = read(column);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw unexpectedColumn(column);
}

function textColumn(read: ColumnReader, column: AnnouncementColumn): string {
  const value = read(column);
  if (typeof value === 'string') return value;
  throw unexpectedColumn(column);
}

/** Names the column, never its value (no tx hashes or keys in messages). */
export function unexpectedColumn(column: string): StoreUnavailableError {
  return new StoreUnavailableError(`The registry returned an unexpected value in column ${column}.`);
}
