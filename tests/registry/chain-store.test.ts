/**
 * The registry stores' chain side (lib/registry/store.ts, PROTOCOL.md sections 6 and 7), against
 * memory, SQLite and PostgreSQL alike: indexed ranges committed under a lease, reorganisations
 * undone, HTTP and chain rows of one announcement stored once, verified publishes.
 */
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createMemoryStore } from '../../lib/registry/memory.ts';
import { createPostgresStore } from '../../lib/registry/postgres.ts';
import { createSqliteStore } from '../../lib/registry/sqlite.ts';
import { DuplicateAnnouncementError, IndexerLeaseLostError, type ChainEvent, type RegistryStore, type StoredAnnouncement } from '../../lib/registry/store.ts';
import { announcement, randomBytes, randomTxHash, temporaryDirectory } from './fixtures/announcements.ts';
import { POSTGRES_MISSING, postgresOrSkip, startPostgres, type PostgresCluster } from '../helpers/postgres.ts';

const directory = temporaryDirectory();
afterAll(() => directory.remove());
let files = 0;
let cluster: Promise<PostgresCluster> | undefined;
afterAll(async () => (await cluster)?.destroy());

type Factory = () => Promise<{ store: RegistryStore; second: () => Promise<RegistryStore> }>;
const STORES: [string, Factory][] = [
  [
    'memory',
    async () => {
      const store = createMemoryStore();
      return { store, second: async () => store };
    },
  ],
  [
    'sqlite',
    async () => {
      const url = `file:${directory.path}/chain-${++files}.db`;
      return { store: await createSqliteStore(url), second: () => createSqliteStore(url) };
    },
  ],
];
if (postgresOrSkip()) {
  STORES.push([
    'postgres',
    async () => {
      cluster ??= startPostgres();
      const url = await (await cluster).freshSchema();
      return { store: await createPostgresStore(url, { poolSize: 4 }), second: () => createPostgresStore(url, { poolSize: 4 }) };
    },
  ]);
} else {
  describe.skip(`the postgres store's chain side (${POSTGRES_MISSING})`, () => {
    it('runs every case of this table', () => undefined);
  });
}

const KEY = 'anvil:0x55649e01b5df198d18d95b5cc5051630cfd45564:1000';

function event(blockNumber: number, logIndex: number, overrides: Partial<ChainEvent> = {}): ChainEvent {
  return {
    ephemeralKey: randomBytes(1088),
    viewTag: (blockNumber * 7 + logIndex) % 256,
    txHash: randomTxHash(),
    logIndex,
    blockNumber,
    timestamp: 1_700_000_000 + blockNumber * 12,
    stealthAddress: '0x' + 'Ab'.repeat(20),
    metadata: randomBytes(92),
    chain: 'anvil',
    ...overrides,
  };
}

async function allRows(store: RegistryStore): Promise<StoredAnnouncement[]> {
  return (await store.list({}, { limit: 5000 })).announcements;
}

