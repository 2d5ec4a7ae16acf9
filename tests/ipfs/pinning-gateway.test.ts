/**
 * Uploads through the pinning service (PINNING_JWT) and downloads through the dedicated gateway
 * (PINNING_GATEWAY_URL + PINNING_GATEWAY_TOKEN), against msw stand-ins with Pinata's shapes
 * (tests/helpers/msw-pinata.ts): success, rejected credentials, failures, timeouts, a gateway
 * that substitutes content, and the in-memory CID cache.
 */
import { readdirSync } from 'node:fs';
import { bytesToHex, cidForBytes } from '@wraith-pq/sdk';
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createPinataMock,
  PINATA_API_URL,
  PINATA_GATEWAY_TOKEN,
  PINATA_GATEWAY_URL,
  PINATA_JWT,
  unixfsFileBlock,
} from '../helpers/msw-pinata.ts';
import { configureIpfs, download, newMetaAddress, upload } from './setup.ts';
import { captureLog } from '../helpers/api.ts';

const pinata = createPinataMock();
const server = setupServer(...pinata.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const PINNING = { PINNING_JWT: PINATA_JWT, PINNING_GATEWAY_URL: PINATA_GATEWAY_URL, PINNING_GATEWAY_TOKEN: PINATA_GATEWAY_TOKEN };

let storeDir: string;
beforeEach(async () => {
  pinata.reset();
  ({ storeDir } = await configureIpfs(PINNING));
});

/** The response leaks none of the server's secrets and no upstream body. */
function expectNoSecrets(text: string): void {
  expect(text).not.toContain(PINATA_JWT);
  expect(text).not.toContain(PINATA_GATEWAY_TOKEN);
  expect(text).not.toContain('INVALID_CREDENTIALS');
  expect(text).not.toContain('pinata.cloud');
}

describe('upload with PINNING_JWT (Pinata pinFileToIPFS)', () => {
  it('pins the raw meta-address bytes and answers the CID Pinata reports', async () => {
    const meta = newMetaAddress();
    const response = await upload({ meta_address: meta.hex, name: 'alice-meta' });
    expect(response.status).toBe(200);
    const cid = cidForBytes(meta.bytes).toString();
    expect(response.json).toEqual({ cid, text_record: `ipfs://${cid}` });
    expect(pinata.pins.has(cid)).toBe(true);
    const [sent] = pinata.pinRequests;
    expect(sent!.authorization).toBe(`Bearer ${PINATA_JWT}`);
    expect(sent!.file).toEqual(meta.bytes);
    expect(sent!.metadata).toEqual({ name: 'alice-meta' });
    expect(sent!.options).toEqual({ cidVersion: 1 });
  });

  it('uses a default pin name when the request gives none', async () => {
    await upload({ meta_address: newMetaAddress().hex });
    expect(pinata.pinRequests[0]!.metadata).toEqual({ name: 'wraith-meta-address' });
  });

  it('keeps a copy in the embedded store, so this server resolves what it pinned without a gateway', async () => {
    const meta = newMetaAddress();
    const { json } = await upload({ meta_address: meta.hex });
    expect(readdirSync(storeDir)).toContain(json.cid);
    await configureIpfs({ PINNING_JWT: PINATA_JWT, IPFS_STORE_DIR: storeDir }); // no gateway
    const response = await download(json.cid);
    expect(response.status).toBe(200);
    expect(response.bytes).toEqual(meta.bytes);
    expect(pinata.gatewayRequests).toHaveLength(0);
  });

  it('still answers the pinned CID when the embedded store cannot be written', async () => {
    const meta = newMetaAddress();
    await configureIpfs({ ...PINNING, IPFS_STORE_DIR: '/dev/null/not-a-directory' });
    const response = await upload({ meta_address: meta.hex });
    expect(response.status).toBe(200);
    expect(response.json.cid).toBe(cidForBytes(meta.bytes).toString());
  });

  it('sends uploads to PINNING_API_URL when it is set', async () => {
    const other = createPinataMock('https://pinning.example.test/api', PINATA_GATEWAY_URL);
    server.use(...other.handlers);
    await configureIpfs({ ...PINNING, PINNING_API_URL: 'https://pinning.example.test/api/' });
    const response = await upload({ meta_address: newMetaAddress().hex });
    expect(response.status).toBe(200);
    expect(other.pinRequests).toHaveLength(1);
    expect(pinata.pinRequests).toHaveLength(0);
  });

  it('accepts a CIDv0 from a service that ignores cidVersion, after checking it names the bytes', async () => {
    const meta = newMetaAddress();
    server.use(
      http.post(`${PINATA_API_URL}/pinning/pinFileToIPFS`, async () => {
        const v0 = (await pinata.pin(meta.bytes, 0)).toString();
        return HttpResponse.json({ IpfsHash: v0, PinSize: 1240, Timestamp: new Date().toISOString() });
      }),
    );
    const response = await upload({ meta_address: meta.hex });
    expect(response.status).toBe(200);
    expect(response.json.cid).toMatch(/^Qm/);
    expect(response.json.text_record).toBe(`ipfs://${response.json.cid}`);
  });

  it('answers 502 UPSTREAM_ERROR when Pinata rejects the JWT (401), without leaking the JWT or the upstream body', async () => {
    await configureIpfs({ ...PINNING, PINNING_JWT: 'wrong-jwt-value' });
    const response = await upload({ meta_address: newMetaAddress().hex });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('UPSTREAM_ERROR');
    expect(response.json.error.message).toMatch(/credentials/);
    expect(response.text).not.toContain('wrong-jwt-value');
    expectNoSecrets(response.text);
  });

  it('logs upstream failures (rejected JWT, 5xx, unreachable, rejected gateway token) without a credential or an upstream body', async () => {
    await configureIpfs({ ...PINNING, PINNING_JWT: 'wrong-jwt-value', PINNING_GATEWAY_TOKEN: 'stale-token-value', LOG_LEVEL: 'debug' });
    const { log } = await captureLog(async () => {
      expect((await upload({ meta_address: newMetaAddress().hex })).status).toBe(502); // 401 from Pinata
      server.use(http.post(`${PINATA_API_URL}/pinning/pinFileToIPFS`, () => HttpResponse.json({ error: 'Internal failure at node 7' }, { status: 500 }), { once: true }));
      expect((await upload({ meta_address: newMetaAddress().hex })).status).toBe(502);
      server.use(http.post(`${PINATA_API_URL}/pinning/pinFileToIPFS`, () => HttpResponse.error(), { once: true }));
      expect((await upload({ meta_address: newMetaAddress().hex })).status).toBe(502);
      expect((await download(await pinata.pin(newMetaAddress().bytes))).status).toBe(502); // 401 from the gateway
    });
    expect(log).toContain('"status":502'); // the failures were logged...
    for (const secret of ['wrong-jwt-value', 'stale-token-value', PINATA_JWT, PINATA_GATEWAY_TOKEN, 'node 7']) expect(log).not.toContain(secret);
  });

  it.each([500, 502, 503])('answers 502 UPSTREAM_ERROR when Pinata fails with %i', async (status) => {
    server.use(http.post(`${PINATA_API_URL}/pinning/pinFileToIPFS`, () => HttpResponse.json({ error: 'Internal failure at node 7' }, { status })));
    const response = await upload({ meta_address: newMetaAddress().hex });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('UPSTREAM_ERROR');
    expect(response.text).not.toContain('node 7');
    expectNoSecrets(response.text);
  });

  it('answers 502 when Pinata cannot be reached', async () => {
    server.use(http.post(`${PINATA_API_URL}/pinning/pinFileToIPFS`, () => HttpResponse.error()));
    const response = await upload({ meta_address: newMetaAddress().hex });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('UPSTREAM_ERROR');
  });

  it('answers 504 UPSTREAM_TIMEOUT when Pinata does not answer within UPSTREAM_TIMEOUT_MS', async () => {
    await configureIpfs({ ...PINNING, UPSTREAM_TIMEOUT_MS: '200' });
    server.use(http.post(`${PINATA_API_URL}/pinning/pinFileToIPFS`, async () => {
      await delay(5_000);
      return HttpResponse.json({});
    }));
    const started = Date.now();
    const response = await upload({ meta_address: newMetaAddress().hex });
    expect(response.status).toBe(504);
    expect(response.json.error.code).toBe('UPSTREAM_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('answers 502 when Pinata reports a CID of other content, so no wrong record gets written', async () => {
    const other = cidForBytes(newMetaAddress().bytes).toString();
    server.use(http.post(`${PINATA_API_URL}/pinning/pinFileToIPFS`, () =>
      HttpResponse.json({ IpfsHash: other, PinSize: 1218, Timestamp: new Date().toISOString() })));
    const response = await upload({ meta_address: newMetaAddress().hex });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('UPSTREAM_ERROR');
    expect(response.text).not.toContain(other);
  });

  it.each([
    ['no IpfsHash', { PinSize: 1218, Timestamp: '2025-01-01T00:00:00Z' }],
    ['an IpfsHash that is not a CID', { IpfsHash: 'not-a-cid', PinSize: 1218, Timestamp: '2025-01-01T00:00:00Z' }],
  ])('answers 502 when Pinata answers with %s', async (_, body) => {
    server.use(http.post(`${PINATA_API_URL}/pinning/pinFileToIPFS`, () => HttpResponse.json(body)));
    const response = await upload({ meta_address: newMetaAddress().hex });
    expect(response.status).toBe(502);
  });

  it('validates the meta-address before calling Pinata', async () => {
    const response = await upload({ meta_address: 'zz' });
    expect(response.status).toBe(400);
    expect(pinata.pinRequests).toHaveLength(0);
  });
});

describe('download through the dedicated gateway', () => {
  it('fetches the bytes with the gateway token and asks for the raw block', async () => {
    const meta = newMetaAddress();
    const cid = await pinata.pin(meta.bytes);
    const response = await download(cid);
    expect(response.status).toBe(200);
    expect(response.bytes).toEqual(meta.bytes);
    expect(pinata.gatewayRequests).toEqual([{ cid, token: PINATA_GATEWAY_TOKEN, accept: expect.stringContaining('application/vnd.ipld.raw') }]);
  });

  it('round-trips an upload: pin through the API, read back through the gateway', async () => {
    const meta = newMetaAddress();
    const { json } = await upload({ meta_address: meta.hex });
    const response = await download(json.cid);
    expect(response.bytes).toEqual(meta.bytes);
  });

  it('extracts the file from the dag-pb block of a CIDv0 and verifies it', async () => {
    const meta = newMetaAddress();
    const cid = await pinata.pin(meta.bytes, 0);
    expect(cid).toMatch(/^Qm/);
    const response = await download(cid);
    expect(response.status).toBe(200);
    expect(response.bytes).toEqual(meta.bytes);
  });

  it('verifies a CIDv0 when the gateway serves the file instead of the block', async () => {
    const meta = newMetaAddress();
    const cid = await pinata.pin(meta.bytes, 0);
    server.use(http.get(`${PINATA_GATEWAY_URL}/ipfs/:cid`, () => new HttpResponse(meta.bytes.slice())));
    const response = await download(cid);
    expect(response.status).toBe(200);
    expect(response.bytes).toEqual(meta.bytes);
  });

  it('refuses with 422 CONTENT_MISMATCH a gateway that serves another meta-address under my CID', async () => {
    const mine = newMetaAddress();
    const attacker = newMetaAddress();
    const cid = await pinata.pin(mine.bytes);
    server.use(http.get(`${PINATA_GATEWAY_URL}/ipfs/:cid`, () => new HttpResponse(attacker.bytes.slice())));
    const response = await download(cid);
    expect(response.status).toBe(422);
    expect(response.json.error.code).toBe('CONTENT_MISMATCH');
    expect(response.text).not.toContain(bytesToHex(attacker.bytes).slice(0, 64));
  });

  it('refuses a substituted dag-pb block for a CIDv0 too', async () => {
    const cid = await pinata.pin(newMetaAddress().bytes, 0);
    const forged = unixfsFileBlock(newMetaAddress().bytes);
    server.use(http.get(`${PINATA_GATEWAY_URL}/ipfs/:cid`, () => new HttpResponse(forged)));
    const response = await download(cid);
    expect(response.status).toBe(422);
  });

  it('answers 404 NOT_FOUND when the gateway does not have the CID', async () => {
    const response = await download(cidForBytes(newMetaAddress().bytes).toString());
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NOT_FOUND');
  });

  it('falls back to the embedded store for content published before the gateway was configured', async () => {
    await configureIpfs({ IPFS_STORE_DIR: storeDir });
    const meta = newMetaAddress();
    const { json } = await upload({ meta_address: meta.hex });
    await configureIpfs({ ...PINNING, IPFS_STORE_DIR: storeDir });
    const response = await download(json.cid);
    expect(response.status).toBe(200);
    expect(response.bytes).toEqual(meta.bytes);
    expect(pinata.gatewayRequests).toHaveLength(1);
  });

  it('answers 502 when the gateway rejects the token, without leaking it', async () => {
    await configureIpfs({ ...PINNING, PINNING_GATEWAY_TOKEN: 'stale-token-value' });
    const cid = await pinata.pin(newMetaAddress().bytes);
    const response = await download(cid);
    expect(response.status).toBe(502);
    expect(response.json.error.message).toMatch(/gateway token/);
    expect(response.text).not.toContain('stale-token-value');
    expectNoSecrets(response.text);
  });

  it('answers 502 when the gateway fails', async () => {
    server.use(http.get(`${PINATA_GATEWAY_URL}/ipfs/:cid`, () => new HttpResponse('upstream exploded', { status: 500 })));
    const response = await download(cidForBytes(newMetaAddress().bytes).toString());
    expect(response.status).toBe(502);
    expect(response.text).not.toContain('exploded');
  });

  it('answers 504 UPSTREAM_TIMEOUT when the gateway is too slow', async () => {
    await configureIpfs({ ...PINNING, UPSTREAM_TIMEOUT_MS: '200' });
    server.use(http.get(`${PINATA_GATEWAY_URL}/ipfs/:cid`, async () => {
      await delay(5_000);
      return new HttpResponse(new Uint8Array(1));
    }));
    const response = await download(cidForBytes(newMetaAddress().bytes).toString());
    expect(response.status).toBe(504);
    expect(response.json.error.code).toBe('UPSTREAM_TIMEOUT');
  });

  it('refuses a body declared larger than 64 KiB with 502', async () => {
    const huge = new Uint8Array(64 * 1024 + 1);
    server.use(http.get(`${PINATA_GATEWAY_URL}/ipfs/:cid`, () => new HttpResponse(huge)));
    const response = await download(cidForBytes(huge).toString());
    expect(response.status).toBe(502);
    expect(response.json.error.message).toMatch(/more than 65536 bytes/);
  });

  it('stops reading an undeclared streamed body once it passes 64 KiB', async () => {
    let chunksPulled = 0;
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          chunksPulled++;
          controller.enqueue(new Uint8Array(16 * 1024));
        },
      });
    server.use(http.get(`${PINATA_GATEWAY_URL}/ipfs/:cid`, () => new HttpResponse(endless())));
    const response = await download(cidForBytes(newMetaAddress().bytes).toString());
    expect(response.status).toBe(502);
    expect(chunksPulled).toBeLessThan(64);
  });
});

