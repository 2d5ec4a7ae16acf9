/**
 * Announcement registry on embedded SQLite (`REGISTRY_URL=file:...`, the default) or on a
 * remote libSQL server (`libsql://...`), through `@libsql/client` (API.md "Configuration").
 *
 * Durability: an acknowledged publish must survive `kill -9` of the server. The file runs
 * in WAL mode with `synchronous=FULL`, which fsyncs the log on every commit (NORMAL, the
 * usual WAL pairing, may lose the last commits on power loss). A remote libSQL server
 * owns its own durability, so no PRAGMA is sent there.
 *
 * One connection per file: `synchronous` and `busy_timeout` are per-connection settings,
 * and the driver would otherwise open up to 20 pooled connections that never saw the
 * PRAGMAs. The native driver runs every statement synchronously on the JS thread, so a
 * pool buys no parallelism inside one process; `busy_timeout` covers other processes on
 * the same file.
 *
 * Uniqueness (PROTOCOL.md section 6): an HTTP publish inserts only where no row has its
 * normalised tx_hash (`INSERT ... SELECT ... WHERE NOT EXISTS`, one statement, so concurrent
 * publishes from any number of processes store exactly one; the partial unique index on HTTP
 * rows backs it up). Chain events are unique by (tx_hash_norm, log_index). Neither is
 * `ON CONFLICT DO NOTHING`: SQLite still advances the AUTOINCREMENT counter for a skipped row,
 * leaving a gap in the ids for every rejected duplicate, while a statement that selects no row
 * to insert leaves it alone.
 *
 * The chain indexer's writes (commitIndexedRange, rewindIndexedRange) are single write batches,
 * fenced by the lease through `indexer_fence` (sqlite-schema.ts, version 3), with the events
 * passed as one JSON array of small arrays read by `json_each` and their ciphertexts and notes as
 * two blobs: a range of thousands of events is three statements, not thousands.
 *
 * Query plans (EXPLAIN QUERY PLAN, SQLite 3.45 in libsql), so deep pages by `afterId` stay cheap:
 * - everything + afterId: `SEARCH announcements USING INTEGER PRIMARY KEY (rowid>?)`
 * - one view tag + afterId: `SEARCH announcements USING INDEX announcements_view_tag_id (view_tag=? AND id>?)`
 * - several view tags: the same index search per tag, then `USE TEMP B-TREE FOR ORDER BY`
 *   over those tags' rows past afterId
 * - time range: `SEARCH announcements USING INDEX announcements_timestamp_id (timestamp>? AND timestamp<?)`,
 *   then `USE TEMP B-TREE FOR ORDER BY`
 * - totals of unfiltered and view-tag lists, the registry size and stats: `view_tag_counts`
 *   (at most 256 rows, kept by triggers, sqlite-schema.ts); other totals: `COVERING INDEX`
 *   scans/searches, never the table rows.
 * `offset` is walked row by row, as in any SQL database; clients page deep with `afterId`.
 *
 * Cursor walks (`countTotal: false`: binary pages and server-side scans, a million rows one
 * page after another) read through a second, read-only use of the same file with the driver's
 * own `libsql` Database: statements prepared once, and each page comes back as a single row
 * (pageAsOneRow). The client rebuilds every row as an object with a property per column and
 * prepares each statement anew, and even the raw driver spends about 6 µs converting a row,
 * ten times SQLite's own work. WAL lets the reader see every committed, so every acknowledged,
 * publish.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createClient, LibsqlError, type Client, type InStatement, type InValue, type ResultSet, type Row } from '@libsql/client';
import Database from 'libsql';
import { resolvePage, resolveSelection } from './list-query.ts';
import { ANNOUNCEMENT_COLUMNS, announcementFromColumns, publishedRow, unexpectedColumn, verifiedRow, type AnnouncementColumn } from './row.ts';
import { migrate } from './sqlite-schema.ts';
import {
  DuplicateAnnouncementError,
  IndexerLeaseLostError,
  MAX_CHECKPOINTS,
  StoreUnavailableError,
  WRAITH_SCHEME_ID,
  eventsInChainOrder,
  normalizeTxHash,
  packChainEventBytes,
  type ChainEvent,
  type CommitResult,
  type IndexedRange,
  type IndexerState,
  type AnnouncementFilter,
  type ListOptions,
  type NewAnnouncement,
  type RegistryStats,
  type RegistryStore,
  type StoreHealth,
  type StoredAnnouncement,
} from './store.ts';
import { redactStoreUrl, sqliteFilePath, storeUrlScheme } from './store-url.ts';

type SqliteKind = Extract<StoreHealth['kind'], 'sqlite' | 'libsql'>;

/** Wait this long for another process's write lock before failing a statement. */
const BUSY_TIMEOUT_MS = 5_000;

