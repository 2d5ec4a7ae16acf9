/**
 * GET /api/v1/suins/resolve/:name (INTERFACE.md 4.4) with the official SuiNS client talking to an
 * msw Sui full node (tests/helpers/msw-sui.ts: the `sui_multiGetObjects` answers it really
 * requests) and the meta-address bytes on an msw Pinata gateway.
 */
import { bytesToHex, cidForBytes, encodeContenthash } from '@wraith-pq/sdk';
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolveRecipientName } from '../../lib/names/resolve.ts';
import { createPinataMock, PINATA_GATEWAY_TOKEN, PINATA_GATEWAY_URL } from '../helpers/msw-pinata.ts';
import { createSuiRpcMock, SUI_RPC_URL } from '../helpers/msw-sui.ts';
import { configureIpfs, legacyMetaAddress, newMetaAddress, resolveSuins } from '../ipfs/setup.ts';

const sui = createSuiRpcMock();
const gateway = createPinataMock();
const server = setupServer(...sui.handlers, ...gateway.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const ENV = { SUI_RPC_URL, SUI_NETWORK: 'mainnet', PINNING_GATEWAY_URL: PINATA_GATEWAY_URL, PINNING_GATEWAY_TOKEN: PINATA_GATEWAY_TOKEN };

beforeEach(async () => {
  sui.reset();
  gateway.reset();
  await configureIpfs(ENV);
});

/** Publish a fresh meta-address for `name` (content hash = `record(cid)`), as its owner would. */
async function publish(name: string, record: (cid: string) => string = (cid) => `ipfs://${cid}`, cidVersion: 0 | 1 = 1) {
  const meta = newMetaAddress();
  const cid = await gateway.pin(meta.bytes, cidVersion);
  sui.names.set(name, { contentHash: record(cid), data: { avatar: 'https://example.test/a.png' } });
  return { meta, cid };
}

describe('GET /api/v1/suins/resolve/:name', () => {
  it('resolves a name whose content hash is ipfs://<cid> to its meta-address and keys', async () => {
    const { meta, cid } = await publish('alice.sui');
    const response = await resolveSuins('alice.sui');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      meta_address: meta.hex,
      spending_pk: bytesToHex(meta.bytes.subarray(1, 34)),
      viewing_pk: bytesToHex(meta.bytes.subarray(34)),
      ipfs_cid: cid,
      suins_name: 'alice.sui',
    });
    expect(sui.calls).toEqual(['sui_multiGetObjects']);
  });

  it.each([
    ['a bare CID', (cid: string) => cid, 1 as const],
    ['/ipfs/<cid>', (cid: string) => `/ipfs/${cid}`, 1 as const],
    ['a CIDv0', (cid: string) => cid, 0 as const],
    ['ipfs://<CIDv0>', (cid: string) => `ipfs://${cid}`, 0 as const],
  ])('accepts a content hash written as %s', async (_, record, cidVersion) => {
    const { meta } = await publish('bob.sui', record, cidVersion);
    const response = await resolveSuins('bob.sui');
    expect(response.status).toBe(200);
    expect(response.json.meta_address).toBe(meta.hex);
  });

  it('normalises the name to lower case before looking it up', async () => {
    const { meta } = await publish('carol.sui');
    const response = await resolveSuins('  Carol.SUI ');
    expect(response.status).toBe(200);
    expect(response.json.suins_name).toBe('carol.sui');
    expect(response.json.meta_address).toBe(meta.hex);
  });

  it('resolves a leaf subname, whose record carries expiration 0', async () => {
    const meta = newMetaAddress();
    const cid = await gateway.pin(meta.bytes);
    sui.names.set('pay.dave.sui', { contentHash: `ipfs://${cid}`, expirationTimestampMs: 0 });
    const response = await resolveSuins('pay.dave.sui');
    expect(response.status).toBe(200);
    expect(response.json.suins_name).toBe('pay.dave.sui');
  });

  it('answers 404 NO_STEALTH_RECORD for a registered name without a content hash', async () => {
    sui.names.set('erin.sui', { data: { avatar: 'https://example.test/e.png' } });
    const response = await resolveSuins('erin.sui');
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NO_STEALTH_RECORD');
  });

  it('answers 404 NAME_NOT_FOUND for a name that is not registered', async () => {
    const response = await resolveSuins('nobody.sui');
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NAME_NOT_FOUND');
    expect(sui.calls).toEqual(['sui_multiGetObjects']);
  });

  it('answers 404 NAME_NOT_FOUND for an expired name, even with a content hash', async () => {
    const meta = newMetaAddress();
    sui.names.set('old.sui', { contentHash: `ipfs://${await gateway.pin(meta.bytes)}`, expirationTimestampMs: Date.now() - 1000 });
    const response = await resolveSuins('old.sui');
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NAME_NOT_FOUND');
  });

  it.each(['alice.eth', 'alice', '-alice.sui', 'a..sui', 'al ice.sui', '.sui'])('answers 400 INVALID_NAME for %j', async (name) => {
    const response = await resolveSuins(name);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_NAME');
    expect(sui.calls).toEqual([]);
  });

  it('answers 400 INVALID_CID when the content hash is not a CID', async () => {
    sui.names.set('frank.sui', { contentHash: 'https://frank.example/meta' });
    const response = await resolveSuins('frank.sui');
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_CID');
    expect(response.json.error.message).toMatch(/content hash/);
  });

  it('answers 400 INVALID_CID for a hex EIP-1577 content hash (SuiNS records hold CID text)', async () => {
    sui.names.set('gina.sui', { contentHash: bytesToHex(encodeContenthash(cidForBytes(newMetaAddress().bytes))) });
    const response = await resolveSuins('gina.sui');
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_CID');
  });

  it('answers 400 INVALID_META_ADDRESS when the content is not a meta-address', async () => {
    const cid = await gateway.pin(new TextEncoder().encode('<html>my website</html>'));
    sui.names.set('site.sui', { contentHash: `ipfs://${cid}` });
    const response = await resolveSuins('site.sui');
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_META_ADDRESS');
  });

  it('answers 400 LEGACY_META_ADDRESS when the name publishes a version-1 meta-address', async () => {
    const cid = await gateway.pin(legacyMetaAddress());
    sui.names.set('legacy.sui', { contentHash: `ipfs://${cid}` });
    const response = await resolveSuins('legacy.sui');
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('LEGACY_META_ADDRESS');
  });

  it('answers 422 CONTENT_MISMATCH when the gateway substitutes another meta-address', async () => {
    await publish('harry.sui');
    server.use(http.get(`${PINATA_GATEWAY_URL}/ipfs/:cid`, () => new HttpResponse(newMetaAddress().bytes.slice())));
    const response = await resolveSuins('harry.sui');
    expect(response.status).toBe(422);
    expect(response.json.error.code).toBe('CONTENT_MISMATCH');
  });

  it('answers 404 NOT_FOUND when the record points to a CID no gateway has', async () => {
    sui.names.set('ivy.sui', { contentHash: `ipfs://${cidForBytes(newMetaAddress().bytes)}` });
    const response = await resolveSuins('ivy.sui');
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NOT_FOUND');
  });

  it('answers 502 UPSTREAM_ERROR when the node answers a JSON-RPC error, without echoing it', async () => {
    server.use(http.post(SUI_RPC_URL, async ({ request }) => {
      const { id } = (await request.json()) as { id: number };
      return HttpResponse.json({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error: rocksdb shard 12 unavailable' } });
    }));
    const response = await resolveSuins('alice.sui');
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('UPSTREAM_ERROR');
    expect(response.text).not.toContain('rocksdb');
  });

  it.each([429, 503])('answers 502 UPSTREAM_ERROR when the node answers HTTP %i', async (status) => {
    server.use(http.post(SUI_RPC_URL, () => new HttpResponse('busy', { status })));
    const response = await resolveSuins('alice.sui');
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('UPSTREAM_ERROR');
  });

  it('answers 502 UPSTREAM_ERROR when the node cannot be reached', async () => {
    server.use(http.post(SUI_RPC_URL, () => HttpResponse.error()));
    const response = await resolveSuins('alice.sui');
    expect(response.status).toBe(502);
  });

  it('answers 504 UPSTREAM_TIMEOUT when the node does not answer within UPSTREAM_TIMEOUT_MS', async () => {
    await configureIpfs({ ...ENV, UPSTREAM_TIMEOUT_MS: '200' });
    server.use(http.post(SUI_RPC_URL, async () => {
      await delay(5_000);
      return HttpResponse.json({});
    }));
    const started = Date.now();
    const response = await resolveSuins('alice.sui');
    expect(response.status).toBe(504);
    expect(response.json.error.code).toBe('UPSTREAM_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('uses the public full node of SUI_NETWORK when SUI_RPC_URL is unset', async () => {
    const mainnet = createSuiRpcMock('https://fullnode.mainnet.sui.io');
    server.use(...mainnet.handlers);
    const meta = newMetaAddress();
    mainnet.names.set('alice.sui', { contentHash: `ipfs://${await gateway.pin(meta.bytes)}` });
    await configureIpfs({ ...ENV, SUI_RPC_URL: undefined });
    const response = await resolveSuins('alice.sui');
    expect(response.status).toBe(200);
    expect(mainnet.calls).toEqual(['sui_multiGetObjects']);
  });

  it('answers 502 with a clear message on a network without SuiNS (SUI_NETWORK=devnet)', async () => {
    await configureIpfs({ ...ENV, SUI_NETWORK: 'devnet' });
    const response = await resolveSuins('alice.sui');
    expect(response.status).toBe(502);
    expect(response.json.error.message).toMatch(/SUI_NETWORK/);
  });
});

describe('freshness and the download cache', () => {
  it('looks the name up on every request but downloads the content once', async () => {
    await publish('alice.sui');
    expect((await resolveSuins('alice.sui')).status).toBe(200);
    expect((await resolveSuins('alice.sui')).status).toBe(200);
    expect(sui.calls).toHaveLength(2);
    expect(gateway.gatewayRequests).toHaveLength(1);
  });

  it('sees a changed record at once: a new meta-address is served on the next request', async () => {
    await publish('alice.sui');
    await resolveSuins('alice.sui');
    const { meta } = await publish('alice.sui');
    const response = await resolveSuins('alice.sui');
    expect(response.json.meta_address).toBe(meta.hex);
  });

  it.each(['?no_cache', '?no_cache=1', '?no_cache=true'])('clears the download cache before the lookup with %s', async (query) => {
    await publish('alice.sui');
    await resolveSuins('alice.sui');
    const response = await resolveSuins('alice.sui', query);
    expect(response.status).toBe(200);
    expect(gateway.gatewayRequests).toHaveLength(2);
  });

  it('keeps using the cache when no_cache is absent from the query', async () => {
    await publish('alice.sui');
    await resolveSuins('alice.sui');
    await resolveSuins('alice.sui', '?other=1');
    expect(gateway.gatewayRequests).toHaveLength(1);
  });
});

describe('resolveRecipientName (used by private channels)', () => {
  it('resolves a .sui name to the decoded meta-address', async () => {
    const { meta, cid } = await publish('judy.sui');
    const resolved = await resolveRecipientName('judy.sui');
    expect(resolved.service).toBe('suins');
    expect(resolved.name).toBe('judy.sui');
    expect(resolved.cid).toBe(cid);
    expect(resolved.metaAddress.bytes).toEqual(meta.bytes);
  });

  it('clears the download cache when asked to', async () => {
    await publish('judy.sui');
    await resolveRecipientName('judy.sui');
    await resolveRecipientName('judy.sui', { noCache: true });
    expect(gateway.gatewayRequests).toHaveLength(2);
  });

  it.each(['bob.com', 'bob', 'st:eth:0x02'])('refuses %j with 400 INVALID_NAME', async (name) => {
    await expect(resolveRecipientName(name)).rejects.toMatchObject({ status: 400, code: 'INVALID_NAME' });
  });
});
