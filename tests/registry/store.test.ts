/**
 * The registry store contract (lib/registry/store.ts, PROTOCOL.md section 6), run against
 * every store implementation from one table: memory, SQLite and PostgreSQL (a throwaway
 * cluster, tests/helpers/postgres.ts, one empty schema per test). Without the PostgreSQL
 * binaries its row is skipped with the reason, or fails the run under REQUIRE_SERVICES=1.
 */
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createMemoryStore } from '../../lib/registry/memory.ts';
import { createPostgresStore } from '../../lib/registry/postgres.ts';
import { createSqliteStore } from '../../lib/registry/sqlite.ts';
import {
  DuplicateAnnouncementError,
  StoreUnavailableError,
  type NewAnnouncement,
  type RegistryStore,
  type StoredAnnouncement,
} from '../../lib/registry/store.ts';
import {
  CHANNEL_ID_BYTES,
  CIPHERTEXT_BYTES,
  announcement,
  randomBytes,
  temporaryDirectory,
} from './fixtures/announcements.ts';
import { POSTGRES_MISSING, postgresOrSkip, startPostgres, type PostgresCluster } from '../helpers/postgres.ts';

type StoreFactory = {
  /** Whether the store keeps its rows across close and reopen. */
  persistent: boolean;
  /** An empty store, and for persistent stores a way to open the same data again. */
  open(): Promise<{ store: RegistryStore; reopen?: () => Promise<RegistryStore> }>;
};

const sqliteDirectory = temporaryDirectory();
afterAll(() => sqliteDirectory.remove());
let sqliteFiles = 0;

let cluster: Promise<PostgresCluster> | undefined;
afterAll(async () => (await cluster)?.destroy());

const STORES: [name: string, factory: StoreFactory][] = [
  ['memory', { persistent: false, open: async () => ({ store: createMemoryStore() }) }],
  [
    'sqlite',
    {
      persistent: true,
      open: async () => {
        const url = `file:${sqliteDirectory.path}/registry-${++sqliteFiles}.db`;
        return { store: await createSqliteStore(url), reopen: () => createSqliteStore(url) };
      },
    },
  ],
];
if (postgresOrSkip()) {
  STORES.push([
    'postgres',
    {
      persistent: true,
      open: async () => {
        cluster ??= startPostgres();
        const url = await (await cluster).freshSchema();
        return { store: await createPostgresStore(url, { poolSize: 4 }), reopen: () => createPostgresStore(url, { poolSize: 4 }) };
      },
    },
  ]);
} else {
  describe.skip(`the postgres registry store (${POSTGRES_MISSING})`, () => {
    it('runs every case of this table', () => undefined);
  });
}

/** Open a fresh store that is closed when the current test ends. */
async function openFresh(factory: StoreFactory): ReturnType<StoreFactory['open']> {
  const opened = await factory.open();
  onTestFinished(() => opened.store.close());
  return opened;
}

/** Publish in order and return the stored records. */
async function publishAll(store: RegistryStore, items: NewAnnouncement[]): Promise<StoredAnnouncement[]> {
  const stored: StoredAnnouncement[] = [];
  for (const item of items) stored.push(await store.publish(item));
  return stored;
}

/** Publish one announcement per Unix-second timestamp, with the clock set to each. */
async function publishAt(store: RegistryStore, seconds: number[]): Promise<StoredAnnouncement[]> {
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    const stored: StoredAnnouncement[] = [];
    for (const second of seconds) {
      vi.setSystemTime(second * 1000 + 999); // the store must round down to whole seconds
      stored.push(await store.publish(announcement()));
    }
    return stored;
  } finally {
    vi.useRealTimers();
  }
}

const ids = (rows: { id: number }[]) => rows.map((row) => row.id);

