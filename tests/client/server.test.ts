/**
 * The SDK's HTTP client against the real server (`node server.mjs`, production build): every
 * endpoint that needs no outside service, through `createClient`, with the answers a user
 * relies on and the errors mapped to ApiError (400 with details, 404, 409, request ids).
 * Names (ENS, SuiNS) and the server's limits (API key, rate limit): the other files here.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  ApiError,
  announcementForPayment,
  bytesToHex,
  createClient,
  announcementMetadata,
  createStealthPayment,
  decodeMetaAddress,
  erc8441KeysFromSeed,
  generateKeys,
  keysFromBundle,
  scanParametersFor,
  scanRegistry,
  type ApiErrorCode,
  type WraithClient,
} from '@wraith-pq/sdk';
import type { chainsResponse } from '../../lib/schemas/chains.ts';
import type { healthResponse } from '../../lib/schemas/health.ts';
import type { keyBundleResponse } from '../../lib/schemas/keys.ts';
import type { listAnnouncementsResponse, registryStatsResponse } from '../../lib/schemas/registry.ts';
import type { createStealthResponse, scanResponse } from '../../lib/schemas/stealth.ts';
import { logLines, startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';

let server: RunningServer;
let client: WraithClient;
const ipfsDir = temporaryDirectory('wraith-client-ipfs-');

beforeAll(async () => {
  server = await startServer({ env: { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '0', IPFS_STORE_DIR: ipfsDir.path } });
  client = createClient({ baseUrl: server.url });
});
afterAll(async () => {
  await server?.stop();
  ipfsDir.remove();
});

/** The ApiError a call fails with (the test fails if it succeeds). */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

let txCounter = 0;
const txHash = () => `0x${(++txCounter).toString(16).padStart(64, '0')}`;

/** Each operation of the API and the client method that calls it. */
const CLIENT_METHOD_OF_OPERATION: Record<string, keyof WraithClient> = {
  'GET /health': 'getHealth',
  'GET /api/v1/openapi.json': 'getOpenApiDocument',
  'POST /api/v1/keys/generate': 'generateKeys',
  'POST /api/v1/stealth/create': 'createStealthPayment',
  'POST /api/v1/stealth/scan': 'scan',
  'POST /api/v1/registry/announcements': 'publishAnnouncement',
  'GET /api/v1/registry/announcements': 'listAnnouncements',
  'GET /api/v1/registry/stats': 'getRegistryStats',
  'POST /api/v1/ipfs/upload': 'uploadMetaAddress',
  'GET /api/v1/ipfs/{cid}': 'getIpfsContent',
  'GET /api/v1/ens/resolve/{name}': 'resolveEns',
  'GET /api/v1/suins/resolve/{name}': 'resolveSuins',
  'GET /api/v1/ens/address/{name}': 'resolveEnsAddress',
  'GET /api/v1/erc6538/{address}': 'readErc6538',
  'POST /api/v1/yellow/channel/create': 'createChannel',
  'POST /api/v1/yellow/channel/discover': 'discoverChannels',
  'GET /api/v1/yellow/channel/{id}/status': 'getChannelStatus',
  'POST /api/v1/yellow/channel/fund': 'fundChannel',
  'POST /api/v1/yellow/channel/close': 'closeChannel',
  'GET /api/v1/yellow/config': 'getChannelConfig',
  'GET /api/v1/chains': 'getChains',
  'GET /api/v1/names': 'nameGateway',
  'GET /api/v1/names/{name}': 'showName',
  // One operation for register, change and release (its body's action), each a method of its own.
  'POST /api/v1/names': 'registerName',
};

/** The ENS gateway's EIP-3668 routes are called by ENS resolvers and wallets, not by this client. */
const NOT_FOR_THE_CLIENT = ['GET /api/v1/ccip/{sender}/{data}', 'POST /api/v1/ccip'];

describe('coverage', () => {
  it('the client has a method for every operation the server documents in its OpenAPI document', async () => {
    const document = await client.getOpenApiDocument();
    expect(document.openapi).toMatch(/^3\.1/);
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    ).filter((operation) => !NOT_FOR_THE_CLIENT.includes(operation));
    expect(operations.sort()).toEqual(Object.keys(CLIENT_METHOD_OF_OPERATION).sort());
    for (const method of Object.values(CLIENT_METHOD_OF_OPERATION)) expect(typeof client[method], method).toBe('function');
  });
});

