/**
 * What only the embedded SQLite registry promises on top of the shared store contract
 * (store.test.ts): it creates its file, refuses paths and files it cannot use with
 * StoreUnavailableError, migrates once, shares uniqueness with other connections to the
 * same file, and keeps every acknowledged publish when its process is killed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createSqliteStore } from '../../lib/registry/sqlite.ts';
import { SCHEMA_VERSION } from '../../lib/registry/sqlite-schema.ts';
import { DuplicateAnnouncementError, StoreUnavailableError, type RegistryStore } from '../../lib/registry/store.ts';
import { announcement, randomBytes, temporaryDirectory } from './fixtures/announcements.ts';

const directory = temporaryDirectory();
afterAll(() => directory.remove());
let files = 0;

function freshUrl(): string {
  return `file:${join(directory.path, `case-${++files}`, 'registry.db')}`;
}

async function open(url: string): Promise<RegistryStore> {
  const store = await createSqliteStore(url);
  onTestFinished(() => store.close());
  return store;
}

/** A raw connection for looking at the file the way an operator would. */
function inspect(url: string) {
  const client = createClient({ url });
  onTestFinished(() => client.close());
  return client;
}

describe('the sqlite registry file', () => {
  it('is created together with its missing parent directories', async () => {
    const path = join(directory.path, 'nested', 'deeper', 'registry.db');
    const store = await open(`file:${path}`);
    await store.publish(announcement());
    expect(existsSync(path)).toBe(true);
  });

  it('runs in WAL mode', async () => {
    const url = freshUrl();
    await open(url);
    const result = await inspect(url).execute('PRAGMA journal_mode');
    expect(result.rows[0]?.['journal_mode']).toBe('wal');
  });

  it('answers tag selections, time ranges and cursor pages from indexes, not by reading every row', async () => {
    const url = freshUrl();
    await open(url);
    const plan = async (sql: string) =>
      (await inspect(url).execute(`EXPLAIN QUERY PLAN ${sql}`)).rows.map((row) => String(row['detail'])).join(' | ');
    expect(await plan('SELECT * FROM announcements WHERE view_tag = 7 AND id > 10 ORDER BY id LIMIT 100')).toContain(
      'USING INDEX announcements_view_tag_id (view_tag=? AND id>?)',
    );
    expect(await plan('SELECT * FROM announcements WHERE timestamp BETWEEN 1 AND 2 AND id > 0 ORDER BY id LIMIT 100')).toContain(
      'USING INDEX announcements_timestamp_id (timestamp>? AND timestamp<?)',
    );
    expect(await plan('SELECT * FROM announcements WHERE 1 AND id > 500 ORDER BY id LIMIT 100')).toContain('USING INTEGER PRIMARY KEY (rowid>?)');
    // The publish rule (any row with this tx_hash) and the indexer's dedup (tx_hash, log index).
    expect(await plan("SELECT 1 FROM announcements WHERE tx_hash_norm = '0xab'")).toMatch(/INDEX announcements_chain_event \(tx_hash_norm=\?\)/);
    expect(await plan("SELECT 1 FROM announcements WHERE tx_hash_norm = '0xab' AND log_index = 3")).toMatch(/INDEX announcements_chain_event \(tx_hash_norm=\? AND log_index=\?\)/);
    expect(await plan('SELECT 1 FROM announcements WHERE block_number > 5')).toContain('announcements_block');
  });

  it('cannot be opened under a regular file, and says so with StoreUnavailableError', async () => {
    const plainFile = join(directory.path, 'plain-file');
    writeFileSync(plainFile, 'not a directory');
    await expect(createSqliteStore(`file:${plainFile}/registry.db`)).rejects.toThrow(StoreUnavailableError);
    await expect(createSqliteStore(`file:${plainFile}/sub/registry.db`)).rejects.toThrow(StoreUnavailableError);
  });

  it('cannot be a directory, and says so with StoreUnavailableError', async () => {
    const folder = join(directory.path, 'a-directory');
    mkdirSync(folder);
    await expect(createSqliteStore(`file:${folder}`)).rejects.toThrow(StoreUnavailableError);
  });

  it('is refused with StoreUnavailableError when it is not a SQLite database', async () => {
    const garbage = join(directory.path, 'garbage.db');
    writeFileSync(garbage, randomBytes(8192));
    await expect(createSqliteStore(`file:${garbage}`)).rejects.toThrow(StoreUnavailableError);
  });

  it('is refused with StoreUnavailableError when a newer build has migrated it further', async () => {
    const url = freshUrl();
    const store = await createSqliteStore(url);
    await store.close();
    await inspect(url).execute('INSERT INTO schema_version (version, applied_at) VALUES (99, 0)');
    await expect(createSqliteStore(url)).rejects.toThrow(StoreUnavailableError);
  });

  it('is migrated exactly once when two stores open it at the same time', async () => {
    const url = freshUrl();
    mkdirSync(join(url.slice('file:'.length), '..'), { recursive: true });
    const [first, second] = await Promise.all([open(url), open(url)]);
    await first.publish(announcement());
    expect(await second.count()).toBe(1);
    const versions = await inspect(url).execute('SELECT version FROM schema_version ORDER BY version');
    expect(versions.rows.map((row) => row['version'])).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it('counts the rows of a version-1 file once when it is migrated, then keeps the counts with every publish', async () => {
    const url = freshUrl();
    mkdirSync(join(url.slice('file:'.length), '..'), { recursive: true });
    // A registry written by a build that knew only version 1: its schema, its rows, no counts.
    const old = inspect(url);
    await old.execute('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    await old.execute('INSERT INTO schema_version (version, applied_at) VALUES (1, 0)');
    await old.execute(`CREATE TABLE announcements (id INTEGER PRIMARY KEY AUTOINCREMENT, ephemeral_key BLOB NOT NULL,
      view_tag INTEGER NOT NULL, timestamp INTEGER NOT NULL, channel_id BLOB NULL, tx_hash TEXT NOT NULL,
      tx_hash_norm TEXT NOT NULL UNIQUE, amount TEXT NULL, chain TEXT NULL)`);
    for (const [i, tag] of [5, 5, 9, 200, 5].entries()) {
      await old.execute({ sql: 'INSERT INTO announcements (ephemeral_key, view_tag, timestamp, tx_hash, tx_hash_norm) VALUES (?, ?, 0, ?, ?)', args: [new Uint8Array(1088).fill(1), tag, `0x${i}`, `0x${i}`] });
    }
    const store = await open(url);
    expect(await store.stats()).toEqual({ totalAnnouncements: 5, viewTagDistribution: [{ tag: 5, count: 3 }, { tag: 9, count: 1 }, { tag: 200, count: 1 }] });
    await store.publish(announcement({ viewTag: 9 }));
    await expect(store.publish(announcement({ viewTag: 9, txHash: '0x0' }))).rejects.toThrow(DuplicateAnnouncementError); // counts for nothing
    expect(await store.count()).toBe(6);
    expect((await store.list({ viewTags: [9, 5] }, { limit: 1 })).total).toBe(5);
    expect((await store.stats()).viewTagDistribution).toContainEqual({ tag: 9, count: 2 });
  });

  it('keeps the rows, ids and counts of a version-2 file when migrated to version 3, and never hands out a used id again', async () => {
    const url = freshUrl();
    mkdirSync(join(url.slice('file:'.length), '..'), { recursive: true });
    // A registry written by a build that knew versions 1 and 2 (their statements as they shipped).
    const old = inspect(url);
    await old.batch(
      [
        'CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)',
        'INSERT INTO schema_version (version, applied_at) VALUES (1, 0), (2, 0)',
        `CREATE TABLE announcements (id INTEGER PRIMARY KEY AUTOINCREMENT, ephemeral_key BLOB NOT NULL,
          view_tag INTEGER NOT NULL, timestamp INTEGER NOT NULL, channel_id BLOB NULL, tx_hash TEXT NOT NULL,
          tx_hash_norm TEXT NOT NULL UNIQUE, amount TEXT NULL, chain TEXT NULL)`,
        'CREATE INDEX announcements_view_tag_id ON announcements (view_tag, id)',
        'CREATE INDEX announcements_timestamp_id ON announcements (timestamp, id)',
        'CREATE TABLE view_tag_counts (tag INTEGER PRIMARY KEY, count INTEGER NOT NULL)',
        `CREATE TRIGGER announcements_counted_insert AFTER INSERT ON announcements BEGIN
          INSERT INTO view_tag_counts (tag, count) VALUES (NEW.view_tag, 1) ON CONFLICT (tag) DO UPDATE SET count = count + 1;
        END`,
        `CREATE TRIGGER announcements_counted_delete AFTER DELETE ON announcements BEGIN
          UPDATE view_tag_counts SET count = count - 1 WHERE tag = OLD.view_tag;
        END`,
      ],
      'write',
    );
    const written = [
      { key: randomBytes(1088), tag: 3, ts: 1_700_000_001, channel: randomBytes(32), tx: '0xAA01', amount: '1.5 ETH', chain: 'ethereum' },
      { key: randomBytes(1088), tag: 3, ts: 1_700_000_002, channel: null, tx: '0xaa02', amount: null, chain: null },
      { key: randomBytes(1088), tag: 250, ts: 1_700_000_003, channel: null, tx: ' 0xAA03', amount: '7', chain: 'sui' },
      { key: randomBytes(1088), tag: 9, ts: 1_700_000_004, channel: null, tx: '0xaa04', amount: null, chain: null },
    ];
    for (const row of written) {
      await old.execute({
        sql: 'INSERT INTO announcements (ephemeral_key, view_tag, timestamp, channel_id, tx_hash, tx_hash_norm, amount, chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        args: [row.key, row.tag, row.ts, row.channel, row.tx.trim(), row.tx.trim().toLowerCase(), row.amount, row.chain],
      });
    }
    // An operator removed the newest row: AUTOINCREMENT remembers id 4, which must stay used.
    await old.execute('DELETE FROM announcements WHERE id = 4');

    const store = await open(url);
    const { announcements, total } = await store.list({}, { limit: 10 });
    expect(total).toBe(3);
    expect(announcements.map((row) => row.id)).toEqual([1, 2, 3]);
    for (const [i, row] of announcements.entries()) {
      const sent = written[i]!;
      expect(Buffer.from(row.ephemeralKey).equals(Buffer.from(sent.key))).toBe(true);
      expect(row.channelId === null ? null : Buffer.from(row.channelId).toString('hex')).toBe(sent.channel === null ? null : Buffer.from(sent.channel).toString('hex'));
      expect(row).toMatchObject({ viewTag: sent.tag, timestamp: sent.ts, txHash: sent.tx.trim(), amount: sent.amount, chain: sent.chain });
      expect(row).toMatchObject({ stealthAddress: null, metadata: null, blockNumber: null, logIndex: null });
    }
    expect(await store.stats()).toEqual({ totalAnnouncements: 3, viewTagDistribution: [{ tag: 3, count: 2 }, { tag: 250, count: 1 }] });
    expect((await store.publish(announcement({ viewTag: 250 }))).id).toBe(5);
    await expect(store.publish(announcement({ txHash: '0xaa01' }))).rejects.toThrow(DuplicateAnnouncementError);
    expect((await store.stats()).viewTagDistribution).toContainEqual({ tag: 250, count: 2 });
    const versions = await inspect(url).execute('SELECT version FROM schema_version ORDER BY version');
    expect(versions.rows.map((row) => row['version'])).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    // The old table-wide UNIQUE(tx_hash_norm) is gone: two events of one transaction fit.
    await store.acquireIndexerLease('k', 'me', 10_000);
    const events = [0, 1].map((logIndex) => ({
      ephemeralKey: randomBytes(1088), viewTag: 1, txHash: '0xbb', logIndex, blockNumber: 7, timestamp: 1, stealthAddress: '0x' + '11'.repeat(20), metadata: null, chain: null, chainId: 1,
    }));
    expect(await store.commitIndexedRange('k', 'me', { chainId: 1, fromBlock: 0, toBlock: 7, toBlockHash: '0x07', events })).toEqual({ inserted: 2, completed: 0, existing: 0 });
    expect(await store.count()).toBe(6);
    // Chain rows stored before rows carried chain ids (version 4 leaves them null) get their
    // chain's id once, by the chain's name, when its indexer starts.
    await inspect(url).execute("UPDATE announcements SET chain_id = NULL, chain = 'ethereum' WHERE origin = 1");
    // An HTTP row that indexer completed in place: its `chain` is the publisher's label.
    await inspect(url).execute("UPDATE announcements SET block_number = 6, log_index = 3, chain = 'sui' WHERE id = 3");
    expect(await store.labelLegacyChainRows('base', 8453)).toBe(0);
    expect(await store.labelLegacyChainRows('ethereum', 1)).toBe(3);
    expect(await store.labelLegacyChainRows('ethereum', 1)).toBe(0);
    expect((await store.list({ chainIds: [1] }, { limit: 10 })).announcements.map((r) => r.id)).toEqual([3, 6, 7]);
    expect((await store.list({}, { limit: 10 })).announcements[0]?.chainId).toBeNull();
  });

  it('keeps tx_hash unique across two stores sharing it', async () => {
    const url = freshUrl();
    const first = await open(url);
    const second = await open(url);
    const attempts = Array.from({ length: 20 }, (_, i) =>
      (i % 2 === 0 ? first : second).publish(announcement({ txHash: i % 3 === 0 ? '0xAB12' : '0xab12' })),
    );
    const results = await Promise.allSettled(attempts);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DuplicateAnnouncementError);
    }
    expect(await first.count()).toBe(1);
  });

  it('keeps every acknowledged publish when the publishing process is killed with SIGKILL', async () => {
    const url = freshUrl();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/publish-until-killed.ts', import.meta.url)), url],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const acknowledged = new Map<number, string>();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      let pending = '';
      child.stdout.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const [id, txHash] = line.split(' ');
          acknowledged.set(Number(id), txHash ?? '');
        }
        if (acknowledged.size >= 300) child.kill('SIGKILL');
      });
      child.on('exit', (_code, signal) =>
        signal === 'SIGKILL' ? resolve() : reject(new Error(`publisher exited on its own: ${stderr}`)),
      );
    });

    const store = await open(url);
    const { announcements, total } = await store.list({}, { limit: 100_000 });
    expect(total).toBeGreaterThanOrEqual(acknowledged.size);
    const stored = new Map(announcements.map((a) => [a.id, a.txHash]));
    for (const [id, txHash] of acknowledged) expect(stored.get(id)).toBe(txHash);
  });

  it('is opened only from file: and libsql: URLs', async () => {
    await expect(createSqliteStore('memory:')).rejects.toThrow(/file: and libsql:/);
  });
});
