/**
 * What only the PostgreSQL store has (lib/registry/postgres.ts, postgres-schema.ts), on a
 * throwaway cluster: migrations run by several instances starting at once, refusal of a schema
 * from a newer build, and the timeouts that turn a database holding up a query into a quick
 * StoreUnavailableError (HTTP 503) instead of requests piling up. The store contract itself is
 * the shared table of store.test.ts.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresStore } from '../../lib/registry/postgres.ts';
import { PostgresSchemaTooNewError, POSTGRES_SCHEMA_VERSION } from '../../lib/registry/postgres-schema.ts';
import { DuplicateAnnouncementError, StoreUnavailableError, type RegistryStore } from '../../lib/registry/store.ts';
import { POSTGRES_MISSING, postgresOrSkip, startPostgres, type PostgresCluster } from '../helpers/postgres.ts';
import { announcement, randomBytes } from './fixtures/announcements.ts';

const available = postgresOrSkip();
let cluster: PostgresCluster;
beforeAll(async () => {
  if (available) cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.destroy());

async function opened(url: string, options: Parameters<typeof createPostgresStore>[1] = {}): Promise<RegistryStore> {
  const store = await createPostgresStore(url, options);
  onTestFinished(() => store.close());
  return store;
}

/** Time a promise that must reject; returns the error and the milliseconds it took. */
async function timedFailure(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - started };
}

