/**
 * Schema of the PostgreSQL announcement registry and its forward-only migrations, applied at
 * start-up by every instance (`REGISTRY_URL=postgres://...`, API.md "Configuration").
 *
 * Columns follow the announcement record (PROTOCOL.md section 6) and the SQLite schema
 * (sqlite-schema.ts): `tx_hash_norm` (trim + lowercase, store.ts `normalizeTxHash`) carries the
 * uniqueness rule for every instance sharing the database; (view_tag, id) serves view-tag
 * selections, (published_at, id) time ranges, a partial index the channel announcements.
 *
 * Ids do not come from a sequence. A sequence hands out ids before commit, so two concurrent
 * publishes can become visible out of id order: a scanner paging with `after_id` could pass
 * id 11 while id 10 is still uncommitted and never see 10. Instead `registry_counter` holds the
 * last id; a publish increments it in the same statement as its insert (postgres.ts), so the
 * row lock on the counter orders publishes, ids are handed out in commit order, and a rejected
 * duplicate rolls its increment back (no gaps, as in the other stores). `view_tag_counts` is
 * kept in the same statement, which makes `stats()` and the unfiltered `total` O(1) and O(256)
 * instead of a count over millions of rows.
 *
 * Several instances may start at once: migrations run under a session advisory lock, each in
 * its own transaction with its version row, so exactly one instance applies each of them.
 */
import type { Pool, PoolClient } from 'pg';

