/**
 * POST /api/v1/stealth/scan (INTERFACE.md 4.2, PROTOCOL.md section 5): a published payment is
 * found with the address create returned, and nothing else is.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createScanner, deriveStealthAddress, evmAddressOf } from '@wraith-pq/sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getRegistry } from '../../lib/server/registry.ts';
import { configure } from '../helpers/api.ts';
import {
  createPayment,
  foreignAnnouncement,
  generateKeys,
  publish,
  request,
  scanKeys,
  txHash,
  type KeyBundle,
} from '../helpers/routes.ts';

// The real createScanner, observed: which options the route passes on.
vi.mock('@wraith-pq/sdk', async (importOriginal) => {
  const sdk = await importOriginal<typeof import('@wraith-pq/sdk')>();
  return { ...sdk, createScanner: vi.fn(sdk.createScanner) };
});

beforeEach(() => configure());
afterEach(() => vi.restoreAllMocks());

const scan = (body: unknown) => request('scan', 'POST', { body });

async function publishForeign(count: number, overrides: Record<string, unknown> = {}): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await request('announcements', 'POST', { body: foreignAnnouncement(overrides) });
    expect(response.status).toBe(201);
  }
}

describe('POST /api/v1/stealth/scan', () => {
  it('finds a published payment at the address create returned, with its registry data', async () => {
    const keys = await generateKeys();
    const payment = await createPayment(keys.meta_address);
    const hash = txHash();
    const id = await publish(payment, { tx_hash: hash, amount: '1.5', chain: 'ethereum', channel_id: 'cd'.repeat(32) });
    const response = await scan(scanKeys(keys));
    expect(response.status).toBe(200);
    expect(response.json.discoveries).toHaveLength(1);
    const [found] = response.json.discoveries;
    const stored = (await request('announcements', 'GET')).json.announcements.find((a: { id: number }) => a.id === id);
    expect(found).toEqual({
      scheme_id: 1000,
      stealth_address: payment.stealth_address,
      stealth_sui_address: payment.stealth_sui_address,
      announcement_id: id,
      timestamp: stored.timestamp,
      channel_id: 'cd'.repeat(32),
      tx_hash: hash,
      amount: '1.5',
      chain: 'ethereum',
      chain_id: null,
      view_tag: payment.view_tag,
      stealth_sk: expect.stringMatching(/^[0-9a-f]{64}$/),
      eth_private_key: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      stealth_address_announced: null,
      stealth_address_mismatch: false,
      note_status: 'absent', // published without metadata
      note: null,
      block_number: null,
      log_index: null,
    }); // exactly these fields: with spending_sk, the key and no shared secret
  });

  it('opens the note sealed at create and published as metadata; a corrupted note is reported unreadable, not dropped', async () => {
    const keys = await generateKeys();
    const note = { tx_hash: `0x${'5d'.repeat(32)}`, amount: '250000000', chain_id: '8453' };
    const created = (await request('create', 'POST', { body: { meta_address: keys.meta_address, note } })).json;
    const sealedId = await publish(created, { metadata: created.metadata });
    const tampered = (await request('create', 'POST', { body: { meta_address: keys.meta_address, note } })).json;
    const flipped = tampered.metadata.slice(0, 100) + (tampered.metadata[100] === '0' ? '1' : '0') + tampered.metadata.slice(101);
    const tamperedId = await publish(tampered, { metadata: flipped });
    const { discoveries } = (await scan(scanKeys(keys))).json;
    expect(discoveries.find((d: { announcement_id: number }) => d.announcement_id === sealedId)).toMatchObject({ note_status: 'opened', note });
    expect(discoveries.find((d: { announcement_id: number }) => d.announcement_id === tamperedId)).toMatchObject({
      stealth_address: tampered.stealth_address,
      note_status: 'unreadable',
      note: null,
    });
  });

  it('a note that names its asset (PROTOCOL.md 8.1) travels create → publish → scan: the 113-byte metadata or the 112-byte note alone, a token or the coin', async () => {
    const keys = await generateKeys();
    const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    const tokenNote = { tx_hash: null, amount: '100000000', chain_id: '8453', token: usdc };
    const coinNote = { tx_hash: `0x${'5d'.repeat(32)}`, amount: '500000000000000000', chain_id: '1', token: 'coin' };
    const paidInTokens = (await request('create', 'POST', { body: { meta_address: keys.meta_address, note: { ...tokenNote, tx_hash: undefined, token: usdc.toLowerCase() } } })).json;
    const paidInCoin = (await request('create', 'POST', { body: { meta_address: keys.meta_address, note: coinNote } })).json;
    expect(paidInTokens.metadata).toHaveLength(226); // 113 bytes: the view tag and the 112-byte note
    expect(paidInCoin.announcement.metadata).toHaveLength(224);
    const tokenId = await publish(paidInTokens, { metadata: paidInTokens.metadata });
    const coinId = await publish(paidInCoin, { metadata: paidInCoin.announcement.metadata });
    const stored = (await request('announcements', 'GET')).json.announcements;
    expect(stored.find((a: { id: number }) => a.id === tokenId).metadata).toBe(paidInTokens.metadata.slice(2)); // kept after the view tag
    const { discoveries } = (await scan(scanKeys(keys))).json;
    expect(discoveries.find((d: { announcement_id: number }) => d.announcement_id === tokenId)).toMatchObject({ stealth_address: paidInTokens.stealth_address, note_status: 'opened', note: tokenNote });
    expect(discoveries.find((d: { announcement_id: number }) => d.announcement_id === coinId)).toMatchObject({ stealth_address: paidInCoin.stealth_address, note_status: 'opened', note: coinNote });
  });

  it('refuses published metadata of a length no note has, for either scheme, with 400 naming metadata, and stores nothing', async () => {
    const keys = await generateKeys();
    const created = (await request('create', 'POST', { body: { meta_address: keys.meta_address, note: { amount: '1', token: 'coin' } } })).json;
    const three = (await request('create', 'POST', { body: { meta_address: keys.erc8441_meta_address, note: { amount: '1', token: 'coin' } } })).json;
    // 114, 111 and 94 bytes (112 alone is the note without its view tag, which a publish may send).
    for (const metadata of [created.metadata + '00', created.announcement.metadata.slice(0, -2), created.metadata.slice(0, 188)]) {
      const response = await request('announcements', 'POST', { body: { ephemeral_key: created.ephemeral_ciphertext, view_tag: created.view_tag, tx_hash: txHash(), metadata } });
      expect(response.status).toBe(400);
      expect(response.json.error.details).toContainEqual(expect.objectContaining({ path: 'metadata' }));
    }
    // Scheme 3 takes what follows the view tag: the 113 bytes with it are not that.
    const withTag = await request('announcements', 'POST', { body: { ephemeral_key: three.ephemeral_ciphertext, view_tag: three.view_tag, tx_hash: txHash(), stealth_address: three.stealth_address, metadata: three.metadata } });
    expect(withTag.status).toBe(400);
    expect(withTag.json.error.details).toContainEqual(expect.objectContaining({ path: 'metadata' }));
    expect((await request('announcements', 'GET')).json.total).toBe(0);
  });

  it('refuses published metadata whose view tag byte is not the announcement\'s view tag', async () => {
    const keys = await generateKeys();
    const created = (await request('create', 'POST', { body: { meta_address: keys.meta_address } })).json;
    const otherTag = ((created.view_tag + 1) % 256).toString(16).padStart(2, '0');
    const response = await request('announcements', 'POST', {
      body: { ephemeral_key: created.ephemeral_ciphertext, view_tag: created.view_tag, tx_hash: txHash(), metadata: otherTag + created.metadata.slice(2) },
    });
    expect(response.status).toBe(400);
    expect(response.json.error.details).toContainEqual(expect.objectContaining({ path: 'metadata' }));
  });

  it('returns a private key that controls the stealth address', async () => {
    const keys = await generateKeys();
    const payment = await createPayment(keys.meta_address);
    await publish(payment);
    const [found] = (await scan(scanKeys(keys))).json.discoveries;
    expect(found.stealth_sk).toMatch(/^[0-9a-f]{64}$/);
    expect(found.eth_private_key).toBe(`0x${found.stealth_sk}`);
    expect(found.shared_secret).toBeUndefined();
    const point = secp256k1.Point.BASE.multiply(BigInt(found.eth_private_key));
    expect(evmAddressOf(point)).toBe(payment.stealth_address);
  });

  it('in a view-only scan (no spending_sk) returns the shared secret and no private key', async () => {
    const keys = await generateKeys();
    const payment = await createPayment(keys.meta_address);
    await publish(payment);
    const [found] = (await scan(scanKeys(keys, true))).json.discoveries;
    expect(Object.keys(found).sort()).toEqual(
      [
        'scheme_id', 'stealth_address', 'stealth_sui_address', 'announcement_id', 'timestamp', 'channel_id', 'tx_hash', 'amount', 'chain', 'chain_id',
        'view_tag', 'shared_secret', 'stealth_address_announced', 'stealth_address_mismatch', 'note_status', 'note', 'block_number', 'log_index',
      ].sort(),
    );
    expect(found.shared_secret).toMatch(/^[0-9a-f]{64}$/);
    const derived = deriveStealthAddress({ spendingPublicKey: keys.spending_pk, sharedSecret: found.shared_secret });
    expect(derived.stealthAddress).toBe(payment.stealth_address);
  });

  it('finds exactly the recipient’s payments among other recipients’ and random announcements', async () => {
    const [alice, bob] = [await generateKeys(), await generateKeys()];
    const alicePayments = [await createPayment(alice.meta_address), await createPayment(alice.meta_address)];
    const bobPayment = await createPayment(bob.meta_address);
    await publishForeign(3);
    const aliceIds = [await publish(alicePayments[0]!)];
    await publish(bobPayment);
    await publishForeign(2);
    aliceIds.push(await publish(alicePayments[1]!));
    const response = await scan(scanKeys(alice));
    expect(response.json.discoveries.map((d: { announcement_id: number }) => d.announcement_id)).toEqual(aliceIds);
    expect(response.json.discoveries.map((d: { stealth_address: string }) => d.stealth_address)).toEqual(
      alicePayments.map((p) => p.stealth_address),
    );
    expect(response.json.stats.total_scanned).toBe(8);
    expect(response.json.stats.discoveries).toBe(2);
  });

  it('does not discover a ciphertext made for someone else even when its view tag is forged to match', async () => {
    const [alice, mallory] = [await generateKeys(), await generateKeys()];
    const forged = await createPayment(mallory.meta_address);
    // Publish Mallory's ciphertext under every view tag: one of them matches Alice's candidate tag.
    for (let tag = 0; tag < 256; tag++) await publish({ ephemeral_ciphertext: forged.ephemeral_ciphertext, view_tag: tag });
    const response = await scan(scanKeys(alice));
    expect(response.json.discoveries).toEqual([]);
    expect(response.json.stats.view_tag_matches).toBe(1);
  });

  it('reports integer counts and duration and a numeric rate', async () => {
    const keys = await generateKeys();
    await publish(await createPayment(keys.meta_address));
    await publishForeign(4);
    const { stats } = (await scan(scanKeys(keys))).json;
    expect(Object.keys(stats).sort()).toEqual(['discoveries', 'duration_ms', 'rate', 'total_scanned', 'view_tag_matches']);
    expect(stats.total_scanned).toBe(5);
    expect(stats.discoveries).toBe(1);
    expect(stats.view_tag_matches).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(stats.duration_ms)).toBe(true);
    expect(typeof stats.rate).toBe('number');
  });

  it("mode 'constant' reaches the scanner and finds exactly what the default mode finds", async () => {
    const [alice, bob] = [await generateKeys(), await generateKeys()];
    await publishForeign(2);
    const mine = [await publish(await createPayment(alice.meta_address)), await publish(await createPayment(alice.meta_address))];
    await publish(await createPayment(bob.meta_address));
    vi.mocked(createScanner).mockClear();
    const fast = (await scan(scanKeys(alice))).json;
    const constant = (await scan({ ...scanKeys(alice), mode: 'constant' })).json;
    expect(vi.mocked(createScanner).mock.calls.map((call) => call[1])).toEqual([{}, { mode: 'constant' }]);
    expect(constant.discoveries.map((d: { announcement_id: number }) => d.announcement_id)).toEqual(mine);
    expect(constant.discoveries).toEqual(fast.discoveries);
    expect({ ...constant.stats, duration_ms: 0, rate: 0 }).toEqual({ ...fast.stats, duration_ms: 0, rate: 0 });
  });

  it('refuses an unknown mode with 400 VALIDATION_ERROR naming the field', async () => {
    const keys = await generateKeys();
    const response = await scan({ ...scanKeys(keys), mode: 'quick' });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(response.json.error)).toContain('mode');
    expect(JSON.stringify(response.json)).not.toContain(keys.viewing_sk.slice(0, 64));
  });

  it('scans an empty registry without error', async () => {
    const keys = await generateKeys();
    const response = await scan(scanKeys(keys));
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      discoveries: [],
      stats: { total_scanned: 0, view_tag_matches: 0, discoveries: 0, duration_ms: expect.any(Number), rate: 0 },
    });
  });

  it('forbids caching of the response that carries secret keys', async () => {
    const keys = await generateKeys();
    const response = await scan(scanKeys(keys));
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts keys with a 0x prefix and in upper case', async () => {
    const keys = await generateKeys();
    await publish(await createPayment(keys.meta_address));
    const response = await scan({
      viewing_sk: `0x${keys.viewing_sk.toUpperCase()}`,
      spending_pk: `0X${keys.spending_pk}`,
      spending_sk: keys.spending_sk.toUpperCase(),
    });
    expect(response.json.discoveries).toHaveLength(1);
  });

  it('treats spending_sk: null as a view-only scan', async () => {
    const keys = await generateKeys();
    await publish(await createPayment(keys.meta_address));
    const response = await scan({ ...scanKeys(keys, true), spending_sk: null });
    expect(response.json.discoveries[0].shared_secret).toBeDefined();
  });

  it('refuses a spending secret that does not belong to the spending public key with 400', async () => {
    const [alice, bob] = [await generateKeys(), await generateKeys()];
    const response = await scan({ ...scanKeys(alice), spending_sk: bob.spending_sk });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('VALIDATION_ERROR');
    expect(response.json.error.details).toEqual([{ path: 'spending_sk', issue: expect.any(String) }]);
    expect(response.text).not.toContain(bob.spending_sk);
    expect(response.text).not.toContain(alice.viewing_sk.slice(0, 64));
  });

  it('refuses a spending public key that is not a curve point with 400 VALIDATION_ERROR', async () => {
    const keys = await generateKeys();
    const response = await scan({ ...scanKeys(keys, true), spending_pk: `05${'ff'.repeat(32)}` });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('VALIDATION_ERROR');
    expect(response.json.error.details[0].path).toBe('spending_pk');
  });
});

describe('scan selection (view_tags, else both timestamps, else everything)', () => {
  let keys: KeyBundle;
  let tagged: { view_tag: number; ephemeral_ciphertext: string; stealth_address: string };

  beforeEach(async () => {
    keys = await generateKeys();
    tagged = await createPayment(keys.meta_address);
    await publish(tagged);
    const otherTag = (tagged.view_tag + 1) % 256;
    await publishForeign(3, { view_tag: otherTag });
  });

  it('with view_tags scans only announcements carrying those tags', async () => {
    const response = await scan({ ...scanKeys(keys), view_tags: [tagged.view_tag] });
    expect(response.json.stats.total_scanned).toBe(1);
    expect(response.json.discoveries).toHaveLength(1);
  });

  it('scans each announcement once when a tag is listed twice', async () => {
    const response = await scan({ ...scanKeys(keys), view_tags: [tagged.view_tag, tagged.view_tag] });
    expect(response.json.stats.total_scanned).toBe(1);
    expect(response.json.discoveries).toHaveLength(1);
  });

  it('misses the payment when view_tags leaves out its tag', async () => {
    const response = await scan({ ...scanKeys(keys), view_tags: [(tagged.view_tag + 1) % 256] });
    expect(response.json.stats.total_scanned).toBe(3);
    expect(response.json.discoveries).toEqual([]);
  });

  it('treats an empty view_tags list as no filter', async () => {
    const response = await scan({ ...scanKeys(keys), view_tags: [] });
    expect(response.json.stats.total_scanned).toBe(4);
  });

  it('with both timestamps scans the inclusive time range', async () => {
    const now = Math.floor(Date.now() / 1000);
    const inside = await scan({ ...scanKeys(keys), from_timestamp: now - 60, to_timestamp: now + 60 });
    expect(inside.json.stats.total_scanned).toBe(4);
    expect(inside.json.discoveries).toHaveLength(1);
    const before = await scan({ ...scanKeys(keys), from_timestamp: 0, to_timestamp: now - 3600 });
    expect(before.json.stats.total_scanned).toBe(0);
  });

  it('ignores a single timestamp and scans everything', async () => {
    const response = await scan({ ...scanKeys(keys), from_timestamp: Math.floor(Date.now() / 1000) + 3600 });
    expect(response.json.stats.total_scanned).toBe(4);
  });

  it('prefers view_tags over the time range', async () => {
    const response = await scan({ ...scanKeys(keys), view_tags: [tagged.view_tag], from_timestamp: 0, to_timestamp: 1 });
    expect(response.json.stats.total_scanned).toBe(1);
  });
});

describe('scanning a large registry', () => {
  it('reads the registry in pages of 1000 with an id cursor and still finds every payment', async () => {
    const keys = await generateKeys();
    const store = await getRegistry();
    const first = await createPayment(keys.meta_address);
    const last = await createPayment(keys.meta_address);
    await publish(first);
    for (let i = 0; i < 2100; i++) {
      await store.publish({
        ephemeralKey: crypto.getRandomValues(new Uint8Array(1088)),
        viewTag: i % 256,
        txHash: `bulk-${i}`,
        channelId: null,
        amount: null,
        chain: null,
      });
    }
    await publish(last);
    const list = vi.spyOn(store, 'list');
    const response = await scan(scanKeys(keys));
    expect(response.json.stats.total_scanned).toBe(2102);
    expect(response.json.discoveries.map((d: { stealth_address: string }) => d.stealth_address)).toEqual([
      first.stealth_address,
      last.stealth_address,
    ]);
    expect(list.mock.calls.map(([, options]) => options)).toEqual([
      { limit: 1000, countTotal: false }, // a scan never shows a total: the store need not count
      { limit: 1000, afterId: 1000, countTotal: false },
      { limit: 1000, afterId: 2000, countTotal: false },
    ]);
  }, 120_000);

  it('lets the server handle other work between pages instead of holding the event loop for the whole scan', async () => {
    const keys = await generateKeys();
    const store = await getRegistry();
    for (let i = 0; i < 2500; i++) {
      await store.publish({ ephemeralKey: crypto.getRandomValues(new Uint8Array(1088)), viewTag: i % 256, txHash: `bulk-${i}`, channelId: null, amount: null, chain: null });
    }
    let scanning = true;
    let ranDuringScan = 0;
    const tick = () =>
      setImmediate(() => {
        if (!scanning) return;
        ranDuringScan++;
        tick();
      });
    const pending = scan(scanKeys(keys)).finally(() => (scanning = false));
    tick();
    expect((await pending).json.stats.total_scanned).toBe(2500);
    expect(ranDuringScan).toBeGreaterThanOrEqual(2); // at least once after each of the first two full pages
  }, 120_000);
});

describe('delegated scanning under ERC-8441 (tracking_key with meta_address)', () => {
  /** A scheme-3 payment to `keys`' identity, published over HTTP with a sealed note; its create response. */
  async function payScheme3(keys: KeyBundle, amount: string, token?: string) {
    const created = await request('create', 'POST', { body: { meta_address: keys.erc8441_meta_address, note: { amount, chain_id: '8453', ...(token === undefined ? {} : { token }) } } });
    expect(created.json.scheme_id).toBe(3);
    const published = await request('announcements', 'POST', {
      body: { ephemeral_key: created.json.ephemeral_ciphertext, view_tag: created.json.view_tag, tx_hash: txHash(), stealth_address: created.json.stealth_address, metadata: created.json.announcement.metadata, chain_id: 8453 },
    });
    expect(published.status).toBe(201);
    return created.json as { stealth_address: string; stealth_sui_address: string; view_tag: number };
  }

  it('finds scheme-3 payments with the tracking key alone, with no secret in the answer, and the one-time key with spending_sk', async () => {
    const keys = await generateKeys();
    const other = await generateKeys();
    const mine = await payScheme3(keys, '7');
    await payScheme3(other, '8');
    await publishForeign(3);
    const delegated = await scan({ tracking_key: keys.tracking_key, meta_address: keys.erc8441_meta_address });
    expect(delegated.status).toBe(200);
    expect(delegated.json.discoveries).toHaveLength(1);
    const [found] = delegated.json.discoveries;
    expect(found).toMatchObject({ scheme_id: 3, stealth_address: mine.stealth_address, stealth_sui_address: mine.stealth_sui_address, view_tag: mine.view_tag, chain_id: 8453, note_status: 'opened', note: { amount: '7', chain_id: '8453' } });
    for (const secret of ['stealth_sk', 'eth_private_key', 'shared_secret']) expect(found).not.toHaveProperty(secret);
    const full = await scan({ tracking_key: keys.tracking_key, meta_address: keys.erc8441_meta_address, spending_sk: keys.spending_sk });
    const key = full.json.discoveries[0].stealth_sk as string;
    expect(evmAddressOf(secp256k1.Point.BASE.multiply(BigInt(`0x${key}`)))).toBe(mine.stealth_address);
    expect(full.json.discoveries[0]).not.toHaveProperty('shared_secret');
  });

  it('opens a scheme-3 note that names its asset (112 bytes after the view tag, sealed under ss) and reports its token', async () => {
    const keys = await generateKeys();
    const mine = await payScheme3(keys, '100000000', '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913');
    const coin = await payScheme3(keys, '5', 'coin');
    const { discoveries } = (await scan({ tracking_key: keys.tracking_key, meta_address: keys.erc8441_meta_address })).json;
    expect(discoveries.map((d: { stealth_address: string; note: unknown }) => [d.stealth_address, d.note])).toEqual([
      [mine.stealth_address, { tx_hash: null, amount: '100000000', chain_id: '8453', token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }],
      [coin.stealth_address, { tx_hash: null, amount: '5', chain_id: '8453', token: 'coin' }],
    ]);
  });

  it('scans both schemes of one identity in one request, each row under its own scheme', async () => {
    const keys = await generateKeys();
    const three = await payScheme3(keys, '3');
    const thousand = await createPayment(keys.meta_address);
    await publish(thousand);
    const both = await scan({ ...scanKeys(keys), tracking_key: keys.tracking_key, meta_address: keys.erc8441_meta_address });
    expect(both.json.discoveries.map((d: { scheme_id: number; stealth_address: string }) => [d.scheme_id, d.stealth_address])).toEqual([
      [3, three.stealth_address],
      [1000, thousand.stealth_address],
    ]);
    // Only the schemes whose keys were given are scanned.
    expect((await scan(scanKeys(keys))).json.discoveries.map((d: { scheme_id: number }) => d.scheme_id)).toEqual([1000]);
  });

  it('refuses a tracking key of another identity (400 TRACKING_KEY_MISMATCH), a half pair and no keys at all (400 naming the field), never echoing a key', async () => {
    const keys = await generateKeys();
    const other = await generateKeys();
    const mismatch = await scan({ tracking_key: other.tracking_key, meta_address: keys.erc8441_meta_address });
    expect([mismatch.status, mismatch.json.error.code]).toEqual([400, 'TRACKING_KEY_MISMATCH']);
    expect(mismatch.text).not.toContain(other.tracking_key);
    const half = await scan({ tracking_key: keys.tracking_key });
    expect([half.status, half.json.error.details.map((d: { path: string }) => d.path)]).toEqual([400, ['meta_address']]);
    const none = await scan({});
    expect([none.status, none.json.error.details.map((d: { path: string }) => d.path)]).toEqual([400, ['viewing_sk']]);
    const wrongOwner = await scan({ tracking_key: keys.tracking_key, meta_address: keys.erc8441_meta_address, spending_sk: other.spending_sk });
    expect([wrongOwner.status, wrongOwner.json.error.details]).toEqual([400, [{ path: 'spending_sk', issue: 'does not belong to meta_address' }]]);
  });
});

