/**
 * Announcement registry on PostgreSQL (`REGISTRY_URL=postgres://...`, API.md "Configuration"):
 * the store several instances share.
 *
 * Same contract as the memory and SQLite stores (store.ts, PROTOCOL.md section 6), under
 * concurrency between processes: the unique `tx_hash_norm` index decides duplicates, ids come
 * from a counter row incremented in the publish statement itself (postgres-schema.ts explains
 * why not a sequence: ids become visible in id order, so `after_id` cursors never skip a row,
 * and there are no gaps), and each list answers from one statement, so its page and `total`
 * come from one snapshot.
 *
 * Durability: a publish is acknowledged after its single-statement transaction committed with
 * the server's default `synchronous_commit = on`, so it survives a crash of either side.
 *
 * Availability: `pg.Pool` with at most `poolSize` connections; connecting, each statement
 * (server-side `statement_timeout`) and each round trip (client-side `query_timeout`) are
 * bounded by `timeoutMs`, so a hung or restarting database turns into StoreUnavailableError
 * (HTTP 503) quickly instead of piling up requests. Broken connections are dropped by the pool
 * and new ones are made on demand, so the store recovers by itself when the database is back.
 * Messages carry PostgreSQL error codes only: server messages may quote values.
 */
import pg from 'pg';
import { resolvePage, resolveSelection } from './list-query.ts';
import { migratePostgres } from './postgres-schema.ts';
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
import { redactStoreUrl, storeUrlScheme } from './store-url.ts';

export type PostgresStoreOptions = {
  /** Most connections held open (default 10). */
  poolSize?: number;
  /** Limit for connecting and for each statement, in ms (default 5000). */
  timeoutMs?: number;
  /** Told about errors of idle connections (the database restarted, the network dropped). */
  onConnectionError?: (code: string) => void;
};

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_TIMEOUT_MS = 5_000;

const COLUMNS = 'id, ephemeral_key, view_tag, published_at, channel_id, tx_hash, amount, chain';

/** The unique index that carries the tx_hash rule (PostgreSQL names it after table and column). */
const TX_HASH_CONSTRAINT = 'announcements_tx_hash_norm_key';

/**
 * Open a pool to the database at a `postgres:` / `postgresql:` URL and bring its schema up to
 * date. The URL's query may carry libpq-style options (`sslmode`, `options=-c search_path=...`).
 * @throws {StoreUnavailableError} when the database cannot be reached or migrated.
 * @example
 * const store = await createPostgresStore('postgres://wraith@db.internal/wraith', { poolSize: 20 });
 */
export async function createPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<RegistryStore> {
  const scheme = storeUrlScheme(url);
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new Error(`createPostgresStore accepts postgres: and postgresql: URLs, got "${redactStoreUrl(url)}".`);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url.trim(),
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: timeoutMs,
    // The client-side limit covers what statement_timeout cannot: a server that stopped answering.
    query_timeout: timeoutMs + 1_000,
    keepAlive: true,
    application_name: 'wraith',
  });
  // Without a listener, an idle connection dying (database restart) would crash the process.
  pool.on('error', (error) => options.onConnectionError?.(errorCode(error)));
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    const message = `Cannot prepare the postgres registry at "${redactStoreUrl(url)}" (${errorCode(error)}).`;
    throw new StoreUnavailableError(message, { cause: error });
  }
  return new PostgresStore(pool);
}

type AnnouncementRow = {
  id: string;
  ephemeral_key: Buffer;
  view_tag: number;
  published_at: string;
  channel_id: Buffer | null;
  tx_hash: string;
  amount: string | null;
  chain: string | null;
};

