/**
 * The channel table contract (lib/channels/store.ts), run against the memory and the SQLite
 * implementation from one table, and the amount arithmetic it relies on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { formatTokenAmount, parseTokenAmount } from '../../lib/channels/amount.ts';
import { createMemoryChannelStore } from '../../lib/channels/memory.ts';
import { createSqliteChannelStore } from '../../lib/channels/sqlite.ts';
import { ChannelClosedError, DuplicateChannelError, type ChannelStore, type NewChannel } from '../../lib/channels/store.ts';
import { createSqliteStore } from '../../lib/registry/sqlite.ts';

const directory = mkdtempSync(join(tmpdir(), 'wraith-channel-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;

type Factory = { persistent: boolean; open(): Promise<{ store: ChannelStore; reopen?: () => Promise<ChannelStore> }> };

const STORES: [string, Factory][] = [
  ['memory', { persistent: false, open: async () => ({ store: createMemoryChannelStore() }) }],
  [
    'sqlite',
    {
      persistent: true,
      open: async () => {
        const url = `file:${directory}/channels-${++files}.db`;
        return { store: await createSqliteChannelStore(url), reopen: () => createSqliteChannelStore(url) };
      },
    },
  ],
];

async function openFresh(factory: Factory) {
  const opened = await factory.open();
  onTestFinished(() => opened.store.close());
  return opened;
}

function newChannel(overrides: Partial<NewChannel> = {}): NewChannel {
  return { channelId: crypto.getRandomValues(new Uint8Array(32)), token: 'USDC', decimals: 6, amount: 10_000_000n, createdAt: 1_700_000_000, ...overrides };
}

const MAX_UINT256 = (1n << 256n) - 1n;

describe.each(STORES)('%s channel table', (_, factory) => {
  it('records an open channel and returns it by id', async () => {
    const { store } = await openFresh(factory);
    const channel = newChannel({ amount: MAX_UINT256 });
    await store.create(channel);
    expect(await store.get(channel.channelId)).toEqual({ ...channel, funded: 0n, status: 'open', closedAt: null, closeTxId: null });
  });

  it('knows nothing about an id it never recorded', async () => {
    const { store } = await openFresh(factory);
    const unknown = new Uint8Array(32).fill(7);
    expect(await store.get(unknown)).toBeUndefined();
    expect(await store.fund(unknown, 1n)).toBeUndefined();
    expect(await store.markClosed(unknown, { txId: 'placeholder:close:x', at: 1 })).toBeUndefined();
  });

  it('refuses a second channel with the same id, also when both are created at once', async () => {
    const { store } = await openFresh(factory);
    const channel = newChannel();
    const results = await Promise.allSettled([store.create(channel), store.create({ ...channel, token: 'ETH' })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const [rejected] = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected?.reason).toBeInstanceOf(DuplicateChannelError);
  });

  it('forgets a removed channel so its id can be opened again', async () => {
    const { store } = await openFresh(factory);
    const channel = newChannel();
    await store.create(channel);
    await store.remove(channel.channelId);
    expect(await store.get(channel.channelId)).toBeUndefined();
    await store.create(channel);
  });

  it('adds up concurrent fundings without losing any', async () => {
    const { store } = await openFresh(factory);
    const channel = newChannel();
    await store.create(channel);
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.fund(channel.channelId, BigInt(i + 1))));
    expect((await store.get(channel.channelId))?.funded).toBe(465n);
  });

  it('closes once: a second close keeps the first close’s id and time, and funding a closed channel fails', async () => {
    const { store } = await openFresh(factory);
    const channel = newChannel();
    await store.create(channel);
    const first = await store.markClosed(channel.channelId, { txId: 'placeholder:close:first', at: 100 });
    const second = await store.markClosed(channel.channelId, { txId: 'placeholder:close:second', at: 200 });
    expect(first).toMatchObject({ alreadyClosed: false, record: { status: 'closed', closeTxId: 'placeholder:close:first', closedAt: 100 } });
    expect(second).toMatchObject({ alreadyClosed: true, record: { status: 'closed', closeTxId: 'placeholder:close:first', closedAt: 100 } });
    await expect(store.fund(channel.channelId, 1n)).rejects.toBeInstanceOf(ChannelClosedError);
  });

  if (factory.persistent) it('keeps channels across close and reopen', async () => {
    const { store, reopen } = await openFresh(factory);
    const channel = newChannel();
    await store.create(channel);
    await store.fund(channel.channelId, 5n);
    await store.close();
    const reopened = await reopen!();
    onTestFinished(() => reopened.close());
    expect(await reopened.get(channel.channelId)).toMatchObject({ token: 'USDC', amount: 10_000_000n, funded: 5n, status: 'open' });
  });
});

describe('sqlite channel table beside the registry', () => {
  it('shares the registry’s database file without disturbing it', async () => {
    const url = `file:${directory}/shared-${++files}.db`;
    const registry = await createSqliteStore(url);
    const channels = await createSqliteChannelStore(url);
    onTestFinished(async () => {
      await channels.close();
      await registry.close();
    });
    const channel = newChannel();
    await channels.create(channel);
    const published = await registry.publish({
      ephemeralKey: crypto.getRandomValues(new Uint8Array(1088)),
      viewTag: 1,
      txHash: 'channel:test',
      channelId: channel.channelId,
      amount: '10',
      chain: 'yellow',
    });
    expect(published.id).toBe(1);
    expect(await channels.get(channel.channelId)).toMatchObject({ token: 'USDC' });
    expect(await registry.count()).toBe(1);
  });
});

describe('token amounts', () => {
  it.each([
    ['12.5', 6, 12_500_000n],
    ['0012.500000', 6, 12_500_000n],
    ['1', 0, 1n],
    ['0.000001', 6, 1n],
    ['1.000000000000000000000', 18, 10n ** 18n],
  ])('reads %s with %i decimals as %s base units', (text, decimals, units) => {
    expect(parseTokenAmount(text, decimals)).toEqual({ units });
  });

  it.each([
    ['0', 6],
    ['0.0000001', 6],
    ['1.5', 0],
    ['1e3', 6],
    ['-1', 6],
    [`${MAX_UINT256 + 1n}`, 0],
  ])('refuses %s with %i decimals', (text, decimals) => {
    expect(parseTokenAmount(text, decimals)).toHaveProperty('issue');
  });

  it('accepts exactly 2^256 - 1 base units', () => {
    expect(parseTokenAmount(`${MAX_UINT256}`, 0)).toEqual({ units: MAX_UINT256 });
  });

  it.each([
    [12_500_000n, 6, '12.5'],
    [1n, 18, '0.000000000000000001'],
    [0n, 6, '0'],
    [10n ** 18n, 18, '1'],
    [42n, 0, '42'],
  ])('writes %s base units with %i decimals as %s', (units, decimals, text) => {
    expect(formatTokenAmount(units, decimals)).toBe(text);
  });
});
