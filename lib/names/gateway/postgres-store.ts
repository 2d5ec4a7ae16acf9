/**
 * The gateway's {@link NameStore} in the registry's PostgreSQL database (`REGISTRY_URL=postgres:`),
 * in tables of its own beside the registry's (same columns as the SQLite store's, sqlite-store.ts)
 * with their own forward-only migrations (`gateway_schema_version`, applied under their own
 * advisory lock by the registry's runner, lib/registry/postgres-schema.ts: several instances may
 * start at once).
 *
 * Several server instances may share the database, so the writes that must not interleave take a
 * transaction-scoped advisory lock on the name (`pg_advisory_xact_lock(hashtext(name))`): `issue`
 * reserves the counter, checks the cap and stores the row under it, committed before the gateway
 * answers, and `setName` checks and advances the nonce under it (also for a name with no row yet).
 */
import pg from 'pg';
import { applyPostgresMigrations, type Migration } from '../../registry/postgres-schema.ts';
import { blob, decideIssue, ISSUED_COLUMNS, readIssued, readName, type Row } from './sql-rows.ts';
import { NameNonceError, type IssuedAddress, type IssuePolicy, type IssueResult, type NameChange, type NameRecord, type NameStore } from './store.ts';

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE gateway_names (
        name TEXT PRIMARY KEY,
        kind TEXT NULL,
        meta_id BIGINT NULL,
        owner TEXT NULL,
        nonce INTEGER NOT NULL,
        next_counter BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      'CREATE TABLE gateway_metas (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name TEXT NOT NULL, meta_address BYTEA NOT NULL)',
      `CREATE TABLE gateway_addresses (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL,
        counter BIGINT NOT NULL,
        meta_id BIGINT NOT NULL,
        address TEXT NOT NULL,
        requester BYTEA NOT NULL,
        issued_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        paid_chain_id BIGINT NULL,
        paid_tx_hash TEXT NULL,
        announcement_id BIGINT NULL,
        UNIQUE (name, counter)
      )`,
      'CREATE INDEX gateway_addresses_open ON gateway_addresses (name, meta_id, expires_at) WHERE paid_tx_hash IS NULL',
      'CREATE INDEX gateway_addresses_watched ON gateway_addresses (expires_at) WHERE paid_tx_hash IS NULL',
      'CREATE TABLE gateway_watch (chain_id BIGINT PRIMARY KEY, next_block BIGINT NOT NULL)',
    ],
  },
];

/** "wraithgw" in ASCII: the gateway's migration lock, apart from the registry's ("wraith"). */
const MIGRATION_LOCK = 0x7772616974686777n;

export type PostgresNameStoreOptions = { poolSize?: number; timeoutMs?: number };

/**
 * Open the gateway's tables in the PostgreSQL database at `url` (creating them if needed).
 * @example
 * const names = await createPostgresNameStore('postgres://wraith@db.internal/wraith');
 */
export async function createPostgresNameStore(url: string, options: PostgresNameStoreOptions = {}): Promise<NameStore> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString: url.trim(),
    max: options.poolSize ?? 5,
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 1_000,
    application_name: 'wraith-gateway',
  });
  // Without a listener, an idle connection dying (database restart) would crash the process.
  pool.on('error', () => undefined);
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return new PostgresNameStore(pool);
}

function migrate(pool: pg.Pool): Promise<void> {
  return applyPostgresMigrations(pool, {
    versionTable: 'gateway_schema_version',
    lock: MIGRATION_LOCK,
    migrations: MIGRATIONS,
    tooNew: (found) => new Error(`The gateway tables have schema version ${found}; this build understands up to ${MIGRATIONS.length}.`),
  });
}