describe('CID download cache', () => {
  it('serves a repeated download from memory without asking the gateway again', async () => {
    const meta = newMetaAddress();
    const cid = await pinata.pin(meta.bytes);
    expect((await download(cid)).bytes).toEqual(meta.bytes);
    expect((await download(cid)).bytes).toEqual(meta.bytes);
    expect(pinata.gatewayRequests).toHaveLength(1);
  });

  it('is keyed by content: the CIDv0 and CIDv1 spellings of one dag-pb CID share an entry', async () => {
    const meta = newMetaAddress();
    const v0 = await pinata.pin(meta.bytes, 0);
    await download(v0);
    const { CID } = await import('multiformats/cid');
    const response = await download(CID.parse(v0).toV1().toString());
    expect(response.bytes).toEqual(meta.bytes);
    expect(pinata.gatewayRequests).toHaveLength(1);
  });

  it('asks the gateway every time when IPFS_CACHE_ENTRIES=0', async () => {
    await configureIpfs({ ...PINNING, IPFS_CACHE_ENTRIES: '0' });
    const cid = await pinata.pin(newMetaAddress().bytes);
    await download(cid);
    await download(cid);
    expect(pinata.gatewayRequests).toHaveLength(2);
  });

  it('evicts the least recently used CID when full, not the oldest', async () => {
    await configureIpfs({ ...PINNING, IPFS_CACHE_ENTRIES: '2' });
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => pinata.pin(newMetaAddress().bytes)));
    await download(a!); // fetched
    await download(b!); // fetched
    await download(a!); // cached: a is now more recent than b
    await download(c!); // fetched, evicts b (least recently used), not a (oldest)
    await download(a!); // still cached
    await download(b!); // fetched again
    expect(pinata.gatewayRequests.map((r) => r.cid)).toEqual([a, b, c, b]);
  });

  it('never caches substituted content: once the gateway behaves, the real bytes come through', async () => {
    const meta = newMetaAddress();
    const cid = await pinata.pin(meta.bytes);
    server.use(http.get(`${PINATA_GATEWAY_URL}/ipfs/:cid`, () => new HttpResponse(newMetaAddress().bytes.slice()), { once: true }));
    expect((await download(cid)).status).toBe(422);
    const response = await download(cid);
    expect(response.status).toBe(200);
    expect(response.bytes).toEqual(meta.bytes);
  });
});
