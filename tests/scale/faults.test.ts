/**
 * Faults under load, on the scaled-out deployment (two instances, one PostgreSQL): the database
 * crashing and coming back, an instance killed with SIGKILL, an instance stopped with SIGTERM.
 * What a user relies on: a publish that was acknowledged (201) is never lost, failures while the
 * database is away are quick JSON 503s that say to retry, and service resumes by itself.
 * (Redis outages: shared-rate-limit.test.ts and two-instances.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_MISSING, postgresOrSkip } from '../helpers/postgres.ts';
import { http, logLines, waitForLog, type RunningServer } from '../helpers/server.ts';
import { listAll, announcementBody, publishUnderLoad, sleep, startStack, type Outcome, type Stack } from './stack.ts';

const available = postgresOrSkip();

/** The statement and connect timeout of these instances: a dead database fails requests fast. */
const TIMEOUT_MS = 2_000;

let stack: Stack;
beforeAll(async () => {
  if (!available) return;
  stack = await startStack({ instances: 2, env: { REGISTRY_TIMEOUT_MS: String(TIMEOUT_MS), LOG_LEVEL: 'warn' } });
});
afterAll(() => stack?.stop());

/** Every acknowledged publish is in the registry with its tx_hash, and ids have no gaps. */
async function expectAcknowledgedStored(outcomes: Outcome[], reader: RunningServer): Promise<void> {
  const acknowledged = outcomes.filter((o) => o.status === 201);
  const stored = await listAll(reader);
  const byId = new Map(stored.map((row) => [row.id, row.tx_hash]));
  for (const ack of acknowledged) expect(byId.get(ack.id!), `acknowledged id ${ack.id}`).toBe(ack.txHash);
  expect(stored.map((row) => row.id)).toEqual(stored.map((_, i) => i + 1));
}

