/**
 * Scheme backfill (lib/chain/indexer.ts): a deployment that indexed with this format's scheme id
 * alone (`ANNOUNCER_SCHEME_ID=1000`, or `ANNOUNCER_SCHEME_IDS=1000`) and restarts following
 * `1000,3` finds the scheme-3 payments of the blocks its cursor had already passed, stores no
 * row twice, and a restart after that reads nothing new. On anvil with the Announcer at its
 * canonical address, the registry in a SQLite file and in PostgreSQL (two instances: one does the
 * backfill, under its own lease).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createStealthPayment, erc8441KeysOf, generateKeys } from '@wraith-pq/sdk';
import { ANNOUNCER_ADDRESS, fetchAnnouncements } from '@wraith-pq/sdk/evm';
import type { ChainConfig } from '../../lib/config.ts';
import { backfillKey, indexerKey, startIndexer, type Indexer } from '../../lib/chain/indexer.ts';
import { createSqliteStore } from '../../lib/registry/sqlite.ts';
import { createPostgresStore } from '../../lib/registry/postgres.ts';
import type { RegistryStore, StoredAnnouncement } from '../../lib/registry/store.ts';
import { startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { describeWithPostgres } from '../helpers/postgres.ts';
import { temporaryDirectory } from '../helpers/server.ts';

const identity = generateKeys();
const scheme3 = erc8441KeysOf(identity);

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

function chainConfig(schemeIds: bigint[], startBlock: number, overrides: Partial<ChainConfig> = {}): ChainConfig {
  return {
    rpcUrl: chain.rpcUrl,
    name: 'anvil',
    announcer: ANNOUNCER_ADDRESS.toLowerCase() as `0x${string}`,
    // lib/config.ts: the cursor is named by the first id other than 3, 1000 by default.
    schemeId: 1000n,
    schemeIds,
    startBlock,
    confirmations: 0,
    pollMs: 50,
    // Small ranges: the backfill walks several of them.
    maxBlockRange: 3,
    leaseMs: 2_000,
    ...overrides,
  };
}

function run(store: RegistryStore, config: ChainConfig, owner?: string): Indexer {
  const indexer = startIndexer({ store, config, chainId: chain.chainId, timeoutMs: 5_000, ...(owner === undefined ? {} : { owner }) });
  cleanups.push(() => indexer.stop());
  return indexer;
}

/** Payments of both schemes to one identity, one block each, alternating. */
async function payBoth(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await chain.announce(createStealthPayment(scheme3.metaAddress), { amount: BigInt(300 + i) });
    await chain.announce(createStealthPayment(identity.metaAddress), { amount: BigInt(1000 + i) });
  }
}

async function allRows(store: RegistryStore): Promise<StoredAnnouncement[]> {
  const rows: StoredAnnouncement[] = [];
  for (;;) {
    const { announcements } = await store.list({}, { limit: 1000, afterId: rows.at(-1)?.id ?? 0 });
    rows.push(...announcements);
    if (announcements.length < 1000) return rows;
  }
}

const position = (schemeId: number, txHash: string, logIndex: number | null) => `${schemeId}:${txHash.toLowerCase()}:${logIndex}`;

/** `scheme:tx:logIndex` of every valid announcement of `schemeIds` on the chain from `fromBlock`, sorted. */
async function onChain(fromBlock: number, schemeIds: bigint[]): Promise<string[]> {
  const { announcements } = await fetchAnnouncements({ client: chain.publicClient, fromBlock: BigInt(fromBlock), toBlock: await chain.blockNumber(), schemeId: schemeIds });
  return announcements.map((a) => position(a.schemeId, a.txHash, a.logIndex)).sort();
}

function inRegistry(rows: StoredAnnouncement[]): string[] {
  return rows.map((row) => position(row.schemeId, row.txHash, row.logIndex)).sort();
}

async function caughtUp(indexer: Indexer): Promise<void> {
  await indexer.waitForBlock(Number(await chain.blockNumber()), 60_000);
  await indexer.backfilled();
}

