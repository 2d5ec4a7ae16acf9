/**
 * Per-client rate limit (API.md "Cross-cutting behaviour"): token bucket of RATE_LIMIT_BURST
 * tokens refilled at RATE_LIMIT_RPS per second, keyed by the socket peer that server.mjs puts in
 * x-wraith-peer-ip; X-Forwarded-For counts only with TRUST_PROXY.
 */
import { describe, expect, it } from 'vitest';
import { clientKey } from '../../lib/http/client-ip.ts';
import { TokenBucketLimiter } from '../../lib/http/rate-limit.ts';
import { configure } from '../helpers/api.ts';
import { request } from '../helpers/routes.ts';

async function burst(count: number, init: (i: number) => Parameters<typeof request>[2] = () => ({})): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await request('stats', 'GET', init(i))).status);
  return statuses;
}

describe('the rate limit through the route handlers', () => {
  it('lets a burst of 30 through, then answers 429 RATE_LIMITED with Retry-After', async () => {
    await configure({ RATE_LIMIT_RPS: '10', RATE_LIMIT_BURST: '30' });
    const statuses = await burst(30);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const limited = await request('stats', 'GET');
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('x-request-id')).toBeTruthy();
  });

  it('recovers as tokens refill, up to the burst', async () => {
    await configure({ RATE_LIMIT_RPS: '10', RATE_LIMIT_BURST: '5' });
    await burst(5);
    expect((await request('stats', 'GET')).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // 1.1 s at 10/s refills 11 tokens, capped at the burst of 5.
    expect(await burst(6)).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('counts every route against the same client budget', async () => {
    await configure({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '3' });
    await request('stats', 'GET');
    await request('health', 'GET');
    await request('announcements', 'GET');
    expect((await request('keys', 'POST')).status).toBe(429);
  });

  it('keeps separate budgets for separate clients', async () => {
    await configure({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '2' });
    await burst(2, () => ({ peer: '10.0.0.1' }));
    expect((await request('stats', 'GET', { peer: '10.0.0.1' })).status).toBe(429);
    expect((await request('stats', 'GET', { peer: '10.0.0.2' })).status).toBe(200);
  });

  it('cannot be bypassed by rotating X-Forwarded-For when no proxy is trusted', async () => {
    await configure({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '5' });
    const statuses = await burst(10, (i) => ({ headers: { 'x-forwarded-for': `203.0.113.${i}` } }));
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });

  it('with TRUST_PROXY=1 limits each client address the proxy reports', async () => {
    await configure({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '2', TRUST_PROXY: '1' });
    const viaProxy = (client: string) => ({ peer: '10.0.0.100', headers: { 'x-forwarded-for': client } });
    await burst(2, () => viaProxy('198.51.100.7'));
    expect((await request('stats', 'GET', viaProxy('198.51.100.7'))).status).toBe(429);
    expect((await request('stats', 'GET', viaProxy('198.51.100.8'))).status).toBe(200);
  });

  it('with TRUST_PROXY=1 ignores entries the client prepended to X-Forwarded-For', async () => {
    await configure({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '3', TRUST_PROXY: '1' });
    const statuses = await burst(6, (i) => ({ peer: '10.0.0.100', headers: { 'x-forwarded-for': `192.0.2.${i}, 198.51.100.7` } }));
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
  });

  it('outside server.mjs ignores x-wraith-peer-ip, which a client could then set, and shares one budget', async () => {
    const slot = Symbol.for('wraith.peerHeaderTrusted');
    const globals = globalThis as Record<symbol, unknown>;
    await configure({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '3' });
    delete globals[slot];
    try {
      const statuses = await burst(6, (i) => ({ peer: `10.9.9.${i}` }));
      expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    } finally {
      globals[slot] = true;
    }
  });

  it('is off with RATE_LIMIT_RPS=0', async () => {
    await configure({ RATE_LIMIT_RPS: '0', RATE_LIMIT_BURST: '1' });
    expect((await burst(50)).every((s) => s === 200)).toBe(true);
  });
});

describe('TokenBucketLimiter', () => {
  function limiterAt(rate: number, burst: number, maxClients?: number) {
    let now = 0;
    const limiter = new TokenBucketLimiter({ rate, burst, now: () => now, ...(maxClients === undefined ? {} : { maxClients }) });
    return { limiter, advance: (ms: number) => void (now += ms) };
  }

  it('refills continuously at the configured rate', () => {
    const { limiter, advance } = limiterAt(10, 30);
    for (let i = 0; i < 30; i++) expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    advance(100);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('never holds more than the burst', () => {
    const { limiter, advance } = limiterAt(10, 3);
    advance(60_000);
    expect([1, 2, 3, 4].map(() => limiter.take('a').allowed)).toEqual([true, true, true, false]);
  });

  it('says how many whole seconds until the next token', () => {
    const { limiter } = limiterAt(0.25, 1);
    limiter.take('a');
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 4 });
  });

  it('tracks a bounded number of clients, forgetting the least recently seen', () => {
    const { limiter } = limiterAt(1, 1, 100);
    for (let i = 0; i < 1000; i++) limiter.take(`client-${i}`);
    expect(limiter.size).toBe(100);
  });
});

describe('clientKey', () => {
  // Under server.mjs (tests/helpers/api.ts sets its flag).
  const headers = (entries: Record<string, string>) => new Headers(entries);

  it('is the socket peer from server.mjs', () => {
    expect(clientKey(headers({ 'x-wraith-peer-ip': '192.0.2.1' }), 0)).toBe('192.0.2.1');
  });

  it('unwraps IPv4-mapped IPv6 peers', () => {
    expect(clientKey(headers({ 'x-wraith-peer-ip': '::ffff:192.0.2.1' }), 0)).toBe('192.0.2.1');
  });

  it('groups IPv6 clients by /64', () => {
    const a = clientKey(headers({ 'x-wraith-peer-ip': '2001:db8:1:2:aaaa::1' }), 0);
    const b = clientKey(headers({ 'x-wraith-peer-ip': '2001:db8:1:2:bbbb:cccc:dddd:eeee' }), 0);
    const c = clientKey(headers({ 'x-wraith-peer-ip': '2001:db8:1:3::1' }), 0);
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it('ignores X-Forwarded-For without TRUST_PROXY', () => {
    expect(clientKey(headers({ 'x-wraith-peer-ip': '10.0.0.1', 'x-forwarded-for': '192.0.2.9' }), 0)).toBe('10.0.0.1');
  });

  it('with TRUST_PROXY=N takes the Nth entry from the right', () => {
    const h = headers({ 'x-wraith-peer-ip': '10.0.0.1', 'x-forwarded-for': '1.1.1.1, 2.2.2.2, 3.3.3.3' });
    expect(clientKey(h, 1)).toBe('3.3.3.3');
    expect(clientKey(h, 2)).toBe('2.2.2.2');
  });

  it('falls back to the peer when X-Forwarded-For has fewer entries than trusted hops or garbage', () => {
    expect(clientKey(headers({ 'x-wraith-peer-ip': '10.0.0.1', 'x-forwarded-for': '1.1.1.1' }), 2)).toBe('10.0.0.1');
    expect(clientKey(headers({ 'x-wraith-peer-ip': '10.0.0.1', 'x-forwarded-for': 'not-an-ip' }), 1)).toBe('10.0.0.1');
  });

  it('reads ports and brackets in forwarded entries', () => {
    expect(clientKey(headers({ 'x-forwarded-for': '192.0.2.5:4711' }), 1)).toBe('192.0.2.5');
    expect(clientKey(headers({ 'x-forwarded-for': '[::ffff:192.0.2.6]:80' }), 1)).toBe('192.0.2.6');
  });
});