/** Wait until `done()` holds, polling (at most `timeoutMs`). */
async function until(done: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const acknowledgedAfter = (outcomes: Outcome[], at: number) => outcomes.filter((o) => o.status === 201 && o.at > at).length;

describe.skipIf(!available)(`faults on two instances sharing PostgreSQL${available ? '' : ` (${POSTGRES_MISSING})`}`, () => {
  it('answers quick JSON 503s while PostgreSQL is down, recovers when it is back, and loses no acknowledged publish', async () => {
    const [a, b] = stack.servers as [RunningServer, RunningServer];
    let done = false;
    const progress: Outcome[] = [];
    const load = publishUnderLoad(() => [a, b], { concurrency: 6, stop: () => done, prefix: 'db', progress });
    // Publishes acknowledged before the crash (a fixed wait was outrun on a loaded machine).
    await until(() => acknowledgedAfter(progress, 0) >= 5, 'publishes acknowledged before the crash');
    const crashedAt = performance.now();
    await stack.postgres.stop('immediate'); // a crash: no checkpoint, WAL recovery on start
    await sleep(300);
    const healthWhileDown = await http(b, '/health');
    await sleep(700);
    const restartedAt = performance.now();
    await stack.postgres.start();
    await until(() => acknowledgedAfter(progress, restartedAt) >= 3, 'publishes acknowledged after the restart');
    done = true;
    const outcomes = await load;

    expect(healthWhileDown.status).toBe(503);
    expect(healthWhileDown.json).toMatchObject({ status: 'degraded', registry: { kind: 'postgres', ok: false } });
    const refused = outcomes.filter((o) => o.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const outcome of refused) {
      expect(outcome.code).toBe('SERVICE_UNAVAILABLE');
      expect(outcome.contentType).toBe('application/json; charset=utf-8');
    }
    expect(outcomes.filter((o) => o.status !== 201 && o.status !== 503)).toEqual([]);
    // Failing fast: nothing waited much past the database timeout.
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(TIMEOUT_MS + 1_500);
    expect(outcomes.some((o) => o.status === 201 && o.at < crashedAt)).toBe(true);
    expect(outcomes.some((o) => o.status === 201 && o.at > restartedAt)).toBe(true);
    expect((await http(a, '/health')).json).toMatchObject({ status: 'ok', registry: { kind: 'postgres', ok: true } });
    await expectAcknowledgedStored(outcomes, a);
  });

  it('keeps every publish acknowledged by an instance killed with SIGKILL under load', async () => {
    const victim = await stack.addServer({ REGISTRY_TIMEOUT_MS: String(TIMEOUT_MS), LOG_LEVEL: 'warn' });
    let done = false;
    const progress: Outcome[] = [];
    const load = publishUnderLoad(() => [victim], { concurrency: 8, stop: () => done, prefix: 'kill', progress });
    await until(() => acknowledgedAfter(progress, 0) > 10, 'publishes acknowledged before the kill');
    await victim.stop('SIGKILL');
    done = true;
    const outcomes = await load;

    expect(outcomes.filter((o) => o.status === 201).length).toBeGreaterThan(10);
    expect(outcomes.filter((o) => o.status !== undefined && o.status !== 201)).toEqual([]);
    await expectAcknowledgedStored(outcomes, stack.servers[0]!);
  });

  it('on SIGTERM finishes the requests in flight, closes the registry pool and exits 0', async () => {
    // LOG_LEVEL=debug: the server logs each request as it starts, with the count in flight.
    const leaving = await stack.addServer({ LOG_LEVEL: 'debug' });
    // Each body sends its first bytes, then holds the rest until SIGTERM has been sent: the
    // requests are surely in flight when it comes. SIGTERM waits until the server has logged all
    // twelve as started. A fixed wait after the bodies started was not enough on a loaded CI
    // machine (10 of 12 had been read when SIGTERM came): the server closes connections whose
    // request it has not read yet as idle.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const started: Promise<void>[] = [];
    const slowBody = (i: number) => {
      const text = JSON.stringify(announcementBody(`0xterm${i}`));
      let markStarted!: () => void;
      started.push(new Promise<void>((resolve) => (markStarted = resolve)));
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent === 0) {
            controller.enqueue(new TextEncoder().encode(text.slice(0, 10)));
            sent = 1;
            markStarted();
            return;
          }
          await released;
          controller.enqueue(new TextEncoder().encode(text.slice(10)));
          controller.close();
        },
      }, { highWaterMark: 0 }); // pulled only when fetch reads it, not at construction
    };
    const inFlight = Array.from({ length: 12 }, (_, i) =>
      http(leaving, '/api/v1/registry/announcements', { method: 'POST', body: slowBody(i), headers: { 'content-type': 'application/json' } }),
    );
    await Promise.all(started);
    const startedOnServer = () => logLines(leaving).filter((line) => line.msg === 'request started' && line.method === 'POST').length;
    await expect.poll(startedOnServer, { timeout: 30_000, interval: 25 }).toBe(12);
    const exit = leaving.stop('SIGTERM');
    await waitForLog(leaving, (line) => line.msg === 'shutting down');
    await sleep(300);
    release();
    const responses = await Promise.allSettled(inFlight);
    // The premise first: all twelve were in flight when SIGTERM came.
    expect(logLines(leaving).find((line) => line.msg === 'shutting down')).toMatchObject({ in_flight: 12 });
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(responses.map((r) => (r.status === 'fulfilled' ? r.value.status : String(r.reason)))).toEqual(Array(12).fill(201));
    const messages = logLines(leaving).map((line) => line.msg);
    expect(messages).toContain('registry closed');
    expect(messages.indexOf('registry closed')).toBeLessThan(messages.indexOf('stopped'));
    const stored = new Set((await listAll(stack.servers[0]!)).map((row) => row.tx_hash));
    for (let i = 0; i < 12; i++) expect(stored.has(`0xterm${i}`)).toBe(true);
  });
});
