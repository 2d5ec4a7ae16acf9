/**
 * API.md conventions every endpoint shares: security headers, request ids, CORS, JSON errors for
 * unknown routes and wrong methods, generic 500s, and the per-request log line.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { redact } from '../../lib/http/log.ts';
import { getRegistry } from '../../lib/server/registry.ts';
import { captureLog, configure } from '../helpers/api.ts';
import { foreignAnnouncement, generateKeys, request, routes, type Method, type RouteName } from '../helpers/routes.ts';

afterEach(() => vi.restoreAllMocks());

const API_HEADERS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

describe('security headers', () => {
  beforeEach(() => configure({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '8' }));

  it('are on every API response, success or error, with no-store caching', async () => {
    const responses = [
      await request('stats', 'GET'), // 200
      await request('announcements', 'POST', { body: foreignAnnouncement() }), // 201
      await request('announcements', 'POST', { body: {} }), // 400
      await request('catchAll', 'GET'), // 404
      await request('stats', 'DELETE'), // 405
      await request('announcements', 'OPTIONS', { headers: { origin: 'https://a.example', 'access-control-request-method': 'POST' } }), // 204
      await request('health', 'HEAD'), // 200, no body
      await request('scan', 'POST', { body: 'x', headers: { 'content-type': 'text/plain' } }), // 415
      await request('stats', 'GET'), // 429
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 201, 400, 404, 405, 204, 200, 415, 429]);
    for (const response of responses) {
      for (const [name, value] of Object.entries(API_HEADERS)) expect(response.headers.get(name), name).toBe(value);
      expect(response.headers.get('permissions-policy')).toContain('camera=()');
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('declare JSON bodies as UTF-8 JSON', async () => {
    expect((await request('stats', 'GET')).headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await request('catchAll', 'GET')).headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('x-request-id', () => {
  beforeEach(() => configure());

  it('is generated for every response', async () => {
    const [a, b] = [await request('stats', 'GET'), await request('stats', 'GET')];
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('echoes a valid incoming id', async () => {
    const response = await request('stats', 'GET', { headers: { 'x-request-id': 'trace.ABC-123_x' } });
    expect(response.headers.get('x-request-id')).toBe('trace.ABC-123_x');
  });

  it.each([
    ['characters outside [A-Za-z0-9._-]', 'id with spaces'],
    ['markup', '<script>alert(1)</script>'],
    ['more than 128 characters', 'a'.repeat(129)],
  ])('replaces an incoming id with %s', async (_, id) => {
    const response = await request('stats', 'GET', { headers: { 'x-request-id': id } });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('is on error responses too', async () => {
    const response = await request('catchAll', 'POST', { headers: { 'x-request-id': 'err-1' } });
    expect(response.headers.get('x-request-id')).toBe('err-1');
  });
});

describe('CORS', () => {
  const preflight = (name: RouteName, origin: string, method = 'POST') =>
    request(name, 'OPTIONS', { headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type, x-api-key' } });

  describe('with the default ALLOWED_ORIGINS=*', () => {
    beforeEach(() => configure());

    it('lets any origin read responses and the request id', async () => {
      const response = await request('stats', 'GET', { headers: { origin: 'https://anywhere.example' } });
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toContain('x-request-id');
      expect(response.headers.get('vary')).toContain('Origin');
    });

    it('answers a preflight with 204, the route’s methods, the allowed headers and a max age', async () => {
      const response = await preflight('announcements', 'https://anywhere.example');
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, OPTIONS');
      expect(response.headers.get('access-control-allow-headers')).toContain('content-type, x-api-key, authorization');
      expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    });
  });

  describe('with a list of origins', () => {
    beforeEach(() => configure({ ALLOWED_ORIGINS: 'https://app.example, https://admin.example:8443' }));

    it('echoes an allowed origin and varies on Origin', async () => {
      const response = await request('stats', 'GET', { headers: { origin: 'https://admin.example:8443' } });
      expect(response.headers.get('access-control-allow-origin')).toBe('https://admin.example:8443');
      expect(response.headers.get('vary')).toContain('Origin');
    });

    it('gives no CORS grant to another origin, and still varies on Origin', async () => {
      const response = await request('stats', 'GET', { headers: { origin: 'https://evil.example' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('vary')).toContain('Origin');
    });

    it('answers a preflight from an allowed origin with 204', async () => {
      const response = await preflight('scan', 'https://app.example');
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(response.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    });

    it('refuses a preflight from another origin with 403 FORBIDDEN', async () => {
      const response = await preflight('scan', 'https://evil.example');
      expect(response.status).toBe(403);
      expect(response.json.error.code).toBe('FORBIDDEN');
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  it('answers a plain OPTIONS (no preflight headers) with 204 and Allow', async () => {
    await configure();
    const response = await request('stats', 'OPTIONS');
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('unknown routes and wrong methods', () => {
  beforeEach(() => configure());

  const METHODS: Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

  it.each(METHODS)('answers %s on an unknown path under /api/v1 with JSON 404 NOT_FOUND', async (method) => {
    const response = await request('catchAll', method, method === 'HEAD' ? {} : {});
    expect(response.status).toBe(404);
    if (method !== 'HEAD') expect(response.json.error.code).toBe('NOT_FOUND');
  });

  it('answers /api/v1 itself with JSON 404', async () => {
    const response = await request('apiRoot', 'GET');
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NOT_FOUND');
  });

  const WRONG: [RouteName, Method, string][] = [
    ['keys', 'GET', 'POST, OPTIONS'],
    ['keys', 'PUT', 'POST, OPTIONS'],
    ['create', 'GET', 'POST, OPTIONS'],
    ['create', 'DELETE', 'POST, OPTIONS'],
    ['scan', 'GET', 'POST, OPTIONS'],
    ['scan', 'PATCH', 'POST, OPTIONS'],
    ['announcements', 'PUT', 'GET, HEAD, POST, OPTIONS'],
    ['announcements', 'DELETE', 'GET, HEAD, POST, OPTIONS'],
    ['stats', 'POST', 'GET, HEAD, OPTIONS'],
    ['health', 'POST', 'GET, HEAD, OPTIONS'],
    ['health', 'DELETE', 'GET, HEAD, OPTIONS'],
  ];

  it.each(WRONG)('answers %s with %s by 405 METHOD_NOT_ALLOWED and Allow: %s', async (name, method, allow) => {
    const response = await request(name, method);
    expect(response.status).toBe(405);
    expect(response.json.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe(allow);
  });
});

describe('internal errors', () => {
  it('answer 500 INTERNAL_ERROR with a generic message; the details go to the log with the request id', async () => {
    await configure({ LOG_LEVEL: 'info' });
    const store = await getRegistry();
    const secret = 'ab'.repeat(32);
    vi.spyOn(store, 'stats').mockRejectedValue(new TypeError(`boom while reading ${secret}`));
    const { result: response, log } = await captureLog(() => request('stats', 'GET', { headers: { 'x-request-id': 'fault-1' } }));
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ error: { code: 'INTERNAL_ERROR', message: expect.stringContaining('x-request-id') } });
    expect(response.text).not.toContain('boom');
    const lines = log.trim().split('\n').map((line) => JSON.parse(line));
    const fault = lines.find((line) => line.msg === 'unhandled error');
    expect(fault).toMatchObject({ request_id: 'fault-1', error_name: 'TypeError', level: 'error' });
    expect(fault.error_message).toContain('boom while reading');
    expect(log).not.toContain(secret);
  });
});

describe('the request log', () => {
  beforeEach(() => configure({ LOG_LEVEL: 'info' }));

  it('writes one JSON line per request with id, method, route, status and duration', async () => {
    const { log } = await captureLog(async () => {
      await request('stats', 'GET', { headers: { 'x-request-id': 'log-1' } });
      await request('announcements', 'POST', { body: {}, headers: { 'x-request-id': 'log-2' } });
    });
    const lines = log.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'request', request_id: 'log-1', method: 'GET', route: '/api/v1/registry/stats', status: 200, duration_ms: expect.any(Number) }),
      expect.objectContaining({ msg: 'request', request_id: 'log-2', method: 'POST', route: '/api/v1/registry/announcements', status: 400, error_code: 'VALIDATION_ERROR' }),
    ]);
  });

  it('logs the query of public reads but never a request body', async () => {
    const body = foreignAnnouncement({ tx_hash: 'tx-that-must-not-be-logged' });
    const { log } = await captureLog(async () => {
      await request('announcements', 'GET', { query: 'view_tag=7&limit=3' });
      await request('announcements', 'POST', { body });
    });
    expect(log).toContain('view_tag=7&limit=3');
    expect(log).not.toContain('tx-that-must-not-be-logged');
    expect(log).not.toContain(String(body.ephemeral_key).slice(0, 64));
  });

  it('never contains the keys of a scan, valid or not', async () => {
    const keys = await generateKeys();
    const { log } = await captureLog(async () => {
      await request('scan', 'POST', { body: { viewing_sk: keys.viewing_sk, spending_pk: keys.spending_pk, spending_sk: keys.spending_sk } });
      await request('scan', 'POST', { body: { viewing_sk: keys.spending_sk, spending_pk: keys.viewing_sk, spending_sk: 7 } });
      await request('scan', 'POST', { body: { viewing_sk: keys.viewing_sk, spending_pk: keys.spending_pk }, query: `spending_sk=${keys.spending_sk}` });
    });
    for (const secret of [keys.viewing_sk.slice(0, 64), keys.spending_sk]) expect(log).not.toContain(secret);
  });

  it('replaces the values of secret-looking query parameters of public reads, and keeps the rest', async () => {
    const { log } = await captureLog(() => request('announcements', 'GET', { query: 'limit=3&api_key=hunter2-long&Token=abc123xyz&view_tag=9' }));
    expect(log).toContain('limit=3&api_key=[redacted]&Token=[redacted]&view_tag=9');
    expect(log).not.toContain('hunter2-long');
    expect(log).not.toContain('abc123xyz');
  });

  it('masks key-like hex in the path of unknown routes', async () => {
    const secret = 'cd'.repeat(32);
    const { log } = await captureLog(() => call404(`/api/v1/stealth/scan/${secret}`));
    expect(log).toContain('/api/v1/stealth/scan/');
    expect(log).not.toContain(secret);
  });

  it('is silent with LOG_LEVEL=silent', async () => {
    await configure({ LOG_LEVEL: 'silent' });
    const { log } = await captureLog(() => request('stats', 'GET'));
    expect(log).toBe('');
  });
});

async function call404(path: string) {
  return routes.catchAll.module.GET(new Request(`http://localhost${path}`));
}

describe('redaction', () => {
  it('replaces fields named like secrets, at any depth, whatever their value', () => {
    expect(
      redact({ spending_sk: 'x', nested: { viewing_sk: 1, list: [{ Stealth_SK: 'y', eth_private_key: 'z', shared_secret: 's' }] }, ok: 'fine' }),
    ).toEqual({
      spending_sk: '[redacted]',
      nested: { viewing_sk: '[redacted]', list: [{ Stealth_SK: '[redacted]', eth_private_key: '[redacted]', shared_secret: '[redacted]' }] },
      ok: 'fine',
    });
  });

  it('masks long hex runs in any string', () => {
    expect(redact(`key 0x${'ab'.repeat(32)} end`)).toBe('key [redacted] end');
    expect(redact('short 0xdeadbeef')).toBe('short 0xdeadbeef');
  });

  it('keeps a __proto__ field an ordinary field', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const output = redact(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
