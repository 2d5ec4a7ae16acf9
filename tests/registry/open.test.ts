/**
 * `REGISTRY_URL` selects the store (API.md "Configuration"), and a URL quoted in an error
 * never carries its credentials.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { openRegistryStore } from '../../lib/registry/open.ts';
import { StoreUnavailableError } from '../../lib/registry/store.ts';
import { announcement, temporaryDirectory } from './fixtures/announcements.ts';

const directory = temporaryDirectory();
afterAll(() => directory.remove());

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error('expected the promise to reject with an Error');
  return outcome;
}

describe('opening the registry named by REGISTRY_URL', () => {
  it('gives a separate process-local store for each memory: open', async () => {
    const first = await openRegistryStore('memory:');
    const second = await openRegistryStore('memory:');
    onTestFinished(() => Promise.all([first.close(), second.close()]).then(() => undefined));
    await first.publish(announcement());
    expect(first.kind).toBe('memory');
    expect(await first.count()).toBe(1);
    expect(await second.count()).toBe(0);
  });

  it('opens embedded SQLite for a file: URL', async () => {
    const path = join(directory.path, 'data', 'registry.db');
    const store = await openRegistryStore(`file:${path}`);
    onTestFinished(() => store.close());
    expect(store.kind).toBe('sqlite');
    expect(existsSync(path)).toBe(true);
  });

  it.each(['postgres://registry:s3cretpw@127.0.0.1:1/wraith', 'postgresql://registry:s3cretpw@127.0.0.1:1/wraith'])(
    'reports an unreachable PostgreSQL server at %s as StoreUnavailableError without repeating its password',
    async (url) => {
      const error = await errorOf(openRegistryStore(url, { timeoutMs: 2_000 }));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error.message).toContain('postgres');
      expect(error.message).toContain('127.0.0.1:1/wraith');
      expect(error.message).not.toContain('s3cretpw');
    },
  );

  it('names the accepted schemes for an unknown URL, quoting it without userinfo or query', async () => {
    const error = await errorOf(openRegistryStore('mysql://admin:hunt@er2@db.example:3306/reg?token=t0ken'));
    for (const scheme of ['memory:', 'file:', 'postgres://', 'postgresql://', 'libsql://']) {
      expect(error.message).toContain(scheme);
    }
    expect(error.message).toContain('mysql://db.example:3306/reg');
    for (const secret of ['admin', 'hunt', 'er2', 't0ken']) expect(error.message).not.toContain(secret);
  });

  it('refuses a URL with no scheme at all', async () => {
    const error = await errorOf(openRegistryStore('./data/registry.db'));
    expect(error.message).toMatch(/expected one of memory:, file:/);
  });

  it('reports an unreachable libsql: server as StoreUnavailableError without leaking its auth token', async () => {
    const error = await errorOf(openRegistryStore('libsql://127.0.0.1:9?tls=0&authToken=tok3nvalue'));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error.message).not.toContain('tok3nvalue');
  });
});
