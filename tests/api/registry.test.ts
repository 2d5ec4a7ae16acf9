/**
 * The announcement registry endpoints (INTERFACE.md 4.3, PROTOCOL.md section 6).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '@wraith-pq/sdk';
import { getRegistry } from '../../lib/server/registry.ts';
import { configure } from '../helpers/api.ts';
import { foreignAnnouncement, randomHex, request } from '../helpers/routes.ts';

beforeEach(() => configure());

const publish = (body: unknown) => request('announcements', 'POST', { body });
const list = (query?: string) => request('announcements', 'GET', query === undefined ? {} : { query });

describe('POST /api/v1/registry/announcements', () => {
  it('stores an announcement and answers 201 with its id and success: true', async () => {
    const response = await publish(foreignAnnouncement());
    expect(response.status).toBe(201);
    expect(response.json).toEqual({ id: 1, success: true });
  });

  it('assigns increasing ids from 1 in publication order', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await publish(foreignAnnouncement())).json.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
  });

  it('stores the fields as sent, hex normalised, with a server-set timestamp', async () => {
    const ephemeralKey = randomHex(1088);
    const channelId = randomHex(32);
    const before = Math.floor(Date.now() / 1000);
    await publish({
      ephemeral_key: `0x${ephemeralKey.toUpperCase()}`,
      view_tag: 7,
      tx_hash: '  0xABCDEF  ',
      channel_id: channelId.toUpperCase(),
      amount: '0.25 ETH',
      chain: 'ethereum',
      timestamp: 1, // not the client's to set
      id: 99,
    });
    const [row] = (await list()).json.announcements;
    expect(row).toEqual({
      id: 1,
      scheme_id: 1000,
      ephemeral_key: ephemeralKey,
      view_tag: 7,
      timestamp: expect.any(Number),
      channel_id: channelId,
      tx_hash: '0xABCDEF',
      amount: '0.25 ETH',
      chain: 'ethereum',
      chain_id: null,
      // Published over HTTP: no chain event behind it, no sealed note sent.
      stealth_address: null,
      metadata: null,
      block_number: null,
      log_index: null,
    });
    expect(row.timestamp).toBeGreaterThanOrEqual(before);
  });

  it('stores absent or null optional fields as null', async () => {
    await publish(foreignAnnouncement({ channel_id: null, amount: null }));
    const [row] = (await list()).json.announcements;
    expect(row).toMatchObject({ channel_id: null, amount: null, chain: null });
  });

  it.each([
    ['the same tx_hash', (h: string) => h],
    ['the tx_hash in another case', (h: string) => h.toUpperCase()],
    ['the tx_hash with surrounding whitespace', (h: string) => ` ${h}\t`],
  ])('answers 409 DUPLICATE_ANNOUNCEMENT for %s and stores nothing', async (_, variant) => {
    const hash = '0xfeedbeef';
    expect((await publish(foreignAnnouncement({ tx_hash: hash }))).status).toBe(201);
    const response = await publish(foreignAnnouncement({ tx_hash: variant(hash) }));
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('DUPLICATE_ANNOUNCEMENT');
    expect((await list()).json.total).toBe(1);
  });

  it('stores exactly one of 50 identical publishes that race', async () => {
    const body = foreignAnnouncement({ tx_hash: '0xrace' });
    const responses = await Promise.all(Array.from({ length: 50 }, () => publish(body)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    expect((await list()).json.total).toBe(1);
  });

  it.each([
    ['an all-zero ephemeral_key', { ephemeral_key: '00'.repeat(1088) }, 'ephemeral_key'],
    ['an ephemeral_key one byte short', { ephemeral_key: randomHex(1087) }, 'ephemeral_key'],
    ['a view_tag of 256', { view_tag: 256 }, 'view_tag'],
    ['a negative view_tag', { view_tag: -1 }, 'view_tag'],
    ['a fractional view_tag', { view_tag: 1.5 }, 'view_tag'],
    ['a view_tag given as a string', { view_tag: '5' }, 'view_tag'],
    ['an empty tx_hash', { tx_hash: '' }, 'tx_hash'],
    ['a whitespace-only tx_hash', { tx_hash: '   ' }, 'tx_hash'],
    ['a tx_hash over 256 characters', { tx_hash: 'a'.repeat(257) }, 'tx_hash'],
    ['a channel_id of 31 bytes', { channel_id: randomHex(31) }, 'channel_id'],
    ['an amount over 64 characters', { amount: '1'.repeat(65) }, 'amount'],
    ['a chain over 64 characters', { chain: 'c'.repeat(65) }, 'chain'],
  ])('refuses %s with 400 VALIDATION_ERROR naming the field', async (_, override, field) => {
    const response = await publish(foreignAnnouncement(override));
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('VALIDATION_ERROR');
    expect(response.json.error.details.map((d: { path: string }) => d.path)).toEqual([field]);
    expect((await list()).json.total).toBe(0);
  });

  it('stores the sealed note of ERC-5564 metadata (93 bytes, view tag first) or of a bare 92-byte note', async () => {
    const note = randomHex(92);
    expect((await publish(foreignAnnouncement({ view_tag: 0x2a, metadata: `0x2A${note.toUpperCase()}` }))).status).toBe(201);
    const other = randomHex(92);
    expect((await publish(foreignAnnouncement({ metadata: ` ${other} ` }))).status).toBe(201);
    expect((await publish(foreignAnnouncement({ metadata: null }))).status).toBe(201);
    const rows = (await list()).json.announcements;
    expect(rows.map((row: { metadata: string | null }) => row.metadata)).toEqual([note, other, null]);
  });

  it.each([
    ['ERC-5564 metadata whose view-tag byte is not view_tag', { view_tag: 1, metadata: `02${randomHex(92)}` }],
    ['metadata of the view tag alone (1 byte)', { view_tag: 1, metadata: '01' }],
    ['metadata of 94 bytes', { view_tag: 1, metadata: `01${randomHex(93)}` }],
    ['metadata that is not hex', { view_tag: 1, metadata: `01${'zz'.repeat(92)}` }],
  ])('refuses %s with 400 naming metadata', async (_, override) => {
    const response = await publish(foreignAnnouncement(override));
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('VALIDATION_ERROR');
    expect(response.json.error.details.map((d: { path: string }) => d.path)).toEqual(['metadata']);
    expect((await list()).json.total).toBe(0);
  });

  it('answers 409 for a tx_hash the chain already brought, and lists the chain row with its fields', async () => {
    const store = await getRegistry();
    const txHash = `0x${randomHex(32)}`;
    await store.publishVerified({
      ephemeralKey: hexToBytes(randomHex(1088)), viewTag: 3, txHash, logIndex: 2, blockNumber: 17, timestamp: 1_700_000_000,
      stealthAddress: '0x' + 'Cd'.repeat(20), metadata: hexToBytes(randomHex(92)), chain: 'ethereum', chainId: 1, amount: null, channelId: null,
    });
    const response = await publish(foreignAnnouncement({ tx_hash: txHash.toUpperCase().replace('0X', '0x') }));
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('DUPLICATE_ANNOUNCEMENT');
    const [row] = (await list()).json.announcements;
    expect(row).toMatchObject({ tx_hash: txHash, block_number: 17, log_index: 2, stealth_address: '0x' + 'Cd'.repeat(20), timestamp: 1_700_000_000, chain: 'ethereum', chain_id: 1 });
    expect(row.metadata).toMatch(/^[0-9a-f]{184}$/);
  });

  it('stores the chain_id a publisher names, and refuses one that is not a positive integer', async () => {
    expect((await publish(foreignAnnouncement({ chain_id: 8453 }))).status).toBe(201);
    expect((await list()).json.announcements[0]).toMatchObject({ chain_id: 8453 });
    for (const chainId of [0, -1, 1.5, '8453', 2 ** 53]) {
      const response = await publish(foreignAnnouncement({ chain_id: chainId }));
      expect(response.status, String(chainId)).toBe(400);
      expect(new Set(response.json.error.details.map((d: { path: string }) => d.path))).toEqual(new Set(['chain_id']));
    }
    expect((await list()).json.total).toBe(1);
  });

  it('stores a scheme-3 publish (1121-byte key) with its stealth address, inferring or checking scheme_id', async () => {
    const { createStealthPayment, erc8441KeysOf, generateKeys } = await import('@wraith-pq/sdk');
    const payment = createStealthPayment(erc8441KeysOf(generateKeys()).metaAddress);
    const body = { ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash: `0x${randomHex(32)}`, stealth_address: payment.stealthAddress.toLowerCase(), chain_id: 8453 };
    expect((await publish(body)).status).toBe(201);
    expect((await publish({ ...body, tx_hash: `0x${randomHex(32)}`, scheme_id: 3, metadata: randomHex(56) })).status).toBe(201);
    const { json } = await list('scheme_id=3');
    expect(json.total).toBe(2);
    expect(json.announcements[0]).toMatchObject({ scheme_id: 3, ephemeral_key: body.ephemeral_key, stealth_address: payment.stealthAddress, chain_id: 8453, metadata: null });
    expect(json.announcements[1].metadata).toHaveLength(112);
    expect((await list('scheme_id=1000')).json.total).toBe(0);
  });

  it.each([
    ['no stealth_address', (b: Record<string, unknown>) => ({ ...b, stealth_address: undefined }), 'stealth_address'],
    ['a wrong EIP-55 checksum', (b: Record<string, unknown>) => ({ ...b, stealth_address: (b['stealth_address'] as string).replace(/[a-f]/, (c) => c.toUpperCase()) }), 'stealth_address'],
    ['an epk that is not a point', (b: Record<string, unknown>) => ({ ...b, ephemeral_key: `02${'00'.repeat(31)}05${(b['ephemeral_key'] as string).slice(66)}` }), 'ephemeral_key'],
    ['scheme_id 1000 with a 1121-byte key', (b: Record<string, unknown>) => ({ ...b, scheme_id: 1000 }), 'scheme_id'],
    ['93 bytes of metadata', (b: Record<string, unknown>) => ({ ...b, metadata: randomHex(93) }), 'metadata'],
  ])('refuses a scheme-3 publish with %s (400 naming the field), storing nothing', async (_name, change, field) => {
    const { createStealthPayment, erc8441KeysOf, generateKeys } = await import('@wraith-pq/sdk');
    const payment = createStealthPayment(erc8441KeysOf(generateKeys()).metaAddress);
    const address = payment.stealthAddress;
    const good = { ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash: `0x${randomHex(32)}`, stealth_address: /[a-f]/.test(address.slice(2)) ? address : address.toLowerCase() };
    const response = await publish(change(good));
    expect(response.status).toBe(400);
    expect(response.json.error.details.map((d: { path: string }) => d.path)).toContain(field);
    expect((await list()).json.total).toBe(0);
  });

  it('accepts a view_tag of 0 and of 255 and a tx_hash of exactly 256 characters', async () => {
    expect((await publish(foreignAnnouncement({ view_tag: 0 }))).status).toBe(201);
    expect((await publish(foreignAnnouncement({ view_tag: 255, tx_hash: 'b'.repeat(256) }))).status).toBe(201);
  });
});

describe('GET /api/v1/registry/announcements', () => {
  async function seed(tags: number[]): Promise<void> {
    for (const tag of tags) expect((await publish(foreignAnnouncement({ view_tag: tag }))).status).toBe(201);
  }

  it('lists every announcement ordered by id with the total', async () => {
    await seed([5, 3, 9]);
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.json.total).toBe(3);
    expect(response.json.announcements.map((a: { id: number }) => a.id)).toEqual([1, 2, 3]);
    expect(Object.keys(response.json.announcements[0]).sort()).toEqual(
      ['amount', 'chain', 'chain_id', 'scheme_id', 'channel_id', 'ephemeral_key', 'id', 'tx_hash', 'timestamp', 'view_tag', 'stealth_address', 'metadata', 'block_number', 'log_index'].sort(),
    );
  });

  it('filters by view_tag and counts only the matching rows in total', async () => {
    await seed([5, 3, 5, 9, 5]);
    const response = await list('view_tag=5');
    expect(response.json.announcements.map((a: { id: number }) => a.id)).toEqual([1, 3, 5]);
    expect(response.json.total).toBe(3);
  });

  it('filters by the inclusive time range only when both timestamps are given', async () => {
    await seed([1, 2]);
    const now = Math.floor(Date.now() / 1000);
    expect((await list(`from_timestamp=${now - 60}&to_timestamp=${now + 60}`)).json.total).toBe(2);
    expect((await list(`from_timestamp=0&to_timestamp=${now - 3600}`)).json.total).toBe(0);
    expect((await list(`from_timestamp=${now + 3600}`)).json.total).toBe(2);
  });

  it('prefers view_tag over the time range', async () => {
    await seed([1, 2]);
    expect((await list('view_tag=1&from_timestamp=0&to_timestamp=1')).json.total).toBe(1);
  });

  it('pages with offset and limit (defaults 0 and 100) while total stays the selection size', async () => {
    await seed(Array.from({ length: 120 }, (_, i) => i % 256));
    const firstPage = await list();
    expect(firstPage.json.announcements).toHaveLength(100);
    expect(firstPage.json.total).toBe(120);
    const page = await list('offset=110&limit=5');
    expect(page.json.announcements.map((a: { id: number }) => a.id)).toEqual([111, 112, 113, 114, 115]);
    expect(page.json.total).toBe(120);
  });

  it('continues after a cursor with after_id', async () => {
    await seed([1, 2, 3, 4, 5]);
    const page = await list('after_id=3');
    expect(page.json.announcements.map((a: { id: number }) => a.id)).toEqual([4, 5]);
  });

  it('filters by chain_id, one id or several, together with view_tag and the cursor', async () => {
    for (const [tag, chainId] of [[1, 10], [1, 8453], [2, 10], [1, null], [1, 42161]] as const) {
      expect((await publish(foreignAnnouncement({ view_tag: tag, chain_id: chainId }))).status).toBe(201);
    }
    const chains = async (query: string) => {
      const { json } = await list(query);
      return { ids: json.announcements.map((a: { id: number }) => a.id), chains: json.announcements.map((a: { chain_id: number | null }) => a.chain_id), total: json.total };
    };
    expect(await chains('chain_id=10')).toEqual({ ids: [1, 3], chains: [10, 10], total: 2 });
    expect(await chains('chain_id=10,42161')).toEqual({ ids: [1, 3, 5], chains: [10, 10, 42161], total: 3 });
    expect(await chains('chain_id=10,8453&view_tag=1')).toEqual({ ids: [1, 2], chains: [10, 8453], total: 2 });
    expect(await chains('chain_id=10&after_id=1')).toEqual({ ids: [3], chains: [10], total: 2 });
    expect(await chains('chain_id=1')).toEqual({ ids: [], chains: [], total: 0 });
  });

  it.each(['chain_id=', 'chain_id=0', 'chain_id=abc', 'chain_id=1,', 'chain_id=-5', `chain_id=${Array.from({ length: 33 }, (_, i) => i + 1).join(',')}`])(
    'refuses %s with 400 VALIDATION_ERROR naming chain_id',
    async (query) => {
      const response = await list(query);
      expect(response.status).toBe(400);
      expect(response.json.error.code).toBe('VALIDATION_ERROR');
      expect(response.json.error.details.map((d: { path: string }) => d.path)).toEqual(['chain_id']);
    },
  );

  it('serves up to 1000 rows per page and refuses a larger limit with 400', async () => {
    expect((await list('limit=1000')).status).toBe(200);
    const response = await list('limit=1001');
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('VALIDATION_ERROR');
    expect(response.json.error.details).toEqual([{ path: 'limit', issue: 'must be at most 1000 (5000 for binary pages: Accept: application/octet-stream)' }]);
  });

  it('answers HEAD with the status and headers of GET and no body', async () => {
    const response = await request('announcements', 'HEAD');
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('GET /api/v1/registry/stats', () => {
  it('reports the total and the non-zero view-tag buckets in ascending tag order', async () => {
    for (const tag of [200, 3, 200, 0, 3, 200]) await publish(foreignAnnouncement({ view_tag: tag }));
    const response = await request('stats', 'GET');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      total_announcements: 6,
      view_tag_distribution: [
        { tag: 0, count: 1 },
        { tag: 3, count: 2 },
        { tag: 200, count: 3 },
      ],
    });
  });

  it('reports an empty registry as zero with no buckets', async () => {
    expect((await request('stats', 'GET')).json).toEqual({ total_announcements: 0, view_tag_distribution: [] });
  });
});
