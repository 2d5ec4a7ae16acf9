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
      `CREATE TRIGGER announcements_counted_insert AFTER INSERT ON announcements BEGIN
        INSERT INTO view_tag_counts (tag, count) VALUES (NEW.view_tag, 1) ON CONFLICT (tag) DO UPDATE SET count = count + 1;
      END`,
      // The service never deletes or edits rows; an operator's manual change keeps the counts right.
      `CREATE TRIGGER announcements_counted_delete AFTER DELETE ON announcements BEGIN
        UPDATE view_tag_counts SET count = count - 1 WHERE tag = OLD.view_tag;
      END`,
      `CREATE TRIGGER announcements_counted_update AFTER UPDATE OF view_tag ON announcements BEGIN
        UPDATE view_tag_counts SET count = count - 1 WHERE tag = OLD.view_tag;
        INSERT INTO view_tag_counts (tag, count) VALUES (NEW.view_tag, 1) ON CONFLICT (tag) DO UPDATE SET count = count + 1;
      END`,
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
