/**
 * Load (issue 8): the real server (`node server.mjs`, production build, rate limit off) on the
 * embedded SQLite registry and on PostgreSQL, measured two ways.
 *
 * 1. Publish alone (8 connections, {@link PUBLISH_SECONDS} s): how fast each store takes durable
 *    writes. Then a sustained mix: publish, list and scan at once, each from its own autocannon
 *    instance (publish 4 connections, list 4, scan 1) for {@link MIX_SECONDS} s. Publishes carry
 *    random ciphertexts with varied view tags; scans use a real recipient's keys narrowed to the
 *    view tags of 4 of its payments, so each decapsulates the ~1/64 of the registry they select.
 *    Reported per request type: requests/s, p50/p99 latency, errors (non-2xx + socket errors).
 *    One Node.js process serves everything, so the three share its one thread: the mix shows
 *    how they slow each other down, not each one's ceiling.
 * 2. A registry of 1,000,000 announcements, seeded with bulk SQL (not through HTTP): latency of
 *    list pages with the `after_id` cursor at the start, middle and end (flat: an index range
 *    scan), the same page with `offset` (grows with the offset: rows are skipped one by one),
 *    a view-tag page, and stats. {@link SAMPLES} sequential requests each, after a warm-up.
 *
 * PostgreSQL runs a throwaway cluster with its default durability settings (fsync and
 * synchronous_commit on). Needs `npm run build` and the PostgreSQL binaries (tests/helpers/postgres.ts).
 * `BENCH_ROWS` overrides the 1,000,000.
 */
import os from 'node:os';
import { createClient } from '@libsql/client';
import autocannon from 'autocannon';
import pg from 'pg';
import { createPostgresStore } from '../lib/registry/postgres.ts';
import { createSqliteStore } from '../lib/registry/sqlite.ts';
import { bytesToHex, createStealthPayment, generateKeys } from '../sdk/src/index.ts';
import { POSTGRES_BIN, startPostgres, type PostgresCluster } from '../tests/helpers/postgres.ts';
import { http, startServer, temporaryDirectory, type RunningServer } from '../tests/helpers/server.ts';

const MIX_SECONDS = 10;
const PUBLISH_SECONDS = 5;
const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000);
const SAMPLES = 60;

type Result = {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
};

export type LoadRow = { store: string; measure: string; rate?: number; p50: number; p99: number; errors?: number };

function cannon(options: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result as unknown as Result)));
  });
}

type Store = {
  name: 'SQLite' | 'PostgreSQL';
  url: string;
  /** Create the schema, then bulk-insert `rows` announcements with ids 1..rows. */
  seed(rows: number): Promise<void>;
  stop(): void;
};

