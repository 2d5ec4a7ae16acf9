/**
 * The channel table in the registry's SQLite file (`REGISTRY_URL=file:...`) or remote libSQL
 * database (`libsql://...`), table `yellow_channels`, through its own connection.
 *
 * Why a second connection rather than a table inside the registry store: the registry's
 * interface is announcements only, and channels are a feature on top of it. Both connections
 * only ever run single statements, which the native driver executes without yielding, so they
 * never wait on each other's write lock inside one process; `busy_timeout` covers other
 * processes, as for the registry (lib/registry/sqlite.ts).
 *
 * Concurrency across processes sharing the file: the channel id is the primary key (one create
 * wins); a funding is one row appended to `yellow_channel_fundings` by an INSERT that only
 * succeeds while the channel is open, so concurrent fundings all count and none lands after the
 * close; closing is one conditional UPDATE, so exactly one close records its id. Amounts are
 * stored as decimal text and summed as `bigint`: they are uint256 base units, beyond SQLite's
 * integers.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createClient, LibsqlError, type Client, type Row } from '@libsql/client';
import { StoreUnavailableError } from '../registry/store.ts';
import { redactStoreUrl, sqliteFilePath, storeUrlScheme } from '../registry/store-url.ts';
import {
  ChannelClosedError,
  DuplicateChannelError,
  type ChannelRecord,
  type ChannelStore,
  type ClosedChannel,
  type NewChannel,
} from './store.ts';

const BUSY_TIMEOUT_MS = 5_000;

/**
 * Created if missing. Additive to the registry's schema (lib/registry/sqlite-schema.ts), which
 * never touches these tables; a later change to them needs its own versioned migration.
 */
const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS yellow_channels (
    channel_id BLOB PRIMARY KEY,
    token TEXT NOT NULL,
    decimals INTEGER NOT NULL,
    amount_units TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    created_at INTEGER NOT NULL,
    closed_at INTEGER NULL,
    close_tx_id TEXT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS yellow_channel_fundings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_id BLOB NOT NULL,
    units TEXT NOT NULL,
    funded_at INTEGER NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS yellow_channel_fundings_channel ON yellow_channel_fundings (channel_id, id)',
];

const COLUMNS = 'channel_id, token, decimals, amount_units, status, created_at, closed_at, close_tx_id';

/**
 * Open the channel table at a `file:` or `libsql:` URL (the registry's).
 * @throws {StoreUnavailableError} when the database cannot be opened or the table created.
 */
