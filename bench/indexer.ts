/**
 * Issue 16: how fast the chain indexer (lib/chain/indexer.ts) ingests Announcer events from a
 * real node into the registry, against the plain `eth_getLogs` fetching of the same blocks in the
 * same run (the rate no indexer can beat on this node).
 *
 * anvil holds N well-formed announcements (default 20,000; INDEXER_N for more), 1,000 per
 * transaction and block, emitted by bench/fixtures/AnnouncementFlood.sol through the canonical
 * Announcer. Measured, in rounds A B C A B C...:
 * - raw: `eth_getLogs` over the range in `INDEXER_BENCH_RANGE`-block calls (default 2 blocks,
 *   about 2,000 events and 5.6 MB of JSON a call), each answer parsed as JSON, nothing else;
 * - SQLite / PostgreSQL: a fresh registry and `startIndexer` from block 0 to the head with the same
 *   range size (eth_getLogs, decoding and checks, the block-hash reads around each range, the
 *   transactional commit with its checkpoint), timed until the registry covers the head.
 * - three chains at once (issue 24): three more anvil nodes (their own `--chain-id`), each holding a
 *   third of N, indexed into one fresh registry by three indexers at the same time (one per
 *   chain, as a server following `CHAINS` runs them), timed until all three cover their heads:
 *   the total ingest, next to the one-chain rate of the same round.
 * Targets: at least 5,000 events/s, and at least half the raw rate.
 */
import { encodeFunctionData, parseAbi, type Hex } from 'viem';
import { ANNOUNCER_ADDRESS } from '../sdk/src/evm/index.ts';
import { startIndexer } from '../lib/chain/indexer.ts';
import type { ChainConfig } from '../lib/config.ts';
import { createPostgresStore } from '../lib/registry/postgres.ts';
import { createSqliteStore } from '../lib/registry/sqlite.ts';
import type { RegistryStore } from '../lib/registry/store.ts';
import { anvilChainConfig, startAnnouncerChain, type AnnouncerChain } from '../tests/helpers/announcer-chain.ts';
import { compileContracts } from '../tests/helpers/anvil.ts';
import { POSTGRES_BIN, startPostgres } from '../tests/helpers/postgres.ts';
import { temporaryDirectory } from '../tests/helpers/server.ts';
import { formatRate, median, type Measurement } from './harness.ts';

const PER_TX = 1_000;
const floodAbi = parseAbi(['function flood(address announcer, uint256 schemeId, uint256 count, uint256 seed)']);

function compileFlood(): Hex {
  return compileContracts(new URL('./fixtures/', import.meta.url))['AnnouncementFlood']!.bytecode;
}

/** N announcements on the chain, PER_TX per transaction (one block each). */
async function flood(chain: AnnouncerChain, n: number): Promise<void> {
  const wallet = chain.wallets[0]!;
  const deployHash = await wallet.deployContract({ abi: floodAbi, bytecode: compileFlood(), gas: 1_000_000n } as never);
  const { contractAddress } = await chain.publicClient.waitForTransactionReceipt({ hash: deployHash });
  for (let sent = 0; sent < n; sent += PER_TX) {
    const count = Math.min(PER_TX, n - sent);
    const data = encodeFunctionData({ abi: floodAbi, functionName: 'flood', args: [ANNOUNCER_ADDRESS, 1000n, BigInt(count), BigInt(sent)] });
    const hash = await wallet.sendTransaction({ to: contractAddress!, data, gas: 29_000_000n } as never);
    // A 29M-gas block of 1,000 events can take anvil minutes on a loaded 2-core machine.
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, timeout: 900_000 });
    if (receipt.status !== 'success' || receipt.logs.length !== count) throw new Error(`flood transaction emitted ${receipt.logs.length} of ${count} events`);
  }
}

/** Plain eth_getLogs over [0, head] in `range`-block calls; returns events/s. */
async function rawFetch(rpcUrl: string, head: number, range: number, expected: number): Promise<number> {
  const started = performance.now();
  let events = 0;
  for (let from = 0; from <= head; from += range) {
    const to = Math.min(head, from + range - 1);
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, address: ANNOUNCER_ADDRESS }] }),
    });
    const body = (await response.json()) as { result: unknown[] };
    events += body.result.length;
  }
  if (events !== expected) throw new Error(`raw fetch saw ${events} events, expected ${expected}`);
  return (events * 1000) / (performance.now() - started);
}

/** The indexer settings of one benchmark chain. */
function benchChain(rpcUrl: string, name: string, range: number): ChainConfig {
  return anvilChainConfig(rpcUrl, { name, pollMs: 20, maxBlockRange: range, leaseMs: 60_000 });
}

/** A fresh registry indexed from block 0 to each chain's head, all chains at once; returns events/s in total. */
async function ingest(store: RegistryStore, targets: readonly { chain: AnnouncerChain; head: number }[], range: number, expected: number): Promise<number> {
  const started = performance.now();
  const indexers = targets.map(({ chain }, i) =>
    startIndexer({ store, config: benchChain(chain.rpcUrl, `anvil-${i}`, range), chainId: chain.chainId, timeoutMs: 60_000 }),
  );
  try {
    await Promise.all(indexers.map((indexer, i) => indexer.waitForBlock(targets[i]!.head, 600_000)));
  } finally {
    await Promise.all(indexers.map((indexer) => indexer.stop()));
  }
  const seconds = (performance.now() - started) / 1000;
  const count = await store.count();
  if (count !== expected) throw new Error(`the registry holds ${count} announcements, expected ${expected}`);
  return expected / seconds;
}

