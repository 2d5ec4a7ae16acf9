/**
 * Every malformed channel request is answered with a 4xx JSON error in the API's format
 * (API.md "Errors"), naming the field and never quoting what was sent.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/api.ts';
import { configureChannels, discoverKeys, getStatus, newRecipient, openChannel, randomHex, routes, send, type KeyBundle, type RouteName } from './helpers.ts';

let alice: KeyBundle;
let bob: KeyBundle;
/** An open USDC channel (6 decimals). */
let usdcChannel: string;

beforeAll(async () => {
  await configureChannels();
  [alice, bob] = [await newRecipient(), await newRecipient()];
  usdcChannel = (await openChannel({ recipient: alice.meta_address, token: 'USDC', amount: '1' })).channel_id;
});

/** A marker that must never come back in an error response. */
const MARKER = 'deadbeefcafe';

type Case = {
  name: string;
  route: RouteName;
  body: () => unknown;
  status: number;
  code: string;
  /** The field the error names in details, when there is one. */
  path?: string;
};

const create = (fields: Record<string, unknown>) => () => ({ recipient: alice.meta_address, token: 'USDC', amount: '1', ...fields });
const discoverWith = (fields: Record<string, unknown>) => () => ({ ...discoverKeys(alice), ...fields });
const without = (body: () => Record<string, unknown>, field: string) => () => {
  const copy = { ...body() };
  delete copy[field];
  return copy;
};

/** A version-1 meta-address: `01 || ek || ek` (2369 bytes). */
const legacyMetaAddress = () => `01${'00'.repeat(2368)}`;