export type Migration = { version: number; statements: readonly string[] };

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE announcements (
        id BIGINT PRIMARY KEY,
        ephemeral_key BYTEA NOT NULL,
        view_tag SMALLINT NOT NULL CHECK (view_tag BETWEEN 0 AND 255),
        published_at BIGINT NOT NULL,
        channel_id BYTEA NULL,
        tx_hash TEXT NOT NULL,
        tx_hash_norm TEXT NOT NULL UNIQUE,
        amount TEXT NULL,
        chain TEXT NULL
      )`,
      'CREATE INDEX announcements_view_tag_id ON announcements (view_tag, id)',
      'CREATE INDEX announcements_published_at_id ON announcements (published_at, id)',
      'CREATE INDEX announcements_channel_id ON announcements (id) WHERE channel_id IS NOT NULL',
      // One row (the CHECK on `only_row` forbids a second): the last id handed out.
      `CREATE TABLE registry_counter (
        only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
        last_id BIGINT NOT NULL
      )`,
      'INSERT INTO registry_counter (last_id) VALUES (0)',
      'CREATE TABLE view_tag_counts (tag SMALLINT PRIMARY KEY, count BIGINT NOT NULL)',
      'INSERT INTO view_tag_counts (tag, count) SELECT tag, 0 FROM generate_series(0, 255) AS tag',
    ],
  },
  {
    // Chain events (PROTOCOL.md sections 6 and 7): four columns and `origin` (0: HTTP publish, 1:
    // proved by the chain, removed again when a reorganisation drops its block). Uniqueness moves
    // from tx_hash alone to two partial indexes: HTTP rows by tx_hash, chain rows by tx_hash and
    // log index. Rows can now be deleted, so totals come from view_tag_counts, not the id counter.
    // The indexer keeps its lease (expiry in the database's clock), cursor and checkpoints here.
    version: 2,
    statements: [
      `ALTER TABLE announcements
        ADD COLUMN stealth_address TEXT NULL,
        ADD COLUMN metadata BYTEA NULL,
        ADD COLUMN block_number BIGINT NULL,
        ADD COLUMN log_index INTEGER NULL,
        ADD COLUMN origin SMALLINT NOT NULL DEFAULT 0`,
      'ALTER TABLE announcements DROP CONSTRAINT announcements_tx_hash_norm_key',
      'CREATE UNIQUE INDEX announcements_http_tx ON announcements (tx_hash_norm) WHERE log_index IS NULL',
      // Not partial: NULL log indexes (HTTP rows) never collide, and lookups by tx_hash alone (the publish rule) use it.
      'CREATE UNIQUE INDEX announcements_chain_event ON announcements (tx_hash_norm, log_index)',
      'CREATE INDEX announcements_block ON announcements (block_number) WHERE block_number IS NOT NULL',
      `CREATE TABLE indexer_state (
        key TEXT PRIMARY KEY,
        owner TEXT NULL,
        lease_expires_at BIGINT NOT NULL,
        next_block BIGINT NULL
      )`,
      `CREATE TABLE indexer_checkpoints (
        key TEXT NOT NULL,
        block_number BIGINT NOT NULL,
        block_hash TEXT NOT NULL,
        PRIMARY KEY (key, block_number)
      )`,
    ],
  },
  {
    // Several chains, two schemes (API.md "Several chains, two schemes"): rows carry the EIP-155
    // `chain_id` (null for HTTP publishes that name none, and for chain rows stored before this
    // version until their chain's indexer labels them: store.ts `labelLegacyChainRows`, served by
    // announcements_unlabelled) and the ERC-5564 `scheme_id` (1000, every row before this version,
    // or 3: ERC-8441). Chain events become unique by (tx_hash, log index, chain id), still usable
    // for lookups by tx_hash alone; (chain_id, id) serves lists of some chains in id order.
    version: 3,
    statements: [
      'ALTER TABLE announcements ADD COLUMN chain_id BIGINT NULL',
      'ALTER TABLE announcements ADD COLUMN scheme_id INTEGER NOT NULL DEFAULT 1000',
      'DROP INDEX announcements_chain_event',
      'CREATE UNIQUE INDEX announcements_chain_event ON announcements (tx_hash_norm, log_index, chain_id)',
      'CREATE INDEX announcements_chain_id ON announcements (chain_id, id) WHERE chain_id IS NOT NULL',
      'CREATE INDEX announcements_unlabelled ON announcements (chain) WHERE chain_id IS NULL AND origin = 1',
    ],
  },
];

/** Newest schema this build understands. */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** Any 64-bit constant works; this one is "wraith" in ASCII, so it reads as ours in pg_locks. */
const MIGRATION_LOCK = 0x777261697468n;

/** Thrown when the database was migrated by a newer build: refusing beats guessing. */
export class PostgresSchemaTooNewError extends Error {
  override name = 'PostgresSchemaTooNewError';
  constructor(found: number) {
    super(`The registry database has schema version ${found}; this build understands up to ${POSTGRES_SCHEMA_VERSION}.`);
  }
}

/** Bring the database (the first schema of the connection's search_path) to the newest version. */
export async function migratePostgres(pool: Pool): Promise<void> {
  await applyPostgresMigrations(pool, { versionTable: 'registry_schema_version', lock: MIGRATION_LOCK, migrations: MIGRATIONS, tooNew: (found) => new PostgresSchemaTooNewError(found) });
}

/** What {@link applyPostgresMigrations} applies: tables with their own version table and lock (the registry's, the ENS gateway's). */
export type PostgresMigrations = {
  /** Table of applied versions, created if missing. */
  versionTable: string;
  /** Session advisory lock held while migrating (a 64-bit constant). */
  lock: bigint;
  migrations: readonly Migration[];
  /** The error when the database is newer than this build. */
  tooNew: (found: number) => Error;
};

/**
 * Apply the migrations newer than the database's version, each in its own transaction with its
 * version row, under a session advisory lock: exactly one of several instances starting at once
 * applies each.
 */
export async function applyPostgresMigrations(pool: Pool, schema: PostgresMigrations): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [schema.lock.toString()]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS ${schema.versionTable} (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`);
      const current = await readVersion(client, schema.versionTable);
      if (current > schema.migrations.length) throw schema.tooNew(current);
      for (const migration of schema.migrations) {
        if (migration.version > current) await apply(client, schema.versionTable, migration);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [schema.lock.toString()]);
    }
  } catch (error) {
    broken = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    // A connection that failed mid-migration may still hold the lock or a transaction: drop it.
    client.release(broken);
  }
}

async function apply(client: PoolClient, versionTable: string, migration: Migration): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`INSERT INTO ${versionTable} (version, applied_at) VALUES ($1, $2)`, [migration.version, Math.floor(Date.now() / 1000)]);
    for (const statement of migration.statements) await client.query(statement);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function readVersion(client: PoolClient, versionTable: string): Promise<number> {
  const result = await client.query<{ version: number | null }>(`SELECT MAX(version) AS version FROM ${versionTable}`);
  return result.rows[0]?.version ?? 0;
}