export async function benchIndexer(): Promise<Measurement[]> {
  const n = Number(process.env.INDEXER_N ?? 20_000);
  const range = Number(process.env.INDEXER_BENCH_RANGE ?? 2);
  const rounds = Number(process.env.INDEXER_ROUNDS ?? 3);
  const chain = await startAnnouncerChain();
  // Three more chains for the three-chain case, a third of N each (whole transactions).
  const third = Math.ceil(n / 3 / PER_TX) * PER_TX;
  const three = await Promise.all([1_001, 1_002, 1_003].map((chainId) => startAnnouncerChain({ chainId })));
  const dir = temporaryDirectory('wraith-bench-indexer-');
  const cluster = POSTGRES_BIN === undefined ? undefined : await startPostgres();
  try {
    const seeded = performance.now();
    await flood(chain, n);
    const head = Number(await chain.blockNumber());
    console.log(`\nflooded ${n.toLocaleString()} announcements into ${Math.ceil(n / PER_TX)} blocks in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    for (const c of three) await flood(c, third);
    const threeTargets = await Promise.all(three.map(async (c) => ({ chain: c, head: Number(await c.blockNumber()) })));
    console.log(`flooded ${third.toLocaleString()} announcements into each of three more chains (ids ${three.map((c) => c.chainId).join(', ')})`);
    const raw: number[] = [];
    const sqlite: number[] = [];
    const postgres: number[] = [];
    const sqliteThree: number[] = [];
    const postgresThree: number[] = [];
    /** One ingest into a fresh SQLite file and, when installed, a fresh PostgreSQL schema. */
    const bothStores = async (name: string, targets: { chain: AnnouncerChain; head: number }[], expected: number, into: [number[], number[]]) => {
      const file = await createSqliteStore(`file:${dir.path}/${name}.db`);
      try {
        into[0].push(await ingest(file, targets, range, expected));
      } finally {
        await file.close();
      }
      if (cluster !== undefined) {
        const store = await createPostgresStore(await cluster.freshSchema(), { timeoutMs: 60_000 });
        try {
          into[1].push(await ingest(store, targets, range, expected));
        } finally {
          await store.close();
        }
      }
    };
    for (let round = 0; round < rounds; round++) {
      raw.push(await rawFetch(chain.rpcUrl, head, range, n));
      await bothStores(`one-${round}`, [{ chain, head }], n, [sqlite, postgres]);
      await bothStores(`three-${round}`, threeTargets, 3 * third, [sqliteThree, postgresThree]);
    }
    const rawRate = median(raw);
    console.log(`\n## Chain indexer: ${n.toLocaleString()} Announcer events from anvil, ${range}-block eth_getLogs calls, median of ${rounds} rounds\n`);
    console.log('| measure | events/s | vs raw eth_getLogs | target |\n|---|---:|---:|---|');
    console.log(`| raw eth_getLogs + JSON parse (reference) | ${formatRate(rawRate)} | 1.00x | |`);
    const rows: Measurement[] = [{ name: 'indexer reference: raw eth_getLogs', opsPerSecond: rawRate, unit: 'events/s', samples: raw }];
    for (const [name, samples] of [['SQLite', sqlite], ['PostgreSQL', postgres]] as const) {
      if (samples.length === 0) {
        console.log(`| ingest into ${name} | not measured (PostgreSQL not installed) | | |`);
        continue;
      }
      const rate = median(samples);
      const met = rate >= 5_000 && rate >= rawRate / 2;
      console.log(`| ingest into ${name} | ${formatRate(rate)} | ${(rate / rawRate).toFixed(2)}x | >= 5,000/s and >= 0.5x: ${met ? 'met' : 'NOT met'} |`);
      rows.push({ name: `indexer ingest into ${name}`, opsPerSecond: rate, unit: 'events/s', samples });
    }
    console.log(`\n## Three chains at once: ${third.toLocaleString()} events on each of three anvil nodes, one indexer per chain into one registry, median of ${rounds} rounds\n`);
    console.log('| registry | one chain, events/s | three chains at once, events/s in total | three / one |\n|---|---:|---:|---:|');
    for (const [name, one, many] of [['SQLite', sqlite, sqliteThree], ['PostgreSQL', postgres, postgresThree]] as const) {
      if (many.length === 0) {
        console.log(`| ${name} | not measured (PostgreSQL not installed) | | |`);
        continue;
      }
      console.log(`| ${name} | ${formatRate(median(one))} | ${formatRate(median(many))} | ${(median(many) / median(one)).toFixed(2)}x |`);
      rows.push({ name: `indexer ingest of three chains at once into ${name}`, opsPerSecond: median(many), unit: 'events/s', samples: many });
    }
    return rows;
  } finally {
    cluster?.destroy();
    await chain.stop();
    await Promise.all(three.map((c) => c.stop()));
    dir.remove();
  }
}
