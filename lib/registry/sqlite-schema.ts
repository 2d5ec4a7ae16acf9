/**
 * Schema of the SQLite / libSQL announcement registry and its forward-only migrations.
 *
 * Columns follow the announcement record (PROTOCOL.md section 6). `id` is
 * `INTEGER PRIMARY KEY AUTOINCREMENT` so ids start at 1, increase and are never reused,
 * even after the newest row disappears (plain rowids would hand its id out again).
 * `tx_hash_norm` (trim + lowercase, store.ts `normalizeTxHash`) carries the uniqueness
 * rule, so it holds across processes sharing the file. The two indexes serve the list
 * rules: (view_tag, id) for view-tag scans, (timestamp, id) for time ranges; id order
 * itself is the primary key.
 *
 * Version 2 keeps the number of announcements per view tag in `view_tag_counts`, maintained by
 * triggers in the same transaction as each insert (a duplicate that fails its insert changes
 * nothing), so the registry size, the stats histogram and the `total` of unfiltered and view-tag
 * lists cost at most 256 rows instead of a count over millions (the PostgreSQL store does the
 * same). The migration counts the rows already there once.
 *
 * The applied version lives in a `schema_version` table rather than `PRAGMA user_version`:
 * a plain table behaves the same on a remote libSQL server as in a local file. Each migration is one `BEGIN
 * IMMEDIATE` batch whose first statement inserts its version row: when another process (or
 * another store in this one) got there first, that primary key fails, the whole batch rolls
 * back, and the version found on re-reading says the work is done. A batch runs without
 * yielding to the event loop; an interactive transaction would not, and two stores opening
 * one file in the same process would then wait on each other's write lock inside the
 * synchronous driver until `busy_timeout` expired.
 */
import type { Client } from '@libsql/client';

type Migration = { version: number; statements: readonly string[] };

/**
 * The triggers that keep `view_tag_counts` (version 2), made again by version 3, whose table
 * rebuild drops them. Rows are deleted only when a reorganisation removes a chain event.
 */