const COLUMNS = ANNOUNCEMENT_COLUMNS.join(', ');
/** Columns a row is stored with (`origin`: 0 HTTP publish, 1 proved by the chain). */
const INSERT_COLUMNS =
  'ephemeral_key, view_tag, timestamp, channel_id, tx_hash, tx_hash_norm, amount, chain, chain_id, stealth_address, metadata, block_number, log_index, scheme_id, origin';
/**
 * Milliseconds on the database's clock, for the indexer lease: instances sharing a remote libSQL
 * server compare expiries against one clock, not each its own (for a file, it is this machine's).
 */
const NOW_MS = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
/** Chain rows stored before chain ids, by their chain's name (store.ts `labelLegacyChainRows`). */
const LABEL_CHAIN_ROWS = 'UPDATE announcements SET chain_id = ? WHERE chain_id IS NULL AND origin = 1 AND chain = ?';
/**
 * HTTP rows the one-chain indexer completed before chain ids (their `chain` is the publisher's
 * label, not the chain's name): they belong to the chain whose legacy chain rows carry its name.
 */
const LABEL_COMPLETED_ROWS = `UPDATE announcements SET chain_id = ? WHERE chain_id IS NULL AND origin = 0 AND log_index IS NOT NULL
  AND EXISTS (SELECT 1 FROM announcements AS c WHERE c.origin = 1 AND c.chain = ? AND c.chain_id = ?)`;
/** The registry's size, from the per-tag counts. */
const TOTAL_SQL = 'SELECT COALESCE(SUM(count), 0) AS total FROM view_tag_counts';

/**
 * Open (creating and migrating if needed) a registry at a `file:` URL (kind `sqlite`) or
 * a `libsql:` URL (kind `libsql`). The parent directory of a file is created if missing.
 * @throws {StoreUnavailableError} when the database cannot be created, opened or migrated.
 * @example
 * const store = await createSqliteStore('file:./data/registry.db');
 */
