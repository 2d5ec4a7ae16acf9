/**
 * Walking the registry through the client: cursor pagination with `after_id`, binary pages
 * when the server offers them and JSON otherwise, and `client.announcementPages` as the page
 * source of `scanRegistry`. The server here is a scripted `fetch` over an in-memory registry;
 * tests/client/server.test.ts runs the same against the real server.
 */
import { describe, expect, it } from 'vitest';
import {
  ANNOUNCEMENT_PAGE_MEDIA_TYPE,
  bytesToHex,
  createClient,
  createStealthPayment,
  encodeAnnouncementPage,
  generateKeys,
  scanRegistry,
  toChecksumAddress,
  type RegistryAnnouncement,
} from '../src/index.ts';

/** A random row; every fifth one is a chain event with a stealth address, a note and its position. Rows sit on chains 1, 10 and 8453, every fourth on none. */
function randomAnnouncement(id: number): RegistryAnnouncement {
  const ephemeralKey = crypto.getRandomValues(new Uint8Array(1088));
  const chainEvent = id % 5 === 0;
  return {
    id,
    timestamp: 1_700_000_000 + id,
    ephemeralKey,
    viewTag: id % 256,
    channelId: null,
    txHash: `0x${id.toString(16)}`,
    amount: null,
    chain: 'ethereum',
    stealthAddress: chainEvent ? toChecksumAddress(`0x${bytesToHex(crypto.getRandomValues(new Uint8Array(20)))}`) : null,
    metadata: chainEvent ? crypto.getRandomValues(new Uint8Array(92)) : null,
    blockNumber: chainEvent ? 1000 + id : null,
    logIndex: chainEvent ? id % 3 : null,
    chainId: id % 4 === 0 && !chainEvent ? null : ([1, 10, 8453] as const)[id % 3]!,
    schemeId: 1000,
  };
}

const toJson = (a: RegistryAnnouncement) => ({
  id: a.id,
  ephemeral_key: bytesToHex(a.ephemeralKey),
  view_tag: a.viewTag,
  timestamp: a.timestamp,
  channel_id: a.channelId ? bytesToHex(a.channelId) : null,
  tx_hash: a.txHash ?? null,
  amount: a.amount ?? null,
  chain: a.chain ?? null,
  stealth_address: a.stealthAddress ?? null,
  metadata: a.metadata ? bytesToHex(a.metadata) : null,
  block_number: a.blockNumber ?? null,
  log_index: a.logIndex ?? null,
  chain_id: a.chainId ?? null,
  scheme_id: a.schemeId ?? 1000,
});

type Served = { afterId: number; limit: number; binary: boolean; chainId?: string };

/**
 * A registry server: GET /api/v1/registry/announcements with after_id/limit and the chain_id
 * filter (one id or a comma-separated list, as the server's), binary when asked and offered.
 */
