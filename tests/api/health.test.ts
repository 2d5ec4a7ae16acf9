/**
 * GET/HEAD /health (INTERFACE.md 4.7) and how the API behaves when the registry is unreachable.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json';
import { configure } from '../helpers/api.ts';
import { foreignAnnouncement, generateKeys, request, scanKeys } from '../helpers/routes.ts';

const directory = mkdtempSync(join(tmpdir(), 'wraith-health-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A file: URL whose directory cannot be created: its parent is a regular file. */
writeFileSync(join(directory, 'not-a-directory'), '');
const UNREACHABLE = `file:${join(directory, 'not-a-directory', 'registry.db')}`;

describe('GET /health', () => {
  it('reports ok with the package version, uptime, announcement count and registry state', async () => {
    await configure();
    await request('announcements', 'POST', { body: foreignAnnouncement() });
    const response = await request('health', 'GET');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      status: 'ok',
      version: packageJson.version,
      uptime_seconds: expect.any(Number),
      announcements_count: 1,
      registry: { kind: 'memory', ok: true },
      chains: [], // no CHAINS or CHAIN_RPC_URL
      chain: null,
    });
    expect(Number.isInteger(response.json.uptime_seconds)).toBe(true);
  });

  it('names the SQLite registry for a file: URL', async () => {
    await configure({ REGISTRY_URL: `file:${join(directory, 'health.db')}` });
    const response = await request('health', 'GET');
    expect(response.json.registry).toEqual({ kind: 'sqlite', ok: true });
  });

  it('answers HEAD with the status of GET and no body', async () => {
    await configure();
    const response = await request('health', 'HEAD');
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
  });

  it('stays public when an API key is configured', async () => {
    await configure({ API_KEY: 'k'.repeat(32) });
    expect((await request('health', 'GET')).status).toBe(200);
  });

  it('answers 503 with status degraded when the registry is unreachable', async () => {
    await configure({ REGISTRY_URL: UNREACHABLE });
    const response = await request('health', 'GET');
    expect(response.status).toBe(503);
    expect(response.json).toMatchObject({
      status: 'degraded',
      version: packageJson.version,
      announcements_count: null,
      registry: { kind: 'sqlite', ok: false },
    });
  });

  it('answers 503 degraded for a registry URL whose store is not available yet', async () => {
    await configure({ REGISTRY_URL: 'postgres://user:secret@127.0.0.1:1/db' });
    const response = await request('health', 'GET');
    expect(response.status).toBe(503);
    expect(response.json.registry).toEqual({ kind: 'postgres', ok: false });
    expect(response.text).not.toContain('secret');
  });
});

describe('an unreachable registry', () => {
  it('makes registry reads and writes answer 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    await configure({ REGISTRY_URL: UNREACHABLE });
    for (const response of [
      await request('announcements', 'POST', { body: foreignAnnouncement() }),
      await request('announcements', 'GET'),
      await request('stats', 'GET'),
    ]) {
      expect(response.status).toBe(503);
      expect(response.json.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(response.json.error.message).not.toContain(directory);
    }
  });

  it('makes a scan answer 503 without echoing the keys', async () => {
    await configure();
    const keys = await generateKeys();
    await configure({ REGISTRY_URL: UNREACHABLE });
    const response = await request('scan', 'POST', { body: scanKeys(keys) });
    expect(response.status).toBe(503);
    expect(response.text).not.toContain(keys.spending_sk);
  });

  it('does not stop key generation and payment creation, which need no registry', async () => {
    await configure({ REGISTRY_URL: UNREACHABLE });
    const keys = await generateKeys();
    const created = await request('create', 'POST', { body: { meta_address: keys.meta_address } });
    expect(created.status).toBe(200);
  });
});
