/**
 * The chain indexer (lib/chain/indexer.ts) on a real chain: anvil with the ERC-5564 Announcer at
 * its canonical address, real transactions from dev accounts, the registry in SQLite files (a
 * restart reopens the same file) and in PostgreSQL (two instances, one lease). Reorganisations
 * are made with anvil_reorg, provider faults by a fault-injecting proxy in front of anvil.
 *
 * The reference in every test is the chain itself: the set of valid announcements that
 * `fetchAnnouncements` reads straight from anvil, compared with what the registry holds.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createScanner, createStealthPayment, generateKeys, type PaymentNoteInput } from '@wraith-pq/sdk';
import { ANNOUNCER_ADDRESS, fetchAnnouncements } from '@wraith-pq/sdk/evm';
import type { ChainConfig } from '../../lib/config.ts';
import { startIndexer, type Indexer } from '../../lib/chain/indexer.ts';
import { createSqliteStore } from '../../lib/registry/sqlite.ts';
import { createPostgresStore } from '../../lib/registry/postgres.ts';
import { IndexerLeaseLostError, type CommitResult, type RegistryStore, type StoredAnnouncement } from '../../lib/registry/store.ts';
import { createChainClients, type ChainClients } from '../../lib/chain/rpc.ts';
import { anvilChainConfig, startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { startRpcFaultProxy } from '../helpers/rpc-fault-proxy.ts';
import { describeWithPostgres } from '../helpers/postgres.ts';
import { temporaryDirectory } from '../helpers/server.ts';

const recipient = generateKeys();
const stranger = generateKeys();

let chain: AnnouncerChain;
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(async () => {
  chain = await startAnnouncerChain();
});
afterAll(async () => {
  await chain?.stop();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function chainConfig(overrides: Partial<ChainConfig> = {}): ChainConfig {
  return anvilChainConfig(chain.rpcUrl, overrides);
}

async function sqliteStore(): Promise<{ url: string; store: RegistryStore }> {
  const dir = temporaryDirectory('wraith-indexer-');
  const url = `file:${dir.path}/registry.db`;
  const store = await createSqliteStore(url);
  cleanups.push(async () => {
    await store.close().catch(() => undefined);
    dir.remove();
  });
  return { url, store };
}

function run(store: RegistryStore, config = chainConfig(), owner?: string, timeoutMs = 2_000, clients?: ChainClients): Indexer {
  const indexer = startIndexer({ store, config, chainId: chain.chainId, timeoutMs, ...(owner === undefined ? {} : { owner }), ...(clients === undefined ? {} : { clients }) });
  cleanups.push(() => indexer.stop());
  return indexer;
}

/** Announce a payment to `keys` (one block, automine). */
async function pay(keys = recipient, note?: PaymentNoteInput) {
  const payment = createStealthPayment(keys.metaAddress);
  const receipt = await chain.announce(payment, note);
  return { payment, receipt };
}

/** Every row of the registry, in id order. */
async function allRows(store: RegistryStore): Promise<StoredAnnouncement[]> {
  const rows: StoredAnnouncement[] = [];
  for (;;) {
    const { announcements } = await store.list({}, { limit: 1000, afterId: rows.at(-1)?.id ?? 0 });
    rows.push(...announcements);
    if (announcements.length < 1000) return rows;
  }
}

/** `tx:logIndex:ciphertext-prefix` of each valid announcement on the canonical chain now (from `fromBlock`). */
async function canonicalAnnouncements(fromBlock = 0): Promise<string[]> {
  const head = await chain.blockNumber();
  const { announcements } = await fetchAnnouncements({ client: chain.publicClient, fromBlock: BigInt(fromBlock), toBlock: head });
  return announcements.map((a) => `${a.txHash.toLowerCase()}:${a.logIndex}:${Buffer.from(a.ephemeralKey.subarray(0, 8)).toString('hex')}`).sort();
}

function registryAnnouncements(rows: StoredAnnouncement[]): string[] {
  return rows
    .filter((row) => row.logIndex !== null)
    .map((row) => `${row.txHash.toLowerCase()}:${row.logIndex}:${Buffer.from(row.ephemeralKey.subarray(0, 8)).toString('hex')}`)
    .sort();
}

async function caughtUp(indexer: Indexer): Promise<void> {
  await indexer.waitForBlock(Number(await chain.blockNumber()), 60_000);
}

/** What the indexer asked of the store: rewinds with what they removed, commits with their counts, refused commits. */
type StoreCalls = { rewinds: { toBlock: number; removed: number }[]; commits: CommitResult[]; leaseLost: number };