function registryServer(rows: RegistryAnnouncement[], { offersBinary = true, ignoresCursor = false, ignoresChainId = false } = {}) {
  const served: Served[] = [];
  const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const afterId = ignoresCursor ? 0 : Number(url.searchParams.get('after_id') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const chainId = url.searchParams.get('chain_id');
    const chains = chainId === null || ignoresChainId ? null : new Set(chainId.split(',').map(Number));
    const page = rows.filter((a) => a.id > afterId && (chains === null || chains.has(a.chainId!))).slice(0, limit);
    const binary = offersBinary && (new Headers(init.headers).get('accept') ?? '').includes(ANNOUNCEMENT_PAGE_MEDIA_TYPE);
    served.push({ afterId, limit, binary, ...(chainId === null ? {} : { chainId }) });
    if (binary) return new Response(encodeAnnouncementPage(page).slice(), { headers: { 'content-type': ANNOUNCEMENT_PAGE_MEDIA_TYPE } });
    return Response.json({ announcements: page.map(toJson), total: rows.length });
  }) as typeof globalThis.fetch;
  return { fetch, served };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('client.announcementPages', () => {
  const rows = Array.from({ length: 25 }, (_, i) => randomAnnouncement(i + 1));

  it('walks the registry in binary pages with the after_id cursor until a short page', async () => {
    const server = registryServer(rows);
    const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
    const pages = await collect(client.announcementPages({ afterId: 0, pageSize: 10 }));
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(server.served).toEqual([
      { afterId: 0, limit: 10, binary: true },
      { afterId: 10, limit: 10, binary: true },
      { afterId: 20, limit: 10, binary: true },
    ]);
    expect(pages.flat()).toEqual(rows);
  });

  it('reads JSON pages, in the same byte form, from a server without binary pages', async () => {
    const server = registryServer(rows, { offersBinary: false });
    const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
    const all = await collect(client.announcements({ pageSize: 7 }));
    expect(server.served.every((s) => !s.binary)).toBe(true);
    expect(all).toEqual(rows);
  });

  it('reads the JSON rows of an older server, without the chain fields, with those fields null', async () => {
    const current = registryServer(rows.slice(0, 5), { offersBinary: false });
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const { announcements, total } = (await (await current.fetch(input, init)).json()) as { announcements: Record<string, unknown>[]; total: number };
      const old = announcements.map(({ stealth_address: _a, metadata: _b, block_number: _c, log_index: _d, ...json }) => json);
      return Response.json({ announcements: old, total });
    }) as typeof globalThis.fetch;
    const client = createClient({ baseUrl: 'http://wraith.test', fetch });
    const all = (await collect(client.announcementPages({ afterId: 0, pageSize: 10 }))).flat();
    expect(all.map((a) => a.id)).toEqual([1, 2, 3, 4, 5]);
    for (const a of all) expect(a).toMatchObject({ stealthAddress: null, metadata: null, blockNumber: null, logIndex: null });
  });

  it('asks for one more page when the last page is exactly full, and stops on the empty answer', async () => {
    const server = registryServer(rows.slice(0, 20));
    const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
    const pages = await collect(client.announcementPages({ afterId: 0, pageSize: 10 }));
    expect(pages.map((p) => p.length)).toEqual([10, 10]);
    expect(server.served.map((s) => s.afterId)).toEqual([0, 10, 20]);
  });

  it('starts after a saved cursor', async () => {
    const server = registryServer(rows);
    const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
    const all = await collect(client.announcements({ afterId: 22 }));
    expect(all.map((a) => a.id)).toEqual([23, 24, 25]);
  });

  it('detects a server that ignores the cursor instead of looping forever', async () => {
    const server = registryServer(rows, { ignoresCursor: true });
    const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
    await expect(collect(client.announcementPages({ afterId: 0, pageSize: 10 }))).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
    expect(server.served).toHaveLength(2);
  });

  it('walks on in JSON from the first binary page of a layout version it does not read (a newer server)', async () => {
    const current = registryServer(rows);
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const answer = await current.fetch(input, init);
      if (answer.headers.get('content-type') !== ANNOUNCEMENT_PAGE_MEDIA_TYPE) return answer;
      const bytes = new Uint8Array(await answer.arrayBuffer());
      bytes[3] = 0x33; // "WRA3"
      return new Response(bytes, { headers: answer.headers });
    }) as typeof globalThis.fetch;
    const client = createClient({ baseUrl: 'http://wraith.test', fetch });
    const pages = await collect(client.announcementPages({ afterId: 0 }));
    expect(pages.flat()).toEqual(rows);
    expect(current.served.map((s) => [s.binary, s.limit])).toEqual([
      [true, 5000],
      [false, 1000],
      [false, 1000],
    ]);
    // A page without the magic at all is no newer version: still INVALID_RESPONSE.
    const junk = (async () => new Response(new Uint8Array(16), { headers: { 'content-type': ANNOUNCEMENT_PAGE_MEDIA_TYPE } })) as typeof globalThis.fetch;
    await expect(collect(createClient({ baseUrl: 'http://wraith.test', fetch: junk }).announcementPages())).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it('reports a corrupted binary page as INVALID_RESPONSE', async () => {
    const fetch = (async () =>
      new Response(encodeAnnouncementPage(rows.slice(0, 2)).slice(0, 100), { headers: { 'content-type': ANNOUNCEMENT_PAGE_MEDIA_TYPE } })) as typeof globalThis.fetch;
    const client = createClient({ baseUrl: 'http://wraith.test', fetch });
    await expect(collect(client.announcementPages({ afterId: 0 }))).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it('refuses a page size the server would not serve: over 5000 for binary pages, over 1000 for JSON', async () => {
    const client = createClient({ baseUrl: 'http://wraith.test', fetch: registryServer(rows).fetch });
    await expect(collect(client.announcementPages({ afterId: 0, pageSize: 5001 }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(collect(client.announcementPages({ pageSize: 1001, format: 'json' }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(collect(client.announcementPages({ pageSize: 0 }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('asks for the largest page of its form by default: 5000 rows binary, 1000 as JSON', async () => {
    const server = registryServer(rows);
    const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
    expect((await collect(client.announcementPages())).flat()).toEqual(rows);
    expect((await collect(client.announcementPages({ format: 'json' }))).flat()).toEqual(rows);
    expect(server.served.map((s) => [s.limit, s.binary])).toEqual([
      [5000, true],
      [1000, false],
      [1000, false], // a JSON walk ends on an empty page (see the next test)
    ]);
  });

  it('keeps walking a JSON server that serves fewer rows than asked for, until an empty page', async () => {
    const capped = registryServer(rows, { offersBinary: false });
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      url.searchParams.set('limit', String(Math.min(10, Number(url.searchParams.get('limit'))))); // the server's own maximum
      return capped.fetch(url, init);
    }) as typeof globalThis.fetch;
    const client = createClient({ baseUrl: 'http://wraith.test', fetch });
    const pages = await collect(client.announcementPages());
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(rows);
  });

  it('is the page source of scanRegistry: the recipient finds exactly their payments and can resume from a cursor', async () => {
    const alice = generateKeys();
    const bob = generateKeys();
    const registry: RegistryAnnouncement[] = [];
    const pay = (keys: typeof alice) => {
      const payment = createStealthPayment(keys.metaAddress);
      registry.push({ ...randomAnnouncement(registry.length + 1), ephemeralKey: payment.ephemeralCiphertext, viewTag: payment.viewTag });
      return payment.stealthAddress;
    };
    const toAlice = [pay(alice), pay(bob), pay(alice)];
    for (let i = 0; i < 12; i++) registry.push(randomAnnouncement(registry.length + 1));
    const late = pay(alice); // id 16, in the last page

    const server = registryServer(registry);
    const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
    const batches = await collect(scanRegistry(client.announcementPages, alice));
    expect(batches.flatMap((b) => b.discoveries.map((d) => d.stealthAddress))).toEqual([toAlice[0], toAlice[2], late]);
    expect(batches.at(-1)!.progress).toMatchObject({ scanned: 16, cursor: 16, discoveries: 3 });
    expect(server.served.every((s) => s.binary)).toBe(true);

    const resumed = await collect(scanRegistry(client.announcementPages, alice, { fromCursor: 3 }));
    expect(resumed.flatMap((b) => b.discoveries.map((d) => d.announcement.id))).toEqual([16]);
  });

  describe('across chains', () => {
    it('walks every chain by default, each row tagged with its chain id', async () => {
      const server = registryServer(rows);
      const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
      const all = (await collect(client.announcementPages({ pageSize: 10 }))).flat();
      expect(all.map((a) => a.chainId)).toEqual(rows.map((a) => a.chainId));
      expect(new Set(all.map((a) => a.chainId))).toEqual(new Set([1, 10, 8453, null]));
      expect(server.served.every((s) => s.chainId === undefined)).toBe(true);
    });

    it('walks only the chains asked for, binary and JSON, sending them as one comma-separated chain_id', async () => {
      for (const format of ['auto', 'json'] as const) {
        const server = registryServer(rows);
        const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
        const pages = await collect(client.announcementPages({ pageSize: 4, chainIds: [8453, 10], format }));
        const wanted = rows.filter((a) => a.chainId === 8453 || a.chainId === 10);
        expect(pages.flat().map((a) => [a.id, a.chainId])).toEqual(wanted.map((a) => [a.id, a.chainId]));
        expect(server.served.every((s) => s.chainId === '8453,10' && s.binary === (format === 'auto'))).toBe(true);
        // The cursor follows the filtered rows' ids.
        expect(server.served.map((s) => s.afterId)).toEqual([0, ...pages.map((p) => p.at(-1)!.id)].slice(0, server.served.length));
      }
    });

    it('lists one chain with listAnnouncements({ chain_id })', async () => {
      const server = registryServer(rows, { offersBinary: false });
      const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
      const { announcements } = await client.listAnnouncements({ chain_id: 1, limit: 100 });
      expect(announcements.map((a) => a.id)).toEqual(rows.filter((a) => a.chainId === 1).map((a) => a.id));
      await client.listAnnouncements({ chain_id: [1, 10] });
      expect(server.served.map((s) => s.chainId)).toEqual(['1', '1,10']);
    });

    it('fails the walk with INVALID_RESPONSE when the server answers rows of chains not asked for (it ignores chain_id)', async () => {
      const server = registryServer(rows, { ignoresChainId: true });
      const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
      const walk = collect(client.announcementPages({ chainIds: [10] }));
      await expect(walk).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
      await expect(walk).rejects.toThrow(/does not filter by chain/);
    });

    it.each([[[]], [[0]], [[1.5]], [[-1]], [['1' as unknown as number]]])('refuses chainIds %j before any request', async (chainIds) => {
      const server = registryServer(rows);
      const client = createClient({ baseUrl: 'http://wraith.test', fetch: server.fetch });
      await expect(collect(client.announcementPages({ chainIds }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(client.listAnnouncements({ chain_id: chainIds })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(server.served).toHaveLength(0);
    });

    it('scanRegistry over two chains finds each payment with the chain it was paid on, and resumes from one cursor', async () => {
      const alice = generateKeys();
      const registry: RegistryAnnouncement[] = [];
      const pay = (chainId: number) => {
        const payment = createStealthPayment(alice.metaAddress);
        registry.push({ ...randomAnnouncement(registry.length + 1), ephemeralKey: payment.ephemeralCiphertext, viewTag: payment.viewTag, chainId });
      };
      pay(10);
      for (let i = 0; i < 6; i++) registry.push(randomAnnouncement(registry.length + 1));
      pay(8453);
      pay(1);
      const client = createClient({ baseUrl: 'http://wraith.test', fetch: registryServer(registry).fetch });
      const source = (request: { afterId: number; signal?: AbortSignal }) => client.announcementPages({ ...request, pageSize: 3, chainIds: [10, 8453] });
      const batches = await collect(scanRegistry(source, alice));
      expect(batches.flatMap((b) => b.discoveries.map((d) => [d.announcement.id, d.announcement.chainId]))).toEqual([
        [1, 10],
        [8, 8453],
      ]);
      const resumed = await collect(scanRegistry(source, alice, { fromCursor: batches[0]!.cursor }));
      expect(resumed.flatMap((b) => b.discoveries.map((d) => d.announcement.chainId))).toEqual([8453]);
    });
  });
});