const CASES: Case[] = [
  // create: recipient
  { name: 'create without a recipient', route: 'create', body: without(create({}), 'recipient'), status: 400, code: 'VALIDATION_ERROR', path: 'recipient' },
  { name: 'create with an empty recipient', route: 'create', body: create({ recipient: '  ' }), status: 400, code: 'VALIDATION_ERROR', path: 'recipient' },
  { name: 'create with a numeric recipient', route: 'create', body: create({ recipient: 42 }), status: 400, code: 'VALIDATION_ERROR', path: 'recipient' },
  { name: 'create with a recipient over 8192 characters', route: 'create', body: create({ recipient: 'a'.repeat(9000) }), status: 400, code: 'VALIDATION_ERROR', path: 'recipient' },
  { name: 'create with a recipient that is not hex', route: 'create', body: create({ recipient: `zz${MARKER}` }), status: 400, code: 'INVALID_META_ADDRESS' },
  { name: 'create with a truncated meta-address', route: 'create', body: () => ({ recipient: alice.meta_address.slice(0, 200), token: 'USDC', amount: '1' }), status: 400, code: 'INVALID_META_ADDRESS' },
  { name: 'create with a meta-address of an unknown version', route: 'create', body: () => ({ recipient: `03${alice.meta_address.slice(2)}`, token: 'USDC', amount: '1' }), status: 400, code: 'INVALID_META_ADDRESS' },
  { name: 'create with a legacy version-1 meta-address', route: 'create', body: create({ recipient: legacyMetaAddress() }), status: 400, code: 'LEGACY_META_ADDRESS' },
  { name: 'create with a name of another name service', route: 'create', body: create({ recipient: `${MARKER}.com` }), status: 400, code: 'INVALID_NAME', path: 'recipient' },
  // create: token
  { name: 'create without a token', route: 'create', body: without(create({}), 'token'), status: 400, code: 'VALIDATION_ERROR', path: 'token' },
  { name: 'create with an unsupported token', route: 'create', body: create({ token: 'DOGE' }), status: 400, code: 'VALIDATION_ERROR', path: 'token' },
  { name: 'create with a token symbol that is too long', route: 'create', body: create({ token: 'X'.repeat(17) }), status: 400, code: 'VALIDATION_ERROR', path: 'token' },
  // create: amount
  { name: 'create without an amount', route: 'create', body: without(create({}), 'amount'), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with a JSON number as amount', route: 'create', body: create({ amount: 5 }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with an empty amount', route: 'create', body: create({ amount: '' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with a zero amount', route: 'create', body: create({ amount: '0' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with a zero amount written with decimals', route: 'create', body: create({ amount: '0.000' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with a negative amount', route: 'create', body: create({ amount: '-1' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with an exponent', route: 'create', body: create({ amount: '1e6' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with a thousands separator', route: 'create', body: create({ amount: '1,000' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with a bare leading dot', route: 'create', body: create({ amount: '.5' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with a trailing dot', route: 'create', body: create({ amount: '5.' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with a hex amount', route: 'create', body: create({ amount: '0x10' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with Infinity', route: 'create', body: create({ amount: 'Infinity' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with more decimals than USDC has (6)', route: 'create', body: create({ amount: '1.0000001' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with more decimals than ETH has (18)', route: 'create', body: create({ token: 'ETH', amount: `0.${'0'.repeat(18)}1` }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with an amount over 2^256 - 1 base units', route: 'create', body: create({ token: 'ETH', amount: '1'.repeat(70) }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'create with an amount string over 100 characters', route: 'create', body: create({ amount: `1.${'0'.repeat(120)}` }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  // create: channel_id
  { name: 'create with a 31-byte channel id', route: 'create', body: create({ channel_id: randomHex(31) }), status: 400, code: 'VALIDATION_ERROR', path: 'channel_id' },
  { name: 'create with a 33-byte channel id', route: 'create', body: create({ channel_id: randomHex(33) }), status: 400, code: 'VALIDATION_ERROR', path: 'channel_id' },
  { name: 'create with a channel id that is not hex', route: 'create', body: create({ channel_id: `${'g'.repeat(52)}${MARKER}` }), status: 400, code: 'VALIDATION_ERROR', path: 'channel_id' },
  { name: 'create with a numeric channel id', route: 'create', body: create({ channel_id: 12345 }), status: 400, code: 'VALIDATION_ERROR', path: 'channel_id' },
  // create: the body itself
  { name: 'create with a top-level array', route: 'create', body: () => [alice.meta_address], status: 400, code: 'VALIDATION_ERROR' },
  { name: 'create with a JSON null body', route: 'create', body: () => null, status: 400, code: 'VALIDATION_ERROR' },
  // discover
  { name: 'discover without a spending_sk', route: 'discover', body: without(discoverWith({}), 'spending_sk'), status: 400, code: 'VALIDATION_ERROR', path: 'spending_sk' },
  { name: 'discover without a viewing_sk', route: 'discover', body: without(discoverWith({}), 'viewing_sk'), status: 400, code: 'VALIDATION_ERROR', path: 'viewing_sk' },
  { name: 'discover without a spending_pk', route: 'discover', body: without(discoverWith({}), 'spending_pk'), status: 400, code: 'VALIDATION_ERROR', path: 'spending_pk' },
  { name: 'discover with a truncated viewing_sk', route: 'discover', body: () => ({ ...discoverKeys(alice), viewing_sk: alice.viewing_sk.slice(2) }), status: 400, code: 'VALIDATION_ERROR', path: 'viewing_sk' },
  { name: 'discover with a spending_sk that is not hex', route: 'discover', body: discoverWith({ spending_sk: `${'z'.repeat(52)}${MARKER}` }), status: 400, code: 'VALIDATION_ERROR', path: 'spending_sk' },
  { name: 'discover with a spending_pk that is not a curve point', route: 'discover', body: discoverWith({ spending_pk: `05${'11'.repeat(32)}` }), status: 400, code: 'VALIDATION_ERROR', path: 'spending_pk' },
  { name: 'discover with someone else’s spending_sk', route: 'discover', body: () => ({ ...discoverKeys(alice), spending_sk: bob.spending_sk }), status: 400, code: 'VALIDATION_ERROR' },
  {
    name: 'discover with a corrupted viewing_sk',
    route: 'discover',
    body: () => ({ ...discoverKeys(alice), viewing_sk: `${alice.viewing_sk.slice(0, 4700)}${alice.viewing_sk[4700] === '0' ? '1' : '0'}${alice.viewing_sk.slice(4701)}` }),
    status: 400,
    code: 'VALIDATION_ERROR',
  },
  // fund
  { name: 'fund without a channel id', route: 'fund', body: () => ({ amount: '1' }), status: 400, code: 'VALIDATION_ERROR', path: 'channel_id' },
  { name: 'fund with a malformed channel id', route: 'fund', body: () => ({ channel_id: MARKER, amount: '1' }), status: 400, code: 'VALIDATION_ERROR', path: 'channel_id' },
  { name: 'fund without an amount', route: 'fund', body: () => ({ channel_id: usdcChannel }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'fund with a negative amount', route: 'fund', body: () => ({ channel_id: usdcChannel, amount: '-5' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'fund with a zero amount', route: 'fund', body: () => ({ channel_id: usdcChannel, amount: '0' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'fund with more decimals than the channel’s token has', route: 'fund', body: () => ({ channel_id: usdcChannel, amount: '0.0000001' }), status: 400, code: 'VALIDATION_ERROR', path: 'amount' },
  { name: 'fund an unknown channel', route: 'fund', body: () => ({ channel_id: randomHex(32), amount: '1' }), status: 404, code: 'NOT_FOUND' },
  // close
  { name: 'close without a channel id', route: 'close', body: () => ({}), status: 400, code: 'VALIDATION_ERROR', path: 'channel_id' },
  { name: 'close with a malformed channel id', route: 'close', body: () => ({ channel_id: `${MARKER}${MARKER}` }), status: 400, code: 'VALIDATION_ERROR', path: 'channel_id' },
  { name: 'close with a null channel id', route: 'close', body: () => ({ channel_id: null }), status: 400, code: 'VALIDATION_ERROR', path: 'channel_id' },
  { name: 'close an unknown channel', route: 'close', body: () => ({ channel_id: randomHex(32) }), status: 404, code: 'NOT_FOUND' },
];

function expectErrorBody(response: { status: number; json: any; text: string }, status: number, code: string, path?: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.json.error).toMatchObject({ code, message: expect.any(String) });
  if (path !== undefined) expect(response.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
  expect(response.text).not.toContain(MARKER);
}

describe('bad channel requests', () => {
  it.each(CASES)('$name answers $status $code', async ({ route, body, status, code, path }) => {
    expectErrorBody(await send(route, body()), status, code, path);
  });

  it('names the supported tokens when the token is unknown', async () => {
    const response = await send('create', { recipient: alice.meta_address, token: 'DOGE', amount: '1' });
    expect(response.json.error.message).toContain('USDC, ETH');
  });

  it('never echoes a secret key sent in a malformed discover request', async () => {
    const response = await send('discover', { ...discoverKeys(alice), viewing_sk: `${alice.viewing_sk}00` });
    expect(response.status).toBe(400);
    expect(response.text).not.toContain(alice.viewing_sk.slice(0, 64));
    expect(response.text).not.toContain(alice.spending_sk);
  });

  it.each(['create', 'discover', 'fund', 'close'] as const)('answers a %s body that is not JSON with 400 INVALID_JSON', async (route) => {
    const response = await send(route, '{"channel_id": ', { headers: { 'content-type': 'application/json' } });
    expectErrorBody(response, 400, 'INVALID_JSON');
  });

  it.each(['create', 'discover', 'fund', 'close'] as const)('answers a %s body sent as text/plain with 415 UNSUPPORTED_MEDIA_TYPE', async (route) => {
    const response = await send(route, '{}', { headers: { 'content-type': 'text/plain' } });
    expectErrorBody(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it.each([
    ['create', 'GET'],
    ['discover', 'GET'],
    ['fund', 'PUT'],
    ['close', 'DELETE'],
    ['config', 'POST'],
  ] as const)('answers %s with method %s by 405 METHOD_NOT_ALLOWED and an Allow header', async (route, method) => {
    const response = await call(routes[route].module[method], routes[route].path, { method });
    expectErrorBody(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBeTruthy();
  });

  it.each([
    ['not hex', `${MARKER}zz`],
    ['63 hex digits', 'a'.repeat(63)],
    ['65 hex digits', 'a'.repeat(65)],
    ['percent-encoded junk', '%E0%A4%A'],
    ['empty', ''],
  ])('answers a status request whose channel id is %s with 400 VALIDATION_ERROR', async (_, id) => {
    expectErrorBody(await getStatus(id), 400, 'VALIDATION_ERROR', 'id');
  });
});
