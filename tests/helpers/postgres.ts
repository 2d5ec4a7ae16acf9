/**
 * A throwaway PostgreSQL 15 cluster on loopback for tests and benchmarks (TOOLCHAIN.md "Real
 * services"): `initdb` into a temp directory, `pg_ctl start` on a free port, removed on stop.
 *
 * initdb refuses to run as root, so as root every server command runs as the `postgres` user
 * (`runuser`), which owns the directory. When the binaries are absent the suites that need them
 * skip with {@link POSTGRES_MISSING}, unless `REQUIRE_SERVICES=1` (set by .ci/run): then
 * {@link postgresOrSkip} throws and the suite fails instead of passing without having run.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { freePort } from './server.ts';

const BIN_DIRS = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'];

/** Directory of initdb / pg_ctl, or undefined when PostgreSQL is not installed. */
export const POSTGRES_BIN = BIN_DIRS.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));

export const POSTGRES_MISSING = `PostgreSQL binaries not found in ${BIN_DIRS.join(' or ')} (apt-get install postgresql; .ci/run does)`;

/** True when a missing service must fail the run rather than skip it (.ci/run sets it). */
export function servicesRequired(): boolean {
  return process.env['REQUIRE_SERVICES'] === '1';
}

/**
 * Whether the PostgreSQL suites can run: true when the binaries are here; false (with a warning
 * naming the reason) when they are not; throws when they are not and REQUIRE_SERVICES=1.
 */
export function postgresOrSkip(): boolean {
  if (POSTGRES_BIN !== undefined) return true;
  if (servicesRequired()) throw new Error(`REQUIRE_SERVICES=1 but ${POSTGRES_MISSING}.`);
  console.warn(`skipping PostgreSQL tests: ${POSTGRES_MISSING}`);
  return false;
}

/**
 * A suite that needs PostgreSQL: skipped (the reason in its title) when the binaries are absent,
 * failing under REQUIRE_SERVICES=1; one cluster started before its tests and destroyed after.
 * @example
 * describeWithPostgres('two instances on one registry', (postgres) => {
 *   it('…', async () => { const url = await postgres().freshSchema(); … });
 * });
 */
export function describeWithPostgres(title: string, body: (cluster: () => PostgresCluster) => void): void {
  const available = postgresOrSkip();
  describe.skipIf(!available)(`${title}${available ? '' : ` (${POSTGRES_MISSING})`}`, () => {
    let cluster: PostgresCluster | undefined;
    beforeAll(async () => {
      cluster = await startPostgres();
    }, 60_000);
    afterAll(() => cluster?.destroy());
    body(() => {
      if (cluster === undefined) throw new Error('PostgreSQL did not start');
      return cluster;
    });
  });
}

export type PostgresCluster = {
  port: number;
  /** URL of the `postgres` database as the superuser; with `schema`, its search_path is that schema. */
  url(schema?: string): string;
  /** A fresh, empty schema and a URL whose connections use it: an empty registry per test. */
  freshSchema(): Promise<string>;
  /** Run one statement as the superuser on a short-lived connection. */
  query(sql: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** Stop the server. `immediate` is a crash: no checkpoint, recovery from the WAL on start. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stop (if running) and delete the cluster. */
  destroy(): void;
};

export type PostgresOptions = {
  /** Extra `-c name=value` server settings. */
  settings?: Record<string, string>;
};

/** Test default: no fsync. Process crashes (what the tests cause) lose nothing; only OS crashes would. */
export const TEST_SETTINGS: Record<string, string> = { fsync: 'off', full_page_writes: 'off' };

/** initdb and start a cluster on a free port. */
export async function startPostgres({ settings = TEST_SETTINGS }: PostgresOptions = {}): Promise<PostgresCluster> {
  if (POSTGRES_BIN === undefined) throw new Error(POSTGRES_MISSING);
  const bin = POSTGRES_BIN;
  const root = mkdtempSync(join(tmpdir(), 'wraith-pg-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(root, postgresUid(), postgresGid());
  const dataDir = join(root, 'data');
  const command = (name: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, name), ...args]] : [join(bin, name), args];
  const run = (name: string, args: string[]) => execFileSync(...command(name, args), { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
  /** Async, so a test's own load keeps running while the server stops or starts. */
  const runAsync = (name: string, args: string[]) => promisify(execFile)(...command(name, args), { cwd: root });
  run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const flags = [`-p ${port}`, `-k ${root}`, '-c listen_addresses=127.0.0.1', '-c max_connections=200'];
  for (const [name, value] of Object.entries(settings)) flags.push(`-c ${name}=${value}`);
  const pgCtl = (args: string[]) => ['-D', dataDir, '-w', '-t', '60', ...args];
  const startArgs = pgCtl(['-l', join(root, 'server.log'), 'start', '-o', flags.join(' ')]);
  run('pg_ctl', startArgs);
  let running = true;
  const cleanup = () => {
    if (running) spawnSync(...command('pg_ctl', pgCtl(['-m', 'immediate', 'stop'])));
    running = false;
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', cleanup);
  const base = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let schemas = 0;
  const cluster: PostgresCluster = {
    port,
    url: (schema) => (schema === undefined ? base : `${base}?options=${encodeURIComponent(`-c search_path=${schema}`)}`),
    async freshSchema() {
      const name = `registry_${process.pid}_${++schemas}`;
      await cluster.query(`CREATE SCHEMA ${name}`);
      return cluster.url(name);
    },
    async query(sql, values) {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        return await client.query(sql, values);
      } finally {
        await client.end();
      }
    },
    async stop(mode = 'fast') {
      if (!running) return;
      running = false;
      await runAsync('pg_ctl', pgCtl(['-m', mode, 'stop']));
    },
    async start() {
      if (running) return;
      await runAsync('pg_ctl', startArgs);
      running = true;
    },
    destroy() {
      process.off('exit', cleanup);
      cleanup();
    },
  };
  return cluster;
}

function postgresUid(): number {
  return Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
}

function postgresGid(): number {
  return Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
}
