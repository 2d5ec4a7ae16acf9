/**
 * Hostile and malformed input, generated from tables, against every endpoint.
 *
 * Each case must be answered with the right 4xx JSON error (API.md "Errors"), never a 500; the
 * secret keys in a bad scan request must never come back; parsing must not pollute
 * Object.prototype. Bodies are otherwise valid, so each case tests exactly one broken rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configure } from '../helpers/api.ts';
import { generateKeys, randomHex, request, type KeyBundle, type Method, type RouteName } from '../helpers/routes.ts';

type Expected = { status: number; code: string; path?: string };
type BodyCase = { name: string; route: RouteName; body?: unknown; raw?: string | Uint8Array | ReadableStream; headers?: Record<string, string>; expected: Expected };

// The tables below embed real keys, so they are generated before the tests are collected.
await configure();
const keys: KeyBundle = await generateKeys();
const secrets = [keys.viewing_sk.slice(0, 96), keys.viewing_sk.slice(-96), keys.spending_sk, keys.spending_sk.toUpperCase()];

beforeAll(() => configure());
afterAll(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).meta_address).toBeUndefined();
});

const VALID = {
  create: () => ({ meta_address: keys.meta_address }),
  scan: () => ({ viewing_sk: keys.viewing_sk, spending_pk: keys.spending_pk, spending_sk: keys.spending_sk }),
  announcements: () => ({ ephemeral_key: randomHex(1088), view_tag: 1, tx_hash: `0x${randomHex(32)}` }),
};
type BodyRoute = keyof typeof VALID;

const validation = (path?: string): Expected => ({ status: 400, code: 'VALIDATION_ERROR', ...(path === undefined ? {} : { path }) });
const badJson: Expected = { status: 400, code: 'INVALID_JSON' };
const unsupported: Expected = { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' };
const tooLarge: Expected = { status: 413, code: 'PAYLOAD_TOO_LARGE' };

// --- Value tables -------------------------------------------------------------------------------

/** Values of the wrong JSON type for a string field. */
const NOT_STRINGS: [string, unknown][] = [
  ['a number', 42],
  ['zero', 0],
  ['a boolean', true],
  ['an array', ['ab']],
  ['an empty array', []],
  ['an object', { hex: 'ab' }],
  ['an empty object', {}],
  ['a huge number', 1e308],
  ['a deeply nested array', JSON.parse('['.repeat(500) + ']'.repeat(500))],
];

/** Values of the wrong type or range for an integer field. */
const NOT_INTEGERS: [string, unknown][] = [
  ['a string of digits', '5'],
  ['a fraction', 1.5],
  ['a negative number', -1],
  ['a huge number', 1e308],
  ['2^53', 2 ** 53],
  ['a boolean', false],
  ['an array', [1]],
  ['an object', { value: 1 }],
  ['an empty string', ''],
];

/** Hex strings that break the format or the length, for a field of `bytes` bytes. */
function badHex(bytes: number): [string, string][] {
  return [
    ['an empty string', ''],
    ['only a 0x prefix', '0x'],
    ['an odd number of digits', 'a'.repeat(bytes * 2 - 1)],
    ['a non-hex character', `g${'a'.repeat(bytes * 2 - 1)}`],
    ['a space inside', `${'a'.repeat(bytes)} ${'a'.repeat(bytes - 1)}`],
    ['one byte short', 'ab'.repeat(bytes - 1)],
    ['one byte long', 'ab'.repeat(bytes + 1)],
    ['a double 0x prefix', `0x0x${'ab'.repeat(bytes - 1)}`],
    ['non-ASCII digits', '٣'.repeat(bytes * 2)],
    ['base64 instead of hex', Buffer.from(new Uint8Array(bytes).fill(7)).toString('base64')],
    ['a huge string', 'ab'.repeat(30_000)],
  ];
}

// --- Field cases --------------------------------------------------------------------------------

type FieldSpec = { route: BodyRoute; field: string; required: boolean; kind: 'hex' | 'integer' | 'string' | 'meta' | 'tags'; bytes?: number };