export async function createSqliteStore(url: string): Promise<RegistryStore> {
  const scheme = storeUrlScheme(url);
  const kind: SqliteKind | undefined = scheme === 'file' ? 'sqlite' : scheme === 'libsql' ? 'libsql' : undefined;
  if (kind === undefined) {
    throw new Error(`createSqliteStore accepts file: and libsql: URLs, got "${redactStoreUrl(url)}".`);
  }
  const where = redactStoreUrl(url);
  if (kind === 'sqlite') ensureParentDirectory(url, where);

  let client: Client;
  try {
    client = createClient(kind === 'sqlite' ? { url, concurrency: 1, timeout: BUSY_TIMEOUT_MS } : { url });
  } catch (error) {
    throw new StoreUnavailableError(`Cannot open the ${kind} registry at "${where}" (${errorCode(error)}).`, {
      cause: error,
    });
  }
  try {
    if (kind === 'sqlite') {
      await client.execute('PRAGMA journal_mode = WAL');
      await client.execute('PRAGMA synchronous = FULL');
      await client.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
    await migrate(client);
  } catch (error) {
    client.close();
    throw new StoreUnavailableError(`Cannot prepare the ${kind} registry at "${where}" (${errorCode(error)}).`, {
      cause: error,
    });
  }
  const path = kind === 'sqlite' ? sqliteFilePath(url) : undefined;
  let reader: CursorReader | undefined;
  try {
    reader = path === undefined ? undefined : new CursorReader(path);
  } catch (error) {
    client.close();
    throw new StoreUnavailableError(`Cannot open the ${kind} registry at "${where}" for reading (${errorCode(error)}).`, {
      cause: error,
    });
  }
  return new SqliteStore(client, kind, reader);
}

/** The read-only connection for cursor walks (see "Cursor walks" above). */
class CursorReader {
  readonly #db: InstanceType<typeof Database>;
  readonly #statements = new Map<string, { all(...args: unknown[]): unknown[] }>();

  constructor(path: string) {
    this.#db = new Database(path, { readonly: true, fileMustExist: true });
    this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }

  /** Rows as arrays of column values, in the statement's column order. */
  all(sql: string, args: InValue[]): unknown[][] {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare<unknown[]>(sql).raw(true);
      this.#statements.set(sql, statement);
    }
    return statement.all(...args) as unknown[][];
  }

  close(): void {
    this.#statements.clear();
    if (this.#db.open) this.#db.close();
  }
}

function ensureParentDirectory(url: string, where: string): void {
  const path = sqliteFilePath(url);
  if (path === undefined) return;
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    const message = `Cannot create the directory for the sqlite registry at "${where}" (${errorCode(error)}).`;
    throw new StoreUnavailableError(message, { cause: error });
  }
}

class SqliteStore implements RegistryStore {
  readonly #client: Client;
  readonly #reader: CursorReader | undefined;
  readonly kind: SqliteKind;

  constructor(client: Client, kind: SqliteKind, reader: CursorReader | undefined) {
    this.#client = client;
    this.#reader = reader;
    this.kind = kind;
  }