class PostgresStore implements RegistryStore {
  readonly kind = 'postgres' as const;
  readonly #pool: pg.Pool;
  #closed = false;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async publish(announcement: NewAnnouncement): Promise<StoredAnnouncement> {
    const txHash = announcement.txHash.trim();
    const timestamp = Math.floor(Date.now() / 1000); // set by the server (PROTOCOL.md section 6)
    // One statement, one transaction: take the next id (the counter's row lock orders
    // concurrent publishes), count the view tag, insert. A duplicate fails the insert and
    // rolls back both increments.
    const result = await this.#run('publish an announcement', () =>
      this.#pool.query<{ id: string }>(
        `WITH next AS (
           UPDATE registry_counter SET last_id = last_id + 1 RETURNING last_id
         ), tagged AS (
           UPDATE view_tag_counts SET count = count + 1 FROM next WHERE tag = $2
         )
         INSERT INTO announcements (id, ephemeral_key, view_tag, published_at, channel_id, tx_hash, tx_hash_norm, amount, chain)
         SELECT last_id, $1, $2, $3, $4, $5, $6, $7, $8 FROM next
         RETURNING id`,
        [
          Buffer.from(announcement.ephemeralKey),
          announcement.viewTag,
          timestamp,
          announcement.channelId === null ? null : Buffer.from(announcement.channelId),
          txHash,
          normalizeTxHash(txHash),
          announcement.amount,
          announcement.chain,
        ],
      ),
    );
    return {
      id: readInteger(result.rows[0]?.id, 'id'),
      ephemeralKey: announcement.ephemeralKey.slice(),
      viewTag: announcement.viewTag,
      timestamp,
      channelId: announcement.channelId === null ? null : announcement.channelId.slice(),
      txHash,
      amount: announcement.amount,
      chain: announcement.chain,
    };
  }

  async list(
    filter: AnnouncementFilter,
    options: ListOptions,
  ): Promise<{ announcements: StoredAnnouncement[]; total: number }> {
    const page = resolvePage(options);
    const selection = resolveSelection(filter);
    const args: unknown[] = [];
    const param = (value: unknown) => `$${args.push(value)}`;
    let condition: string;
    let total: string;
    switch (selection.kind) {
      case 'viewTags': {
        const tags = param(selection.tags);
        condition = `view_tag = ANY(${tags}::smallint[])`;
        total = `(SELECT COALESCE(SUM(count), 0) FROM view_tag_counts WHERE tag = ANY(${tags}::smallint[]))`;
        break;
      }
      case 'timeRange':
        condition = `published_at BETWEEN ${param(selection.from)} AND ${param(selection.to)}`;
        total = '';
        break;
      case 'all':
        condition = 'TRUE';
        total = '(SELECT last_id FROM registry_counter)';
        break;
    }
    if (filter.withChannelId === true) {
      condition += ' AND channel_id IS NOT NULL';
      total = '';
    }
    if (total === '') total = `(SELECT COUNT(*) FROM announcements WHERE ${condition})`;
    if (options.countTotal === false) total = '-1';
    const pageQuery = `SELECT ${COLUMNS} FROM announcements WHERE ${condition} AND id > ${param(page.afterId ?? 0)}
                       ORDER BY id LIMIT ${param(page.limit)} OFFSET ${param(page.offset)}`;
    // One statement, so the page and the total see the same snapshot. The left join keeps
    // one row (with the total) when the page is empty.
    const result = await this.#run('list announcements', () =>
      this.#pool.query<AnnouncementRow & { total: string }>(
        `WITH page AS (${pageQuery})
         SELECT ${total} AS total, page.* FROM (SELECT 1) AS one LEFT JOIN page ON TRUE ORDER BY page.id`,
        args,
      ),
    );
    return {
      announcements: result.rows.filter((row) => row.id !== null).map(readAnnouncement),
      total: readInteger(result.rows[0]?.total, 'total'),
    };
  }

  async stats(): Promise<RegistryStats> {
    const result = await this.#run('read its stats', () =>
      this.#pool.query<{ total: string; tag: number | null; count: string | null }>(
        `SELECT counter.last_id AS total, counts.tag, counts.count
         FROM registry_counter AS counter
         LEFT JOIN view_tag_counts AS counts ON counts.count > 0
         ORDER BY counts.tag`,
      ),
    );
    return {
      totalAnnouncements: readInteger(result.rows[0]?.total, 'total'),
      viewTagDistribution: result.rows
        .filter((row) => row.tag !== null)
        .map((row) => ({ tag: Number(row.tag), count: readInteger(row.count, 'count') })),
    };
  }

  async count(): Promise<number> {
    const result = await this.#run('count announcements', () =>
      this.#pool.query<{ total: string }>('SELECT last_id AS total FROM registry_counter'),
    );
    return readInteger(result.rows[0]?.total, 'total');
  }

  async health(): Promise<StoreHealth> {
    try {
      await this.#run('answer a health check', () => this.#pool.query('SELECT 1'));
      return { ok: true, kind: this.kind };
    } catch (error) {
      return { ok: false, kind: this.kind, error: error instanceof Error ? error.message : 'Unknown failure.' };
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  /** Run one database call, turning any failure but a duplicate into StoreUnavailableError. */
  async #run<T>(action: string, call: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError(`The postgres registry is closed; cannot ${action}.`);
    try {
      return await call();
    } catch (error) {
      if (isTxHashViolation(error)) throw new DuplicateAnnouncementError();
      throw new StoreUnavailableError(`The postgres registry failed to ${action} (${errorCode(error)}).`, { cause: error });
    }
  }
}

function isTxHashViolation(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.code === '23505' && error.constraint === TX_HASH_CONSTRAINT;
}

/** A machine-readable code for messages: a SQLSTATE (`57P01`), a socket code, or the error's name. */
function errorCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  if (error instanceof Error && /timeout/i.test(error.message)) return 'TIMEOUT';
  return error instanceof Error ? error.name : 'unknown error';
}

function readAnnouncement(row: AnnouncementRow): StoredAnnouncement {
  return {
    id: readInteger(row.id, 'id'),
    ephemeralKey: new Uint8Array(row.ephemeral_key),
    viewTag: row.view_tag,
    timestamp: readInteger(row.published_at, 'published_at'),
    channelId: row.channel_id === null ? null : new Uint8Array(row.channel_id),
    txHash: row.tx_hash,
    amount: row.amount,
    chain: row.chain,
  };
}

/** BIGINT columns arrive as decimal strings; names the column, never the value, on a bad one. */
function readInteger(value: string | number | null | undefined, column: string): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number === 'number' && Number.isSafeInteger(number)) return number;
  throw new StoreUnavailableError(`The registry returned an unexpected value in column ${column}.`);
}