describe('ERC-6538', () => {
  it('readErc6538 on a server that follows no chain is a 422 CHAIN_NOT_FOLLOWED ApiError; a bad address is a 400 naming it', async () => {
    const refused = await client.readErc6538(`0x${'11'.repeat(20)}`, { scheme_id: 3 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 422, code: 'CHAIN_NOT_FOLLOWED' });
    const bad = await client.readErc6538('0x1234').catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });
});

describe('health and keys', () => {
  it('getHealth reports a live server with its registry', async () => {
    const health = await client.getHealth();
    expect(health).toMatchObject({ status: 'ok', registry: { kind: 'memory', ok: true } });
    expect(typeof health.version).toBe('string');
    expectTypeOf(health).toEqualTypeOf<z.output<typeof healthResponse>>();
  });

  it('getChains answers the followed chains (none here) in the schema the server documents', async () => {
    const chains = await client.getChains();
    expect(chains).toEqual({ chains: [] });
    expectTypeOf(chains).toEqualTypeOf<z.output<typeof chainsResponse>>();
  });

  it('generateKeys returns a fresh bundle whose keys work with the local SDK', async () => {
    const bundle = await client.generateKeys();
    expectTypeOf(bundle).toEqualTypeOf<z.output<typeof keyBundleResponse>>();
    const keys = keysFromBundle(bundle);
    expect(decodeMetaAddress(keys.metaAddress).spendingPublicKey).toEqual(keys.spendingPublicKey);
    expect((await client.generateKeys()).spending_sk).not.toBe(bundle.spending_sk);
  });
});