/** `store` with its indexer writes recorded in `calls`. */
function recorded(store: RegistryStore, calls: StoreCalls): RegistryStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === 'rewindIndexedRange') {
        return async (...args: Parameters<RegistryStore['rewindIndexedRange']>) => {
          const result = await target.rewindIndexedRange(...args);
          calls.rewinds.push({ toBlock: args[2], removed: result.removed });
          return result;
        };
      }
      if (property === 'commitIndexedRange') {
        return async (...args: Parameters<RegistryStore['commitIndexedRange']>) => {
          try {
            const result = await target.commitIndexedRange(...args);
            calls.commits.push(result);
            return result;
          } catch (error) {
            if (error instanceof IndexerLeaseLostError) calls.leaseLost++;
            throw error;
          }
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The JSON log lines written while `during` runs. */
async function logsDuring<T>(during: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> {
  const written: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    const result = await during();
    return { result, lines: written.join('').split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>) };
  } finally {
    write.mockRestore();
  }
}

/** Clients of `rpcUrl` (default the chain) with every block read (head, hash) held back `delayMs` first: a slow provider. */
function slowClients(delayMs: number, rpcUrl = chain.rpcUrl): ChainClients {
  const clients = createChainClients(rpcUrl, 10_000);
  const later = <T>(read: () => Promise<T>) => new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(read);
  return { ...clients, blockNumber: () => later(() => clients.blockNumber()), blockHash: (n) => later(() => clients.blockHash(n)) };
}

/** USDC on Base, as the note of a token payment names it. */
const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/**
 * Pays `recipient` twice with notes that name their asset (PROTOCOL.md 8.1: 113 bytes of metadata,
 * a token and the coin), indexes into `store`, and checks the rows keep the 112-byte notes and a
 * scan of the stored rows reads the asset back.
 */
async function indexesNotesNamingTheirAsset(store: RegistryStore, config = chainConfig()): Promise<void> {
  const token = await pay(recipient, { amount: 100_000_000n, chainId: 31337n, token: USDC });
  const coin = await pay(recipient, { amount: 5n * 10n ** 17n, chainId: 31337n, token: 'coin' });
  const indexer = run(store, config);
  await caughtUp(indexer);
  const rows = await allRows(store);
  const rowOf = (hash: string) => rows.find((r) => r.txHash.toLowerCase() === hash)!;
  expect(rowOf(token.receipt.transactionHash).metadata).toHaveLength(112);
  expect(rowOf(coin.receipt.transactionHash).metadata).toHaveLength(112);
  const found = createScanner(recipient).scan(rows).discoveries;
  const noteAt = (address: string) => found.find((d) => d.stealthAddress === address)?.note;
  expect(noteAt(token.payment.stealthAddress)).toEqual({ txHash: null, amount: 100_000_000n, chainId: 31337n, token: USDC });
  expect(noteAt(coin.payment.stealthAddress)).toEqual({ txHash: null, amount: 5n * 10n ** 17n, chainId: 31337n, token: 'coin' });
}

describe('the chain indexer', () => {
  it('keeps the 113-byte metadata of a note that names its asset: the row holds the 112-byte note, and a scan of it reads the token', async () => {
    const { store } = await sqliteStore();
    await indexesNotesNamingTheirAsset(store);
  });

  it('stores announcements of the configured scheme with their block, log index, stealth address and sealed note', async () => {
    const { store } = await sqliteStore();
    const { payment, receipt } = await pay(recipient, { amount: 5n * 10n ** 17n, chainId: 31337n });
    const indexer = run(store);
    await caughtUp(indexer);
    const row = (await allRows(store)).find((r) => r.txHash.toLowerCase() === receipt.transactionHash);
    expect(row).toMatchObject({
      viewTag: payment.viewTag,
      blockNumber: Number(receipt.blockNumber),
      stealthAddress: payment.stealthAddress,
      chain: 'anvil',
      amount: null,
    });
    expect(Buffer.from(row!.ephemeralKey).equals(Buffer.from(payment.ephemeralCiphertext))).toBe(true);
    expect(row!.metadata).toHaveLength(92);
    // The row's timestamp is its block's, not the time it was indexed.
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect(row!.timestamp).toBe(Number(block.timestamp));
  });

  it('skips junk events (other schemes, wrong lengths, other announcers) and never stores them', async () => {
    const { store } = await sqliteStore();
    const { payment } = await pay(stranger);
    const c = payment.ephemeralCiphertext;
    const stealthAddress = payment.stealthAddress;
    await chain.announceRaw({ schemeId: 1n, stealthAddress, ephemeralPubKey: c, metadata: new Uint8Array([payment.viewTag]) });
    await chain.announceRaw({ schemeId: 1000n, stealthAddress, ephemeralPubKey: c.subarray(0, 1087), metadata: new Uint8Array([1]) });
    await chain.announceRaw({ schemeId: 1000n, stealthAddress, ephemeralPubKey: c, metadata: new Uint8Array(2) });
    await chain.announceRaw({ schemeId: 1000n, stealthAddress, ephemeralPubKey: c, metadata: new Uint8Array(94) });
    await chain.announceRaw({ schemeId: 1000n, stealthAddress, ephemeralPubKey: c, metadata: new Uint8Array(112) });
    await chain.announceRaw({ schemeId: 1000n, stealthAddress, ephemeralPubKey: c, metadata: new Uint8Array(114) });
    await chain.announceRaw({ schemeId: 1000n, stealthAddress, ephemeralPubKey: new Uint8Array(1088), metadata: new Uint8Array(1) });
    await chain.announceRaw({ schemeId: 1000n, stealthAddress, ephemeralPubKey: c, metadata: new Uint8Array([9]) }, { announcer: chain.otherAnnouncer });
    const indexer = run(store);
    await caughtUp(indexer);
    expect(registryAnnouncements(await allRows(store))).toEqual(await canonicalAnnouncements());
    // Only well-formed scheme-1000 events of the canonical Announcer are there.
    for (const row of await allRows(store)) {
      expect(row.ephemeralKey).toHaveLength(1088);
      expect(row.metadata === null || row.metadata.length === 92 || row.metadata.length === 112).toBe(true);
    }
  });

  it('stores both announcements of one transaction', async () => {
    const { store } = await sqliteStore();
    const first = createStealthPayment(recipient.metaAddress);
    const second = createStealthPayment(recipient.metaAddress);
    const receipt = await chain.announceMany(
      [first, second].map((p) => ({
        schemeId: 1000n,
        stealthAddress: p.stealthAddress,
        ephemeralPubKey: p.ephemeralCiphertext,
        metadata: new Uint8Array([p.viewTag]),
      })),
    );
    const indexer = run(store);
    await caughtUp(indexer);
    const rows = (await allRows(store)).filter((r) => r.txHash.toLowerCase() === receipt.transactionHash);
    expect(rows.map((r) => r.stealthAddress)).toEqual([first.stealthAddress, second.stealthAddress]);
    expect(new Set(rows.map((r) => r.logIndex)).size).toBe(2);
  });

  it('resumes after a restart exactly where it stopped: nothing lost, nothing stored twice', async () => {
    const { url, store } = await sqliteStore();
    for (let i = 0; i < 8; i++) await pay(i % 2 ? recipient : stranger);
    const first = run(store, chainConfig({ maxBlockRange: 2 }), 'first');
    const head = Number(await chain.blockNumber());
    await first.waitForBlock(Math.floor(head / 2), 60_000);
    await first.stop();
    await store.close();
    for (let i = 0; i < 3; i++) await pay();

    const reopened = await createSqliteStore(url);
    cleanups.push(() => reopened.close());
    const second = run(reopened, chainConfig({ maxBlockRange: 2 }), 'second');
    await caughtUp(second);
    const rows = await allRows(reopened);
    expect(registryAnnouncements(rows)).toEqual(await canonicalAnnouncements());
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });

  it('undoes the rows of blocks a reorganisation removed, so the registry equals the canonical chain', async () => {
    const { store } = await sqliteStore();
    await pay();
    const indexer = run(store);
    await caughtUp(indexer);
    const doomed = [await pay(), await pay()];
    await caughtUp(indexer);
    const before = (await allRows(store)).map((r) => r.txHash.toLowerCase());
    for (const { receipt } of doomed) expect(before).toContain(receipt.transactionHash);

    await chain.reorg(2); // the last two blocks, each holding one of `doomed`, become empty blocks
    const after = await pay(); // a new block on the new chain
    await indexer.waitForBlock(Number(after.receipt.blockNumber), 60_000);
    const rows = await allRows(store);
    const hashes = rows.map((r) => r.txHash.toLowerCase());
    for (const { receipt } of doomed) expect(hashes).not.toContain(receipt.transactionHash);
    expect(hashes).toContain(after.receipt.transactionHash);
    expect(registryAnnouncements(rows)).toEqual(await canonicalAnnouncements());
    // The per-tag counts follow the deletions.
    expect((await store.stats()).totalAnnouncements).toBe(rows.length);
  });

  it('yields the exact set through a provider that fails 30 % of calls and refuses ranges over 2 blocks', async () => {
    const { store } = await sqliteStore();
    for (let i = 0; i < 6; i++) await pay(i % 3 ? stranger : recipient);
    const proxy = await startRpcFaultProxy({ target: chain.rpcUrl, failureRate: 0.3, maxLogRange: 2, seed: 7, hangMs: 1_000 });
    cleanups.push(() => proxy.close());
    // Calls time out after 400 ms, so hung ones are retried quickly.
    const indexer = run(store, chainConfig({ rpcUrl: proxy.url, maxBlockRange: 50 }), undefined, 400);
    await caughtUp(indexer);
    expect(registryAnnouncements(await allRows(store))).toEqual(await canonicalAnnouncements());
    expect(proxy.stats.refusedRanges).toBeGreaterThan(0);
    expect(Object.values(proxy.stats.failed).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('keeps retrying while the provider is down and catches up once it is back, skipping nothing', async () => {
    const { store } = await sqliteStore();
    const proxy = await startRpcFaultProxy({ target: chain.rpcUrl, failureRate: 1, modes: ['5xx'] });
    cleanups.push(() => proxy.close());
    await pay();
    const indexer = run(store, chainConfig({ rpcUrl: proxy.url }), undefined, 400);
    await expect.poll(() => indexer.status().failures, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(indexer.status().lastError).not.toMatch(/127\.0\.0\.1|http:/); // no URL in what /health shows
    proxy.configure({ failureRate: 0 });
    await caughtUp(indexer);
    expect(indexer.status().failures).toBe(0);
    expect(registryAnnouncements(await allRows(store))).toEqual(await canonicalAnnouncements());
  });
});

describe('the chain indexer under reorganisations and slow providers', () => {
  it('stores the chain id it was given on every row', async () => {
    const { store } = await sqliteStore();
    const { receipt } = await pay();
    const indexer = run(store);
    await caughtUp(indexer);
    const row = (await allRows(store)).find((r) => r.txHash.toLowerCase() === receipt.transactionHash);
    expect(row?.chainId).toBe(chain.chainId);
  });

  it('rewinds a depth-3 reorganisation after a 35-block burst to its fork point: exactly the rows of the 3 replaced blocks are undone', async () => {
    const { store } = await sqliteStore();
    const calls: StoreCalls = { rewinds: [], commits: [], leaseLost: 0 };
    const startBlock = Number(await chain.blockNumber()) + 1;
    for (let i = 0; i < 35; i++) await pay(i % 2 ? recipient : stranger); // 35 blocks, one announcement each
    const head = Number(await chain.blockNumber());
    // One range covers the whole burst, as for an indexer that was caught up when the burst came.
    const indexer = run(recorded(store, calls), chainConfig({ startBlock, maxBlockRange: 100 }));
    await caughtUp(indexer);
    expect(calls.commits.reduce((n, c) => n + c.inserted, 0)).toBe(35);
    const replaced = (await allRows(store)).filter((r) => r.blockNumber! > head - 3).map((r) => r.txHash.toLowerCase());
    expect(replaced).toHaveLength(3);

    await chain.reorg(3);
    const after = await pay();
    calls.commits.length = 0;
    await indexer.waitForBlock(Number(after.receipt.blockNumber), 60_000);
    // Back to the newest block both forks share, not to the previous range's end (startBlock - 1).
    expect(calls.rewinds).toEqual([{ toBlock: head - 3, removed: 3 }]);
    // Nothing of the 32 unchanged blocks was indexed again: only the new payment.
    expect(calls.commits.reduce((n, c) => n + c.inserted, 0)).toBe(1);
    const hashes = (await allRows(store)).map((r) => r.txHash.toLowerCase());
    for (const hash of replaced) expect(hashes).not.toContain(hash);
    expect(registryAnnouncements(await allRows(store))).toEqual(await canonicalAnnouncements(startBlock));
  });

  it('keeps its lease through ticks slower than the lease: no work thrown away, no "lease lost"', async () => {
    const { store } = await sqliteStore();
    const calls: StoreCalls = { rewinds: [], commits: [], leaseLost: 0 };
    const startBlock = Number(await chain.blockNumber()) + 1;
    for (let i = 0; i < 3; i++) await pay();
    // Every block read takes 700 ms and a tick reads at least three: each tick outlives the 1 s lease.
    const { lines } = await logsDuring(async () => {
      const indexer = run(recorded(store, calls), chainConfig({ startBlock, maxBlockRange: 1, leaseMs: 1_000 }), 'slow', 5_000, slowClients(700));
      await caughtUp(indexer);
    });
    expect(calls.leaseLost).toBe(0);
    expect(lines.filter((line) => String(line['msg']).includes('lease'))).toEqual([]);
    expect(registryAnnouncements(await allRows(store))).toEqual(await canonicalAnnouncements(startBlock));
  });

  it('throws no work away under a flaky, slow provider (25 % faults, 700 ms reads, a 1 s lease)', async () => {
    const { store } = await sqliteStore();
    const calls: StoreCalls = { rewinds: [], commits: [], leaseLost: 0 };
    const startBlock = Number(await chain.blockNumber()) + 1;
    for (let i = 0; i < 4; i++) await pay(i % 2 ? recipient : stranger);
    const proxy = await startRpcFaultProxy({ target: chain.rpcUrl, failureRate: 0.25, modes: ['429', '5xx', 'reset'], seed: 24 });
    cleanups.push(() => proxy.close());
    const { lines } = await logsDuring(async () => {
      const indexer = run(recorded(store, calls), chainConfig({ startBlock, maxBlockRange: 2, leaseMs: 1_000, rpcUrl: proxy.url }), 'flaky', 5_000, slowClients(700, proxy.url));
      await caughtUp(indexer);
    });
    expect(Object.values(proxy.stats.failed).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(calls.leaseLost).toBe(0);
    expect(lines.filter((line) => String(line['msg']).includes('lease'))).toEqual([]);
    expect(registryAnnouncements(await allRows(store))).toEqual(await canonicalAnnouncements(startBlock));
  });

  it('says the lease lapsed, not that another instance took over, when nobody else holds it', async () => {
    const { store } = await sqliteStore();
    const startBlock = Number(await chain.blockNumber()) + 1;
    await pay();
    // Renewals during a tick fail (a registry hiccup): the 1 s lease lapses under the slow tick.
    let inTick = false;
    let lapses = 0;
    const failingRenewals = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'acquireIndexerLease') {
          return (...args: Parameters<RegistryStore['acquireIndexerLease']>) => {
            if (inTick) return Promise.reject(new Error('registry hiccup'));
            inTick = true;
            return target.acquireIndexerLease(...args);
          };
        }
        if (property === 'commitIndexedRange') {
          return (...args: Parameters<RegistryStore['commitIndexedRange']>) =>
            target.commitIndexedRange(...args).finally(() => {
              inTick = false;
              lapses++;
            });
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { lines } = await logsDuring(async () => {
      const indexer = run(failingRenewals, chainConfig({ startBlock, maxBlockRange: 1, leaseMs: 1_000 }), 'alone', 5_000, slowClients(800));
      await expect.poll(() => lapses, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      await indexer.stop();
    });
    const lost = lines.filter((line) => String(line['msg']).includes('lease'));
    expect(lost.length).toBeGreaterThan(0);
    for (const line of lost) expect(line['msg']).toMatch(/lapsed during a tick \(no other instance holds it\)/);
  });
});

describeWithPostgres('two instances on one PostgreSQL registry', (cluster) => {

  it('keeps the 112-byte notes that name their asset in PostgreSQL, and a scan of the rows reads the token', async () => {
    const store = await createPostgresStore(await cluster().freshSchema(), { timeoutMs: 2_000 });
    cleanups.push(() => store.close());
    await indexesNotesNamingTheirAsset(store);
  });

  it('index once: one leads, the other takes over when the leader dies, and every announcement is stored exactly once', async () => {
    const url = await cluster().freshSchema();
    const storeA = await createPostgresStore(url, { timeoutMs: 2_000 });
    const storeB = await createPostgresStore(url, { timeoutMs: 2_000 });
    cleanups.push(() => storeB.close());
    for (let i = 0; i < 4; i++) await pay();
    const config = chainConfig({ leaseMs: 1_500 });
    const a = run(storeA, config, 'instance-a');
    await caughtUp(a);
    const b = run(storeB, config, 'instance-b');
    // Both running: exactly one leads.
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect([a.status().leader, b.status().leader].filter(Boolean)).toHaveLength(1);
    }
    expect(a.status().leader).toBe(true);

    // The leader dies (its database connections go away without releasing the lease).
    await storeA.close();
    for (let i = 0; i < 4; i++) await pay();
    await caughtUp(b);
    expect(b.status().leader).toBe(true);
    const rows = await allRows(storeB);
    expect(registryAnnouncements(rows)).toEqual(await canonicalAnnouncements());
    expect(new Set(registryAnnouncements(rows)).size).toBe(rows.length);
  });
});
