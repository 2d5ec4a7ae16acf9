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