const COUNT_TRIGGERS: readonly string[] = [
  `CREATE TRIGGER announcements_counted_insert AFTER INSERT ON announcements BEGIN
    INSERT INTO view_tag_counts (tag, count) VALUES (NEW.view_tag, 1) ON CONFLICT (tag) DO UPDATE SET count = count + 1;
  END`,
  `CREATE TRIGGER announcements_counted_delete AFTER DELETE ON announcements BEGIN
    UPDATE view_tag_counts SET count = count - 1 WHERE tag = OLD.view_tag;
  END`,
  `CREATE TRIGGER announcements_counted_update AFTER UPDATE OF view_tag ON announcements BEGIN
    UPDATE view_tag_counts SET count = count - 1 WHERE tag = OLD.view_tag;
    INSERT INTO view_tag_counts (tag, count) VALUES (NEW.view_tag, 1) ON CONFLICT (tag) DO UPDATE SET count = count + 1;
  END`,
];

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE announcements (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ephemeral_key BLOB NOT NULL,
        view_tag INTEGER NOT NULL,
        timestamp INTEGER NOT NULL,
        channel_id BLOB NULL,
        tx_hash TEXT NOT NULL,
        tx_hash_norm TEXT NOT NULL UNIQUE,
        amount TEXT NULL,
        chain TEXT NULL
      )`,
      'CREATE INDEX announcements_view_tag_id ON announcements (view_tag, id)',
      'CREATE INDEX announcements_timestamp_id ON announcements (timestamp, id)',
    ],
  },
  {
    version: 2,
    statements: [
      'CREATE TABLE view_tag_counts (tag INTEGER PRIMARY KEY, count INTEGER NOT NULL)',
      'INSERT INTO view_tag_counts (tag, count) SELECT view_tag, COUNT(*) FROM announcements GROUP BY view_tag',
      ...COUNT_TRIGGERS,
    ],
  },
  {
    // Chain events (PROTOCOL.md sections 6 and 7): four columns, `origin` (0: HTTP publish, 1:
    // proved by the chain, removed again when a reorganisation drops its block), and uniqueness
    // moving from tx_hash alone to two partial indexes (HTTP rows by tx_hash, chain rows by tx_hash
    // and log index). SQLite cannot drop a column constraint, so the table is rebuilt with its ids;
    // AUTOINCREMENT's counter is carried over, so ids are never handed out twice. Dropping the old
    // table drops its triggers, which are made again. The indexer keeps its lease, cursor and
    // block-hash checkpoints in two tables; `indexer_fence` holds no rows: a commit inserts the
    // number of live leases its owner holds, which its CHECK refuses unless it is 1, so a batch
    // written by an instance that lost its lease fails whole (sqlite.ts).
    version: 3,
    statements: [
      `CREATE TABLE announcements_v3 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ephemeral_key BLOB NOT NULL,
        view_tag INTEGER NOT NULL,
        timestamp INTEGER NOT NULL,
        channel_id BLOB NULL,
        tx_hash TEXT NOT NULL,
        tx_hash_norm TEXT NOT NULL,
        amount TEXT NULL,
        chain TEXT NULL,
        stealth_address TEXT NULL,
        metadata BLOB NULL,
        block_number INTEGER NULL,
        log_index INTEGER NULL,
        origin INTEGER NOT NULL DEFAULT 0
      )`,
      `INSERT INTO announcements_v3 (id, ephemeral_key, view_tag, timestamp, channel_id, tx_hash, tx_hash_norm, amount, chain)
        SELECT id, ephemeral_key, view_tag, timestamp, channel_id, tx_hash, tx_hash_norm, amount, chain FROM announcements ORDER BY id`,
      "CREATE TABLE sequence_kept AS SELECT seq FROM sqlite_sequence WHERE name = 'announcements'",
      'DROP TABLE announcements',
      'ALTER TABLE announcements_v3 RENAME TO announcements',
      `CREATE TABLE sequence_next AS SELECT MAX(COALESCE((SELECT seq FROM sequence_kept), 0), COALESCE((SELECT MAX(id) FROM announcements), 0)) AS seq`,
      "DELETE FROM sqlite_sequence WHERE name IN ('announcements', 'announcements_v3')",
      "INSERT INTO sqlite_sequence (name, seq) SELECT 'announcements', seq FROM sequence_next",
      'DROP TABLE sequence_next',
      'DROP TABLE sequence_kept',
      'CREATE INDEX announcements_view_tag_id ON announcements (view_tag, id)',
      'CREATE INDEX announcements_timestamp_id ON announcements (timestamp, id)',
      'CREATE UNIQUE INDEX announcements_http_tx ON announcements (tx_hash_norm) WHERE log_index IS NULL',
      // Not partial: NULL log indexes (HTTP rows) never collide, and lookups by tx_hash alone (the publish rule) use it.
      'CREATE UNIQUE INDEX announcements_chain_event ON announcements (tx_hash_norm, log_index)',
      'CREATE INDEX announcements_block ON announcements (block_number) WHERE block_number IS NOT NULL',
      ...COUNT_TRIGGERS,
      `CREATE TABLE indexer_state (
        key TEXT PRIMARY KEY,
        owner TEXT NULL,
        lease_expires_at INTEGER NOT NULL,
        next_block INTEGER NULL
      )`,
      `CREATE TABLE indexer_checkpoints (
        key TEXT NOT NULL,
        block_number INTEGER NOT NULL,
        block_hash TEXT NOT NULL,
        PRIMARY KEY (key, block_number)
      )`,
      'CREATE TABLE indexer_fence (live_leases INTEGER NOT NULL CHECK (live_leases = 1))',
    ],
  },
  {
    // Several chains, two schemes (API.md "Several chains, two schemes"): rows carry the EIP-155
    // `chain_id` (null for HTTP publishes that name none, and for chain rows stored before this
    // version until their chain's indexer labels them: store.ts `labelLegacyChainRows`, served by
    // the partial index announcements_unlabelled) and the ERC-5564 `scheme_id` (1000, every row
    // before this version, or 3: ERC-8441). Chain events become unique by (tx_hash, log index,
    // chain id): still usable for lookups by tx_hash alone. (chain_id, id) serves lists of some
    // chains in id order. Adding columns keeps the table, its ids and its triggers.
    version: 4,
    statements: [
      'ALTER TABLE announcements ADD COLUMN chain_id INTEGER NULL',
      'ALTER TABLE announcements ADD COLUMN scheme_id INTEGER NOT NULL DEFAULT 1000',
      'DROP INDEX announcements_chain_event',
      'CREATE UNIQUE INDEX announcements_chain_event ON announcements (tx_hash_norm, log_index, chain_id)',
      'CREATE INDEX announcements_chain_id ON announcements (chain_id, id) WHERE chain_id IS NOT NULL',
      'CREATE INDEX announcements_unlabelled ON announcements (chain) WHERE chain_id IS NULL AND origin = 1',
    ],
  },
];

/** Newest schema this build understands. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Thrown when the file was written by a newer build: refusing beats guessing. */
export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
  constructor(found: number) {
    super(`The registry database has schema version ${found}; this build understands up to ${SCHEMA_VERSION}.`);
  }
}

/** Bring the database to `SCHEMA_VERSION`. Idempotent; safe when several stores open it at once. */
export async function migrate(client: Client): Promise<void> {
  await client.execute(
    'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)',
  );
  const current = await readVersion(client);
  if (current > SCHEMA_VERSION) throw new SchemaTooNewError(current);
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    try {
      await client.batch(
        [
          {
            sql: 'INSERT INTO schema_version (version, applied_at) VALUES (?, ?)',
            args: [migration.version, Math.floor(Date.now() / 1000)],
          },
          ...migration.statements,
        ],
        'write',
      );
    } catch (error) {
      if ((await readVersion(client)) < migration.version) throw error;
      // Another opener applied this migration between our read and our batch.
    }
  }
}

async function readVersion(client: Client): Promise<number> {
  const result = await client.execute('SELECT COALESCE(MAX(version), 0) AS version FROM schema_version');
  const version = result.rows[0]?.['version'];
  return typeof version === 'number' ? version : Number(version ?? 0);
}
