/**
 * The HTTP client's behaviour around one request, against a scripted `fetch`: retries of safe
 * requests with `Retry-After` and backoff, no retries of writes, aborts, timeouts, and how
 * failures reach the caller (ApiError with the server's code, status, details and request id).
 * The same client against the real server: tests/client/*.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  ContentMismatchError,
  NetworkError,
  TimeoutError,
  bytesToHex,
  cidForBytes,
  createClient,
  isApiError,
  parseRetryAfter,
  type RetryEvent,
} from '../src/index.ts';

type Call = { url: URL; method: string; headers: Headers; body: string | undefined; signal: AbortSignal | undefined };
type Responder = (call: Call) => Response | Promise<Response>;

/** A fetch that answers with the given responders in turn and records every call. */
function scriptedFetch(...responders: Responder[]) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const call: Call = {
      url: new URL(String(input)),
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: init.body as string | undefined,
      signal: init.signal ?? undefined,
    };
    calls.push(call);
    const responder = responders[Math.min(calls.length, responders.length) - 1]!;
    return responder(call);
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => () =>
  Response.json(body, { status, headers: { 'x-request-id': `req-${status}`, ...headers } });
const apiError = (status: number, code: string, headers: Record<string, string> = {}, details?: unknown) =>
  json(status, { error: { code, message: `${code} happened.`, ...(details ? { details } : {}) } }, headers);
const STATS = { total_announcements: 3, view_tag_distribution: [{ tag: 7, count: 3 }] };
const PUBLISH = { ephemeral_key: 'ab'.repeat(1088), view_tag: 1, tx_hash: '0x01' };

function clientWith(fetch: typeof globalThis.fetch, options: Parameters<typeof createClient>[0] extends infer P ? Partial<P> : never = {}) {
  return createClient({ baseUrl: 'http://wraith.test', fetch, ...options });
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('retries of safe requests', () => {
  it('waits exactly the Retry-After of a 503 before retrying a GET, then returns the answer', async () => {
    vi.useFakeTimers();
    const { fetch, calls } = scriptedFetch(apiError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '2' }), json(200, STATS));
    const result = clientWith(fetch).getRegistryStats();
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toEqual(STATS);
    expect(calls).toHaveLength(2);
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') });
    const { fetch, calls } = scriptedFetch(apiError(429, 'RATE_LIMITED', { 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), json(200, STATS));
    const events: RetryEvent[] = [];
    const result = clientWith(fetch, { retry: { onRetry: (event) => events.push(event) } }).getRegistryStats();
    await vi.advanceTimersByTimeAsync(3000);
    await expect(result).resolves.toEqual(STATS);
    expect(calls).toHaveLength(2);
    expect(events.map((e) => [e.retry, e.delayMs, e.error.code])).toEqual([[1, 3000, 'RATE_LIMITED']]);
  });

  it('backs off exponentially with jitter on 502 and 504 without Retry-After', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const { fetch, calls } = scriptedFetch(apiError(502, 'UPSTREAM_ERROR'), apiError(504, 'UPSTREAM_TIMEOUT'), json(200, STATS));
    const delays: number[] = [];
    const client = clientWith(fetch, { retry: { baseDelayMs: 20, onRetry: (e) => delays.push(e.delayMs) } });
    await expect(client.getRegistryStats()).resolves.toEqual(STATS);
    expect(calls).toHaveLength(3);
    expect(delays).toEqual([10, 20]); // 0.5 * 20 * 2^0, 0.5 * 20 * 2^1
  });

  it('gives up after the configured retries and throws the last answer as an ApiError', async () => {
    const { fetch, calls } = scriptedFetch(apiError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }));
    const error = await clientWith(fetch, { retry: { retries: 3 } }).getRegistryStats().catch((e: unknown) => e);
    expect(calls).toHaveLength(4);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, attempts: 4, requestId: 'req-503', retryAfterMs: 0 });
  });

  it('does not wait for a Retry-After longer than maxRetryAfterMs: the error says how long to wait', async () => {
    const { fetch, calls } = scriptedFetch(apiError(429, 'RATE_LIMITED', { 'retry-after': '120' }));
    const error = await clientWith(fetch, { retry: { maxRetryAfterMs: 60_000 } }).listAnnouncements().catch((e: unknown) => e);
    expect(calls).toHaveLength(1);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterMs: 120_000 });
  });

  it('retries a GET whose connection failed, and reports a NetworkError when it keeps failing', async () => {
    const refused = () => Promise.reject(new TypeError('fetch failed'));
    const recovering = scriptedFetch(refused, json(200, STATS));
    await expect(clientWith(recovering.fetch, { retry: { baseDelayMs: 1 } }).getRegistryStats()).resolves.toEqual(STATS);

    const down = scriptedFetch(refused);
    const error = await clientWith(down.fetch, { retry: { baseDelayMs: 1 } }).getRegistryStats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', status: undefined, attempts: 3 });
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it('does not retry 4xx answers other than 429', async () => {
    const { fetch, calls } = scriptedFetch(apiError(404, 'NOT_FOUND'));
    await expect(clientWith(fetch).getChannelStatus('00'.repeat(32))).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(calls).toHaveLength(1);
  });

  it('can be switched off per client and per call', async () => {
    const perClient = scriptedFetch(apiError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }), json(200, STATS));
    await expect(clientWith(perClient.fetch, { retry: false }).getRegistryStats()).rejects.toMatchObject({ status: 503 });
    expect(perClient.calls).toHaveLength(1);

    const perCall = scriptedFetch(apiError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }), json(200, STATS));
    await expect(clientWith(perCall.fetch).getRegistryStats({ retry: false })).rejects.toMatchObject({ status: 503 });
    expect(perCall.calls).toHaveLength(1);
  });
});

