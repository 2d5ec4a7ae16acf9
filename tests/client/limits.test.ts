/**
 * The client against the real server's limits: the API key (`API_KEY` set: writes need it,
 * reads do not) and the per-client rate limit (a 429 with `Retry-After`, waited out for reads,
 * reported for writes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, announcementForPayment, createClient, createStealthPayment, generateKeys, type RetryEvent } from '@wraith-pq/sdk';
import { logLines, startServer, type RunningServer } from '../helpers/server.ts';

const API_KEY = 'client-test-key-0123456789abcdef';

describe('API key', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ env: { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '0', API_KEY } });
  });
  afterAll(() => server?.stop());

  const announcement = () => announcementForPayment(createStealthPayment(generateKeys().metaAddress), { txHash: `0x${crypto.randomUUID().replaceAll('-', '')}` });

  it('a write without the key is a 401 UNAUTHORIZED ApiError; reads stay open', async () => {
    const anonymous = createClient({ baseUrl: server.url });
    const error = await anonymous.publishAnnouncement(announcement()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED', method: 'POST' });
    expect((error as ApiError).requestId).toBeTruthy();
    await expect(anonymous.getRegistryStats()).resolves.toMatchObject({ total_announcements: 0 });
  });

  it('a wrong key is refused too', async () => {
    const wrong = createClient({ baseUrl: server.url, apiKey: 'not-the-key' });
    await expect(wrong.generateKeys()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('the client with the key publishes', async () => {
    const keyed = createClient({ baseUrl: server.url, apiKey: API_KEY });
    const { id } = await keyed.publishAnnouncement(announcement());
    expect((await keyed.listAnnouncements()).announcements.map((a) => a.id)).toEqual([id]);
  });
});

describe('rate limit', () => {
  let server: RunningServer;
  beforeAll(async () => {
    // One request per second, a burst of two: the third request in a row is refused for ~1 s.
    server = await startServer({ env: { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '2' } });
  });
  afterAll(() => server?.stop());

  const statuses = (path: string) =>
    logLines(server)
      .filter((line) => line.route === path || line.path === path)
      .map((line) => line.status);

  it('a read refused with 429 is retried after Retry-After and then succeeds; a write is reported with the wait', async () => {
    const retries: RetryEvent[] = [];
    const client = createClient({ baseUrl: server.url, retry: { onRetry: (event) => retries.push(event) } });
    await client.getRegistryStats();
    await client.getRegistryStats();
    const started = performance.now();
    await expect(client.getRegistryStats()).resolves.toMatchObject({ total_announcements: 0 });
    const waited = performance.now() - started;

    expect(retries).toHaveLength(1);
    expect(retries[0]!.error).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(retries[0]!.delayMs).toBe(retries[0]!.error.retryAfterMs);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeGreaterThanOrEqual(retries[0]!.delayMs - 50);
    await expect.poll(() => statuses('/api/v1/registry/stats')).toEqual([200, 200, 429, 200]);

    // The bucket is empty again: a write is not repeated, the caller learns how long to wait.
    const error = await client.generateKeys().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', attempts: 1 });
    expect((error as ApiError).retryAfterMs).toBeGreaterThanOrEqual(1000);
    await expect.poll(() => statuses('/api/v1/keys/generate')).toEqual([429]);
  });
});