const FIELDS: FieldSpec[] = [
  { route: 'create', field: 'meta_address', required: true, kind: 'meta' },
  { route: 'scan', field: 'viewing_sk', required: true, kind: 'hex', bytes: 2400 },
  { route: 'scan', field: 'spending_pk', required: true, kind: 'hex', bytes: 33 },
  { route: 'scan', field: 'spending_sk', required: false, kind: 'hex', bytes: 32 },
  { route: 'scan', field: 'view_tags', required: false, kind: 'tags' },
  { route: 'scan', field: 'from_timestamp', required: false, kind: 'integer' },
  { route: 'scan', field: 'to_timestamp', required: false, kind: 'integer' },
  { route: 'announcements', field: 'ephemeral_key', required: true, kind: 'hex', bytes: 1088 },
  { route: 'announcements', field: 'view_tag', required: true, kind: 'integer' },
  { route: 'announcements', field: 'tx_hash', required: true, kind: 'string' },
  { route: 'announcements', field: 'channel_id', required: false, kind: 'hex', bytes: 32 },
  { route: 'announcements', field: 'amount', required: false, kind: 'string' },
  { route: 'announcements', field: 'chain', required: false, kind: 'string' },
];

function withField(route: BodyRoute, field: string, value: unknown): Record<string, unknown> {
  return { ...VALID[route](), [field]: value };
}

function withoutField(route: BodyRoute, field: string): Record<string, unknown> {
  const body = VALID[route]();
  delete (body as Record<string, unknown>)[field];
  return body;
}

function fieldCases(): BodyCase[] {
  const cases: BodyCase[] = [];
  for (const spec of FIELDS) {
    const { route, field } = spec;
    const add = (what: string, value: unknown, expected = validation(field)) =>
      cases.push({ name: `${field} ${what}`, route, body: withField(route, field, value), expected });
    if (spec.required) {
      cases.push({ name: `a missing ${field}`, route, body: withoutField(route, field), expected: validation(field) });
      add('set to null', null);
    }
    if (spec.kind === 'integer') {
      for (const [what, value] of NOT_INTEGERS) add(`given as ${what}`, value);
      if (field === 'view_tag') add('of 256', 256);
    } else if (spec.kind === 'tags') {
      for (const [what, value] of NOT_STRINGS.filter(([, v]) => !Array.isArray(v))) add(`given as ${what}`, value);
      add('containing 256', [1, 256]);
      add('containing -1', [-1]);
      add('containing a string', ['7']);
      add('containing a fraction', [2.5]);
      add('containing null', [null]);
      add('with 257 entries', Array.from({ length: 257 }, (_, i) => i % 256));
    } else {
      for (const [what, value] of NOT_STRINGS) add(`given as ${what}`, value);
      if (spec.kind === 'hex') for (const [what, value] of badHex(spec.bytes!)) add(`as ${what}`, value);
      if (spec.kind === 'meta') {
        for (const [what, value] of badHex(1218)) {
          add(`as ${what}`, value, { status: 400, code: 'INVALID_META_ADDRESS', path: 'meta_address' });
        }
        add('as an st: URI without hex', 'st:eth:0x', { status: 400, code: 'INVALID_META_ADDRESS', path: 'meta_address' });
        add('as an st: URI with a bad chain name', `st:e th:0x${keys.meta_address}`, { status: 400, code: 'INVALID_META_ADDRESS', path: 'meta_address' });
      }
      if (field === 'tx_hash') {
        add('empty', '');
        add('of whitespace only', ' \t\n ');
        add('over 256 characters', 'x'.repeat(257));
      }
      if (field === 'amount' || field === 'chain') add('over 64 characters', 'y'.repeat(65));
      if (spec.kind === 'string') {
        // Stored text must come back as acknowledged: SQLite would cut at NUL and turn a lone surrogate into U+FFFD.
        add('with a NUL character', '0xab\u0000cd');
        add('with a control character', '0xab\u001bcd');
        add('with DEL', '0xab\u007f');
        add('with an unpaired high surrogate', '0xab\ud800');
        add('with an unpaired low surrogate', '\udc000xab');
      }
    }
  }
  return cases;
}

// --- Body-level cases ---------------------------------------------------------------------------

const DEEP_ARRAY = '['.repeat(10_000) + ']'.repeat(10_000);
const DEEP_OBJECT = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);

function oversizedStream(bytes: number): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode(' '.repeat(4096));
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