describe('writes are never repeated behind the caller\'s back', () => {
  it('a POST answered 503 with Retry-After fails at once, with the wait in the error', async () => {
    const { fetch, calls } = scriptedFetch(apiError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' }), json(201, { id: 1, success: true }));
    await expect(clientWith(fetch).publishAnnouncement(PUBLISH)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, retryAfterMs: 1000, attempts: 1 });
    expect(calls).toHaveLength(1);
  });

  it('a POST whose connection failed is reported, not resent (it may have arrived)', async () => {
    const { fetch, calls } = scriptedFetch(() => Promise.reject(new TypeError('socket hang up')), json(201, { id: 1, success: true }));
    await expect(clientWith(fetch).publishAnnouncement(PUBLISH)).rejects.toBeInstanceOf(NetworkError);
    expect(calls).toHaveLength(1);
  });
});

describe('abort and timeout', () => {
  /** Answers only when the request is aborted (then rejects like fetch does). */
  const hanging: Responder = (call) =>
    new Promise((_, reject) => call.signal?.addEventListener('abort', () => reject(call.signal!.reason ?? new DOMException('aborted', 'AbortError'))));

  it('aborting an in-flight request rejects with the signal\'s reason', async () => {
    const { fetch, calls } = scriptedFetch(hanging);
    const controller = new AbortController();
    const result = clientWith(fetch).scan({ viewing_sk: '00', spending_pk: '00' }, { signal: controller.signal });
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    controller.abort(new DOMException('user left the page', 'AbortError'));
    await expect(result).rejects.toMatchObject({ name: 'AbortError', message: 'user left the page' });
  });

  it('aborting while waiting to retry stops the retries at once', async () => {
    const { fetch, calls } = scriptedFetch(apiError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '10' }), json(200, STATS));
    const controller = new AbortController();
    const started = Date.now();
    const result = clientWith(fetch).getRegistryStats({ signal: controller.signal });
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    controller.abort();
    await expect(result).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(calls).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const { fetch, calls } = scriptedFetch(json(200, STATS));
    await expect(clientWith(fetch).getRegistryStats({ signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(0);
  });

  it('an attempt longer than timeoutMs fails with TimeoutError and is not retried', async () => {
    const { fetch, calls } = scriptedFetch(hanging);
    const error = await clientWith(fetch, { timeoutMs: 50 }).getRegistryStats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', status: undefined, method: 'GET', path: '/api/v1/registry/stats' });
    expect(calls).toHaveLength(1);
  });

  it('a per-call timeout overrides the client\'s', async () => {
    const { fetch } = scriptedFetch(hanging);
    const started = Date.now();
    await expect(clientWith(fetch, { timeoutMs: 60_000 }).generateKeys({ timeoutMs: 30 })).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('errors', () => {
  it('carry the server\'s code, message, status, details and request id', async () => {
    const details = [{ path: 'view_tag', issue: 'must be an integer 0..255' }];
    const { fetch } = scriptedFetch(apiError(400, 'VALIDATION_ERROR', {}, details));
    const error = (await clientWith(fetch).publishAnnouncement({ ...PUBLISH, view_tag: 256 }).catch((e: unknown) => e)) as ApiError;
    expect(isApiError(error)).toBe(true);
    expect(error).toMatchObject({ name: 'ApiError', code: 'VALIDATION_ERROR', shortMessage: 'VALIDATION_ERROR happened.', status: 400, requestId: 'req-400', details });
    expect(error.method).toBe('POST');
    expect(error.path).toBe('/api/v1/registry/announcements');
    expect(error.message).toContain('Detail: view_tag: must be an integer 0..255');
    expect(error.message).toContain('Request id: req-400');
  });

  it('an error status without the API\'s body (e.g. from a proxy) is an HTTP_ERROR with its status', async () => {
    const { fetch } = scriptedFetch(() => new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }));
    await expect(clientWith(fetch, { retry: false }).getRegistryStats()).rejects.toMatchObject({ code: 'HTTP_ERROR', status: 502 });
  });

  it('a success answer that is not JSON is an INVALID_RESPONSE', async () => {
    const { fetch } = scriptedFetch(() => new Response('not json', { status: 200 }));
    await expect(clientWith(fetch).getRegistryStats()).rejects.toMatchObject({ code: 'INVALID_RESPONSE', status: 200 });
  });
});

describe('requests', () => {
  it('send the API key on writes only, never on reads', async () => {
    const { fetch, calls } = scriptedFetch(json(201, { id: 1, success: true }), json(200, STATS));
    const client = clientWith(fetch, { apiKey: 'sekret' });
    await client.publishAnnouncement(PUBLISH);
    await client.getRegistryStats();
    expect(calls.map((c) => [c.method, c.headers.get('x-api-key')])).toEqual([
      ['POST', 'sekret'],
      ['GET', null],
    ]);
  });

  it('encode Uint8Array fields as lowercase hex JSON and pass a request id through', async () => {
    const { fetch, calls } = scriptedFetch(json(201, { id: 9, success: true }));
    const key = new Uint8Array(1088).fill(0xab);
    await clientWith(fetch).publishAnnouncement({ ...PUBLISH, ephemeral_key: key, channel_id: new Uint8Array(32).fill(1) }, { requestId: 'trace-42' });
    const sent = JSON.parse(calls[0]!.body!);
    expect(sent.ephemeral_key).toBe(bytesToHex(key));
    expect(sent.channel_id).toBe('01'.repeat(32));
    expect(calls[0]!.headers.get('content-type')).toBe('application/json');
    expect(calls[0]!.headers.get('x-request-id')).toBe('trace-42');
  });

  it('put list parameters in the query string and names in the path, percent-encoded', async () => {
    const { fetch, calls } = scriptedFetch(json(200, { announcements: [], total: 0 }), json(200, {}), json(200, {}));
    const client = createClient({ baseUrl: 'http://wraith.test/base/', fetch });
    await client.listAnnouncements({ view_tag: 7, limit: 10, after_id: 5 });
    await client.resolveEns('a b.eth');
    await client.resolveSuins('alice.sui', { no_cache: true });
    expect(calls.map((c) => c.url.pathname + c.url.search)).toEqual([
      '/base/api/v1/registry/announcements?view_tag=7&limit=10&after_id=5',
      '/base/api/v1/ens/resolve/a%20b.eth',
      '/base/api/v1/suins/resolve/alice.sui?no_cache=',
    ]);
  });

  it('report a degraded /health (503) as an answer, without retrying', async () => {
    const degraded = { status: 'degraded', version: '0.1.0', uptime_seconds: 5, announcements_count: null, registry: { kind: 'postgres', ok: false } };
    const { fetch, calls } = scriptedFetch(json(503, degraded));
    await expect(clientWith(fetch).getHealth()).resolves.toEqual(degraded);
    expect(calls).toHaveLength(1);
  });

  it('check IPFS content against its CID: a server cannot substitute other bytes', async () => {
    const content = new TextEncoder().encode('meta-address bytes');
    const cid = cidForBytes(content).toString();
    const honest = scriptedFetch(() => new Response(content.slice(), { headers: { 'content-type': 'application/octet-stream' } }));
    expect(await clientWith(honest.fetch).getIpfsContent(cid)).toEqual(content);
    const lying = scriptedFetch(() => new Response(new TextEncoder().encode('attacker meta-address'), { headers: { 'content-type': 'application/octet-stream' } }));
    await expect(clientWith(lying.fetch).getIpfsContent(cid)).rejects.toBeInstanceOf(ContentMismatchError);
  });

  it('refuse a base URL that is not http(s)', () => {
    expect(() => createClient({ baseUrl: 'localhost:3001' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates, and ignores anything else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('5', now)).toBe(5000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