/** `?` placeholders (the portable SQL of sql-rows.ts) as PostgreSQL's `$1, $2, …`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

async function rows(db: Queryable, sql: string, args: unknown[] = []): Promise<Row[]> {
  return (await db.query(numbered(sql), args)).rows as Row[];
}

class PostgresNameStore implements NameStore {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Run `work` in a transaction holding the name's advisory lock. */
  async #locked<T>(name: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`wraith-gateway:${name}`]);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollback: unknown) => {
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async getName(name: string): Promise<NameRecord | null> {
    const [row] = await rows(this.#pool, 'SELECT n.name, n.kind, n.meta_id, n.owner, n.nonce, m.meta_address FROM gateway_names n JOIN gateway_metas m ON m.id = n.meta_id WHERE n.name = ?', [name]);
    return row === undefined ? null : readName(row);
  }

  async nonceOf(name: string): Promise<number> {
    const [row] = await rows(this.#pool, 'SELECT nonce FROM gateway_names WHERE name = ?', [name]);
    return Number(row?.['nonce'] ?? 0);
  }

  async setName(name: string, expectedNonce: number, change: NameChange, now: number): Promise<NameRecord | null> {
    await this.#locked(name, async (client) => {
      const [current] = await rows(client, 'SELECT nonce FROM gateway_names WHERE name = ?', [name]);
      if (Number(current?.['nonce'] ?? 0) !== expectedNonce) throw new NameNonceError();
      let metaId: number | null = null;
      if (change !== null) {
        const [inserted] = await rows(client, 'INSERT INTO gateway_metas (name, meta_address) VALUES (?, ?) RETURNING id', [name, Buffer.from(change.metaAddress)]);
        metaId = Number(inserted!['id']);
      }
      await rows(
        client,
        `INSERT INTO gateway_names (name, kind, meta_id, owner, nonce, next_counter, updated_at) VALUES (?, ?, ?, ?, 1, 0, ?)
         ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, meta_id = excluded.meta_id, owner = excluded.owner, nonce = gateway_names.nonce + 1, updated_at = excluded.updated_at`,
        [name, change?.kind ?? null, metaId, change?.owner ?? null, now],
      );
    });
    return this.getName(name);
  }

  async issue(policy: IssuePolicy): Promise<IssueResult> {
    const withBuffers = (args: unknown[]) => args.map((arg) => (arg instanceof Uint8Array && !Buffer.isBuffer(arg) ? Buffer.from(arg) : arg));
    // Most lookups hand an address out again: decided by reads alone, without the lock.
    const answer = await decideIssue((sql, args) => rows(this.#pool, sql, withBuffers(args)), policy, false);
    if (answer !== null) return answer;
    return this.#locked(policy.name, async (client) => (await decideIssue((sql, args) => rows(client, sql, withBuffers(args)), policy, true))!);
  }

  async metaAddressOf(metaId: number): Promise<Uint8Array | null> {
    const [row] = await rows(this.#pool, 'SELECT meta_address FROM gateway_metas WHERE id = ?', [metaId]);
    return row === undefined ? null : blob(row['meta_address']);
  }

  async watched(expiredAfter: number): Promise<IssuedAddress[]> {
    return (await rows(this.#pool, `SELECT ${ISSUED_COLUMNS} FROM gateway_addresses WHERE paid_tx_hash IS NULL AND expires_at > ? ORDER BY id`, [expiredAfter])).map(readIssued);
  }

  async markPaid(id: number, payment: { chainId: number; txHash: string; announcementId: number | null }): Promise<void> {
    await rows(this.#pool, 'UPDATE gateway_addresses SET paid_chain_id = ?, paid_tx_hash = ?, announcement_id = ? WHERE id = ? AND paid_tx_hash IS NULL', [
      payment.chainId,
      payment.txHash,
      payment.announcementId,
      id,
    ]);
  }

  async countIssued(name: string): Promise<number> {
    const [row] = await rows(this.#pool, 'SELECT COUNT(*) AS n FROM gateway_addresses WHERE name = ?', [name]);
    return Number(row?.['n'] ?? 0);
  }

  async watchCursor(chainId: number): Promise<number | null> {
    const [row] = await rows(this.#pool, 'SELECT next_block FROM gateway_watch WHERE chain_id = ?', [chainId]);
    return row === undefined ? null : Number(row['next_block']);
  }

  async setWatchCursor(chainId: number, nextBlock: number): Promise<void> {
    await rows(this.#pool, 'INSERT INTO gateway_watch (chain_id, next_block) VALUES (?, ?) ON CONFLICT (chain_id) DO UPDATE SET next_block = excluded.next_block', [chainId, nextBlock]);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