describe.each(STORES)('the %s store, chain side', (_name, factory) => {
  async function open() {
    const opened = await factory();
    onTestFinished(() => opened.store.close());
    return opened;
  }

  it('commits a range in chain order with its cursor and checkpoint, and a second commit of it stores nothing twice', async () => {
    const { store } = await open();
    expect(await store.acquireIndexerLease(KEY, 'a', 10_000)).toEqual({ nextBlock: null, checkpoints: [] });
    const events = [event(3, 0), event(3, 5), event(7, 1)];
    expect(await store.commitIndexedRange(KEY, 'a', { fromBlock: 0, toBlock: 9, toBlockHash: '0x09', events })).toEqual({ inserted: 3, completed: 0, existing: 0 });
    // A restart that reads the same blocks again (it had not seen the commit) changes nothing.
    expect(await store.commitIndexedRange(KEY, 'a', { fromBlock: 0, toBlock: 9, toBlockHash: '0x09', events })).toEqual({ inserted: 0, completed: 0, existing: 3 });
    const rows = await allRows(store);
    expect(rows.map((r) => [r.blockNumber, r.logIndex])).toEqual([[3, 0], [3, 5], [7, 1]]);
    expect(rows[0]).toMatchObject({ txHash: events[0]!.txHash, stealthAddress: events[0]!.stealthAddress, timestamp: events[0]!.timestamp, chain: 'anvil', amount: null });
    expect(Buffer.from(rows[0]!.metadata!).equals(Buffer.from(events[0]!.metadata!))).toBe(true);
    expect(await store.acquireIndexerLease(KEY, 'a', 10_000)).toEqual({ nextBlock: 10, checkpoints: [{ blockNumber: 9, blockHash: '0x09' }] });
    expect(await store.indexerStatus(KEY)).toMatchObject({ nextBlock: 10, owner: 'a' });
    expect(await store.count()).toBe(3);
  });

  it('stores both announcements of one transaction, and refuses an HTTP publish of that transaction', async () => {
    const { store } = await open();
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const txHash = randomTxHash();
    await store.commitIndexedRange(KEY, 'a', { fromBlock: 0, toBlock: 4, toBlockHash: '0x04', events: [event(4, 0, { txHash }), event(4, 1, { txHash })] });
    expect((await allRows(store)).map((r) => r.logIndex)).toEqual([0, 1]);
    await expect(store.publish(announcement({ txHash: txHash.toUpperCase().replace('0X', '0x') }))).rejects.toThrow(DuplicateAnnouncementError);
  });

  it('completes an HTTP publish in place when the indexer reaches its event: one row', async () => {
    const { store } = await open();
    const published = await store.publish(announcement({ amount: '1 ETH', chain: 'ethereum' }));
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const chained = event(2, 3, { txHash: ` ${published.txHash.toUpperCase().replace('0X', '0x')} `, ephemeralKey: published.ephemeralKey, viewTag: published.viewTag });
    expect(await store.commitIndexedRange(KEY, 'a', { fromBlock: 0, toBlock: 2, toBlockHash: '0x02', events: [chained] })).toEqual({ inserted: 0, completed: 1, existing: 0 });
    const rows = await allRows(store);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: published.id, amount: '1 ETH', blockNumber: 2, logIndex: 3, stealthAddress: chained.stealthAddress, timestamp: published.timestamp });
    // A reorganisation takes the chain's fields away again, not the publisher's row.
    expect(await store.rewindIndexedRange(KEY, 'a', 1)).toEqual({ removed: 0 });
    expect(await allRows(store)).toEqual([expect.objectContaining({ id: published.id, blockNumber: null, logIndex: null, stealthAddress: null })]);
  });

  it('undoes a reorganisation: rows of later blocks go, counts follow, keys are free again, ids are never reused', async () => {
    const { store } = await open();
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const kept = event(1, 0, { viewTag: 9 });
    const doomed = [event(5, 0, { viewTag: 9 }), event(6, 2, { viewTag: 10 })];
    await store.commitIndexedRange(KEY, 'a', { fromBlock: 0, toBlock: 3, toBlockHash: '0x03', events: [kept] });
    await store.commitIndexedRange(KEY, 'a', { fromBlock: 4, toBlock: 6, toBlockHash: '0x06', events: doomed });
    const before = await allRows(store);
    expect(await store.rewindIndexedRange(KEY, 'a', 3)).toEqual({ removed: 2 });
    expect((await allRows(store)).map((r) => r.txHash)).toEqual([kept.txHash]);
    expect(await store.stats()).toEqual({ totalAnnouncements: 1, viewTagDistribution: [{ tag: 9, count: 1 }] });
    expect((await store.list({ viewTags: [9, 10] }, { limit: 10 })).total).toBe(1);
    expect(await store.acquireIndexerLease(KEY, 'a', 10_000)).toEqual({ nextBlock: 4, checkpoints: [{ blockNumber: 3, blockHash: '0x03' }] });
    // The new chain holds one of them again, in another block.
    const again = { ...doomed[0]!, blockNumber: 4 };
    expect(await store.commitIndexedRange(KEY, 'a', { fromBlock: 4, toBlock: 6, toBlockHash: '0x06b', events: [again] })).toEqual({ inserted: 1, completed: 0, existing: 0 });
    const after = await allRows(store);
    expect(after.at(-1)!.id).toBeGreaterThan(Math.max(...before.map((r) => r.id)));
  });

  it('fences writes with the lease: another owner waits, takes over after expiry, and the stale owner writes nothing', async () => {
    const { store, second } = await open();
    const other = await second();
    if (other !== store) onTestFinished(() => other.close());
    expect(await store.acquireIndexerLease(KEY, 'a', 300)).not.toBeNull();
    expect(await other.acquireIndexerLease(KEY, 'b', 300)).toBeNull();
    await expect(other.commitIndexedRange(KEY, 'b', { fromBlock: 0, toBlock: 1, toBlockHash: '0x01', events: [event(1, 0)] })).rejects.toThrow(IndexerLeaseLostError);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await other.acquireIndexerLease(KEY, 'b', 10_000)).toEqual({ nextBlock: null, checkpoints: [] });
    await expect(store.commitIndexedRange(KEY, 'a', { fromBlock: 0, toBlock: 1, toBlockHash: '0x01', events: [event(1, 0)] })).rejects.toThrow(IndexerLeaseLostError);
    await expect(store.rewindIndexedRange(KEY, 'a', 0)).rejects.toThrow(IndexerLeaseLostError);
    expect(await store.count()).toBe(0);
    expect(await store.indexerStatus(KEY)).toMatchObject({ owner: 'b', nextBlock: null });
    // A clean release hands the lease over at once.
    await other.releaseIndexerLease(KEY, 'b');
    expect(await store.acquireIndexerLease(KEY, 'a', 10_000)).not.toBeNull();
  });

  it('stores a verified publish as its chain row once, and the indexer finds it already there', async () => {
    const { store } = await open();
    const proved = event(8, 4);
    const stored = await store.publishVerified({ ...proved, amount: '42', channelId: null });
    expect(stored).toMatchObject({ blockNumber: 8, logIndex: 4, amount: '42', stealthAddress: proved.stealthAddress });
    await expect(store.publishVerified({ ...proved, amount: null, channelId: null })).rejects.toThrow(DuplicateAnnouncementError);
    await expect(store.publish(announcement({ txHash: proved.txHash }))).rejects.toThrow(DuplicateAnnouncementError);
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    expect(await store.commitIndexedRange(KEY, 'a', { fromBlock: 0, toBlock: 9, toBlockHash: '0x09', events: [proved] })).toEqual({ inserted: 0, completed: 0, existing: 1 });
    expect(await allRows(store)).toEqual([expect.objectContaining({ id: stored.id, amount: '42' })]);
  });

  it('drops a verified row whose event the chain no longer holds once the indexer reads its block', async () => {
    const { store } = await open();
    const orphan = event(5, 0);
    await store.publishVerified({ ...orphan, amount: null, channelId: null });
    const ahead = event(20, 0);
    await store.publishVerified({ ...ahead, amount: null, channelId: null });
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const replacement = event(5, 1);
    await store.commitIndexedRange(KEY, 'a', { fromBlock: 0, toBlock: 10, toBlockHash: '0x10', events: [replacement] });
    // Block 5 now holds another event; block 20 is not indexed yet, so its row stays.
    expect((await allRows(store)).map((r) => r.txHash).sort()).toEqual([ahead.txHash, replacement.txHash].sort());
    expect(await store.count()).toBe(2);
  });
});