  async publish(announcement: NewAnnouncement): Promise<StoredAnnouncement> {
    const txHash = announcement.txHash.trim();
    const timestamp = Math.floor(Date.now() / 1000); // set by the server (PROTOCOL.md section 6)
    const metadata = announcement.metadata ?? null;
    // Refused (no row) when any row, HTTP or chain, has this tx_hash: the interface's rule. A
    // statement that inserts nothing leaves AUTOINCREMENT's counter alone, so ids keep no gaps.
    const result = await this.#run('publish an announcement', () =>
      this.#client.execute({
        sql: `INSERT INTO announcements (${INSERT_COLUMNS})
              SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, 0
              WHERE NOT EXISTS (SELECT 1 FROM announcements WHERE tx_hash_norm = ?)
              RETURNING id`,
        args: [
          announcement.ephemeralKey,
          announcement.viewTag,
          timestamp,
          announcement.channelId,
          txHash,
          normalizeTxHash(txHash),
          announcement.amount,
          announcement.chain,
          announcement.chainId ?? null,
          announcement.stealthAddress ?? null,
          metadata,
          announcement.schemeId ?? WRAITH_SCHEME_ID,
          normalizeTxHash(txHash),
        ],
      }),
    );
    if (result.rows.length === 0) throw new DuplicateAnnouncementError();
    return publishedRow(readInteger(result.rows[0], 'id'), announcement, timestamp);
  }

  async publishVerified(event: ChainEvent & { amount: string | null; channelId: Uint8Array | null }): Promise<StoredAnnouncement> {
    const txHash = event.txHash.trim();
    const norm = normalizeTxHash(txHash);
    const result = await this.#run('publish a verified announcement', () =>
      this.#client.execute({
        sql: `INSERT INTO announcements (${INSERT_COLUMNS})
              SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1
              WHERE NOT EXISTS (SELECT 1 FROM announcements WHERE tx_hash_norm = ? AND (log_index IS NULL OR (log_index = ? AND chain_id = ?)))
              RETURNING id`,
        args: [
          event.ephemeralKey,
          event.viewTag,
          event.timestamp,
          event.channelId,
          txHash,
          norm,
          event.amount,
          event.chain,
          event.chainId,
          event.stealthAddress,
          event.metadata,
          event.blockNumber,
          event.logIndex,
          event.schemeId ?? WRAITH_SCHEME_ID,
          norm,
          event.logIndex,
          event.chainId,
        ],
      }),
    );
    if (result.rows.length === 0) throw new DuplicateAnnouncementError();
    return verifiedRow(readInteger(result.rows[0], 'id'), event);
  }

  async acquireIndexerLease(key: string, owner: string, leaseMs: number): Promise<IndexerState | null> {
    const [, state, checkpoints] = await this.#run('take the indexer lease', () =>
      this.#client.batch(
        [
          {
            sql: `INSERT INTO indexer_state (key, owner, lease_expires_at, next_block) VALUES (?, ?, ${NOW_MS} + ?, NULL)
                  ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, lease_expires_at = excluded.lease_expires_at
                  WHERE indexer_state.owner IS NULL OR indexer_state.owner = excluded.owner OR indexer_state.lease_expires_at <= ${NOW_MS}`,
            args: [key, owner, leaseMs],
          },
          { sql: 'SELECT owner, next_block FROM indexer_state WHERE key = ?', args: [key] },
          { sql: 'SELECT block_number, block_hash FROM indexer_checkpoints WHERE key = ? ORDER BY block_number', args: [key] },
        ],
        'write',
      ),
    );
    const row = state?.rows[0];
    if (row?.['owner'] !== owner) return null;
    return {
      nextBlock: row['next_block'] === null ? null : readInteger(row, 'next_block'),
      checkpoints: (checkpoints?.rows ?? []).map((c) => ({ blockNumber: readInteger(c, 'block_number'), blockHash: readText(c, 'block_hash') })),
    };
  }

  async releaseIndexerLease(key: string, owner: string): Promise<void> {
    await this.#run('release the indexer lease', () =>
      this.#client.execute({ sql: 'UPDATE indexer_state SET owner = NULL, lease_expires_at = 0 WHERE key = ? AND owner = ?', args: [key, owner] }),
    );
  }

  async commitIndexedRange(key: string, owner: string, range: IndexedRange): Promise<CommitResult> {
    // Events travel as one JSON array of small arrays read with json_each (one statement per
    // step instead of one per event; its key is the position in chain order), their ephemeral keys
    // and notes as two blobs sliced by position: JSON holding 4 MB of hex costs several times more
    // to parse, row by row, than the insert itself. Fields of an event: 0 view tag, 1 timestamp,
    // 2 tx_hash, 3 its normalised form, 4 log index, 5 block, 6 stealth address, 7 chain, 8 where
    // its note starts in the notes blob (1-based) or null, 9 the note's length, 10 where its key
    // starts in the keys blob (1-based), 11 the key's length, 12 the scheme id.
    const ordered = eventsInChainOrder(range.events);
    const { keys, keyStarts, keyLengths, notes, noteStarts, noteLengths } = packChainEventBytes(ordered);
    const events = JSON.stringify(
      ordered.map((e, i) => [
        e.viewTag,
        e.timestamp,
        e.txHash.trim(),
        normalizeTxHash(e.txHash),
        e.logIndex,
        e.blockNumber,
        e.stealthAddress,
        e.chain,
        noteStarts[i],
        noteLengths[i],
        keyStarts[i],
        keyLengths[i],
        e.schemeId ?? WRAITH_SCHEME_ID,
      ]),
    );
    const hashes = JSON.stringify(ordered.map((e) => normalizeTxHash(e.txHash)));
    const checkpoints = JSON.stringify(
      [...(range.blockHashes ?? []).filter((c) => c.blockNumber >= range.fromBlock && c.blockNumber < range.toBlock), { blockNumber: range.toBlock, blockHash: range.toBlockHash }].map(
        (c) => [c.blockNumber, c.blockHash],
      ),
    );
    const { chainId } = range;
    const schemeIds = range.schemeIds === undefined ? null : JSON.stringify(range.schemeIds);
    const ciphertext = 'substr(?, e.value ->> 10, e.value ->> 11)';
    const note = 'substr(?, e.value ->> 8, e.value ->> 9)';
    const results = await this.#fenced(key, owner, 'commit indexed blocks', [
      // This chain's rows stored ahead of the indexer (verified publishes) that these blocks no longer hold.
      {
        sql: `DELETE FROM announcements WHERE origin = 1 AND chain_id = ? AND block_number BETWEEN ? AND ?
              AND (? IS NULL OR scheme_id IN (SELECT value FROM json_each(?)))
              AND NOT EXISTS (SELECT 1 FROM json_each(?) AS e WHERE e.value ->> 3 = announcements.tx_hash_norm AND e.value ->> 4 = announcements.log_index)`,
        args: [chainId, range.fromBlock, range.toBlock, schemeIds, schemeIds, events],
      },
      // HTTP publishes of these events (rare), naming this chain or none: completed in place. The
      // announcements are matched by tx_hash through a small array first; only a match reads its
      // event from the large one.
      {
        sql: `UPDATE announcements
              SET chain_id = ?, block_number = e.value ->> 5, log_index = e.value ->> 4, stealth_address = e.value ->> 6,
                metadata = COALESCE(announcements.metadata, ${note})
              FROM (SELECT t.key, t.value AS n, json_extract(?, '$[' || t.key || ']') AS value FROM json_each(?) AS t
                    WHERE EXISTS (SELECT 1 FROM announcements AS h WHERE h.tx_hash_norm = t.value AND h.log_index IS NULL)) AS e
              WHERE announcements.log_index IS NULL AND announcements.tx_hash_norm = e.n AND announcements.ephemeral_key = ${ciphertext}
                AND (announcements.chain_id IS NULL OR announcements.chain_id = ?)
                AND NOT EXISTS (SELECT 1 FROM announcements AS x WHERE x.tx_hash_norm = e.n AND x.log_index = e.value ->> 4 AND x.chain_id = ?)`,
        args: [chainId, notes, events, hashes, keys, chainId, chainId],
      },
      {
        sql: `INSERT INTO announcements (${INSERT_COLUMNS})
              SELECT ${ciphertext}, e.value ->> 0, e.value ->> 1, NULL, e.value ->> 2, e.value ->> 3, NULL, e.value ->> 7, ?,
                e.value ->> 6, ${note}, e.value ->> 5, e.value ->> 4, e.value ->> 12, 1
              FROM json_each(?) AS e
              WHERE NOT EXISTS (SELECT 1 FROM announcements AS x WHERE x.tx_hash_norm = e.value ->> 3 AND x.log_index = e.value ->> 4 AND x.chain_id = ?)
              ORDER BY e.key`,
        args: [keys, chainId, notes, events, chainId],
      },
      { sql: 'UPDATE indexer_state SET next_block = ? WHERE key = ?', args: [range.toBlock + 1, key] },
      {
        sql: `INSERT OR REPLACE INTO indexer_checkpoints (key, block_number, block_hash) SELECT ?, c.value ->> 0, c.value ->> 1 FROM json_each(?) AS c`,
        args: [key, checkpoints],
      },
      // The newest MAX_CHECKPOINTS up to toBlock stay (any above it are of blocks to be read again).
      {
        sql: `DELETE FROM indexer_checkpoints WHERE key = ? AND (block_number > ? OR block_number <=
                (SELECT block_number FROM indexer_checkpoints WHERE key = ? AND block_number <= ? ORDER BY block_number DESC LIMIT 1 OFFSET ${MAX_CHECKPOINTS}))`,
        args: [key, range.toBlock, key, range.toBlock],
      },
    ]);
    const completed = results[1]!.rowsAffected;
    const inserted = results[2]!.rowsAffected;
    return { inserted, completed, existing: range.events.length - inserted - completed };
  }

  async rewindIndexedRange(key: string, owner: string, toBlock: number, chainId: number): Promise<{ removed: number }> {
    const results = await this.#fenced(key, owner, 'undo indexed blocks', [
      {
        sql: `DELETE FROM announcements WHERE origin = 1 AND chain_id = ? AND block_number > ?
              AND block_number < (SELECT COALESCE(next_block, 0) FROM indexer_state WHERE key = ?)`,
        args: [chainId, toBlock, key],
      },
      {
        // A scheme-3 publisher named the stealth address itself (its scanner decides on it).
        sql: `UPDATE announcements SET block_number = NULL, log_index = NULL, stealth_address = iif(scheme_id = ${WRAITH_SCHEME_ID}, NULL, stealth_address)
              WHERE origin = 0 AND chain_id = ? AND block_number > ?`,
        args: [chainId, toBlock],
      },
      { sql: 'DELETE FROM indexer_checkpoints WHERE key = ? AND block_number > ?', args: [key, toBlock] },
      { sql: 'UPDATE indexer_state SET next_block = ? WHERE key = ?', args: [toBlock + 1, key] },
    ]);
    return { removed: results[0]!.rowsAffected };
  }

  async labelLegacyChainRows(chainName: string, chainId: number): Promise<number> {
    const [chainRows, completed] = await this.#run('label chain rows with their chain id', () =>
      this.#client.batch([{ sql: LABEL_CHAIN_ROWS, args: [chainId, chainName] }, { sql: LABEL_COMPLETED_ROWS, args: [chainId, chainName, chainId] }], 'write'),
    );
    return chainRows!.rowsAffected + completed!.rowsAffected;
  }

  async indexerStatus(key: string): Promise<{ nextBlock: number | null; owner: string | null; leaseExpiresAt: number | null }> {
    const result = await this.#run('read the indexer state', () =>
      this.#client.execute({ sql: `SELECT owner, lease_expires_at, next_block, lease_expires_at > ${NOW_MS} AS live FROM indexer_state WHERE key = ?`, args: [key] }),
    );
    const row = result.rows[0];
    if (row === undefined) return { nextBlock: null, owner: null, leaseExpiresAt: null };
    const expires = readInteger(row, 'lease_expires_at');
    const live = row['owner'] !== null && readInteger(row, 'live') === 1;
    return {
      nextBlock: row['next_block'] === null ? null : readInteger(row, 'next_block'),
      owner: live ? readText(row, 'owner') : null,
      leaseExpiresAt: live ? expires : null,
    };
  }

  /**
   * One write batch (a single transaction) between the lease fence and its removal: the fence
   * row fails its CHECK unless `owner` holds the unexpired lease of `key`, which rolls the whole
   * batch back (sqlite-schema.ts, version 3). Returns the results of `statements`.
   */
  async #fenced(key: string, owner: string, action: string, statements: InStatement[]): Promise<ResultSet[]> {
    try {
      const results = await this.#run(action, () =>
        this.#client.batch(
          [
            { sql: `INSERT INTO indexer_fence (live_leases) SELECT COUNT(*) FROM indexer_state WHERE key = ? AND owner = ? AND lease_expires_at > ${NOW_MS}`, args: [key, owner] },
            ...statements,
            'DELETE FROM indexer_fence',
          ],
          'write',
        ),
      );
      return results.slice(1, -1);
    } catch (error) {
      if (error instanceof StoreUnavailableError && error.cause instanceof LibsqlError && (error.cause.extendedCode ?? error.cause.code) === 'SQLITE_CONSTRAINT_CHECK') {
        throw new IndexerLeaseLostError();
      }
      throw error;
    }
  }

  async list(
    filter: AnnouncementFilter,
    options: ListOptions,
  ): Promise<{ announcements: StoredAnnouncement[]; total: number }> {
    const page = resolvePage(options);
    const selection = resolveSelection(filter);
    let condition: string;
    let args: InValue[];
    switch (selection.kind) {
      case 'viewTags':
        condition = `view_tag IN (${placeholders(selection.tags)})`;
        args = selection.tags;
        break;
      case 'timeRange':
        condition = 'timestamp BETWEEN ? AND ?';
        args = [selection.from, selection.to];
        break;
      case 'all':
        condition = '1';
        args = [];
        break;
    }
    if (filter.withChannelId === true) condition += ' AND channel_id IS NOT NULL';
    if (filter.chainIds !== undefined) {
      condition += ` AND chain_id IN (${placeholders(filter.chainIds)})`;
      args = [...args, ...filter.chainIds];
    }
    if (filter.schemeIds !== undefined) {
      condition += ` AND scheme_id IN (${placeholders(filter.schemeIds)})`;
      args = [...args, ...filter.schemeIds];
    }
    const narrowed = filter.withChannelId === true || filter.chainIds !== undefined || filter.schemeIds !== undefined;
    const pageStatement = {
      sql: `SELECT ${COLUMNS} FROM announcements WHERE ${condition} AND id > ? ORDER BY id LIMIT ? OFFSET ?`,
      args: [...args, page.afterId ?? 0, page.limit, page.offset],
    };
    if (options.countTotal === false) {
      const reader = this.#reader;
      if (reader !== undefined) {
        const [row] = await this.#run('list announcements', async () => reader.all(pageAsOneRow(pageStatement.sql), pageStatement.args));
        return { announcements: readPageRow(row), total: -1 };
      }
      const listed = await this.#run('list announcements', () => this.#client.execute(pageStatement));
      return { announcements: listed.rows.map(readAnnouncement), total: -1 };
    }
    // `total` is the selection's size: afterId, offset and limit only page through it. Both
    // statements run in one read transaction so they see the same snapshot. Unfiltered and
    // view-tag selections are counted from the per-tag counts.
    let countStatement = { sql: `SELECT COUNT(*) AS total FROM announcements WHERE ${condition}`, args };
    if (!narrowed && selection.kind === 'all') countStatement = { sql: TOTAL_SQL, args: [] };
    if (!narrowed && selection.kind === 'viewTags') {
      countStatement = { sql: `${TOTAL_SQL} WHERE tag IN (${placeholders(selection.tags)})`, args };
    }
    const [counted, listed] = await this.#run('list announcements', () => this.#client.batch([countStatement, pageStatement], 'read'));
    return {
      announcements: (listed?.rows ?? []).map(readAnnouncement),
      total: readInteger(counted?.rows[0], 'total'),
    };
  }

  async stats(): Promise<RegistryStats> {
    const [counted, grouped] = await this.#run('read its stats', () =>
      this.#client.batch(
        [
          TOTAL_SQL,
          // Only tags that occur: the histogram has no zero buckets.
          'SELECT tag, count FROM view_tag_counts WHERE count > 0 ORDER BY tag',
        ],
        'read',
      ),
    );
    return {
      totalAnnouncements: readInteger(counted?.rows[0], 'total'),
      viewTagDistribution: (grouped?.rows ?? []).map((row) => ({
        tag: readInteger(row, 'tag'),
        count: readInteger(row, 'count'),
      })),
    };
  }

  async count(): Promise<number> {
    const result = await this.#run('count announcements', () => this.#client.execute(TOTAL_SQL));
    return readInteger(result.rows[0], 'total');
  }

  async health(): Promise<StoreHealth> {
    try {
      await this.#run('answer a health check', () => this.#client.execute('SELECT 1'));
      return { ok: true, kind: this.kind };
    } catch (error) {
      return { ok: false, kind: this.kind, error: error instanceof Error ? error.message : 'Unknown failure.' };
    }
  }

  async close(): Promise<void> {
    this.#reader?.close();
    this.#client.close();
  }

  /** Run one database call, turning any failure but a duplicate into StoreUnavailableError. */
  async #run<T>(action: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateAnnouncementError();
      // Only the error code goes into the message: driver messages may quote the URL.
      const message = `The ${this.kind} registry failed to ${action} (${errorCode(error)}).`;
      throw new StoreUnavailableError(message, { cause: error });
    }
  }
}