export async function createSqliteChannelStore(url: string): Promise<ChannelStore> {
  const scheme = storeUrlScheme(url);
  const kind = scheme === 'file' ? 'sqlite' : scheme === 'libsql' ? 'libsql' : undefined;
  if (kind === undefined) throw new Error(`createSqliteChannelStore accepts file: and libsql: URLs, got "${redactStoreUrl(url)}".`);
  const where = redactStoreUrl(url);
  let client: Client | undefined;
  try {
    const path = kind === 'sqlite' ? sqliteFilePath(url) : undefined;
    if (path !== undefined) mkdirSync(dirname(path), { recursive: true });
    client = createClient(kind === 'sqlite' ? { url, concurrency: 1, timeout: BUSY_TIMEOUT_MS } : { url });
    if (kind === 'sqlite') {
      await client.execute('PRAGMA journal_mode = WAL');
      await client.execute('PRAGMA synchronous = FULL');
      await client.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
    await client.batch(SCHEMA, 'write');
  } catch (error) {
    client?.close();
    throw new StoreUnavailableError(`Cannot open the channel table in the ${kind} registry at "${where}" (${errorCode(error)}).`, {
      cause: error,
    });
  }
  return new SqliteChannelStore(client, kind);
}

class SqliteChannelStore implements ChannelStore {
  readonly #client: Client;
  readonly kind: 'sqlite' | 'libsql';

  constructor(client: Client, kind: 'sqlite' | 'libsql') {
    this.#client = client;
    this.kind = kind;
  }

  async create(channel: NewChannel): Promise<ChannelRecord> {
    await this.#run('record a channel', () =>
      this.#client.execute({
        sql: `INSERT INTO yellow_channels (channel_id, token, decimals, amount_units, status, created_at)
              VALUES (?, ?, ?, ?, 'open', ?)`,
        args: [channel.channelId, channel.token, channel.decimals, channel.amount.toString(), channel.createdAt],
      }),
    );
    return { ...channel, channelId: channel.channelId.slice(), funded: 0n, status: 'open', closedAt: null, closeTxId: null };
  }

  async get(channelId: Uint8Array): Promise<ChannelRecord | undefined> {
    return this.#read(channelId);
  }

  async remove(channelId: Uint8Array): Promise<void> {
    await this.#run('remove a channel', () =>
      this.#client.batch(
        [
          { sql: 'DELETE FROM yellow_channel_fundings WHERE channel_id = ?', args: [channelId] },
          { sql: 'DELETE FROM yellow_channels WHERE channel_id = ?', args: [channelId] },
        ],
        'write',
      ),
    );
  }

  async fund(channelId: Uint8Array, units: bigint): Promise<ChannelRecord | undefined> {
    const inserted = await this.#run('fund a channel', () =>
      this.#client.execute({
        sql: `INSERT INTO yellow_channel_fundings (channel_id, units, funded_at)
              SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM yellow_channels WHERE channel_id = ? AND status = 'open')
              RETURNING id`,
        args: [channelId, units.toString(), Math.floor(Date.now() / 1000), channelId],
      }),
    );
    const row = inserted.rows[0];
    if (row === undefined) {
      const current = await this.#read(channelId);
      if (current === undefined) return undefined;
      throw new ChannelClosedError();
    }
    // The balance this funding results in: fundings up to and including it, in insertion order.
    return this.#read(channelId, readInteger(row, 'id'));
  }

  async markClosed(channelId: Uint8Array, closing: { txId: string; at: number }): Promise<ClosedChannel | undefined> {
    const result = await this.#run('close a channel', () =>
      this.#client.execute({
        sql: `UPDATE yellow_channels SET status = 'closed', closed_at = ?, close_tx_id = ? WHERE channel_id = ? AND status = 'open'`,
        args: [closing.at, closing.txId, channelId],
      }),
    );
    const record = await this.get(channelId);
    return record === undefined ? undefined : { record, alreadyClosed: result.rowsAffected === 0 };
  }

  async close(): Promise<void> {
    this.#client.close();
  }

  /** The channel with its fundings summed (those with an id up to `upToFunding` when given), read in one snapshot. */
  async #read(channelId: Uint8Array, upToFunding?: number): Promise<ChannelRecord | undefined> {
    const [channel, fundings] = await this.#run('read a channel', () =>
      this.#client.batch(
        [
          { sql: `SELECT ${COLUMNS} FROM yellow_channels WHERE channel_id = ?`, args: [channelId] },
          {
            sql: 'SELECT units FROM yellow_channel_fundings WHERE channel_id = ? AND id <= ?',
            args: [channelId, upToFunding ?? Number.MAX_SAFE_INTEGER],
          },
        ],
        'read',
      ),
    );
    const row = channel?.rows[0];
    if (row === undefined) return undefined;
    const funded = (fundings?.rows ?? []).reduce((sum, funding) => sum + BigInt(readText(funding, 'units')), 0n);
    return { ...readChannel(row), funded };
  }

  async #run<T>(action: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof LibsqlError && error.code.startsWith('SQLITE_CONSTRAINT')) throw new DuplicateChannelError();
      throw new StoreUnavailableError(`The ${this.kind} channel table failed to ${action} (${errorCode(error)}).`, { cause: error });
    }
  }
}

function readChannel(row: Row): Omit<ChannelRecord, 'funded'> {
  const status = row['status'];
  if (status !== 'open' && status !== 'closed') throw unexpected('status');
  return {
    channelId: readBytes(row, 'channel_id'),
    token: readText(row, 'token'),
    decimals: readInteger(row, 'decimals'),
    amount: BigInt(readText(row, 'amount_units')),
    status,
    createdAt: readInteger(row, 'created_at'),
    closedAt: row['closed_at'] === null ? null : readInteger(row, 'closed_at'),
    closeTxId: row['close_tx_id'] === null ? null : readText(row, 'close_tx_id'),
  };
}

function readInteger(row: Row, column: string): number {
  const value = row[column];
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'bigint' && value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
  throw unexpected(column);
}

function readText(row: Row, column: string): string {
  const value = row[column];
  if (typeof value === 'string') return value;
  throw unexpected(column);
}

function readBytes(row: Row, column: string): Uint8Array {
  const value = row[column];
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  throw unexpected(column);
}

function unexpected(column: string): StoreUnavailableError {
  return new StoreUnavailableError(`The channel table returned an unexpected value in column ${column}.`);
}

/** A machine-readable code for messages, never a value. */
function errorCode(error: unknown): string {
  if (error instanceof LibsqlError) return error.extendedCode ?? error.code;
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.name : 'unknown error';
}
