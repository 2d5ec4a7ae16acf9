/**
 * The running server's HTTP behaviour that only shows over a real socket: the rate limit keyed on
 * the peer address (not on headers a client writes), what reaches the log, body limits on the
 * wire, framework-level errors, page headers and a refused configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, http, logLines, spawnServer, startServer, waitForLog, type RunningServer } from '../helpers/server.ts';

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

describe('the rate limit over the wire', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ env: { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '10', RATE_LIMIT_BURST: '30' } });
  });
  afterAll(() => server.stop());

  it('answers a burst from one client with 429 and Retry-After after about 30 requests, whatever X-Forwarded-For and x-wraith-peer-ip say, and recovers after a second', async () => {
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof http>> | undefined;
    const started = performance.now();
    for (let i = 0; i < 60; i++) {
      const response = await http(server, '/api/v1/registry/stats', {
        headers: { 'x-forwarded-for': `203.0.113.${i}`, 'x-wraith-peer-ip': `198.51.100.${i}` },
      });
      statuses.push(response.status);
      if (response.status === 429) limited ??= response;
    }
    const elapsedSeconds = (performance.now() - started) / 1000;
    const firstLimited = statuses.indexOf(429);
    expect(firstLimited).toBeGreaterThanOrEqual(30);
    // Allowed: the burst of 30 plus what refilled at 10/s while the burst was sent.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(30 + Math.ceil(elapsedSeconds * 10) + 1);
    expect(limited!.json.error.code).toBe('RATE_LIMITED');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect((await http(server, '/api/v1/registry/stats')).status).toBe(200);
  });
});

describe('the log of the running server', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ env: { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '0', LOG_LEVEL: 'info' } });
  });
  afterAll(() => server.stop());

  it('never contains a secret sent in a bad or a good scan request', async () => {
    const keys = (await http(server, '/api/v1/keys/generate', { method: 'POST' })).json;
    const requests = [
      { viewing_sk: keys.spending_sk, spending_pk: keys.viewing_sk, spending_sk: keys.viewing_sk }, // swapped
      { viewing_sk: `${keys.viewing_sk}zz`, spending_pk: keys.spending_pk, spending_sk: keys.spending_sk }, // bad hex
      { viewing_sk: keys.viewing_sk, spending_pk: keys.spending_pk, spending_sk: 42 }, // wrong type
      { viewing_sk: keys.viewing_sk, spending_pk: keys.spending_pk, spending_sk: keys.spending_sk }, // valid
    ];
    for (const body of requests) {
      const response = await http(server, '/api/v1/stealth/scan', { body });
      expect(response.text).not.toContain(keys.spending_sk);
    }
    await http(server, `/api/v1/stealth/scan/${keys.spending_sk}`, { headers: { 'x-request-id': 'pasted-key' } }); // a key pasted into a URL
    await waitForLog(server, (line) => line.request_id === 'pasted-key');
    const log = server.log();
    expect(log).toContain('/api/v1/stealth/scan');
    for (const secret of [keys.spending_sk, keys.viewing_sk.slice(0, 64), keys.viewing_sk.slice(-64)]) expect(log).not.toContain(secret);
  });

  it('has one JSON line per request with request id, method, route, status and duration', async () => {
    await http(server, '/api/v1/registry/stats', { headers: { 'x-request-id': 'blackbox-1' } });
    await waitForLog(server, (line) => line.request_id === 'blackbox-1');
    const lines = logLines(server).filter((line) => line.request_id === 'blackbox-1');
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'request', method: 'GET', route: '/api/v1/registry/stats', status: 200, duration_ms: expect.any(Number) }),
    ]);
  });
});

describe('requests the framework would otherwise answer', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ env: { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '0' } });
  });
  afterAll(() => server.stop());

  it('answers an unknown path under /api/v1 with JSON 404', async () => {
    const response = await http(server, '/api/v1/does/not/exist', { method: 'DELETE' });
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NOT_FOUND');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it.each(['/api', '/api/foo', '/api/v2/registry/stats', '/health/x'])(
    'answers %s, outside the API\'s endpoints, with a JSON 404 carrying the API\'s headers',
    async (path) => {
      const response = await http(server, path, { headers: { origin: 'https://wallet.example' } });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.json.error.code).toBe('NOT_FOUND');
      expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    },
  );

  it('answers a method Next.js cannot route with JSON 405 carrying the API\'s headers', async () => {
    const response = await http(server, '/api/v1/registry/stats', { method: 'PROPFIND', headers: { origin: 'https://wallet.example' } });
    expect(response.status).toBe(405);
    expect(response.json.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(response.headers.get('permissions-policy')).toContain('camera=()');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers malformed percent-encoding in an API path with JSON 400', async () => {
    const response = await http(server, '/api/v1/%zz');
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('VALIDATION_ERROR');
  });

  it('serves pages with a self-only Content-Security-Policy and the other security headers', async () => {
    const response = await http(server, '/');
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('serves the API with its own deny-all policy', async () => {
    const response = await http(server, '/health');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(response.headers.get('vary')).toContain('Origin');
  });

  // Last in this block: the server answers before it has read the whole body, and the client's
  // pooled connection is not reused afterwards.
  it('refuses a body over 64 KiB with 413, sent with a Content-Length or chunked', async () => {
    const big = JSON.stringify({ ephemeral_key: randomHex(1088), view_tag: 1, tx_hash: 'x', pad: 'a'.repeat(100_000) });
    const declared = await http(server, '/api/v1/registry/announcements', { body: big, headers: { 'content-type': 'application/json' } });
    expect(declared.status).toBe(413);
    const bytes = new TextEncoder().encode(big);
    const chunked = await http(server, '/api/v1/registry/announcements', {
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.slice(i, i + 8192));
          controller.close();
        },
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(chunked.status).toBe(413);
    expect(chunked.json.error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('a bad configuration', () => {
  it('stops the server with status 1 and a message naming the variable, before it listens', async () => {
    const port = await freePort();
    const { server } = await spawnServer({ REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: 'fast', API_KEY: 'short-secret' }, port);
    const exit = await server.exited;
    expect(exit.code).toBe(1);
    expect(server.stderr()).toContain('RATE_LIMIT_RPS');
    expect(server.stderr()).toContain('API_KEY');
    expect(server.stderr()).not.toContain('short-secret');
    expect(logLines(server).some((line) => line.msg === 'listening')).toBe(false);
  });
});
