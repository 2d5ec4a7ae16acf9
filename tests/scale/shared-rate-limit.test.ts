/**
 * The shared rate limit (lib/ratelimit/shared.ts) through the route handlers, on a real Redis
 * behind the Upstash REST front (tests/helpers/upstash-front.ts): same bucket as the in-process
 * limit, one budget for every limiter on the store, and the documented behaviour when the store
 * is down (RATE_LIMIT_FAIL_OPEN) or hangs (RATE_LIMIT_TIMEOUT_MS).
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenBucketLimiter } from '../../lib/http/rate-limit.ts';
import { createSharedRateLimiter } from '../../lib/ratelimit/shared.ts';
import { captureLog, configure } from '../helpers/api.ts';
import { REDIS_MISSING, redisOrSkip, startRedis, type RedisServer } from '../helpers/redis.ts';
import { request } from '../helpers/routes.ts';
import { startUpstashFront, type UpstashFront } from '../helpers/upstash-front.ts';

const available = redisOrSkip();

let redis: RedisServer;
let front: UpstashFront;
beforeAll(async () => {
  if (!available) return;
  redis = await startRedis();
  front = await startUpstashFront({ redisPort: redis.port });
});
afterAll(async () => {
  await front?.close();
  await redis?.kill();
});

let clients = 0;
/** A client address no other test used, so each test starts with a full bucket in Redis. */
const freshClient = () => `198.51.100.${++clients}`;

function shared(overrides: Record<string, string> = {}): Promise<void> {
  return configure({
    RATE_LIMIT_RPS: '10',
    RATE_LIMIT_BURST: '30',
    UPSTASH_REDIS_REST_URL: front.url,
    UPSTASH_REDIS_REST_TOKEN: front.token,
    RATE_LIMIT_FAIL_OPEN: 'true',
    RATE_LIMIT_TIMEOUT_MS: '1000',
    LOG_LEVEL: 'warn',
    ...overrides,
  });
}

async function statuses(count: number, peer: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await request('stats', 'GET', { peer })).status);
  return out;
}

const logLinesOf = (log: string) =>
  log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe.skipIf(!available)(`the shared rate limit on Redis through the Upstash REST protocol${available ? '' : ` (${REDIS_MISSING})`}`, () => {
  it('lets a burst of 30 through, then answers 429 RATE_LIMITED with Retry-After, counting in Redis', async () => {
    await shared({ RATE_LIMIT_RPS: '0.5' }); // slow refill: no token comes back during the burst
    const before = front.commands();
    const peer = freshClient();
    expect(await statuses(30, peer)).toEqual(Array(30).fill(200));
    const limited = await request('stats', 'GET', { peer });
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(front.commands() - before).toBeGreaterThanOrEqual(31);
  });

  it('refills at RATE_LIMIT_RPS up to the burst', async () => {
    await shared({ RATE_LIMIT_RPS: '2', RATE_LIMIT_BURST: '3' });
    const peer = freshClient();
    await statuses(3, peer);
    expect((await request('stats', 'GET', { peer })).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    // 2.1 s at 2/s refills 4 tokens, capped at the burst of 3.
    expect(await statuses(4, peer)).toEqual([200, 200, 200, 429]);
  });

  it('gives one client one budget across limiters sharing the store, and separate clients separate budgets', async () => {
    const make = () =>
      createSharedRateLimiter({
        url: front.url,
        token: front.token,
        rate: 1,
        burst: 10,
        failOpen: true,
        timeoutMs: 1000,
        fallback: new TokenBucketLimiter({ rate: 1, burst: 10 }),
      });
    const [first, second] = [make(), make()];
    const peer = freshClient();
    const decisions = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? first : second).take(peer)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect((await second.take(freshClient())).allowed).toBe(true);
  });

  it('with RATE_LIMIT_FAIL_OPEN=true keeps serving while Redis is down, under a per-instance bucket, and logs one warning', async () => {
    await shared({ RATE_LIMIT_BURST: '5', RATE_LIMIT_RPS: '1' });
    const peer = freshClient();
    expect(await statuses(2, peer)).toEqual([200, 200]);
    await redis.kill();
    try {
      const { result, log } = await captureLog(() => statuses(7, peer));
      // The shared bucket is out of reach; this instance's own bucket (full, burst 5) decides.
      expect(result).toEqual([200, 200, 200, 200, 200, 429, 429]);
      const warnings = logLinesOf(log).filter((line) => line.msg === 'rate limit store unavailable');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 'warn', behaviour: 'fail open: per-instance limit' });
      expect(log).not.toContain(peer);
    } finally {
      await redis.start();
    }
  });

  it('returns to the shared limit once Redis answers again', async () => {
    await shared({ RATE_LIMIT_RPS: '0.5' }); // slow refill: a loaded machine cannot earn a token back mid-burst
    const peer = freshClient();
    await redis.kill();
    await redis.start();
    const { log } = await captureLog(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2100)); // past the bypass window after a failure
      expect(await statuses(31, peer)).toEqual([...Array(30).fill(200), 429]);
    });
    expect(log).not.toContain('rate limit store unavailable');
  });

  it('with RATE_LIMIT_FAIL_OPEN=false answers 503 SERVICE_UNAVAILABLE with Retry-After while Redis is down', async () => {
    await shared({ RATE_LIMIT_FAIL_OPEN: 'false' });
    await redis.kill();
    try {
      const { result } = await captureLog(() => request('stats', 'GET', { peer: freshClient() }));
      expect(result.status).toBe(503);
      expect(result.json.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(result.json.error.message).toMatch(/rate limiter is unavailable/);
      expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await redis.start();
    }
  });

  it('waits at most RATE_LIMIT_TIMEOUT_MS for a store that stops answering, then fails open', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket)); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    try {
      await shared({ UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, RATE_LIMIT_TIMEOUT_MS: '300' });
      const started = performance.now();
      const { result } = await captureLog(() => request('stats', 'GET', { peer: freshClient() }));
      expect(result.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(1500);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