/** The story on one registry: index 1000 alone, restart following 1000,3, restart again. */
async function upgradeStory(open: () => Promise<RegistryStore>): Promise<void> {
  const startBlock = Number(await chain.blockNumber()) + 1;
  await payBoth(4);

  // Before: the cursor is named by 1000 and follows 1000 alone (the old setting).
  let store = await open();
  const old = run(store, chainConfig([1000n], startBlock));
  await caughtUp(old);
  await old.stop();
  const before = await allRows(store);
  expect(before.map((row) => row.schemeId)).toEqual([1000, 1000, 1000, 1000]);
  const cursor = (await store.indexerStatus(indexerKey(chainConfig([1000n], startBlock)))).nextBlock!;
  expect(cursor).toBe(Number(await chain.blockNumber()) + 1);
  await store.close();

  // Payments keep arriving while the server is down for its upgrade.
  await payBoth(2);

  // After: 1000,3. The scheme-3 payments of the blocks the cursor had passed are found too.
  store = await open();
  // A long lease, so that a backfill lease left held would still show as held below.
  const upgraded = run(store, chainConfig([1000n, 3n], startBlock, { leaseMs: 30_000 }));
  await caughtUp(upgraded);
  const after = await allRows(store);
  expect(inRegistry(after)).toEqual(await onChain(startBlock, [1000n, 3n]));
  expect(after.filter((row) => row.schemeId === 3)).toHaveLength(6);
  expect(new Set(inRegistry(after)).size, 'no row stored twice').toBe(after.length);
  // The rows indexed before the upgrade are the same rows (same ids), not copies.
  const byPosition = new Map(after.map((row) => [position(row.schemeId, row.txHash, row.logIndex), row.id]));
  for (const row of before) expect(byPosition.get(position(row.schemeId, row.txHash, row.logIndex))).toBe(row.id);
  // Scheme-3 rows carry the chain and their full 1121-byte epk || ct.
  for (const row of after.filter((r) => r.schemeId === 3)) {
    expect(row.ephemeralKey).toHaveLength(1121);
    expect(row.chainId).toBe(chain.chainId);
  }
  // The backfill's own cursor stands where the main one stood when it began: at or past the
  // block the old setting stopped at (the main indexer may have moved on before it was read).
  const backfilledTo = (await store.indexerStatus(backfillKey(chainConfig([1000n, 3n], startBlock), 3n))).nextBlock!;
  expect(backfilledTo).toBeGreaterThanOrEqual(cursor);
  expect(backfilledTo).toBeLessThanOrEqual((await store.indexerStatus(indexerKey(chainConfig([1000n, 3n], startBlock)))).nextBlock!);
  // Its lease is released once done: another instance is not kept waiting for it.
  expect((await store.indexerStatus(backfillKey(chainConfig([1000n, 3n], startBlock), 3n))).owner).toBeNull();
  await upgraded.stop();

  // A later restart: nothing new, nothing twice; payments after it are still indexed.
  await payBoth(1);
  const again = run(store, chainConfig([1000n, 3n], startBlock));
  await caughtUp(again);
  const final = await allRows(store);
  expect(inRegistry(final)).toEqual(await onChain(startBlock, [1000n, 3n]));
  expect(final).toHaveLength(after.length + 2);
  await again.stop();
  await store.close();
}

describe('scheme backfill when ANNOUNCER_SCHEME_IDS gains 3', () => {
  it('SQLite: a deployment that indexed scheme 1000 alone finds the scheme-3 payments of blocks it had passed after restarting with 1000,3, storing no row twice', async () => {
    const dir = temporaryDirectory('wraith-backfill-');
    cleanups.push(() => dir.remove());
    await upgradeStory(() => createSqliteStore(`file:${dir.path}/registry.db`));
  });

  it('a new deployment following 1000,3 from the start has nothing to backfill and reads each block once', async () => {
    const dir = temporaryDirectory('wraith-backfill-new-');
    cleanups.push(() => dir.remove());
    const startBlock = Number(await chain.blockNumber()) + 1;
    await payBoth(2);
    const store = await createSqliteStore(`file:${dir.path}/registry.db`);
    cleanups.push(() => store.close());
    const config = chainConfig([1000n, 3n], startBlock);
    const indexer = run(store, config);
    await caughtUp(indexer);
    expect(inRegistry(await allRows(store))).toEqual(await onChain(startBlock, [1000n, 3n]));
    // No backfill ran: its cursor was never created.
    expect((await store.indexerStatus(backfillKey(config, 3n))).nextBlock).toBeNull();
  });
});

