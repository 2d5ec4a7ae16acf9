/**
 * Announcement registry on PostgreSQL (`REGISTRY_URL=postgres://...`, API.md "Configuration"):
 * the store several instances share.
 *
 * Same contract as the memory and SQLite stores (store.ts, PROTOCOL.md section 6), under
 * concurrency between processes: partial unique indexes on `tx_hash_norm` (HTTP rows) and
 * (`tx_hash_norm`, `log_index`) (chain events) decide duplicates, ids come
 * from a counter row incremented in the publish statement itself (postgres-schema.ts explains
 * why not a sequence: ids become visible in id order, so `after_id` cursors never skip a row,
 * and there are no gaps), and each list answers from one statement, so its page and `total`
 * come from one snapshot. The indexer's commit locks out other writers of `announcements` for
 * its few statements (commitIndexedRange), so an HTTP publish of a transaction it is storing
 * cannot slip a second row in beside its chain row.
 *
 * The indexer lease compares expiries with the database's clock (`clock_timestamp()`), never an
 * instance's own: instances on several machines agree on when a lease ran out.
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
import { ANNOUNCEMENT_COLUMNS, announcementFromColumns, publishedRow, unexpectedColumn, verifiedRow } from './row.ts';
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

/** The row's columns (row.ts); the publication time is stored as `published_at`. */
const COLUMNS = ANNOUNCEMENT_COLUMNS.map((column) => (column === 'timestamp' ? 'published_at AS timestamp' : column)).join(', ');

/** The unique indexes that carry the uniqueness rules (postgres-schema.ts, version 2). */
const UNIQUE_INDEXES = new Set(['announcements_http_tx', 'announcements_chain_event']);

/** Milliseconds on the database's clock: leases of instances on different machines compare against one clock. */
const NOW_MS = '(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint';

/** The registry's size: rows can be deleted (reorganisations), so not the id counter. */
const TOTAL_SQL = 'SELECT COALESCE(SUM(count), 0) AS total FROM view_tag_counts';

/**
 * Delete the rows a `gone` CTE selected and keep view_tag_counts right, in one statement;
 * answers `removed`.
 */
const COUNTED_DELETE = `counted AS (
    UPDATE view_tag_counts AS c SET count = c.count - g.n FROM (SELECT view_tag, COUNT(*) AS n FROM gone GROUP BY view_tag) AS g WHERE c.tag = g.view_tag
  )
  SELECT COUNT(*)::int AS removed FROM gone`;

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