async function sqliteStore(): Promise<Store> {
  const dir = temporaryDirectory('wraith-load-');
  const url = `file:${dir.path}/registry.db`;
  return {
    name: 'SQLite',
    url,
    async seed(rows) {
      await (await createSqliteStore(url)).close();
      const client = createClient({ url });
      await client.execute('PRAGMA journal_mode = WAL');
      await client.execute('PRAGMA synchronous = OFF'); // seeding only; the server runs FULL
      await client.execute(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
        INSERT INTO announcements (id, ephemeral_key, view_tag, timestamp, channel_id, tx_hash, tx_hash_norm, amount, chain)
        SELECT i, randomblob(1088), i % 256, 1700000000 + i / 100, NULL, '0xseed' || i, '0xseed' || i, NULL, NULL FROM n`);
      await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
      client.close();
    },
    stop: () => dir.remove(),
  };
}

async function postgresStore(): Promise<Store> {
  const cluster: PostgresCluster = await startPostgres({ settings: { shared_buffers: '256MB', max_wal_size: '4GB' } });
  const url = cluster.url();
  return {
    name: 'PostgreSQL',
    url,
    async seed(rows) {
      await (await createPostgresStore(url)).close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('SET synchronous_commit = off');
      // md5 of the id, repeated: 1088 distinct-per-row bytes without pgcrypto.
      await client.query(
        `INSERT INTO announcements (id, ephemeral_key, view_tag, published_at, channel_id, tx_hash, tx_hash_norm, amount, chain)
         SELECT i, decode(repeat(md5(i::text), 68), 'hex'), i % 256, 1700000000 + i / 100, NULL, '0xseed' || i, '0xseed' || i, NULL, NULL
         FROM generate_series(1, $1::bigint) AS i`,
        [rows],
      );
      // The counters the publish statement keeps (postgres-schema.ts), set to match.
      await client.query('UPDATE registry_counter SET last_id = $1', [rows]);
      await client.query(`UPDATE view_tag_counts SET count = seeded.n
        FROM (SELECT view_tag, COUNT(*) AS n FROM announcements GROUP BY view_tag) AS seeded WHERE tag = seeded.view_tag`);
      await client.query('VACUUM ANALYZE announcements');
      await client.end();
    },
    stop: () => cluster.destroy(),
  };
}

async function start(store: Store): Promise<RunningServer> {
  return startServer({ env: { REGISTRY_URL: store.url, RATE_LIMIT_RPS: '0', LOG_LEVEL: 'warn' } });
}

/** The publish + list + scan mix, all three at once. */
async function mix(store: Store): Promise<LoadRow[]> {
  const server = await start(store);
  try {
    const foreign = Array.from({ length: 64 }, () => bytesToHex(createStealthPayment(generateKeys().metaAddress).ephemeralCiphertext));
    const json = { 'content-type': 'application/json' };
    let n = 0;
    const publishRequest = (connections: number, duration: number): Promise<Result> =>
      cannon({
        url: server.url,
        connections,
        duration,
        requests: [
          {
            method: 'POST',
            path: '/api/v1/registry/announcements',
            headers: json,
            setupRequest: (request) => {
              n++;
              return { ...request, body: JSON.stringify({ ephemeral_key: foreign[n % 64], view_tag: (n * 7) % 256, tx_hash: `0xload${n}` }) };
            },
          },
        ],
      });
    const alone = await publishRequest(8, PUBLISH_SECONDS);

    const recipient = generateKeys();
    const own = Array.from({ length: 4 }, () => createStealthPayment(recipient.metaAddress));
    for (const [i, payment] of own.entries()) {
      await http(server, '/api/v1/registry/announcements', {
        body: { ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash: `0xown${i}` },
      });
    }
    const viewTags = [...new Set(own.map((p) => p.viewTag))];
    const [publish, list, scan] = await Promise.all([
      publishRequest(4, MIX_SECONDS),
      cannon({ url: `${server.url}/api/v1/registry/announcements?limit=100&after_id=0`, connections: 4, duration: MIX_SECONDS }),
      cannon({
        url: `${server.url}/api/v1/stealth/scan`,
        connections: 1,
        duration: MIX_SECONDS,
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          viewing_sk: bytesToHex(recipient.viewingSecretKey),
          spending_pk: bytesToHex(recipient.spendingPublicKey),
          view_tags: viewTags,
        }),
      }),
    ]);
    const row = (measure: string, r: Result): LoadRow => ({
      store: store.name,
      measure,
      rate: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      errors: r.non2xx + r.errors,
    });
    return [
      row('publish alone, 8 conns', alone),
      row('mix: publish, 4 conns', publish),
      row('mix: list 100 (after_id=0), 4 conns', list),
      row(`mix: scan (${viewTags.length} view tags), 1 conn`, scan),
    ];
  } finally {
    await server.stop();
  }
}

/** Sequential latency of one GET, after a warm-up. */
async function latency(server: RunningServer, path: string): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 5; i++) await http(server, path);
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    const response = await http(server, path);
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

async function large(store: Store): Promise<LoadRow[]> {
  const seeding = performance.now();
  await store.seed(ROWS);
  const seededIn = (performance.now() - seeding) / 1000;
  const server = await start(store);
  try {
    const rows: LoadRow[] = [];
    const last = ROWS - 100;
    const cases: [string, string][] = [
      ['list 100, after_id=0', '/api/v1/registry/announcements?limit=100&after_id=0'],
      [`list 100, after_id=${ROWS / 2}`, `/api/v1/registry/announcements?limit=100&after_id=${ROWS / 2}`],
      [`list 100, after_id=${last}`, `/api/v1/registry/announcements?limit=100&after_id=${last}`],
      [`list 100, offset=${last} (for contrast)`, `/api/v1/registry/announcements?limit=100&offset=${last}`],
      [`list 100, view_tag=7, after_id=${ROWS / 2}`, `/api/v1/registry/announcements?limit=100&view_tag=7&after_id=${ROWS / 2}`],
      ['stats', '/api/v1/registry/stats'],
    ];
    for (const [measure, path] of cases) rows.push({ store: store.name, measure, ...(await latency(server, path)) });
    console.log(`\n${store.name}: seeded ${ROWS.toLocaleString()} announcements with SQL in ${seededIn.toFixed(1)} s`);
    return rows;
  } finally {
    await server.stop();
  }
}

const loadAverage = () => os.loadavg().map((v) => v.toFixed(1)).join(' ');

const ms = (value: number) => `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;

export async function benchLoad(): Promise<LoadRow[]> {
  const stores: (() => Promise<Store>)[] = [sqliteStore];
  if (POSTGRES_BIN !== undefined) stores.push(postgresStore);
  else console.log('\n(PostgreSQL binaries not found: the PostgreSQL rows are skipped)');
  const mixRows: LoadRow[] = [];
  const largeRows: LoadRow[] = [];
  for (const open of stores) {
    const store = await open();
    try {
      mixRows.push(...(await mix(store)));
      // A fresh store for the large registry: the mix's rows would collide with the seeded ids.
    } finally {
      store.stop();
    }
    const fresh = await open();
    try {
      largeRows.push(...(await large(fresh)));
    } finally {
      fresh.stop();
    }
  }
  console.log(`\n## Load: publish alone for ${PUBLISH_SECONDS} s, then publish + list + scan at once for ${MIX_SECONDS} s (real server, rate limit off; load average ${loadAverage()})\n`);
  console.log('| store | measure | req/s | p50 | p99 | errors |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const r of mixRows) console.log(`| ${r.store} | ${r.measure} | ${Math.round(r.rate ?? 0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} |`);
  console.log(`\n## Latency with ${ROWS.toLocaleString()} announcements (${SAMPLES} sequential requests each; load average ${loadAverage()})\n`);
  console.log('| store | request | p50 | p99 |');
  console.log('|---|---|---:|---:|');
  for (const r of largeRows) console.log(`| ${r.store} | ${r.measure} | ${ms(r.p50)} | ${ms(r.p99)} |`);
  return [...mixRows, ...largeRows];
}