describe('scheme backfill interrupted', () => {
  it('a server stopped in the middle of a backfill resumes it from its own cursor at the next start, and ends with every scheme-3 payment stored once', async () => {
    const dir = temporaryDirectory('wraith-backfill-stop-');
    cleanups.push(() => dir.remove());
    const startBlock = Number(await chain.blockNumber()) + 1;
    await payBoth(5);
    const store = await createSqliteStore(`file:${dir.path}/registry.db`);
    cleanups.push(() => store.close());
    const old = run(store, chainConfig([1000n], startBlock, { maxBlockRange: 1 }));
    await caughtUp(old);
    await old.stop();
    const cursor = (await store.indexerStatus(indexerKey(chainConfig([1000n], startBlock)))).nextBlock!;

    // The backfill's commits are slowed, and the server stops after its first one.
    let backfillCommits = 0;
    const slow = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'commitIndexedRange') {
          return async (...args: Parameters<RegistryStore['commitIndexedRange']>) => {
            if (args[0].endsWith(':3')) await new Promise((resolve) => setTimeout(resolve, 200));
            const result = await target.commitIndexedRange(...args);
            if (args[0].endsWith(':3')) backfillCommits++;
            return result;
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const first = run(slow, chainConfig([1000n, 3n], startBlock, { maxBlockRange: 1 }));
    await expect.poll(() => backfillCommits, { timeout: 30_000, interval: 10 }).toBeGreaterThanOrEqual(1);
    await first.stop();
    const stoppedAt = (await store.indexerStatus(backfillKey(chainConfig([1000n, 3n], startBlock), 3n))).nextBlock!;
    expect(stoppedAt, 'stopped in the middle').toBeGreaterThan(startBlock);
    expect(stoppedAt).toBeLessThan(cursor);
    expect((await allRows(store)).filter((row) => row.schemeId === 3).length).toBeLessThan(5);

    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    try {
      const second = run(store, chainConfig([1000n, 3n], startBlock, { maxBlockRange: 1 }));
      await caughtUp(second);
    } finally {
      write.mockRestore();
    }
    // It took up where it stopped, not at the start block.
    const resumed = written.join('').split('\n').filter((line) => line.includes('"scheme backfill leading"')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(resumed.map((line) => line['next_block'])).toEqual([stoppedAt]);
    const rows = await allRows(store);
    expect(inRegistry(rows)).toEqual(await onChain(startBlock, [1000n, 3n]));
    expect(rows.filter((row) => row.schemeId === 3)).toHaveLength(5);
    expect(new Set(inRegistry(rows)).size).toBe(rows.length);
  });
});

describeWithPostgres('scheme backfill on PostgreSQL', (cluster) => {

  it('the same upgrade on PostgreSQL: the scheme-3 payments of passed blocks are found, no row twice', async () => {
    const url = await cluster().freshSchema();
    await upgradeStory(() => createPostgresStore(url, { timeoutMs: 5_000 }));
  });

  it('two upgraded instances on one registry: both see the backfill done, and every event of both schemes is stored exactly once', async () => {
    const url = await cluster().freshSchema();
    const startBlock = Number(await chain.blockNumber()) + 1;
    await payBoth(3);
    const storeA = await createPostgresStore(url, { timeoutMs: 5_000 });
    const storeB = await createPostgresStore(url, { timeoutMs: 5_000 });
    cleanups.push(() => storeA.close(), () => storeB.close());
    const old = run(storeA, chainConfig([1000n], startBlock), 'old');
    await caughtUp(old);
    await old.stop();
    await payBoth(1);
    const a = run(storeA, chainConfig([1000n, 3n], startBlock), 'instance-a');
    const b = run(storeB, chainConfig([1000n, 3n], startBlock), 'instance-b');
    // One of them leads the main cursor; both wait for the backfill (one reads, the other finds it done).
    const head = Number(await chain.blockNumber());
    await Promise.any([a.waitForBlock(head, 60_000), b.waitForBlock(head, 60_000)]);
    await Promise.all([a.backfilled(), b.backfilled()]);
    const rows = await allRows(storeA);
    expect(inRegistry(rows)).toEqual(await onChain(startBlock, [1000n, 3n]));
    expect(rows.filter((row) => row.schemeId === 3)).toHaveLength(4);
    expect(new Set(inRegistry(rows)).size).toBe(rows.length);
  });
});
