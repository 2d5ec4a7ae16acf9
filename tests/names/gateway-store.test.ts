/**
 * The ENS gateway's store (lib/names/gateway): the same rules in memory, in SQLite and in
 * PostgreSQL. A name's counter is never handed out twice (also across a reopen of the database,
 * and under concurrent lookups), the same requester gets
 * its address back within the window, unpaid addresses are capped per name, and the one-time
 * payment behind an address is rebuilt from the counter and the secret alone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { generateKeys, erc8441KeysOf } from '@wraith-pq/sdk';
import { createMemoryNameStore } from '../../lib/names/gateway/memory-store.ts';
import { gatewayPayment, requesterKey } from '../../lib/names/gateway/one-time-address.ts';
import { createPostgresNameStore } from '../../lib/names/gateway/postgres-store.ts';
import { createSqliteNameStore } from '../../lib/names/gateway/sqlite-store.ts';
import { NameNonceError, type IssuePolicy, type NameStore } from '../../lib/names/gateway/store.ts';
import { describeWithPostgres } from '../helpers/postgres.ts';
import { temporaryDirectory } from '../helpers/server.ts';

const dir = temporaryDirectory('wraith-gateway-store-');
afterAll(() => dir.remove());

const secret = new TextEncoder().encode('a test secret of at least thirty-two characters');
const keys = generateKeys();
const meta = erc8441KeysOf(keys).metaAddress;

function policy(overrides: Partial<IssuePolicy> = {}): IssuePolicy {
  return {
    name: 'alice.wraith.eth',
    requester: requesterKey(secret, '192.0.2.1'),
    now: 1_000_000,
    sameRequesterSeconds: 60,
    addressTtlSeconds: 3_600,
    maxUnpaid: 3,
    mayIssueNew: true,
    derive: (counter, metaAddress) => gatewayPayment(secret, 'alice.wraith.eth', counter, metaAddress).stealthAddress,
    ...overrides,
  };
}

const stores: [string, () => Promise<NameStore>][] = [
  ['memory', async () => createMemoryNameStore()],
  ['sqlite', async () => createSqliteNameStore(`file:${dir.path}/${Math.random().toString(36).slice(2)}.db`)],
];

describe.each(stores)('the gateway store (%s)', (_kind, open) => storeContract(open));

describeWithPostgres('the gateway store (postgres)', (postgres) => {
  storeContract(async () => createPostgresNameStore(await postgres().freshSchema()));

  it('never hands a counter out twice across a reopen', async () => {
    const url = await postgres().freshSchema();
    const before = await createPostgresNameStore(url);
    await before.setName('alice.wraith.eth', 0, { kind: 'label', metaAddress: meta, owner: null }, 0);
    const a = await before.issue(policy());
    await before.close();
    const after = await createPostgresNameStore(url);
    const b = await after.issue(policy({ requester: requesterKey(secret, '192.0.2.9') }));
    expect(b.address!.counter).toBe(a.address!.counter + 1);
    await after.close();
  });

  it('lets one of two instances registering a new name at once win, and the other see a stale nonce', async () => {
    const url = await postgres().freshSchema();
    const [one, two] = [await createPostgresNameStore(url), await createPostgresNameStore(url)];
    const outcomes = await Promise.allSettled([
      one.setName('race.wraith.eth', 0, { kind: 'label', metaAddress: meta, owner: null }, 0),
      two.setName('race.wraith.eth', 0, { kind: 'label', metaAddress: keys.metaAddress, owner: null }, 0),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')?.reason).toBeInstanceOf(NameNonceError);
    expect(await one.nonceOf('race.wraith.eth')).toBe(1);
    await Promise.all([one.close(), two.close()]);
  });
});

function storeContract(open: () => Promise<NameStore>): void {
  it('answers an unknown name with no address and issues nothing', async () => {
    const store = await open();
    expect(await store.issue(policy())).toEqual({ address: null, reason: 'unknown-name' });
    expect(await store.countIssued('alice.wraith.eth')).toBe(0);
  });

  it('gives the same requester its address within the window, others new ones, and caps unpaid addresses per name', async () => {
    const store = await open();
    await store.setName('alice.wraith.eth', 0, { kind: 'label', metaAddress: meta, owner: null }, 0);
    const first = await store.issue(policy());
    const again = await store.issue(policy({ now: 1_000_030 }));
    expect(again.address).toEqual(first.address);
    const later = await store.issue(policy({ now: 1_000_061 }));
    const other = await store.issue(policy({ requester: requesterKey(secret, '192.0.2.2') }));
    const addresses = [first, later, other].map((r) => r.address!.address);
    expect(new Set(addresses).size).toBe(3);
    expect([first, later, other].map((r) => r.address!.counter)).toEqual([0, 1, 2]);
    // Cap reached: a new requester gets the newest unpaid address, no row is added.
    const capped = await store.issue(policy({ requester: requesterKey(secret, '192.0.2.3') }));
    expect(capped).toMatchObject({ fresh: false, address: { counter: 2 } });
    expect(await store.countIssued('alice.wraith.eth')).toBe(3);
    // Paid addresses leave the cap and the watched set.
    await store.markPaid(first.address!.id, { chainId: 31337, txHash: '0x' + 'ab'.repeat(32), announcementId: 7 });
    expect((await store.watched(1_000_100)).map((row) => row.counter)).toEqual([1, 2]);
    expect(await store.issue(policy({ requester: requesterKey(secret, '192.0.2.4') }))).toMatchObject({ fresh: true, address: { counter: 3 } });
    // Expired addresses are no longer watched.
    expect(await store.watched(1_000_061 + 3_600)).toEqual([]);
  });

  it('refuses a new address to a requester over its budget unless it has one already', async () => {
    const store = await open();
    await store.setName('alice.wraith.eth', 0, { kind: 'label', metaAddress: meta, owner: null }, 0);
    expect(await store.issue(policy({ mayIssueNew: false }))).toEqual({ address: null, reason: 'requester-limit' });
    const issued = await store.issue(policy());
    expect((await store.issue(policy({ mayIssueNew: false, now: 1_000_500 }))).address).toEqual(issued.address);
  });

  it('issues distinct counters and holds the cap under concurrent lookups from many requesters', async () => {
    const store = await open();
    await store.setName('alice.wraith.eth', 0, { kind: 'label', metaAddress: meta, owner: null }, 0);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => store.issue(policy({ requester: requesterKey(secret, `198.51.100.${i}`), maxUnpaid: 5 }))));
    const counters = new Set(results.map((r) => r.address!.counter));
    expect(counters).toEqual(new Set([0, 1, 2, 3, 4]));
    expect(results.filter((r) => r.address !== null && r.fresh)).toHaveLength(5);
    expect(await store.countIssued('alice.wraith.eth')).toBe(5);
  });

  it('watches unpaid addresses past their expiry when asked from an earlier time (the grace period)', async () => {
    const store = await open();
    await store.setName('alice.wraith.eth', 0, { kind: 'label', metaAddress: meta, owner: null }, 0);
    const issued = await store.issue(policy());
    const expiry = issued.address!.expiresAt;
    expect(await store.watched(expiry)).toEqual([]);
    expect((await store.watched(expiry - 1)).map((row) => row.id)).toEqual([issued.address!.id]);
  });

  it('applies a change only over the current nonce', async () => {
    const store = await open();
    await store.setName('bob.wraith.eth', 0, { kind: 'label', metaAddress: meta, owner: null }, 0);
    await expect(store.setName('bob.wraith.eth', 0, null, 0)).rejects.toBeInstanceOf(NameNonceError);
    expect(await store.setName('bob.wraith.eth', 1, null, 0)).toBeNull();
    expect(await store.getName('bob.wraith.eth')).toBeNull();
    expect(await store.nonceOf('bob.wraith.eth')).toBe(2);
  });
}

describe('the gateway store in SQLite, reopened', () => {
  it('never hands a counter out twice across a restart', async () => {
    const url = `file:${dir.path}/restart.db`;
    const before = await createSqliteNameStore(url);
    await before.setName('alice.wraith.eth', 0, { kind: 'label', metaAddress: meta, owner: null }, 0);
    const a = await before.issue(policy());
    await before.close();
    const after = await createSqliteNameStore(url);
    const b = await after.issue(policy({ requester: requesterKey(secret, '192.0.2.9') }));
    expect(b.address!.counter).toBe(a.address!.counter + 1);
    expect(b.address!.address).not.toBe(a.address!.address);
    await after.close();
  });
});

describe('the one-time payment behind an issued address', () => {
  it('is the same payment again from the name, counter and secret, and another for another counter or name (both schemes)', () => {
    for (const form of [meta, keys.metaAddress]) {
      const payment = gatewayPayment(secret, 'alice.wraith.eth', 5, form);
      expect(gatewayPayment(secret, 'alice.wraith.eth', 5, form)).toEqual(payment);
      expect(gatewayPayment(secret, 'alice.wraith.eth', 6, form).stealthAddress).not.toBe(payment.stealthAddress);
      expect(gatewayPayment(secret, 'other.wraith.eth', 5, form).stealthAddress).not.toBe(payment.stealthAddress);
      expect(payment.schemeId).toBe(form === meta ? 3 : 1000);
    }
  });
});