function bodyCases(route: BodyRoute): BodyCase[] {
  const json = { 'content-type': 'application/json' };
  const valid = () => JSON.stringify(VALID[route]());
  const raw = (name: string, body: string | Uint8Array | ReadableStream, expected: Expected, headers: Record<string, string> = json): BodyCase => ({
    name,
    route,
    raw: body,
    headers,
    expected,
  });
  return [
    raw('no Content-Type', valid(), unsupported, {}),
    raw('Content-Type text/plain', valid(), unsupported, { 'content-type': 'text/plain' }),
    raw('Content-Type application/x-www-form-urlencoded', 'meta_address=00', unsupported, { 'content-type': 'application/x-www-form-urlencoded' }),
    raw('Content-Type multipart/form-data', valid(), unsupported, { 'content-type': 'multipart/form-data; boundary=x' }),
    raw('Content-Type application/jsonp', valid(), unsupported, { 'content-type': 'application/jsonp' }),
    raw('Content-Type text/json', valid(), unsupported, { 'content-type': 'text/json' }),
    raw('a Latin-1 charset', valid(), unsupported, { 'content-type': 'application/json; charset=iso-8859-1' }),
    raw('an empty body', '', badJson),
    raw('a truncated object', '{"meta_address": "ab', badJson),
    raw('single-quoted JSON', "{'a': 1}", badJson),
    raw('a trailing comma', '{"a": 1,}', badJson),
    raw('NaN', 'NaN', badJson),
    raw('JavaScript instead of JSON', '({a: 1})', badJson),
    raw('two JSON documents', '{}{}', badJson),
    raw('invalid UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), badJson),
    raw('a top-level array', '[1, 2]', validation('body')),
    raw('a top-level string', '"hello"', validation('body')),
    raw('a top-level number', '42', validation('body')),
    raw('a top-level null', 'null', validation('body')),
    raw('a top-level true', 'true', validation('body')),
    raw('an empty object', '{}', validation()),
    raw('10000 levels of nested arrays', DEEP_ARRAY, validation('body')),
    raw('10000 levels of nested objects', DEEP_OBJECT, validation()),
    raw('10000 levels of nesting inside an unknown field', `{"x": ${DEEP_ARRAY.slice(0, 40_000)}}`, validation()),
    raw('a __proto__ key carrying the fields', `{"__proto__": ${valid()}}`, validation()),
    raw('a __proto__ key that would pollute', `{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}`, validation()),
    raw('fields named constructor and prototype', '{"constructor": 1, "prototype": {"x": 1}, "toString": "a"}', validation()),
    raw('a body over 64 KiB by Content-Length', `{"pad": "${'a'.repeat(70_000)}"}`, tooLarge),
    raw('a body over 64 KiB streamed without Content-Length', oversizedStream(200_000), tooLarge),
  ];
}

/** A valid body plus `__proto__` pollution attempts is still accepted; nothing leaks into prototypes. */
function pollutionAcceptedCases(): BodyCase[] {
  return (['create', 'announcements'] as const).map((route) => {
    const body = JSON.stringify(VALID[route]()).replace(/^\{/, '{"__proto__": {"polluted": true, "isAdmin": true}, ');
    return { name: 'extra __proto__ and constructor keys next to valid fields', route, raw: body, headers: { 'content-type': 'application/json' }, expected: { status: 0, code: 'ACCEPTED' } };
  });
}

// --- Query cases --------------------------------------------------------------------------------

const QUERY_CASES: [string, string][] = [
  ...['-1', '256', 'abc', '1.5', '1e2', '', ' 1', '+1', '0x10', '٣', '99999999999999999999'].map((v): [string, string] => ['view_tag', v]),
  ...['0', '1001', '-1', 'abc', '10.0', '', '1e3', '99999999999999999999'].map((v): [string, string] => ['limit', v]),
  ...['-1', 'abc', '1.5', '', '1e3', '99999999999999999999'].map((v): [string, string] => ['offset', v]),
  ...['-1', 'abc', '1.5', '', 'now'].map((v): [string, string] => ['from_timestamp', v]),
  ...['-1', 'abc', '1.5', '', '2024-01-01'].map((v): [string, string] => ['to_timestamp', v]),
  ...['-1', 'abc', '1.5', ''].map((v): [string, string] => ['after_id', v]),
];

// --- The suite ----------------------------------------------------------------------------------

function expectError(response: { status: number; json: any; text: string }, expected: Expected): void {
  expect(response.status).toBe(expected.status);
  expect(response.json?.error?.code).toBe(expected.code);
  expect(typeof response.json.error.message).toBe('string');
  if (expected.path !== undefined) {
    const paths: string[] = response.json.error.details.map((d: { path: string }) => d.path);
    expect(paths.some((p) => p === expected.path || p.startsWith(`${expected.path}.`)), paths.join()).toBe(true);
  }
  for (const secret of secrets) expect(response.text).not.toContain(secret);
}

async function send(c: BodyCase) {
  if (c.raw !== undefined) return request(c.route, 'POST', { body: c.raw, headers: c.headers ?? {} });
  return request(c.route, 'POST', { body: c.body });
}

const PATHS: Record<BodyRoute, string> = {
  create: '/api/v1/stealth/create',
  scan: '/api/v1/stealth/scan',
  announcements: '/api/v1/registry/announcements',
};
const describeExpected = (e: Expected) => `${e.status} ${e.code}${e.path === undefined ? '' : ` naming ${e.path}`}`;

describe('bad request bodies', () => {
  const routesUnderTest: BodyRoute[] = ['create', 'scan', 'announcements'];
  const allBodyCases = routesUnderTest.flatMap((route) => bodyCases(route));
  const allFieldCases = fieldCases();

  it('cover hundreds of cases', () => {
    expect(allBodyCases.length + allFieldCases.length + QUERY_CASES.length).toBeGreaterThan(300);
  });

  it.each(allBodyCases.map((c) => [PATHS[c.route as BodyRoute], c.name, describeExpected(c.expected), c] as const))(
    'POST %s with %s answers %s',
    async (_, __, ___, c) => {
      expectError(await send(c), c.expected);
    },
  );

  it.each(allFieldCases.map((c) => [PATHS[c.route as BodyRoute], c.name, describeExpected(c.expected), c] as const))(
    'POST %s with %s answers %s',
    async (_, __, ___, c) => {
      expectError(await send(c), c.expected);
    },
  );

  it.each(pollutionAcceptedCases().map((c) => [PATHS[c.route as BodyRoute], c] as const))(
    'POST %s accepts a valid body next to __proto__ keys without polluting prototypes',
    async (_, c) => {
      const response = await send(c);
      expect(response.status).toBeLessThan(300);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    },
  );

  it('POST /api/v1/keys/generate refuses a body over the limit by its Content-Length with 413', async () => {
    const body = 'a'.repeat(70_000);
    const response = await request('keys', 'POST', { body, headers: { 'content-type': 'application/json', 'content-length': String(body.length) } });
    expectError(response, tooLarge);
  });

  it('applies a smaller MAX_BODY_BYTES while streaming', async () => {
    await configure({ MAX_BODY_BYTES: '2048' });
    const response = await request('announcements', 'POST', { body: oversizedStream(8192), headers: { 'content-type': 'application/json' } });
    expectError(response, tooLarge);
    await configure();
  });

  it('does not echo a secret sent in the wrong field', async () => {
    const response = await request('scan', 'POST', { body: { viewing_sk: keys.spending_sk, spending_pk: keys.viewing_sk, spending_sk: keys.viewing_sk } });
    expectError(response, validation('viewing_sk'));
    expect(response.text).not.toContain(keys.viewing_sk.slice(0, 64));
  });
});

describe('bad query parameters of GET /api/v1/registry/announcements', () => {
  beforeAll(() => configure());

  it.each(QUERY_CASES)('refuses %s=%j with 400 VALIDATION_ERROR naming it', async (name, value) => {
    const response = await request('announcements', 'GET', { query: `${name}=${encodeURIComponent(value)}` });
    expectError(response, validation(name));
  });

  it.each(['view_tag', 'limit', 'offset', 'after_id'])('refuses %s given twice', async (name) => {
    const response = await request('announcements', 'GET', { query: `${name}=1&${name}=2` });
    expectError(response, validation(name));
  });

  it('ignores unknown query parameters', async () => {
    expect((await request('announcements', 'GET', { query: 'foo=bar&__proto__=x&constructor=y' })).status).toBe(200);
  });

  it('ignores query parameters on endpoints that take none', async () => {
    expect((await request('stats', 'GET', { query: 'view_tag=abc' })).status).toBe(200);
    expect((await request('health', 'GET', { query: 'x=%zz' })).status).toBe(200);
  });
});

describe('methods without a route', () => {
  it.each([
    ['keys', 'DELETE'],
    ['create', 'PUT'],
    ['scan', 'PATCH'],
    ['stats', 'POST'],
  ] as [RouteName, Method][])('%s answers %s with JSON 405 even with a broken body', async (route, method) => {
    const response = await request(route, method, { body: '{', headers: { 'content-type': 'text/plain' } });
    expect(response.status).toBe(405);
    expect(response.json.error.code).toBe('METHOD_NOT_ALLOWED');
  });
});