describe('send and receive through the server', () => {
  it('create → publish → scan finds the payment at the address create returned', async () => {
    const bundle = await client.generateKeys();
    const created = await client.createStealthPayment({ meta_address: bundle.meta_address });
    expectTypeOf(created).toEqualTypeOf<z.output<typeof createStealthResponse>>();
    const tx = txHash();
    const published = await client.publishAnnouncement({ ephemeral_key: created.ephemeral_ciphertext, view_tag: created.view_tag, tx_hash: tx, chain: 'ethereum', amount: '1.5' });
    expect(published).toEqual({ id: expect.any(Number), success: true });

    const result = await client.scan({ viewing_sk: bundle.viewing_sk, spending_pk: bundle.spending_pk, spending_sk: bundle.spending_sk });
    expectTypeOf(result).toEqualTypeOf<z.output<typeof scanResponse>>();
    expect(result.discoveries).toHaveLength(1);
    expect(result.discoveries[0]).toMatchObject({ stealth_address: created.stealth_address, announcement_id: published.id, tx_hash: tx, amount: '1.5', chain: 'ethereum' });
    expect(result.discoveries[0]!.eth_private_key).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('a payment made locally and announced with announcementForPayment is found by a server scan with local keys', async () => {
    const keys = generateKeys();
    const payment = createStealthPayment(keys.metaAddress);
    await client.publishAnnouncement(announcementForPayment(payment, { txHash: txHash(), chain: 'sui' }));
    const viewOnly = await client.scan(scanParametersFor({ viewingSecretKey: keys.viewingSecretKey, spendingPublicKey: keys.spendingPublicKey }));
    expect(viewOnly.discoveries.map((d) => d.stealth_sui_address)).toEqual([payment.stealthSuiAddress]);
    expect(viewOnly.discoveries[0]!.shared_secret).toBe(bytesToHex(payment.sharedSecret));
    expect(viewOnly.discoveries[0]!.stealth_sk).toBeUndefined();
  });
  it('a scheme-3 (ERC-8441) payment announced with announcementForPayment carries its scheme and address, and a tracking-key scan opens its note', async () => {
    const recipient = erc8441KeysFromSeed(crypto.getRandomValues(new Uint8Array(128)));
    const payment = createStealthPayment(recipient.metaAddress);
    expect(payment.schemeId).toBe(3);
    const tx = txHash();
    const params = announcementForPayment(payment, { txHash: tx, chainId: 31337, metadata: announcementMetadata(payment, { amount: 7n, chainId: 31337n }) });
    expect(params).toMatchObject({ scheme_id: 3, stealth_address: payment.stealthAddress, chain_id: 31337 });
    expect(params.metadata).toMatch(/^(0x)?[0-9a-f]{184}$/); // the 92-byte note: the view tag travels in view_tag, not in metadata
    const published = await client.publishAnnouncement(params);
    const found = await client.scan({ tracking_key: bytesToHex(recipient.trackingKey), meta_address: bytesToHex(recipient.metaAddress) });
    expect(found.discoveries.map((d) => [d.scheme_id, d.stealth_address, d.announcement_id])).toEqual([[3, payment.stealthAddress, published.id]]);
    expect(found.discoveries[0]).toMatchObject({ note_status: 'opened', note: { amount: '7', chain_id: '31337' } });
    expect(found.discoveries[0]!.eth_private_key).toBeUndefined();
    // A scheme-3 payment without its address cannot be announced: the scan would have nothing to decide on.
    expect(() => announcementForPayment({ schemeId: 3, ephemeralCiphertext: payment.ephemeralCiphertext, viewTag: payment.viewTag }, { txHash: txHash() })).toThrow(/stealthAddress/);
  });
});

describe('registry', () => {
  it('listAnnouncements pages the registry with its total, and filters by view tag', async () => {
    const keys = generateKeys();
    const payments = Array.from({ length: 3 }, () => createStealthPayment(keys.metaAddress));
    const ids: number[] = [];
    for (const p of payments) ids.push((await client.publishAnnouncement(announcementForPayment(p, { txHash: txHash() }))).id);

    const all = await client.listAnnouncements({ limit: 1000 });
    expectTypeOf(all).toEqualTypeOf<z.output<typeof listAnnouncementsResponse>>();
    expect(all.total).toBe(all.announcements.length);
    expect(all.announcements.map((a) => a.id)).toEqual(expect.arrayContaining(ids));

    const page = await client.listAnnouncements({ after_id: ids[0], limit: 1 });
    expect(page.announcements.map((a) => a.id)).toEqual([ids[1]]);

    const tag = payments[2]!.viewTag;
    const tagged = await client.listAnnouncements({ view_tag: tag, limit: 1000 });
    expect(tagged.announcements.every((a) => a.view_tag === tag)).toBe(true);
    expect(tagged.announcements.map((a) => a.ephemeral_key)).toContain(bytesToHex(payments[2]!.ephemeralCiphertext));
  });

  it('getRegistryStats counts what was published', async () => {
    const before = await client.getRegistryStats();
    expectTypeOf(before).toEqualTypeOf<z.output<typeof registryStatsResponse>>();
    const payment = createStealthPayment(generateKeys().metaAddress);
    await client.publishAnnouncement(announcementForPayment(payment, { txHash: txHash() }));
    const after = await client.getRegistryStats();
    expect(after.total_announcements).toBe(before.total_announcements + 1);
    const bucket = (stats: typeof after) => stats.view_tag_distribution.find((b) => b.tag === payment.viewTag)?.count ?? 0;
    expect(bucket(after)).toBe(bucket(before) + 1);
  });

  it('announcementPages walks the whole registry in binary pages and scanRegistry finds exactly the recipient\'s payments', async () => {
    const alice = generateKeys();
    const toAlice: string[] = [];
    for (let i = 0; i < 7; i++) {
      const mine = i % 3 === 0;
      const payment = createStealthPayment(mine ? alice.metaAddress : generateKeys().metaAddress);
      if (mine) toAlice.push(payment.stealthAddress);
      await client.publishAnnouncement(announcementForPayment(payment, { txHash: txHash() }));
    }
    const contentTypes: string[] = [];
    const watching = createClient({
      baseUrl: server.url,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        contentTypes.push(response.headers.get('content-type') ?? '');
        return response;
      },
    });
    const total = (await client.getRegistryStats()).total_announcements;
    const found: string[] = [];
    let last;
    for await (const batch of scanRegistry((request) => watching.announcementPages({ ...request, pageSize: 4 }), alice)) {
      found.push(...batch.discoveries.map((d) => d.stealthAddress));
      last = batch.progress;
    }
    expect(found).toEqual(toAlice);
    expect(last?.scanned).toBe(total);
    expect(contentTypes.length).toBe(Math.floor(total / 4) + 1);
    expect(contentTypes.every((t) => t === 'application/octet-stream')).toBe(true);

    const viaJson = [];
    for await (const a of client.announcements({ format: 'json', pageSize: 5 })) viaJson.push(a);
    const viaBinary = [];
    for await (const a of client.announcements()) viaBinary.push(a);
    expect(viaJson).toEqual(viaBinary);
    expect(viaBinary.map((a) => a.id)).toEqual([...viaBinary.map((a) => a.id)].sort((x, y) => x - y));
  });
});

describe('errors from the server', () => {
  it('a second publish of the same tx_hash is a 409 DUPLICATE_ANNOUNCEMENT', async () => {
    const payment = createStealthPayment(generateKeys().metaAddress);
    const tx = txHash();
    await client.publishAnnouncement(announcementForPayment(payment, { txHash: tx }));
    const error = await failure(client.publishAnnouncement(announcementForPayment(payment, { txHash: ` ${tx.toUpperCase().replace('0X', '0x')} ` })));
    expect(error).toMatchObject({ status: 409, code: 'DUPLICATE_ANNOUNCEMENT' satisfies ApiErrorCode, method: 'POST', path: '/api/v1/registry/announcements' });
  });

  it('an invalid request is a 400 VALIDATION_ERROR naming each bad field, without echoing values', async () => {
    const secret = 'ab'.repeat(1200);
    const error = await failure(client.publishAnnouncement({ ephemeral_key: secret, view_tag: 256, tx_hash: '' }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.map((d) => d.path).sort()).toEqual(['ephemeral_key', 'tx_hash', 'view_tag']);
    expect(error.message).not.toContain(secret);
  });

  it('a legacy or malformed meta-address is refused with its own code', async () => {
    const error = await failure(client.createStealthPayment({ meta_address: '02' + '00'.repeat(10) }));
    expect(error).toMatchObject({ status: 400, code: 'INVALID_META_ADDRESS' });
  });

  it('an unknown CID is a 404 NOT_FOUND and a malformed one a 400 INVALID_CID', async () => {
    const unknown = 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy';
    expect(await failure(client.getIpfsContent(unknown))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await failure(client.getIpfsContent('not-a-cid'))).toMatchObject({ status: 400, code: 'INVALID_CID' });
  });

  it('carry the request id the server logged, or the one the caller chose', async () => {
    const error = await failure(client.getIpfsContent('not-a-cid', { requestId: 'client-test-0001' }));
    expect(error.requestId).toBe('client-test-0001');
    const generated = await failure(client.getIpfsContent('still-not-a-cid'));
    expect(generated.requestId).toMatch(/\S{8,}/);
    await expect.poll(() => logLines(server).some((line) => JSON.stringify(line).includes(generated.requestId!))).toBe(true);
  });
});

describe('meta-address storage', () => {
  it('uploadMetaAddress stores the bytes and getIpfsContent returns them, verified against the CID', async () => {
    const keys = generateKeys();
    const uploaded = await client.uploadMetaAddress({ meta_address: keys.metaAddress, name: 'alice' });
    expect(uploaded.text_record).toBe(`ipfs://${uploaded.cid}`);
    expect(await client.getIpfsContent(uploaded.cid)).toEqual(keys.metaAddress);
  });
});

describe('private channels', () => {
  it('create → discover → status → fund → close, with the placeholders marked as such', async () => {
    const config = await client.getChannelConfig();
    expect(config.supported_tokens.map((t) => t.symbol)).toContain('USDC');

    const bundle = await client.generateKeys();
    const created = await client.createChannel({ recipient: bundle.meta_address, token: 'USDC', amount: '12.5' });
    expect(created).toMatchObject({ token: 'USDC', amount: '12.5', announcement: { tx_hash: `channel:${created.channel_id}` } });

    const discovered = await client.discoverChannels({ viewing_sk: bundle.viewing_sk, spending_pk: bundle.spending_pk, spending_sk: bundle.spending_sk });
    expect(discovered.channels.map((c) => [c.channel_id, c.stealth_address, c.status])).toEqual([[created.channel_id, created.stealth_address, 'open']]);

    expect(await client.getChannelStatus(created.channel_id)).toMatchObject({ status: 'open', amount: '12.5', balance: '12.5' });
    const funded = await client.fundChannel({ channel_id: created.channel_id, amount: '2.5' });
    expect(funded).toMatchObject({ placeholder: true, balance: '15', status: 'open' });
    const closed = await client.closeChannel({ channel_id: created.channel_id });
    expect(closed).toMatchObject({ placeholder: true, status: 'closed', already_closed: false, final_balance: '15' });

    const error = await failure(client.fundChannel({ channel_id: created.channel_id, amount: '1' }));
    expect(error).toMatchObject({ status: 409, code: 'CHANNEL_CLOSED' });
    expect(await failure(client.fundChannel({ channel_id: 'ee'.repeat(32), amount: '1' }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((await client.getChannelStatus('ee'.repeat(32))).status).toBe('unknown');
  });
});