function isUniqueViolation(error: unknown): boolean {
  return (
    error instanceof LibsqlError &&
    (error.extendedCode === 'SQLITE_CONSTRAINT_UNIQUE' ||
      (error.code.startsWith('SQLITE_CONSTRAINT') && /\bUNIQUE\b/.test(error.message)))
  );
}

/** A machine-readable code for messages (`SQLITE_IOERR`, `ENOTDIR`...), never a value. */
function errorCode(error: unknown): string {
  if (error instanceof LibsqlError) return error.extendedCode ?? error.code;
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.name : 'unknown error';
}

function readAnnouncement(row: Row): StoredAnnouncement {
  return announcementFromColumns((column) => row[column]);
}

/** `?, ?, ?` for a list of values bound to an IN clause. */
function placeholders(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}

/**
 * A cursor page as a single result row: the ciphertexts concatenated in one BLOB, every other
 * column in a JSON array per row. The driver converts each result row with several native calls
 * (about 6 µs a row: 6.7 ms of a 1,000-row page, where SQLite's own scan of it takes 0.6 ms); one
 * row per page brings a page to about 3 ms, JSON parsing included. Both aggregates consume the
 * page's rows in the same pass, so row i of the JSON owns the i-th ciphertext; readPageRow checks
 * that the ids ascend and the lengths add up.
 */