describe.each(STORES)('the %s registry store', (name, factory) => {
  describe('publishing', () => {
    it('assigns ids 1, 2, 3 in publication order', async () => {
      const { store } = await openFresh(factory);
      const stored = await publishAll(store, [announcement(), announcement(), announcement()]);
      expect(ids(stored)).toEqual([1, 2, 3]);
      expect(await store.count()).toBe(3);
    });

    it('keeps ids increasing after a rejected duplicate', async () => {
      const { store } = await openFresh(factory);
      const first = await store.publish(announcement({ txHash: '0xfeed' }));
      await expect(store.publish(announcement({ txHash: '0xFEED' }))).rejects.toThrow(DuplicateAnnouncementError);
      const next = await store.publish(announcement());
      expect(first.id).toBe(1);
      expect(next.id).toBeGreaterThan(first.id);
    });

    it('stamps announcements with the server clock in whole Unix seconds, ignoring a publisher timestamp', async () => {
      const { store } = await openFresh(factory);
      const serverTime = Date.parse('2031-05-06T07:08:09.750Z');
      vi.useFakeTimers({ toFake: ['Date'] });
      let stored: StoredAnnouncement;
      try {
        vi.setSystemTime(serverTime);
        stored = await store.publish({ ...announcement(), timestamp: 12345 } as NewAnnouncement);
      } finally {
        vi.useRealTimers();
      }
      expect(stored.timestamp).toBe(Math.floor(serverTime / 1000));
      const { announcements } = await store.list({}, { limit: 10 });
      expect(announcements[0]?.timestamp).toBe(Math.floor(serverTime / 1000));
    });

    it('stores the tx_hash trimmed and rejects another that differs only in case or surrounding whitespace', async () => {
      const { store } = await openFresh(factory);
      const stored = await store.publish(announcement({ txHash: '0xABC ' }));
      expect(stored.txHash).toBe('0xABC');
      await expect(store.publish(announcement({ txHash: '0xabc' }))).rejects.toThrow(DuplicateAnnouncementError);
      await expect(store.publish(announcement({ txHash: '\t0XaBc\n' }))).rejects.toThrow(DuplicateAnnouncementError);
      await store.publish(announcement({ txHash: '0xabd' }));
      const { announcements } = await store.list({}, { limit: 10 });
      expect(announcements.map((a) => a.txHash)).toEqual(['0xABC', '0xabd']);
    });

    it('stores exactly one of 50 concurrent publishes of one tx_hash and rejects the other 49 as duplicates', async () => {
      const { store } = await openFresh(factory);
      const attempts = Array.from({ length: 50 }, (_, i) =>
        announcement({ txHash: i % 2 === 0 ? '0xC0FFEE' : ' 0xc0ffee ', viewTag: i }),
      );
      const results = await Promise.allSettled(attempts.map((a) => store.publish(a)));
      const stored = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      expect(stored).toHaveLength(1);
      expect(errors).toHaveLength(49);
      for (const error of errors) expect(error).toBeInstanceOf(DuplicateAnnouncementError);
      expect(await store.count()).toBe(1);
      const { announcements } = await store.list({}, { limit: 100 });
      expect(announcements).toEqual(stored);
    });

    it('rejects a duplicate with a typed error whose message quotes neither the tx_hash nor the key', async () => {
      const { store } = await openFresh(factory);
      const txHash = '0x5ec2e7aabbccdd';
      await store.publish(announcement({ txHash }));
      const error = await store.publish(announcement({ txHash })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateAnnouncementError);
      expect((error as DuplicateAnnouncementError).code).toBe('DUPLICATE_ANNOUNCEMENT');
      expect((error as Error).message.toLowerCase()).not.toContain('5ec2e7');
    });
  });

  describe('bytes and optional fields', () => {
    it('returns the ciphertext and channel id exactly as published, as Uint8Array', async () => {
      const { store } = await openFresh(factory);
      const ephemeralKey = randomBytes(CIPHERTEXT_BYTES);
      ephemeralKey[0] = 0; // zero bytes at both ends catch truncating or trimming encoders
      ephemeralKey[CIPHERTEXT_BYTES - 1] = 0;
      const channelId = randomBytes(CHANNEL_ID_BYTES);
      const sent = announcement({ ephemeralKey, channelId, viewTag: 255, amount: '1.25', chain: 'sui' });
      await store.publish(sent);
      const [read] = (await store.list({}, { limit: 1 })).announcements;
      expect(read?.ephemeralKey).toBeInstanceOf(Uint8Array);
      expect(read?.channelId).toBeInstanceOf(Uint8Array);
      expect(read?.ephemeralKey.byteLength).toBe(CIPHERTEXT_BYTES);
      expect(read).toMatchObject({ ...sent, id: 1 });
      expect(Array.from(read?.ephemeralKey ?? [])).toEqual(Array.from(ephemeralKey));
      expect(Array.from(read?.channelId ?? [])).toEqual(Array.from(channelId));
    });

    it('keeps an absent channel id, amount and chain as null', async () => {
      const { store } = await openFresh(factory);
      await store.publish(announcement({ channelId: null, amount: null, chain: null }));
      const [read] = (await store.list({}, { limit: 1 })).announcements;
      expect(read?.channelId).toBeNull();
      expect(read?.amount).toBeNull();
      expect(read?.chain).toBeNull();
    });

    it('gives back non-ASCII text exactly as published (accents, CJK, emoji as surrogate pairs)', async () => {
      const { store } = await openFresh(factory);
      const text = { txHash: '0xé中💸', amount: '1,5 € 🪙', chain: 'ＳＵＩ' };
      const published = await store.publish(announcement(text));
      const [read] = (await store.list({}, { limit: 1 })).announcements;
      const [walked] = (await store.list({}, { limit: 1, countTotal: false })).announcements;
      for (const row of [published, read, walked]) expect({ txHash: row?.txHash, amount: row?.amount, chain: row?.chain }).toEqual(text);
      await expect(store.publish(announcement({ txHash: '0xÉ中💸' }))).rejects.toThrow(DuplicateAnnouncementError); // lowercased alike
    });

    it('a cursor walk returns every row exactly as the counted list does (mixed optional fields, JSON-special text)', async () => {
      const { store } = await openFresh(factory);
      const texts = ['0x"quoted"', '0xback\\slash', "0x'single'", '0x[1,2]{}', '0xé中💸', '0x\\u0000-not-an-escape'];
      for (const [i, txHash] of texts.entries()) {
        const ephemeralKey = randomBytes(CIPHERTEXT_BYTES);
        ephemeralKey[0] = 0;
        ephemeralKey[CIPHERTEXT_BYTES - 1] = 0;
        await store.publish(
          announcement({ txHash, ephemeralKey, viewTag: i * 51, channelId: i % 2 === 0 ? randomBytes(CHANNEL_ID_BYTES) : null, amount: i % 3 === 0 ? null : `${i}.5`, chain: i === 4 ? '' : 'sui' }),
        );
      }
      const plain = (rows: StoredAnnouncement[]) => rows.map((r) => ({ ...r, ephemeralKey: Array.from(r.ephemeralKey), channelId: r.channelId && Array.from(r.channelId) }));
      const listed = (await store.list({}, { limit: 100 })).announcements;
      const walked = (await store.list({}, { limit: 100, countTotal: false })).announcements;
      expect(walked).toHaveLength(texts.length);
      expect(plain(walked)).toEqual(plain(listed));
      expect(walked.map((r) => r.txHash)).toEqual(texts);
      for (const row of walked) {
        expect(row.ephemeralKey).toBeInstanceOf(Uint8Array);
        expect(row.ephemeralKey.byteLength).toBe(CIPHERTEXT_BYTES);
      }
      expect((await store.list({}, { afterId: texts.length, limit: 100, countTotal: false })).announcements).toEqual([]);
    });

    it('is not changed when the caller later mutates the bytes it published or read', async () => {
      const { store } = await openFresh(factory);
      const sent = announcement({ channelId: randomBytes(CHANNEL_ID_BYTES) });
      const original = Array.from(sent.ephemeralKey);
      const returned = await store.publish(sent);
      sent.ephemeralKey.fill(1);
      returned.ephemeralKey.fill(2);
      returned.channelId?.fill(3);
      (await store.list({}, { limit: 1 })).announcements[0]?.ephemeralKey.fill(4);
      const [read] = (await store.list({}, { limit: 1 })).announcements;
      expect(Array.from(read?.ephemeralKey ?? [])).toEqual(original);
      expect(read?.channelId?.every((b) => b === 3)).toBe(false);
    });
  });

  describe('listing', () => {
    it('narrows any selection to announcements with a channel id (channel discover), with their total', async () => {
      const { store } = await openFresh(factory);
      await publishAll(
        store,
        Array.from({ length: 12 }, (_, i) => announcement({ viewTag: i % 2, channelId: i % 3 === 0 ? randomBytes(CHANNEL_ID_BYTES) : null })),
      );
      const all = await store.list({ withChannelId: true }, { limit: 100 });
      expect(ids(all.announcements)).toEqual([1, 4, 7, 10]);
      expect(all.total).toBe(4);
      expect(ids((await store.list({ withChannelId: true }, { limit: 2, afterId: 1 })).announcements)).toEqual([4, 7]);
      expect(ids((await store.list({ withChannelId: true }, { limit: 100, afterId: 4, countTotal: false })).announcements)).toEqual([7, 10]);
      const evenTag = await store.list({ withChannelId: true, viewTags: [0] }, { limit: 100 });
      expect(ids(evenTag.announcements)).toEqual([1, 7]);
      expect(evenTag.total).toBe(2);
      expect((await store.list({}, { limit: 100 })).total).toBe(12);
    });

    it('lists a multi-tag selection in id order, not grouped by tag', async () => {
      const { store } = await openFresh(factory);
      await publishAll(store, [9, 3, 9, 7, 3, 9].map((viewTag) => announcement({ viewTag })));
      const { announcements, total } = await store.list({ viewTags: [9, 3] }, { limit: 10 });
      expect(ids(announcements)).toEqual([1, 2, 3, 5, 6]);
      expect(announcements.map((a) => a.viewTag)).toEqual([9, 3, 9, 3, 9]);
      expect(total).toBe(5);
    });

    it('selects only announcements carrying one of the requested view tags', async () => {
      const { store } = await openFresh(factory);
      await publishAll(store, [1, 2, 3, 2, 1].map((viewTag) => announcement({ viewTag })));
      const { announcements, total } = await store.list({ viewTags: [2] }, { limit: 10 });
      expect(ids(announcements)).toEqual([2, 4]);
      expect(total).toBe(2);
    });

    it('returns nothing and a total of 0 for a view tag nobody used', async () => {
      const { store } = await openFresh(factory);
      await publishAll(store, [announcement({ viewTag: 1 })]);
      expect(await store.list({ viewTags: [200] }, { limit: 10 })).toEqual({ announcements: [], total: 0 });
    });

    it('selects by time range, both bounds inclusive, when both bounds are given', async () => {
      const { store } = await openFresh(factory);
      await publishAt(store, [1_000, 2_000, 3_000, 4_000]);
      const { announcements, total } = await store.list({ fromTimestamp: 2_000, toTimestamp: 3_000 }, { limit: 10 });
      expect(ids(announcements)).toEqual([2, 3]);
      expect(total).toBe(2);
    });

    it('ignores a time range with only one bound and selects everything', async () => {
      const { store } = await openFresh(factory);
      await publishAt(store, [1_000, 2_000, 3_000]);
      expect(ids((await store.list({ fromTimestamp: 2_500 }, { limit: 10 })).announcements)).toEqual([1, 2, 3]);
      expect(ids((await store.list({ toTimestamp: 1_500 }, { limit: 10 })).announcements)).toEqual([1, 2, 3]);
    });

    it('lets view tags take precedence over a time range given with them', async () => {
      const { store } = await openFresh(factory);
      const stored = await publishAt(store, [1_000, 2_000, 3_000]);
      expect(stored.map((a) => a.viewTag)).toEqual([0, 0, 0]);
      const { announcements, total } = await store.list(
        { viewTags: [0], fromTimestamp: 2_000, toTimestamp: 2_000 },
        { limit: 10 },
      );
      expect(ids(announcements)).toEqual([1, 2, 3]);
      expect(total).toBe(3);
    });

    it('treats an empty view-tag list as absent, falling back to the time range or everything', async () => {
      const { store } = await openFresh(factory);
      await publishAt(store, [1_000, 2_000, 3_000]);
      const ranged = await store.list({ viewTags: [], fromTimestamp: 2_000, toTimestamp: 5_000 }, { limit: 10 });
      expect(ids(ranged.announcements)).toEqual([2, 3]);
      expect((await store.list({ viewTags: [] }, { limit: 10 })).total).toBe(3);
    });
  });

  describe('paging', () => {
    it('pages with offset and limit while total counts the whole selection', async () => {
      const { store } = await openFresh(factory);
      await publishAll(store, Array.from({ length: 10 }, () => announcement()));
      const { announcements, total } = await store.list({}, { offset: 3, limit: 4 });
      expect(ids(announcements)).toEqual([4, 5, 6, 7]);
      expect(total).toBe(10);
    });

    it('gives the same page when asked not to count the selection (total is then exact or -1)', async () => {
      const { store } = await openFresh(factory);
      await publishAll(
        store,
        [5, 6, 5, 6, 5, 6, 5].map((viewTag, i) =>
          announcement(i === 2 ? { viewTag, channelId: randomBytes(CHANNEL_ID_BYTES), amount: '1.5', chain: 'sui' } : { viewTag }),
        ),
      );
      const counted = await store.list({ viewTags: [5] }, { afterId: 1, limit: 2 });
      const uncounted = await store.list({ viewTags: [5] }, { afterId: 1, limit: 2, countTotal: false });
      expect(uncounted.announcements).toEqual(counted.announcements); // every field, byte for byte
      expect(ids(uncounted.announcements)).toEqual([3, 5]);
      expect(uncounted.announcements[0]!.channelId).toHaveLength(CHANNEL_ID_BYTES);
      expect([counted.total, -1]).toContain(uncounted.total);
      const later = await store.publish(announcement({ viewTag: 5 }));
      const walked = await store.list({}, { afterId: 7, limit: 10, countTotal: false });
      expect(walked.announcements).toEqual([later]); // a walk sees what was acknowledged after it began
    });

    it('continues after a cursor id within a filter, without narrowing the total', async () => {
      const { store } = await openFresh(factory);
      await publishAll(store, [5, 6, 5, 6, 5, 6, 5].map((viewTag) => announcement({ viewTag })));
      const { announcements, total } = await store.list({ viewTags: [5] }, { afterId: 3, limit: 10 });
      expect(ids(announcements)).toEqual([5, 7]);
      expect(total).toBe(4);
    });

    it('applies the offset after the cursor, with or without a view-tag filter', async () => {
      const { store } = await openFresh(factory);
      await publishAll(store, [1, 2, 1, 2, 1, 2, 1, 2].map((viewTag) => announcement({ viewTag })));
      expect(ids((await store.list({}, { afterId: 2, offset: 1, limit: 2 })).announcements)).toEqual([4, 5]);
      const tagged = await store.list({ viewTags: [2, 1] }, { afterId: 2, offset: 1, limit: 2 });
      expect(ids(tagged.announcements)).toEqual([4, 5]);
      const oneTag = await store.list({ viewTags: [2] }, { afterId: 2, offset: 1, limit: 2 });
      expect(ids(oneTag.announcements)).toEqual([6, 8]);
    });

    it('walks a multi-tag selection page by page with the cursor, seeing each announcement once', async () => {
      const { store } = await openFresh(factory);
      const tags = [1, 2, 3, 1, 2, 3, 1, 2, 3, 4];
      await publishAll(store, tags.map((viewTag) => announcement({ viewTag })));
      const seen: number[] = [];
      let afterId = 0;
      for (;;) {
        const { announcements, total } = await store.list({ viewTags: [3, 1] }, { afterId, limit: 2 });
        expect(total).toBe(6);
        if (announcements.length === 0) break;
        seen.push(...ids(announcements));
        afterId = announcements[announcements.length - 1]?.id ?? afterId;
      }
      expect(seen).toEqual([1, 3, 4, 6, 7, 9]);
    });

    it('returns an empty page past the end but still reports the total', async () => {
      const { store } = await openFresh(factory);
      await publishAll(store, [announcement(), announcement()]);
      expect(await store.list({}, { offset: 5, limit: 10 })).toEqual({ announcements: [], total: 2 });
      expect(await store.list({}, { afterId: 2, limit: 10 })).toEqual({ announcements: [], total: 2 });
      expect(await store.list({}, { limit: 0 })).toEqual({ announcements: [], total: 2 });
    });

    it('rejects negative or fractional paging values instead of guessing', async () => {
      const { store } = await openFresh(factory);
      await expect(store.list({}, { limit: -1 })).rejects.toThrow(RangeError);
      await expect(store.list({}, { limit: 10, offset: 1.5 })).rejects.toThrow(RangeError);
      await expect(store.list({}, { limit: 10, afterId: -3 })).rejects.toThrow(RangeError);
    });
  });

  describe('stats, health and lifecycle', () => {
    it('counts announcements per view tag in ascending tag order, listing only tags in use', async () => {
      const { store } = await openFresh(factory);
      expect(await store.stats()).toEqual({ totalAnnouncements: 0, viewTagDistribution: [] });
      await publishAll(store, [200, 5, 3, 5, 0, 5, 3].map((viewTag) => announcement({ viewTag })));
      expect(await store.stats()).toEqual({
        totalAnnouncements: 7,
        viewTagDistribution: [
          { tag: 0, count: 1 },
          { tag: 3, count: 2 },
          { tag: 5, count: 3 },
          { tag: 200, count: 1 },
        ],
      });
      expect(await store.count()).toBe(7);
    });

    it(`reports itself healthy with kind "${name}"`, async () => {
      const { store } = await openFresh(factory);
      expect(await store.health()).toEqual({ ok: true, kind: name });
    });

    it('after close, reports unhealthy without throwing and refuses work with StoreUnavailableError', async () => {
      const { store } = await factory.open();
      await store.close();
      const health = await store.health();
      expect(health.ok).toBe(false);
      expect(health.kind).toBe(name);
      const txHash = '0xdeadbeef0123';
      const error = await store.publish(announcement({ txHash })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
      expect((error as Error).message).not.toContain('deadbeef');
      await expect(store.list({}, { limit: 1 })).rejects.toThrow(StoreUnavailableError);
      await expect(store.count()).rejects.toThrow(StoreUnavailableError);
    });

    it.runIf(factory.persistent)('keeps announcements, ids and the duplicate rule across close and reopen', async () => {
      const { store, reopen } = await factory.open();
      const before = await publishAll(store, [
        announcement({ viewTag: 4, channelId: randomBytes(CHANNEL_ID_BYTES), amount: '7', chain: 'ethereum' }),
        announcement({ viewTag: 9 }),
      ]);
      await store.close();
      if (reopen === undefined) throw new Error('a persistent store factory must provide reopen');
      const again = await reopen();
      onTestFinished(() => again.close());
      const { announcements, total } = await again.list({}, { limit: 10 });
      expect(total).toBe(2);
      expect(announcements).toEqual(before);
      await expect(again.publish(announcement({ txHash: before[0]?.txHash.toUpperCase() }))).rejects.toThrow(
        DuplicateAnnouncementError,
      );
      expect((await again.publish(announcement())).id).toBe(3);
    });
  });
});
