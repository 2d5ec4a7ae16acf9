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
import { StoreUnavailableError, type RegistryStore } from '../../lib/registry/store.ts';
import { POSTGRES_MISSING, postgresOrSkip, startPostgres, type PostgresCluster } from '../helpers/postgres.ts';
import { announcement } from './fixtures/announcements.ts';

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