function pageAsOneRow(pageSql: string): string {
  return `SELECT CAST(group_concat(ephemeral_key, '') AS BLOB), json_group_array(json_array(${PAGE_JSON_COLUMNS})) FROM (${pageSql})`;
}

/** The columns of a pageAsOneRow row, in ANNOUNCEMENT_COLUMNS order: the ciphertext's length in place of its bytes, blobs as hex. */
const PAGE_JSON_COLUMNS = ANNOUNCEMENT_COLUMNS.map((column) =>
  column === 'ephemeral_key' ? 'length(CAST(ephemeral_key AS BLOB))' : column === 'channel_id' || column === 'metadata' ? `iif(${column} IS NULL, NULL, hex(${column}))` : column,
).join(', ');
const PAGE_COLUMN_AT = new Map<AnnouncementColumn, number>(ANNOUNCEMENT_COLUMNS.map((column, i) => [column, i]));

/** The announcements of a pageAsOneRow result (`[keys, rows]`). */
function readPageRow(row: unknown[] | undefined): StoredAnnouncement[] {
  const [keys, json] = row ?? [];
  const rows: unknown = JSON.parse(textValue(json, 'rows'));
  if (!Array.isArray(rows)) throw unexpectedColumn('rows');
  const bytes = keys === null ? new Uint8Array(0) : bytesValue(keys, 'ephemeral_key');
  let at = 0;
  let previousId = 0;
  const announcements = rows.map((columns: unknown): StoredAnnouncement => {
    if (!Array.isArray(columns)) throw unexpectedColumn('rows');
    const announcement = announcementFromColumns((column) => {
      const value: unknown = columns[PAGE_COLUMN_AT.get(column)!];
      if (column === 'ephemeral_key') return bytes.subarray(at, at + integerValue(value, column));
      if ((column === 'channel_id' || column === 'metadata') && value !== null) return Buffer.from(textValue(value, column), 'hex');
      return value;
    });
    at += announcement.ephemeralKey.length;
    if (announcement.id <= previousId) throw unexpectedColumn('id');
    previousId = announcement.id;
    return announcement;
  });
  if (at !== bytes.length) throw unexpectedColumn('ephemeral_key');
  return announcements;
}

function readInteger(row: Row | undefined, column: string): number {
  return integerValue(row?.[column], column);
}

function readText(row: Row, column: string): string {
  return textValue(row[column], column);
}

function integerValue(value: unknown, column: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'bigint' && value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
  throw unexpectedColumn(column);
}

/**
 * The client returns BLOBs as ArrayBuffer, the cursor reader as Node Buffers; the store's
 * contract is a plain Uint8Array.
 */
function bytesValue(value: unknown, column: string): Uint8Array {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw unexpectedColumn(column);
}

function textValue(value: unknown, column: string): string {
  if (typeof value === 'string') return value;
  throw unexpectedColumn(column);
}
