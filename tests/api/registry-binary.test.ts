/**
 * GET /api/v1/registry/announcements with `Accept: application/octet-stream`: the compact
 * binary page for streaming scans (sdk/src/announcement-binary.ts), cacheable once full.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { bytesToHex, createScanner, decodeAnnouncementPage, erc8441KeysOf, generateKeys } from '@wraith-pq/sdk';
import * as announcementsRoute from '../../app/api/v1/registry/announcements/route.ts';
import type { StoredAnnouncement } from '../../lib/registry/store.ts';
import { getRegistry } from '../../lib/server/registry.ts';
import { binaryPageResponse, pageEtag } from '../../lib/service/registry-binary.ts';
import { buildRequest, configure } from '../helpers/api.ts';
import { foreignAnnouncement, request, txHash } from '../helpers/routes.ts';

beforeEach(() => configure());

async function binary(query: string, headers: Record<string, string> = {}) {
  const response = await announcementsRoute.GET(
    buildRequest(`/api/v1/registry/announcements?${query}`, { method: 'GET', headers: { accept: 'application/octet-stream', ...headers } }),
  );
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}

async function publishMany(n: number) {
  const sent = [];
  for (let i = 0; i < n; i++) {
    const body = foreignAnnouncement(i === 1 ? { channel_id: 'ab'.repeat(32), amount: '1.5', chain: 'yellow' } : {});
    expect((await request('announcements', 'POST', { body })).status).toBe(201);
    sent.push(body);
  }
  return sent;
}

describe('binary registry pages', () => {
  it('carry the same rows as the JSON page, in id order', async () => {
    await publishMany(5);
    const json = (await request('announcements', 'GET', { query: 'limit=10' })).json.announcements;
    const page = await binary('limit=10');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('application/octet-stream');
    const rows = decodeAnnouncementPage(page.bytes).map((r) => ({
      id: r.id,
      ephemeral_key: bytesToHex(r.ephemeralKey),
      view_tag: r.viewTag,
      timestamp: r.timestamp,
      channel_id: r.channelId && bytesToHex(r.channelId),
      tx_hash: r.txHash,
      amount: r.amount,
      chain: r.chain,
      stealth_address: r.stealthAddress,
      metadata: r.metadata ? bytesToHex(r.metadata) : null,
      block_number: r.blockNumber,
      log_index: r.logIndex,
      chain_id: r.chainId,
      scheme_id: r.schemeId,
    }));
    // (JSON rows gain chain_id and scheme_id on main; absent, they are no chain and scheme 1000.)
    expect(rows).toEqual(json.map((row: object) => ({ chain_id: null, scheme_id: 1000, ...row })));
  });

  it('carry the notes that name their asset (112 bytes, PROTOCOL.md 8.1) of both schemes, which a scan of the decoded page reads', async () => {
    const identity = generateKeys();
    const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    const pay = async (metaAddress: Uint8Array, note: Record<string, string>) => {
      const created = (await request('create', 'POST', { body: { meta_address: bytesToHex(metaAddress), note } })).json;
      const body = { ephemeral_key: created.ephemeral_ciphertext, view_tag: created.view_tag, tx_hash: txHash(), metadata: created.announcement.metadata, ...(created.scheme_id === 3 ? { stealth_address: created.stealth_address } : {}) };
      expect((await request('announcements', 'POST', { body })).status).toBe(201);
      return created.stealth_address as string;
    };
    await publishMany(2);
    const inTokens = await pay(identity.metaAddress, { amount: '100000000', chain_id: '8453', token: usdc });
    const inCoin = await pay(erc8441KeysOf(identity).metaAddress, { amount: '5', chain_id: '8453', token: 'coin' });
    const rows = decodeAnnouncementPage((await binary('limit=10')).bytes);
    expect(rows.map((r) => r.metadata?.length ?? null)).toEqual([null, null, 112, 112]);
    const found = createScanner(identity).scan(rows).discoveries;
    expect(found.map((d) => [d.schemeId, d.stealthAddress, d.note])).toEqual([
      [1000, inTokens, { txHash: null, amount: 100_000_000n, chainId: 8453n, token: usdc }],
      [3, inCoin, { txHash: null, amount: 5n, chainId: 8453n, token: 'coin' }],
    ]);
  });

  it('follow the after_id cursor', async () => {
    await publishMany(6);
    const after = decodeAnnouncementPage((await binary('after_id=2&limit=3')).bytes);
    expect(after.map((r) => r.id)).toEqual([3, 4, 5]);
  });

  it('a full page read with a cursor is immutable and cacheable; a partial one must be revalidated', async () => {
    await publishMany(5);
    const full = await binary('after_id=0&limit=3');
    expect(full.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(full.headers.get('vary')).toContain('Accept');
    const partial = await binary('after_id=3&limit=3');
    expect(decodeAnnouncementPage(partial.bytes)).toHaveLength(2);
    expect(partial.headers.get('cache-control')).toBe('no-cache');
    const noCursor = await binary('limit=3');
    expect(noCursor.headers.get('cache-control')).toBe('no-cache');
  });

  it('a full page holding a chain event must be revalidated (a reorganisation may remove it), and carries its chain fields', async () => {
    await publishMany(2);
    const store = await getRegistry();
    const metadata = crypto.getRandomValues(new Uint8Array(92));
    await store.publishVerified({
      ephemeralKey: crypto.getRandomValues(new Uint8Array(1088)), viewTag: 8, txHash: '0x' + '5e'.repeat(32), logIndex: 3, blockNumber: 1234,
      timestamp: 1_700_000_000, stealthAddress: '0x' + 'aB'.repeat(20), metadata, chain: 'ethereum', amount: null, channelId: null, chainId: 1,
    });
    await publishMany(1);
    const httpOnly = await binary('after_id=0&limit=2');
    expect(httpOnly.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const withChainRow = await binary('after_id=0&limit=3');
    expect(decodeAnnouncementPage(withChainRow.bytes)).toHaveLength(3);
    expect(withChainRow.headers.get('cache-control')).toBe('no-cache');
    const [chainRow] = decodeAnnouncementPage((await binary('after_id=2&limit=1')).bytes);
    expect(chainRow).toMatchObject({ id: 3, blockNumber: 1234, logIndex: 3, timestamp: 1_700_000_000 });
    expect(chainRow!.stealthAddress?.toLowerCase()).toBe('0x' + 'ab'.repeat(20));
    expect(bytesToHex(chainRow!.metadata!)).toBe(bytesToHex(metadata));
    // After it, HTTP rows alone are immutable again.
    expect((await binary('after_id=3&limit=1')).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('answers 304 to If-None-Match with the page ETag, and a new ETag once the page grows', async () => {
    await publishMany(2);
    const first = await binary('after_id=0&limit=5');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await binary('after_id=0&limit=5', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    await publishMany(1);
    const grown = await binary('after_id=0&limit=5', { 'if-none-match': etag });
    expect(grown.status).toBe(200);
    expect(grown.headers.get('etag')).not.toBe(etag);
  });

  it("are tagged by their rows' ids and the five fields a store changes in place: a change to any one gives another ETag", () => {
    const note = (fill: number) => new Uint8Array(92).fill(fill);
    const row: StoredAnnouncement = {
      ...{ id: 7, schemeId: 1000, ephemeralKey: new Uint8Array(1088).fill(1), viewTag: 3, timestamp: 1_700_000_000, channelId: null },
      ...{ txHash: '0x' + '12'.repeat(32), amount: null, chain: 'anvil' },
      ...{ stealthAddress: '0x' + 'Ab'.repeat(20), metadata: note(5), blockNumber: 9, logIndex: 2, chainId: 31337 },
    };
    const next: StoredAnnouncement = { ...row, id: 8, stealthAddress: null, metadata: null, blockNumber: null, logIndex: null, chainId: null };
    const tag = pageEtag([row, next]);
    expect(tag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(pageEtag([{ ...row, metadata: note(5) }, { ...next }])).toBe(tag);
    const changes: Partial<StoredAnnouncement>[] = [
      { id: 6 },
      { blockNumber: 10 },
      { blockNumber: null },
      { logIndex: 3 },
      { logIndex: null },
      { stealthAddress: '0x' + 'aB'.repeat(20) },
      { stealthAddress: null },
      { metadata: note(6) },
      { metadata: null },
      { chainId: 1 },
      { chainId: null },
    ];
    const tags = changes.map((change) => pageEtag([{ ...row, ...change }, next]));
    expect(new Set([tag, ...tags]).size).toBe(changes.length + 1);
    // The same fields on the other row of the page, and a page of one row.
    expect(pageEtag([row, { ...next, metadata: note(5) }])).not.toBe(tag);
    expect(pageEtag([row])).not.toBe(tag);
  });

  it('filtered by chain_id, carry only those chains\' rows, each with its chain id, and a full one must be revalidated (an HTTP row joins it when its chain event names the chain)', async () => {
    for (const chainId of [10, 8453, null, 10, 10]) {
      const body = { ...foreignAnnouncement(), ...(chainId === null ? {} : { chain_id: chainId }) };
      expect((await request('announcements', 'POST', { body })).status).toBe(201);
    }
    const all = decodeAnnouncementPage((await binary('after_id=0&limit=10')).bytes);
    expect(all.map((r) => r.chainId)).toEqual([10, 8453, null, 10, 10]);
    const base = await binary('after_id=0&limit=2&chain_id=10');
    expect(decodeAnnouncementPage(base.bytes).map((r) => [r.id, r.chainId])).toEqual([
      [1, 10],
      [4, 10],
    ]);
    expect(base.headers.get('cache-control')).toBe('no-cache');
    const two = decodeAnnouncementPage((await binary('after_id=1&limit=10&chain_id=8453,10')).bytes);
    expect(two.map((r) => [r.id, r.chainId])).toEqual([
      [2, 8453],
      [4, 10],
      [5, 10],
    ]);
    // The same full page without the filter is immutable.
    expect((await binary('after_id=0&limit=2')).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('are written in layout version 2, with each row\'s chain id', () => {
    const row: StoredAnnouncement = {
      ...{ id: 1, schemeId: 1000, ephemeralKey: new Uint8Array(1088).fill(1), viewTag: 3, timestamp: 1_700_000_000, channelId: null, txHash: '0x1', amount: null, chain: 'base' },
      ...{ stealthAddress: null, metadata: null, blockNumber: null, logIndex: null, chainId: 8453 },
    };
    const response = binaryPageResponse(new Request('http://localhost/'), [row, { ...row, id: 2, chainId: null }], { afterId: undefined, offset: 0, limit: 10 });
    return response.arrayBuffer().then((body) => {
      const bytes = new Uint8Array(body);
      expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe('WRA2');
      expect(decodeAnnouncementPage(bytes).map((r) => [r.id, r.chainId, r.schemeId])).toEqual([[1, 8453, 1000], [2, null, 1000]]);
    });
  });

  it('JSON answers are still never cached, and bad queries are JSON errors', async () => {
    const json = await request('announcements', 'GET', { query: 'after_id=0&limit=3' });
    expect(json.headers.get('cache-control')).toBe('no-store');
    const bad = await binary('limit=5001');
    expect(bad.status).toBe(400);
    const { error } = JSON.parse(new TextDecoder().decode(bad.bytes));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual([{ path: 'limit', issue: 'must be at most 5000' }]);
  });

  it('hold up to 5000 rows a page (JSON pages stop at 1000), and a full one is immutable', async () => {
    const store = await getRegistry();
    for (let i = 0; i < 5001; i++) {
      await store.publish({ ephemeralKey: crypto.getRandomValues(new Uint8Array(1088)), viewTag: i & 0xff, txHash: `0x${i.toString(16)}`, channelId: null, amount: null, chain: null });
    }
    const page = await binary('after_id=0&limit=5000');
    expect(page.status).toBe(200);
    const rows = decodeAnnouncementPage(page.bytes);
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    expect(page.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(decodeAnnouncementPage((await binary('after_id=5000&limit=5000')).bytes).map((r) => r.id)).toEqual([5001]);
    const json = await request('announcements', 'GET', { query: 'after_id=0&limit=5000' });
    expect(json.status).toBe(400);
    expect(json.json.error.details).toEqual([{ path: 'limit', issue: 'must be at most 1000 (5000 for binary pages: Accept: application/octet-stream)' }]);
  });
});