describe.runIf(available)('the postgres registry store', () => {
  it('is migrated exactly once when four instances start on an empty database at the same moment', async () => {
    const url = await cluster.freshSchema();
    const stores = await Promise.all(Array.from({ length: 4 }, () => opened(url, { poolSize: 2 })));
    const schema = new URL(url).searchParams.get('options')!.replace('-c search_path=', '');
    const versions = await cluster.query(`SELECT version FROM ${schema}.registry_schema_version ORDER BY version`);
    expect(versions.rows.map((r) => r.version)).toEqual(Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1));
    const first = await stores[0]!.publish(announcement());
    const second = await stores[3]!.publish(announcement());
    expect([first.id, second.id]).toEqual([1, 2]);
    expect(await stores[1]!.count()).toBe(2);
  });

  it('keeps the rows, ids and counts of a version-1 database when migrated to version 2', async () => {
    const url = await cluster.freshSchema();
    // A registry written by a build that knew only version 1 (its statements as they shipped).
    const old = new pg.Client({ connectionString: url });
    await old.connect();
    onTestFinished(() => old.end());
    for (const statement of [
      'CREATE TABLE registry_schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)',
      'INSERT INTO registry_schema_version (version, applied_at) VALUES (1, 0)',
      `CREATE TABLE announcements (id BIGINT PRIMARY KEY, ephemeral_key BYTEA NOT NULL, view_tag SMALLINT NOT NULL CHECK (view_tag BETWEEN 0 AND 255),
        published_at BIGINT NOT NULL, channel_id BYTEA NULL, tx_hash TEXT NOT NULL, tx_hash_norm TEXT NOT NULL UNIQUE, amount TEXT NULL, chain TEXT NULL)`,
      'CREATE INDEX announcements_view_tag_id ON announcements (view_tag, id)',
      'CREATE INDEX announcements_published_at_id ON announcements (published_at, id)',
      'CREATE INDEX announcements_channel_id ON announcements (id) WHERE channel_id IS NOT NULL',
      'CREATE TABLE registry_counter (only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row), last_id BIGINT NOT NULL)',
      'INSERT INTO registry_counter (last_id) VALUES (0)',
      'CREATE TABLE view_tag_counts (tag SMALLINT PRIMARY KEY, count BIGINT NOT NULL)',
      'INSERT INTO view_tag_counts (tag, count) SELECT tag, 0 FROM generate_series(0, 255) AS tag',
    ]) {
      await old.query(statement);
    }
    const written = [
      { key: randomBytes(1088), tag: 4, ts: 1_700_000_001, channel: randomBytes(32), tx: '0xCC01', amount: '2 ETH', chain: 'ethereum' },
      { key: randomBytes(1088), tag: 4, ts: 1_700_000_002, channel: null, tx: '0xcc02', amount: null, chain: null },
      { key: randomBytes(1088), tag: 77, ts: 1_700_000_003, channel: null, tx: '0xcc03', amount: '9', chain: 'sui' },
    ];
    for (const row of written) {
      await old.query(
        `WITH next AS (UPDATE registry_counter SET last_id = last_id + 1 RETURNING last_id), tagged AS (UPDATE view_tag_counts SET count = count + 1 WHERE tag = $2)
         INSERT INTO announcements (id, ephemeral_key, view_tag, published_at, channel_id, tx_hash, tx_hash_norm, amount, chain)
         SELECT last_id, $1, $2, $3, $4, $5, lower($5), $6, $7 FROM next`,
        [Buffer.from(row.key), row.tag, row.ts, row.channel === null ? null : Buffer.from(row.channel), row.tx, row.amount, row.chain],
      );
    }

    const store = await opened(url, { poolSize: 2 });
    const { announcements, total } = await store.list({}, { limit: 10 });
    expect(total).toBe(3);
    expect(announcements.map((row) => row.id)).toEqual([1, 2, 3]);
    for (const [i, row] of announcements.entries()) {
      const sent = written[i]!;
      expect(Buffer.from(row.ephemeralKey).equals(Buffer.from(sent.key))).toBe(true);
      expect(row.channelId === null ? null : Buffer.from(row.channelId).toString('hex')).toBe(sent.channel === null ? null : Buffer.from(sent.channel).toString('hex'));
      expect(row).toMatchObject({ viewTag: sent.tag, timestamp: sent.ts, txHash: sent.tx, amount: sent.amount, chain: sent.chain });
      expect(row).toMatchObject({ stealthAddress: null, metadata: null, blockNumber: null, logIndex: null });
    }
    expect(await store.stats()).toEqual({ totalAnnouncements: 3, viewTagDistribution: [{ tag: 4, count: 2 }, { tag: 77, count: 1 }] });
    expect((await store.publish(announcement())).id).toBe(4);
    await expect(store.publish(announcement({ txHash: '0xcc01' }))).rejects.toThrow(DuplicateAnnouncementError);
    const versions = await old.query('SELECT version FROM registry_schema_version ORDER BY version');
    expect(versions.rows.map((r) => r.version)).toEqual(Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1));
    // The old UNIQUE(tx_hash_norm) is gone: two events of one transaction fit.
    for (const logIndex of [0, 1]) {
      await store.publishVerified({
        ephemeralKey: randomBytes(1088), viewTag: 1, txHash: '0xdd', logIndex, blockNumber: 5, timestamp: 1,
        stealthAddress: '0x' + '22'.repeat(20), metadata: null, chain: null, chainId: 1, amount: null, channelId: null,
      });
    }
    expect(await store.count()).toBe(6);
    // Chain rows stored before rows carried chain ids (version 3 leaves them null) get their
    // chain's id once, by the chain's name, when its indexer starts.
    await old.query("UPDATE announcements SET chain_id = NULL, chain = 'ethereum' WHERE origin = 1");
    // An HTTP row that indexer completed in place: its `chain` is the publisher's label.
    await old.query("UPDATE announcements SET block_number = 6, log_index = 3, chain = 'sui' WHERE id = 3");
    expect(await store.labelLegacyChainRows('base', 8453)).toBe(0);
    expect(await store.labelLegacyChainRows('ethereum', 1)).toBe(3);
    expect(await store.labelLegacyChainRows('ethereum', 1)).toBe(0);
    expect((await store.list({ chainIds: [1] }, { limit: 10 })).announcements.map((r) => r.id)).toEqual([3, 5, 6]);
    expect((await store.list({}, { limit: 10 })).announcements.find((r) => r.txHash === '0xCC01')?.chainId).toBeNull();
  });

  it('counts a registry from its view-tag counts, not the id counter, once rows of a reorganisation are gone', async () => {
    const url = await cluster.freshSchema();
    const store = await opened(url, { poolSize: 2 });
    await store.publish(announcement({ viewTag: 1 }));
    await store.acquireIndexerLease('k', 'me', 10_000);
    const events = [3, 4].map((blockNumber) => ({
      ephemeralKey: randomBytes(1088), viewTag: 2, txHash: `0x${blockNumber}`, logIndex: 0, blockNumber, timestamp: 1,
      stealthAddress: '0x' + '33'.repeat(20), metadata: null, chain: null, chainId: 1,
    }));
    await store.commitIndexedRange('k', 'me', { chainId: 1, fromBlock: 0, toBlock: 4, toBlockHash: '0x04', events });
    expect(await store.rewindIndexedRange('k', 'me', 3, 1)).toEqual({ removed: 1 });
    const raw = new pg.Client({ connectionString: url });
    await raw.connect();
    onTestFinished(() => raw.end());
    const counter = await raw.query('SELECT last_id FROM registry_counter');
    expect(Number(counter.rows[0].last_id)).toBe(3); // the id of the removed row stays used
    expect(await store.count()).toBe(2);
    expect((await store.list({}, { limit: 10 })).total).toBe(2);
    expect(await store.stats()).toEqual({ totalAnnouncements: 2, viewTagDistribution: [{ tag: 1, count: 1 }, { tag: 2, count: 1 }] });
    expect((await store.publish(announcement())).id).toBe(4);
  });

  it("refuses an HTTP publish that races with the indexer's commit of its transaction: one row, not two", async () => {
    const url = await cluster.freshSchema();
    const store = await opened(url, { poolSize: 4 });
    await store.acquireIndexerLease('k', 'me', 30_000);
    const txHash = '0x' + 'ee'.repeat(32);
    // Hold the id counter, so the commit stops at its insert with its earlier steps done.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    onTestFinished(() => blocker.end());
    await blocker.query('BEGIN');
    await blocker.query('SELECT last_id FROM registry_counter FOR UPDATE');
    const waiting = async (fragment: string) => {
      for (let i = 0; i < 200; i++) {
        const found = await cluster.query("SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [`%${fragment}%`]);
        if (found.rows[0].n > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no statement waiting: ${fragment}`);
    };
    const event = {
      ephemeralKey: randomBytes(1088), viewTag: 1, txHash, logIndex: 0, blockNumber: 2, timestamp: 1,
      stealthAddress: '0x' + '44'.repeat(20), metadata: null, chain: null, chainId: 1,
    };
    const commit = store.commitIndexedRange('k', 'me', { chainId: 1, fromBlock: 0, toBlock: 2, toBlockHash: '0x02', events: [event] });
    await waiting('WITH ev AS');
    const publish = store.publish(announcement({ txHash })).then(
      () => 'stored',
      (error: unknown) => error,
    );
    await waiting('WITH taken AS');
    await blocker.query('ROLLBACK');
    expect(await commit).toEqual({ inserted: 1, completed: 0, existing: 0 });
    expect(await publish).toBeInstanceOf(DuplicateAnnouncementError);
    expect(await store.count()).toBe(1);
  });

  it('refuses a database migrated by a newer build, naming both versions', async () => {
    const url = await cluster.freshSchema();
    await (await createPostgresStore(url)).close();
    const schema = new URL(url).searchParams.get('options')!.replace('-c search_path=', '');
    await cluster.query(`INSERT INTO ${schema}.registry_schema_version (version, applied_at) VALUES (99, 0)`);
    const { error } = await timedFailure(createPostgresStore(url));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).cause).toBeInstanceOf(PostgresSchemaTooNewError);
    expect(((error as Error).cause as Error).message).toContain('99');
  });

  it('fails a statement held up by a lock within its timeout, and serves again once the lock is gone', async () => {
    const url = await cluster.freshSchema();
    const store = await opened(url, { poolSize: 2, timeoutMs: 400 });
    await store.publish(announcement());
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    onTestFinished(() => blocker.end());
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE registry_counter IN ACCESS EXCLUSIVE MODE');
    const { error, ms } = await timedFailure(store.publish(announcement()));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(ms).toBeGreaterThanOrEqual(350);
    expect(ms).toBeLessThan(3_000);
    await blocker.query('ROLLBACK');
    expect((await store.publish(announcement())).id).toBe(2); // the timed-out publish stored nothing
  });

  it('fails a request that waits for a connection of a busy pool within the timeout', async () => {
    const url = await cluster.freshSchema();
    const store = await opened(url, { poolSize: 1, timeoutMs: 400 });
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    onTestFinished(() => blocker.end());
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE registry_counter IN ACCESS EXCLUSIVE MODE');
    // The first publish holds the only connection while it waits for the lock; the second waits for that connection.
    const [held, queued] = await Promise.all([timedFailure(store.publish(announcement())), timedFailure(store.publish(announcement()))]);
    await blocker.query('ROLLBACK');
    for (const { error, ms } of [held, queued]) {
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(ms).toBeLessThan(3_000);
    }
    expect((await store.health()).ok).toBe(true);
  });
});

if (!available) {
  describe.skip(`the postgres registry store (${POSTGRES_MISSING})`, () => {
    it('needs the PostgreSQL binaries', () => undefined);
  });
}