/** A row as pg returns it: BIGINTs as decimal strings, BYTEA as Buffers (read by row.ts). */
type AnnouncementRow = Record<(typeof ANNOUNCEMENT_COLUMNS)[number], unknown>;

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
    const metadata = announcement.metadata ?? null;
    // One statement, one transaction: unless a row (HTTP or chain) has this tx_hash, take the next
    // id (the counter's row lock orders concurrent publishes), count the view tag, insert. A
    // duplicate that races past the check fails the unique index and rolls back both increments.
    const result = await this.#run('publish an announcement', () =>
      this.#pool.query<{ id: string }>(
        `WITH taken AS (
           SELECT 1 FROM announcements WHERE tx_hash_norm = $6 LIMIT 1
         ), next AS (
           UPDATE registry_counter SET last_id = last_id + 1 WHERE NOT EXISTS (SELECT 1 FROM taken) RETURNING last_id
         ), tagged AS (
           UPDATE view_tag_counts SET count = count + 1 FROM next WHERE tag = $2
         )
         INSERT INTO announcements (id, ephemeral_key, view_tag, published_at, channel_id, tx_hash, tx_hash_norm, amount, chain, metadata, chain_id, stealth_address, scheme_id, origin)
         SELECT last_id, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 0 FROM next
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
          metadata === null ? null : Buffer.from(metadata),
          announcement.chainId ?? null,
          announcement.stealthAddress ?? null,
          announcement.schemeId ?? WRAITH_SCHEME_ID,
        ],
      ),
    );
    if (result.rows.length === 0) throw new DuplicateAnnouncementError();
    return publishedRow(readInteger(result.rows[0]?.id, 'id'), announcement, timestamp);
  }

  async publishVerified(event: ChainEvent & { amount: string | null; channelId: Uint8Array | null }): Promise<StoredAnnouncement> {
    const txHash = event.txHash.trim();
    const result = await this.#run('publish a verified announcement', () =>
      this.#pool.query<{ id: string }>(
        `WITH taken AS (
           SELECT 1 FROM announcements WHERE tx_hash_norm = $6 AND (log_index IS NULL OR (log_index = $12 AND chain_id = $13)) LIMIT 1
         ), next AS (
           UPDATE registry_counter SET last_id = last_id + 1 WHERE NOT EXISTS (SELECT 1 FROM taken) RETURNING last_id
         ), tagged AS (
           UPDATE view_tag_counts SET count = count + 1 FROM next WHERE tag = $2
         )
         INSERT INTO announcements (id, ephemeral_key, view_tag, published_at, channel_id, tx_hash, tx_hash_norm, amount, chain,
                                    stealth_address, metadata, block_number, log_index, chain_id, scheme_id, origin)
         SELECT last_id, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 1 FROM next
         RETURNING id`,
        [
          Buffer.from(event.ephemeralKey),
          event.viewTag,
          event.timestamp,
          event.channelId === null ? null : Buffer.from(event.channelId),
          txHash,
          normalizeTxHash(txHash),
          event.amount,
          event.chain,
          event.stealthAddress,
          event.metadata === null ? null : Buffer.from(event.metadata),
          event.blockNumber,
          event.logIndex,
          event.chainId,
          event.schemeId ?? WRAITH_SCHEME_ID,
        ],
      ),
    );
    if (result.rows.length === 0) throw new DuplicateAnnouncementError();
    return verifiedRow(readInteger(result.rows[0]?.id, 'id'), event);
  }

  async acquireIndexerLease(key: string, owner: string, leaseMs: number): Promise<IndexerState | null> {
    const taken = await this.#run('take the indexer lease', () =>
      this.#pool.query<{ next_block: string | null }>(
        `INSERT INTO indexer_state (key, owner, lease_expires_at, next_block) VALUES ($1, $2, ${NOW_MS} + $3, NULL)
         ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, lease_expires_at = excluded.lease_expires_at
         WHERE indexer_state.owner IS NULL OR indexer_state.owner = excluded.owner OR indexer_state.lease_expires_at <= ${NOW_MS}
         RETURNING next_block`,
        [key, owner, leaseMs],
      ),
    );
    const row = taken.rows[0];
    if (row === undefined) return null;
    const checkpoints = await this.#run('read the indexer checkpoints', () =>
      this.#pool.query<{ block_number: string; block_hash: string }>(
        'SELECT block_number, block_hash FROM indexer_checkpoints WHERE key = $1 ORDER BY block_number',
        [key],
      ),
    );
    return {
      nextBlock: row.next_block === null ? null : readInteger(row.next_block, 'next_block'),
      checkpoints: checkpoints.rows.map((c) => ({ blockNumber: readInteger(c.block_number, 'block_number'), blockHash: c.block_hash })),
    };
  }

  async releaseIndexerLease(key: string, owner: string): Promise<void> {
    await this.#run('release the indexer lease', () =>
      this.#pool.query('UPDATE indexer_state SET owner = NULL, lease_expires_at = 0 WHERE key = $1 AND owner = $2', [key, owner]),
    );
  }

  async commitIndexedRange(key: string, owner: string, range: IndexedRange): Promise<CommitResult> {
    const e = eventsInChainOrder(range.events); // ids follow this order (ROW_NUMBER over its ordinality)
    const norms = e.map((x) => normalizeTxHash(x.txHash));
    const logIndexes = e.map((x) => x.logIndex);
    // Ciphertexts and notes travel as one bytea each, sliced by position in SQL.
    const { keys, keyStarts, keyLengths, notes, noteStarts, noteLengths } = packChainEventBytes(e);
    const { chainId } = range;
    const checkpoints = [...(range.blockHashes ?? []).filter((c) => c.blockNumber >= range.fromBlock && c.blockNumber < range.toBlock), { blockNumber: range.toBlock, blockHash: range.toBlockHash }];
    return this.#fenced(key, owner, 'commit indexed blocks', async (client) => {
      // Writers of announcements wait until this commit ends, and then look at it: a statement
      // takes its table locks before its snapshot, so an HTTP publish of one of these transactions
      // sees the chain rows and is refused, rather than adding a second row beside them (its
      // one-statement check cannot see rows committed while it waited on the counter row).
      // Readers are not held up.
      await client.query('LOCK TABLE announcements IN SHARE ROW EXCLUSIVE MODE');
      // This chain's rows stored ahead of the indexer (verified publishes) that these blocks no longer hold.
      await client.query(
        `WITH gone AS (
           DELETE FROM announcements AS a WHERE origin = 1 AND chain_id = $5 AND block_number BETWEEN $1 AND $2
           AND ($6::int[] IS NULL OR a.scheme_id = ANY($6::int[]))
           AND NOT EXISTS (SELECT 1 FROM unnest($3::text[], $4::int[]) AS e(n, l) WHERE e.n = a.tx_hash_norm AND e.l = a.log_index)
           RETURNING view_tag
         ), ${COUNTED_DELETE}`,
        [range.fromBlock, range.toBlock, norms, logIndexes, chainId, range.schemeIds ?? null],
      );
      // HTTP publishes of these events (rare), naming this chain or none: found by tx_hash alone, completed in place.
      const published = await client.query<{ id: string; tx_hash_norm: string; ephemeral_key: Buffer }>(
        'SELECT id, tx_hash_norm, ephemeral_key FROM announcements WHERE log_index IS NULL AND tx_hash_norm = ANY($1::text[]) AND (chain_id IS NULL OR chain_id = $2)',
        [norms, chainId],
      );
      let completed = 0;
      for (const row of published.rows) {
        const match = e.find((x, i) => norms[i] === row.tx_hash_norm && Buffer.compare(x.ephemeralKey, row.ephemeral_key) === 0);
        if (match === undefined) continue;
        const done = await client.query(
          `UPDATE announcements AS a SET chain_id = $6, block_number = $2, log_index = $3, stealth_address = $4, metadata = COALESCE(a.metadata, $5)
           WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM announcements AS x WHERE x.tx_hash_norm = a.tx_hash_norm AND x.log_index = $3 AND x.chain_id = $6)`,
          [row.id, match.blockNumber, match.logIndex, match.stealthAddress, match.metadata === null ? null : Buffer.from(match.metadata), chainId],
        );
        completed += done.rowCount ?? 0;
      }
      // The rest, as one multi-row insert: ids from the counter in chain order.
      const inserted = await client.query(
        `WITH ev AS (
           SELECT substring($1::bytea FROM e.ks FOR e.kl) AS k, e.v, e.ts, e.t, e.n, e.l, e.b, e.s,
             CASE WHEN e.m IS NULL THEN NULL ELSE substring($9::bytea FROM e.m FOR e.ml) END AS m, e.c, e.sc, e.ord
           FROM unnest($2::smallint[], $3::bigint[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::text[], $10::int[], $11::text[], $13::int[], $14::int[], $15::int[], $16::int[])
             WITH ORDINALITY AS e(v, ts, t, n, l, b, s, m, c, ml, ks, kl, sc, ord)
           WHERE NOT EXISTS (SELECT 1 FROM announcements AS x WHERE x.tx_hash_norm = e.n AND x.log_index = e.l AND x.chain_id = $12)
         ), total AS (
           SELECT COUNT(*) AS n FROM ev
         ), next AS (
           UPDATE registry_counter SET last_id = last_id + (SELECT n FROM total) RETURNING last_id
         ), tagged AS (
           UPDATE view_tag_counts AS c SET count = c.count + g.n FROM (SELECT v, COUNT(*) AS n FROM ev GROUP BY v) AS g WHERE c.tag = g.v
         )
         INSERT INTO announcements (id, ephemeral_key, view_tag, published_at, channel_id, tx_hash, tx_hash_norm, amount, chain,
                                    stealth_address, metadata, block_number, log_index, chain_id, scheme_id, origin)
         SELECT next.last_id - total.n + ROW_NUMBER() OVER (ORDER BY ev.ord), ev.k, ev.v, ev.ts, NULL, ev.t, ev.n, NULL, ev.c, ev.s, ev.m, ev.b, ev.l, $12, ev.sc, 1
         FROM ev, next, total`,
        [
          keys,
          e.map((x) => x.viewTag),
          e.map((x) => x.timestamp),
          e.map((x) => x.txHash.trim()),
          norms,
          logIndexes,
          e.map((x) => x.blockNumber),
          e.map((x) => x.stealthAddress),
          notes,
          noteStarts,
          e.map((x) => x.chain),
          chainId,
          noteLengths,
          keyStarts,
          keyLengths,
          e.map((x) => x.schemeId ?? WRAITH_SCHEME_ID),
        ],
      );
      await client.query('UPDATE indexer_state SET next_block = $2 WHERE key = $1', [key, range.toBlock + 1]);
      await client.query(
        `INSERT INTO indexer_checkpoints (key, block_number, block_hash) SELECT $1, b, h FROM unnest($2::bigint[], $3::text[]) AS c(b, h)
         ON CONFLICT (key, block_number) DO UPDATE SET block_hash = excluded.block_hash`,
        [key, checkpoints.map((c) => c.blockNumber), checkpoints.map((c) => c.blockHash)],
      );
      // The newest MAX_CHECKPOINTS up to toBlock stay (any above it are of blocks to be read again).
      await client.query(
        `DELETE FROM indexer_checkpoints WHERE key = $1 AND (block_number > $2 OR block_number <=
           (SELECT block_number FROM indexer_checkpoints WHERE key = $1 AND block_number <= $2 ORDER BY block_number DESC LIMIT 1 OFFSET ${MAX_CHECKPOINTS}))`,
        [key, range.toBlock],
      );
      const counts = { inserted: inserted.rowCount ?? 0, completed };
      // Events stored already, and repeats within the range, are `existing`.
      return { ...counts, existing: range.events.length - counts.inserted - counts.completed };
    });
  }

  async rewindIndexedRange(key: string, owner: string, toBlock: number, chainId: number): Promise<{ removed: number }> {
    return this.#fenced(key, owner, 'undo indexed blocks', async (client) => {
      const removed = await client.query<{ removed: number }>(
        `WITH gone AS (
           DELETE FROM announcements WHERE origin = 1 AND chain_id = $3 AND block_number > $1
           AND block_number < (SELECT COALESCE(next_block, 0) FROM indexer_state WHERE key = $2)
           RETURNING view_tag
         ), ${COUNTED_DELETE}`,
        [toBlock, key, chainId],
      );
      await client.query(
        // A scheme-3 publisher named the stealth address itself (its scanner decides on it).
        `UPDATE announcements SET block_number = NULL, log_index = NULL,
           stealth_address = CASE WHEN scheme_id = ${WRAITH_SCHEME_ID} THEN NULL ELSE stealth_address END
         WHERE origin = 0 AND chain_id = $2 AND block_number > $1`,
        [toBlock, chainId],
      );
      await client.query('DELETE FROM indexer_checkpoints WHERE key = $1 AND block_number > $2', [key, toBlock]);
      await client.query('UPDATE indexer_state SET next_block = $2 WHERE key = $1', [key, toBlock + 1]);
      return { removed: removed.rows[0]?.removed ?? 0 };
    });
  }

  async labelLegacyChainRows(chainName: string, chainId: number): Promise<number> {
    // Chain rows by their chain's name; then HTTP rows the one-chain indexer completed before chain
    // ids (their `chain` is the publisher's label): they belong to the chain those rows name.
    const result = await this.#run('label chain rows with their chain id', () =>
      this.#pool.query(
        `WITH chain_rows AS (
           UPDATE announcements SET chain_id = $1 WHERE chain_id IS NULL AND origin = 1 AND chain = $2 RETURNING 1
         ), completed AS (
           UPDATE announcements SET chain_id = $1 WHERE chain_id IS NULL AND origin = 0 AND log_index IS NOT NULL
             AND (EXISTS (SELECT 1 FROM chain_rows) OR EXISTS (SELECT 1 FROM announcements AS c WHERE c.origin = 1 AND c.chain = $2 AND c.chain_id = $1))
           RETURNING 1
         )
         SELECT (SELECT COUNT(*) FROM chain_rows) + (SELECT COUNT(*) FROM completed) AS labelled`,
        [chainId, chainName],
      ),
    );
    return Number(result.rows[0]?.labelled ?? 0);
  }

  async indexerStatus(key: string): Promise<{ nextBlock: number | null; owner: string | null; leaseExpiresAt: number | null }> {
    const result = await this.#run('read the indexer state', () =>
      this.#pool.query<{ owner: string | null; lease_expires_at: string; next_block: string | null; live: boolean }>(
        `SELECT owner, lease_expires_at, next_block, lease_expires_at > ${NOW_MS} AS live FROM indexer_state WHERE key = $1`,
        [key],
      ),
    );
    const row = result.rows[0];
    if (row === undefined) return { nextBlock: null, owner: null, leaseExpiresAt: null };
    const live = row.owner !== null && row.live;
    return {
      nextBlock: row.next_block === null ? null : readInteger(row.next_block, 'next_block'),
      owner: live ? row.owner : null,
      leaseExpiresAt: live ? readInteger(row.lease_expires_at, 'lease_expires_at') : null,
    };
  }

  /**
   * `work` in one transaction on one connection, after locking the lease row of `key`: when
   * `owner` does not hold its unexpired lease, nothing is written (IndexerLeaseLostError). The
   * row lock also keeps a lease from changing hands until the transaction ends.
   */
  async #fenced<T>(key: string, owner: string, action: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#run(action, async () => {
      const client = await this.#pool.connect();
      let broken: Error | undefined;
      try {
        // The planner prices the indexer's multi-row statements (thousands of unnested rows joined
        // with the counter) above `jit_above_cost`, and compiling one with LLVM took 378 ms, eight
        // times what executing it does (EXPLAIN ANALYZE, 2,000 events). One round trip for both.
        await client.query('BEGIN; SET LOCAL jit = off');
        const lease = await client.query<{ owner: string | null; live: boolean }>(
          `SELECT owner, lease_expires_at > ${NOW_MS} AS live FROM indexer_state WHERE key = $1 FOR UPDATE`,
          [key],
        );
        const row = lease.rows[0];
        if (row === undefined || row.owner !== owner || !row.live) {
          await client.query('ROLLBACK');
          throw new IndexerLeaseLostError();
        }
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        if (!(error instanceof IndexerLeaseLostError)) {
          await client.query('ROLLBACK').catch((rollback: unknown) => {
            broken = rollback instanceof Error ? rollback : new Error(String(rollback));
          });
        }
        throw error;
      } finally {
        client.release(broken);
      }
    });
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
        total = `(${TOTAL_SQL})`;
        break;
    }
    if (filter.withChannelId === true) {
      condition += ' AND channel_id IS NOT NULL';
      total = '';
    }
    if (filter.chainIds !== undefined) {
      condition += ` AND chain_id = ANY(${param(filter.chainIds)}::bigint[])`;
      total = '';
    }
    if (filter.schemeIds !== undefined) {
      condition += ` AND scheme_id = ANY(${param(filter.schemeIds)}::int[])`;
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
        `SELECT totals.total, counts.tag, counts.count
         FROM (${TOTAL_SQL}) AS totals
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
      this.#pool.query<{ total: string }>(TOTAL_SQL),
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
      if (error instanceof IndexerLeaseLostError) throw error;
      if (isTxHashViolation(error)) throw new DuplicateAnnouncementError();
      throw new StoreUnavailableError(`The postgres registry failed to ${action} (${errorCode(error)}).`, { cause: error });
    }
  }
}

function isTxHashViolation(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.code === '23505' && UNIQUE_INDEXES.has(error.constraint ?? '');
}

/** A machine-readable code for messages: a SQLSTATE (`57P01`), a socket code, or the error's name. */
function errorCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  if (error instanceof Error && /timeout/i.test(error.message)) return 'TIMEOUT';
  return error instanceof Error ? error.name : 'unknown error';
}

function readAnnouncement(row: AnnouncementRow): StoredAnnouncement {
  return announcementFromColumns((column) => row[column]);
}

/** BIGINT columns arrive as decimal strings; names the column, never the value, on a bad one. */
function readInteger(value: string | number | null | undefined, column: string): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number === 'number' && Number.isSafeInteger(number)) return number;
  throw unexpectedColumn(column);
}
