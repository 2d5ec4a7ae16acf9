/**
 * The registry stores' chain side (lib/registry/store.ts, PROTOCOL.md sections 6 and 7), against
 * memory, SQLite and PostgreSQL alike: indexed ranges committed under a lease, reorganisations
 * undone, HTTP and chain rows of one announcement stored once, verified publishes.
 */
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { encodeAnnouncementPage, equalBytes } from '@wraith-pq/sdk';
import { createMemoryStore } from '../../lib/registry/memory.ts';
import { createPostgresStore } from '../../lib/registry/postgres.ts';
import { createSqliteStore } from '../../lib/registry/sqlite.ts';
import { DuplicateAnnouncementError, IndexerLeaseLostError, type ChainEvent, type RegistryStore, type StoredAnnouncement } from '../../lib/registry/store.ts';
import { pageEtag } from '../../lib/service/registry-binary.ts';
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
/** The EIP-155 id of the chain the events come from (anvil's default). */
const CHAIN = 31337;

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
    chainId: CHAIN,
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
    expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 9, toBlockHash: '0x09', events })).toEqual({ inserted: 3, completed: 0, existing: 0 });
    // A restart that reads the same blocks again (it had not seen the commit) changes nothing.
    expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 9, toBlockHash: '0x09', events })).toEqual({ inserted: 0, completed: 0, existing: 3 });
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
    await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 4, toBlockHash: '0x04', events: [event(4, 0, { txHash }), event(4, 1, { txHash })] });
    expect((await allRows(store)).map((r) => r.logIndex)).toEqual([0, 1]);
    await expect(store.publish(announcement({ txHash: txHash.toUpperCase().replace('0X', '0x') }))).rejects.toThrow(DuplicateAnnouncementError);
  });

  it('completes an HTTP publish in place when the indexer reaches its event: one row', async () => {
    const { store } = await open();
    const published = await store.publish(announcement({ amount: '1 ETH', chain: 'ethereum' }));
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const chained = event(2, 3, { txHash: ` ${published.txHash.toUpperCase().replace('0X', '0x')} `, ephemeralKey: published.ephemeralKey, viewTag: published.viewTag });
    expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 2, toBlockHash: '0x02', events: [chained] })).toEqual({ inserted: 0, completed: 1, existing: 0 });
    const rows = await allRows(store);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: published.id, amount: '1 ETH', blockNumber: 2, logIndex: 3, stealthAddress: chained.stealthAddress, timestamp: published.timestamp });
    // A reorganisation takes the chain's fields away again, not the publisher's row.
    expect(await store.rewindIndexedRange(KEY, 'a', 1, CHAIN)).toEqual({ removed: 0 });
    expect(await allRows(store)).toEqual([expect.objectContaining({ id: published.id, blockNumber: null, logIndex: null, stealthAddress: null })]);
  });

  it('undoes a reorganisation: rows of later blocks go, counts follow, keys are free again, ids are never reused', async () => {
    const { store } = await open();
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const kept = event(1, 0, { viewTag: 9 });
    const doomed = [event(5, 0, { viewTag: 9 }), event(6, 2, { viewTag: 10 })];
    await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 3, toBlockHash: '0x03', events: [kept] });
    await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 4, toBlock: 6, toBlockHash: '0x06', events: doomed });
    const before = await allRows(store);
    expect(await store.rewindIndexedRange(KEY, 'a', 3, CHAIN)).toEqual({ removed: 2 });
    expect((await allRows(store)).map((r) => r.txHash)).toEqual([kept.txHash]);
    expect(await store.stats()).toEqual({ totalAnnouncements: 1, viewTagDistribution: [{ tag: 9, count: 1 }] });
    expect((await store.list({ viewTags: [9, 10] }, { limit: 10 })).total).toBe(1);
    expect(await store.acquireIndexerLease(KEY, 'a', 10_000)).toEqual({ nextBlock: 4, checkpoints: [{ blockNumber: 3, blockHash: '0x03' }] });
    // The new chain holds one of them again, in another block.
    const again = { ...doomed[0]!, blockNumber: 4 };
    expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 4, toBlock: 6, toBlockHash: '0x06b', events: [again] })).toEqual({ inserted: 1, completed: 0, existing: 0 });
    const after = await allRows(store);
    expect(after.at(-1)!.id).toBeGreaterThan(Math.max(...before.map((r) => r.id)));
  });

  it('fences writes with the lease: another owner waits, takes over after expiry, and the stale owner writes nothing', async () => {
    const { store, second } = await open();
    const other = await second();
    if (other !== store) onTestFinished(() => other.close());
    expect(await store.acquireIndexerLease(KEY, 'a', 300)).not.toBeNull();
    expect(await other.acquireIndexerLease(KEY, 'b', 300)).toBeNull();
    await expect(other.commitIndexedRange(KEY, 'b', { chainId: CHAIN, fromBlock: 0, toBlock: 1, toBlockHash: '0x01', events: [event(1, 0)] })).rejects.toThrow(IndexerLeaseLostError);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await other.acquireIndexerLease(KEY, 'b', 10_000)).toEqual({ nextBlock: null, checkpoints: [] });
    await expect(store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 1, toBlockHash: '0x01', events: [event(1, 0)] })).rejects.toThrow(IndexerLeaseLostError);
    await expect(store.rewindIndexedRange(KEY, 'a', 0, CHAIN)).rejects.toThrow(IndexerLeaseLostError);
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
    expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 9, toBlockHash: '0x09', events: [proved] })).toEqual({ inserted: 0, completed: 0, existing: 1 });
    expect(await allRows(store)).toEqual([expect.objectContaining({ id: stored.id, amount: '42' })]);
  });

  it('gives a page the same ETag exactly when its bytes are the same, through publishes, in-place completions, reorganisations and verified publishes', async () => {
    // The ETag hashes ids and the fields a store changes in place, not the ciphertexts
    // (lib/service/registry-binary.ts): a stale tag would make a client keep an old page on a 304.
    const { store } = await open();
    const snapshots: { step: string; etag: string; bytes: Uint8Array }[] = [];
    const snapshot = async (step: string) => {
      const rows = await allRows(store);
      snapshots.push({ step, etag: pageEtag(rows), bytes: encodeAnnouncementPage(rows) });
    };
    const http = await store.publish(announcement({ amount: '1 ETH', chain: 'ethereum' }));
    await store.publish(announcement({ metadata: randomBytes(92) }));
    await snapshot('two HTTP publishes');
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const completing = event(2, 3, { txHash: http.txHash, ephemeralKey: http.ephemeralKey, viewTag: http.viewTag });
    const later = event(3, 0);
    await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 3, toBlockHash: '0x03', events: [completing, later] });
    await snapshot('the first completed in place, an event added');
    await store.rewindIndexedRange(KEY, 'a', 1, CHAIN);
    await snapshot('both undone by a reorganisation');
    await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 2, toBlock: 2, toBlockHash: '0x02b', events: [completing] });
    await snapshot('completed again, the other event gone');
    await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 3, toBlock: 5, toBlockHash: '0x05b', events: [{ ...later, blockNumber: 5 }] });
    await snapshot('the other event again, under a new id');
    await store.rewindIndexedRange(KEY, 'a', 2, CHAIN);
    await snapshot('back to the page of "completed again"');
    await store.publishVerified({ ...event(8, 1), amount: '2', channelId: randomBytes(32) });
    await snapshot('a verified publish');

    expect(snapshots[5]!.etag).toBe(snapshots[3]!.etag);
    expect(new Set(snapshots.map((s) => s.etag)).size).toBeGreaterThanOrEqual(6);
    for (const a of snapshots) {
      for (const b of snapshots) {
        expect(a.etag === b.etag, `${a.step} / ${b.step}`).toBe(equalBytes(a.bytes, b.bytes));
      }
    }
  });

  it('stores events passed out of chain order in chain order, and an event repeated within a range once', async () => {
    const { store } = await open();
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const [a, b, c] = [event(2, 9), event(5, 0), event(5, 1)];
    expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 6, toBlockHash: '0x06', events: [c, a, b, { ...c }] })).toEqual({ inserted: 3, completed: 0, existing: 1 });
    const rows = await allRows(store);
    expect(rows.map((r) => r.txHash)).toEqual([a.txHash, b.txHash, c.txHash]);
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((x, y) => x - y));
  });

  it('keeps the newest 256 checkpoints, newest last, and none above a range committed again', async () => {
    const { store } = await open();
    await store.acquireIndexerLease(KEY, 'a', 60_000);
    for (let block = 0; block < 260; block++) {
      await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: block, toBlock: block, toBlockHash: `0x${block.toString(16)}`, events: [] });
    }
    const state = await store.acquireIndexerLease(KEY, 'a', 60_000);
    expect(state?.checkpoints).toHaveLength(256);
    expect(state?.checkpoints[0]).toEqual({ blockNumber: 4, blockHash: '0x4' });
    expect(state?.checkpoints.at(-1)).toEqual({ blockNumber: 259, blockHash: '0x103' });
    // Blocks 250.. read again without a rewind first: their old checkpoints are not kept beside the new one.
    await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 250, toBlock: 250, toBlockHash: '0xfa2', events: [] });
    const again = await store.acquireIndexerLease(KEY, 'a', 60_000);
    expect(again?.nextBlock).toBe(251);
    expect(again?.checkpoints.at(-1)).toEqual({ blockNumber: 250, blockHash: '0xfa2' });
    expect(again?.checkpoints.at(-2)).toEqual({ blockNumber: 249, blockHash: '0xf9' });
  }, 60_000);

  it('gives a free lease to exactly one of two instances asking at the same moment, and reports no owner once released', async () => {
    const { store, second } = await open();
    const other = await second();
    if (other !== store) onTestFinished(() => other.close());
    expect(await store.indexerStatus(KEY)).toEqual({ nextBlock: null, owner: null, leaseExpiresAt: null });
    for (let round = 0; round < 5; round++) {
      const key = `${KEY}:${round}`;
      const [a, b] = await Promise.all([store.acquireIndexerLease(key, 'a', 10_000), other.acquireIndexerLease(key, 'b', 10_000)]);
      expect([a, b].filter((state) => state !== null)).toHaveLength(1);
      const winner = a === null ? 'b' : 'a';
      const status = await store.indexerStatus(key);
      expect(status.owner).toBe(winner);
      expect(status.leaseExpiresAt).toBeGreaterThan(Date.now() - 1_000);
    }
    const owner = (await store.indexerStatus(`${KEY}:0`)).owner!;
    await (owner === 'a' ? store : other).releaseIndexerLease(`${KEY}:0`, owner);
    expect(await store.indexerStatus(`${KEY}:0`)).toEqual({ nextBlock: null, owner: null, leaseExpiresAt: null });
  });

  it('keeps an HTTP row whose ciphertext differs from the event of its transaction, and stores the event beside it', async () => {
    const { store } = await open();
    const published = await store.publish(announcement({ amount: '5' }));
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const chained = event(3, 0, { txHash: published.txHash });
    expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 3, toBlockHash: '0x03', events: [chained] })).toEqual({ inserted: 1, completed: 0, existing: 0 });
    const rows = await allRows(store);
    expect(rows.map((r) => [r.id, r.logIndex, r.amount])).toEqual([[published.id, null, '5'], [published.id + 1, 0, null]]);
    await expect(store.publish(announcement({ txHash: published.txHash }))).rejects.toThrow(DuplicateAnnouncementError);
    expect(await store.rewindIndexedRange(KEY, 'a', 2, CHAIN)).toEqual({ removed: 1 });
    expect((await allRows(store)).map((r) => r.id)).toEqual([published.id]);
  });

  it("completes an HTTP row that brought its own note without replacing it, and gives one without a note the chain's", async () => {
    const { store } = await open();
    const ownNote = randomBytes(92);
    const withNote = await store.publish(announcement({ metadata: ownNote }));
    const withoutNote = await store.publish(announcement());
    expect(withoutNote.metadata).toBeNull();
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const events = [withNote, withoutNote].map((row, i) => event(4, i, { txHash: row.txHash, ephemeralKey: row.ephemeralKey, viewTag: row.viewTag }));
    expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 4, toBlockHash: '0x04', events })).toEqual({ inserted: 0, completed: 2, existing: 0 });
    const [first, second] = await allRows(store);
    expect(Buffer.from(first!.metadata!).equals(Buffer.from(ownNote))).toBe(true);
    expect(Buffer.from(second!.metadata!).equals(Buffer.from(events[1]!.metadata!))).toBe(true);
    expect(await store.count()).toBe(2);
  });

  it('refuses a verified publish of a transaction an HTTP row already has', async () => {
    const { store } = await open();
    const published = await store.publish(announcement());
    await expect(store.publishVerified({ ...event(1, 0, { txHash: published.txHash.toUpperCase().replace('0X', '0x') }), amount: null, channelId: null })).rejects.toThrow(
      DuplicateAnnouncementError,
    );
    // Another event of a transaction whose first event is stored: a row of its own.
    const proved = event(2, 0);
    await store.publishVerified({ ...proved, amount: null, channelId: null });
    const sibling = await store.publishVerified({ ...event(2, 1, { txHash: proved.txHash }), amount: '7', channelId: randomBytes(32) });
    expect(sibling).toMatchObject({ logIndex: 1, amount: '7', timestamp: proved.timestamp });
    expect(await store.count()).toBe(3);
  });

  it('drops a verified row whose event the chain no longer holds once the indexer reads its block', async () => {
    const { store } = await open();
    const orphan = event(5, 0);
    await store.publishVerified({ ...orphan, amount: null, channelId: null });
    const ahead = event(20, 0);
    await store.publishVerified({ ...ahead, amount: null, channelId: null });
    await store.acquireIndexerLease(KEY, 'a', 10_000);
    const replacement = event(5, 1);
    await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 10, toBlockHash: '0x10', events: [replacement] });
    // Block 5 now holds another event; block 20 is not indexed yet, so its row stays.
    expect((await allRows(store)).map((r) => r.txHash).sort()).toEqual([ahead.txHash, replacement.txHash].sort());
    expect(await store.count()).toBe(2);
  });

  describe('with several chains', () => {
    const OTHER = 8453;
    const OTHER_KEY = 'base:0x55649e01b5df198d18d95b5cc5051630cfd45564:1000';

    it('stores the same transaction hash and log index on two chains as two rows, each with its chain id', async () => {
      const { store } = await open();
      await store.acquireIndexerLease(KEY, 'a', 10_000);
      await store.acquireIndexerLease(OTHER_KEY, 'a', 10_000);
      const here = event(3, 1);
      const there = { ...event(3, 1, { txHash: here.txHash, chain: 'base' }), chainId: OTHER };
      expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 3, toBlockHash: '0x03', events: [here] })).toMatchObject({ inserted: 1 });
      expect(await store.commitIndexedRange(OTHER_KEY, 'a', { chainId: OTHER, fromBlock: 0, toBlock: 3, toBlockHash: '0xb3', events: [there] })).toMatchObject({ inserted: 1 });
      // Read again: each chain's event is already there.
      expect(await store.commitIndexedRange(OTHER_KEY, 'a', { chainId: OTHER, fromBlock: 0, toBlock: 3, toBlockHash: '0xb3', events: [there] })).toMatchObject({ inserted: 0, existing: 1 });
      expect((await allRows(store)).map((r) => [r.chainId, r.chain, r.logIndex])).toEqual([[CHAIN, 'anvil', 1], [OTHER, 'base', 1]]);
      await expect(store.publishVerified({ ...there, amount: null, channelId: null })).rejects.toThrow(DuplicateAnnouncementError);
    });

    it("undoes a reorganisation of one chain only: the other chain's rows in the same block numbers stay", async () => {
      const { store } = await open();
      await store.acquireIndexerLease(KEY, 'a', 10_000);
      await store.acquireIndexerLease(OTHER_KEY, 'a', 10_000);
      const ours = [event(5, 0), event(6, 0)];
      const theirs = [5, 6].map((block) => ({ ...event(block, 0, { chain: 'base' }), chainId: OTHER }));
      await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 6, toBlockHash: '0x06', events: ours });
      await store.commitIndexedRange(OTHER_KEY, 'a', { chainId: OTHER, fromBlock: 0, toBlock: 6, toBlockHash: '0xb6', events: theirs });
      // A verified publish of this chain in an indexed block is a chain row of it like the others.
      await store.publishVerified({ ...event(6, 4), amount: '1', channelId: null });
      expect(await store.rewindIndexedRange(KEY, 'a', 4, CHAIN)).toEqual({ removed: 3 });
      expect((await allRows(store)).map((r) => r.txHash)).toEqual(theirs.map((e) => e.txHash));
      expect(await store.acquireIndexerLease(OTHER_KEY, 'a', 10_000)).toEqual({ nextBlock: 7, checkpoints: [{ blockNumber: 6, blockHash: '0xb6' }] });
      // A commit of this chain's blocks removes none of the other chain's rows either.
      await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 5, toBlock: 6, toBlockHash: '0x06b', events: [] });
      expect((await allRows(store)).filter((r) => r.chainId === OTHER)).toHaveLength(2);
    });

    it('lists the rows of the chains asked for, with their total, under every other filter', async () => {
      const { store } = await open();
      await store.acquireIndexerLease(KEY, 'a', 10_000);
      await store.acquireIndexerLease(OTHER_KEY, 'a', 10_000);
      const http = await store.publish(announcement({ viewTag: 7, chainId: OTHER }));
      const unnamed = await store.publish(announcement({ viewTag: 7 }));
      await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 2, toBlockHash: '0x02', events: [event(1, 0, { viewTag: 7 }), event(2, 0, { viewTag: 8 })] });
      await store.commitIndexedRange(OTHER_KEY, 'a', { chainId: OTHER, fromBlock: 0, toBlock: 2, toBlockHash: '0xb2', events: [{ ...event(2, 0, { viewTag: 7 }), chainId: OTHER }] });
      const ids = async (filter: Parameters<RegistryStore['list']>[0], afterId?: number) => {
        const { announcements, total } = await store.list(filter, { limit: 10, ...(afterId === undefined ? {} : { afterId }) });
        return { chains: announcements.map((r) => r.chainId), total };
      };
      expect(await ids({ chainIds: [OTHER] })).toEqual({ chains: [OTHER, OTHER], total: 2 });
      expect(await ids({ chainIds: [CHAIN] })).toEqual({ chains: [CHAIN, CHAIN], total: 2 });
      expect(await ids({ chainIds: [CHAIN, OTHER], viewTags: [7] })).toEqual({ chains: [OTHER, CHAIN, OTHER], total: 3 });
      expect(await ids({ chainIds: [OTHER] }, http.id)).toEqual({ chains: [OTHER], total: 2 });
      expect(await ids({ chainIds: [1] })).toEqual({ chains: [], total: 0 });
      expect(await ids({})).toMatchObject({ chains: [OTHER, null, CHAIN, CHAIN, OTHER], total: 5 });
      expect((await store.list({ chainIds: [CHAIN] }, { limit: 10, countTotal: false })).announcements.map((r) => r.chainId)).toEqual([CHAIN, CHAIN]);
      expect(unnamed.chainId).toBeNull();
    });

    it("completes an HTTP row naming this chain or none, never one naming another chain, and keeps the chain id it learned after a reorganisation", async () => {
      const { store } = await open();
      const unnamed = await store.publish(announcement());
      const named = await store.publish(announcement({ chainId: CHAIN }));
      const elsewhere = await store.publish(announcement({ chainId: OTHER }));
      await store.acquireIndexerLease(KEY, 'a', 10_000);
      const events = [unnamed, named, elsewhere].map((row, i) => event(4, i, { txHash: row.txHash, ephemeralKey: row.ephemeralKey, viewTag: row.viewTag }));
      expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 4, toBlockHash: '0x04', events })).toEqual({ inserted: 1, completed: 2, existing: 0 });
      const rows = await allRows(store);
      expect(rows.map((r) => [r.id, r.chainId, r.logIndex])).toEqual([
        [unnamed.id, CHAIN, 0],
        [named.id, CHAIN, 1],
        [elsewhere.id, OTHER, null],
        [elsewhere.id + 1, CHAIN, 2],
      ]);
      expect(await store.rewindIndexedRange(KEY, 'a', 3, CHAIN)).toEqual({ removed: 1 });
      expect((await allRows(store)).map((r) => [r.id, r.chainId, r.logIndex])).toEqual([
        [unnamed.id, CHAIN, null],
        [named.id, CHAIN, null],
        [elsewhere.id, OTHER, null],
      ]);
    });

    it('keeps the hashes of the blocks inside a range as checkpoints, so a reorganisation can stop at the newest block that still matches', async () => {
      const { store } = await open();
      await store.acquireIndexerLease(KEY, 'a', 10_000);
      await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 9, toBlockHash: '0x09', events: [], blockHashes: [{ blockNumber: 2, blockHash: '0x02' }] });
      const inside = [3, 5, 5, 12, 20].map((blockNumber) => ({ blockNumber, blockHash: `0x${blockNumber}` }));
      await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 10, toBlock: 20, toBlockHash: '0x20', events: [], blockHashes: inside });
      // Hashes outside the range and the range's own end are not taken from blockHashes.
      expect((await store.acquireIndexerLease(KEY, 'a', 10_000))?.checkpoints).toEqual([
        { blockNumber: 2, blockHash: '0x02' },
        { blockNumber: 9, blockHash: '0x09' },
        { blockNumber: 12, blockHash: '0x12' },
        { blockNumber: 20, blockHash: '0x20' },
      ]);
      await store.rewindIndexedRange(KEY, 'a', 12, CHAIN);
      expect(await store.acquireIndexerLease(KEY, 'a', 10_000)).toEqual({
        nextBlock: 13,
        checkpoints: [{ blockNumber: 2, blockHash: '0x02' }, { blockNumber: 9, blockHash: '0x09' }, { blockNumber: 12, blockHash: '0x12' }],
      });
    });
  });
  describe('with both schemes', () => {
    it('stores scheme-3 events (1121-byte keys, metadata of any length) beside scheme-1000 ones in one range, and lists them by scheme', async () => {
      const { store } = await open();
      await store.acquireIndexerLease(KEY, 'a', 10_000);
      const erc8441 = [event(2, 0, { schemeId: 3, ephemeralKey: randomBytes(1121), metadata: randomBytes(56) }), event(2, 1, { schemeId: 3, ephemeralKey: randomBytes(1121), metadata: null })];
      const wraith = event(3, 0);
      expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 3, toBlockHash: '0x03', events: [erc8441[0]!, wraith, erc8441[1]!] })).toMatchObject({ inserted: 3 });
      const rows = await allRows(store);
      expect(rows.map((r) => [r.schemeId, r.ephemeralKey.length, r.metadata?.length ?? null])).toEqual([[3, 1121, 56], [3, 1121, null], [1000, 1088, 92]]);
      expect(Buffer.from(rows[0]!.ephemeralKey).equals(Buffer.from(erc8441[0]!.ephemeralKey))).toBe(true);
      expect(Buffer.from(rows[2]!.ephemeralKey).equals(Buffer.from(wraith.ephemeralKey))).toBe(true);
      expect((await store.list({ schemeIds: [3] }, { limit: 10 })).total).toBe(2);
      expect((await store.list({ schemeIds: [1000] }, { limit: 10, countTotal: false })).announcements.map((r) => r.txHash)).toEqual([wraith.txHash]);
    });

    it("keeps a scheme-3 HTTP publish's stealth address through its completion and a reorganisation", async () => {
      const { store } = await open();
      const address = '0x' + 'Cd'.repeat(20);
      const published = await store.publish({ ...announcement(), ephemeralKey: randomBytes(1121), schemeId: 3, stealthAddress: address });
      expect(published).toMatchObject({ schemeId: 3, stealthAddress: address });
      await store.acquireIndexerLease(KEY, 'a', 10_000);
      const chained = event(4, 0, { schemeId: 3, txHash: published.txHash, ephemeralKey: published.ephemeralKey, viewTag: published.viewTag, stealthAddress: address });
      expect(await store.commitIndexedRange(KEY, 'a', { chainId: CHAIN, fromBlock: 0, toBlock: 4, toBlockHash: '0x04', events: [chained] })).toMatchObject({ completed: 1 });
      await store.rewindIndexedRange(KEY, 'a', 3, CHAIN);
      expect(await allRows(store)).toEqual([expect.objectContaining({ id: published.id, schemeId: 3, stealthAddress: address, blockNumber: null })]);
    });
  });
});
