/**
 * The real server end to end, over HTTP, with the embedded SQLite registry: a payment's whole
 * life, restarts, a crash in the middle of publishing, and graceful shutdown.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { http, logLines, startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';

const directory = temporaryDirectory();
afterAll(() => directory.remove());

const running: RunningServer[] = [];
async function start(registry: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServer({ env: { REGISTRY_URL: `file:${join(directory.path, registry)}`, RATE_LIMIT_RPS: '0', ...env } });
  running.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop('SIGKILL')));
});

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

describe('a payment through the running server', () => {
  it('goes keys → create → publish → list → stats → scan, and the scan finds it at the created address', async () => {
    const server = await start('flow.db');
    const keys = (await http(server, '/api/v1/keys/generate', { method: 'POST' })).json;
    const created = await http(server, '/api/v1/stealth/create', { body: { meta_address: keys.meta_address } });
    expect(created.status).toBe(200);
    const { stealth_address, ephemeral_ciphertext, view_tag } = created.json;

    const published = await http(server, '/api/v1/registry/announcements', {
      body: { ephemeral_key: ephemeral_ciphertext, view_tag, tx_hash: '0xflow', amount: '1', chain: 'ethereum' },
    });
    expect(published.status).toBe(201);
    expect(published.json).toEqual({ id: 1, success: true });
    expect((await http(server, '/api/v1/registry/announcements', { body: { ephemeral_key: randomHex(1088), view_tag: 3, tx_hash: '0xother' } })).status).toBe(201);

    const listed = await http(server, `/api/v1/registry/announcements?view_tag=${view_tag}`);
    expect(listed.json.announcements[0]).toMatchObject({ id: 1, ephemeral_key: ephemeral_ciphertext, view_tag, tx_hash: '0xflow' });

    const stats = await http(server, '/api/v1/registry/stats');
    expect(stats.json.total_announcements).toBe(2);

    const scanned = await http(server, '/api/v1/stealth/scan', {
      body: { viewing_sk: keys.viewing_sk, spending_pk: keys.spending_pk, spending_sk: keys.spending_sk },
    });
    expect(scanned.status).toBe(200);
    expect(scanned.json.discoveries).toHaveLength(1);
    expect(scanned.json.discoveries[0]).toMatchObject({ stealth_address, announcement_id: 1, tx_hash: '0xflow', chain: 'ethereum' });
    expect(scanned.json.stats.total_scanned).toBe(2);
    expect(scanned.headers.get('cache-control')).toBe('no-store');

    const health = await http(server, '/health');
    expect(health.json).toMatchObject({ status: 'ok', announcements_count: 2, registry: { kind: 'sqlite', ok: true } });
  });

  it('keeps the announcements across a restart', async () => {
    const first = await start('restart.db');
    const keys = (await http(first, '/api/v1/keys/generate', { method: 'POST' })).json;
    const created = (await http(first, '/api/v1/stealth/create', { body: { meta_address: keys.meta_address } })).json;
    await http(first, '/api/v1/registry/announcements', {
      body: { ephemeral_key: created.ephemeral_ciphertext, view_tag: created.view_tag, tx_hash: '0xkept' },
    });
    expect(await first.stop('SIGTERM')).toEqual({ code: 0, signal: null });

    const second = await start('restart.db');
    const listed = await http(second, '/api/v1/registry/announcements');
    expect(listed.json.total).toBe(1);
    expect(listed.json.announcements[0].tx_hash).toBe('0xkept');
    const scanned = await http(second, '/api/v1/stealth/scan', {
      body: { viewing_sk: keys.viewing_sk, spending_pk: keys.spending_pk },
    });
    expect(scanned.json.discoveries[0].stealth_address).toBe(created.stealth_address);
    // The tx_hash stays unique across the restart.
    const again = await http(second, '/api/v1/registry/announcements', {
      body: { ephemeral_key: randomHex(1088), view_tag: 1, tx_hash: '0xKEPT' },
    });
    expect(again.status).toBe(409);
  });

  it('keeps every acknowledged publish when killed with SIGKILL in the middle of a stream of publishes', async () => {
    const first = await start('crash.db');
    const acknowledged = new Map<number, string>();
    let stop = false;
    const writer = async (lane: number) => {
      for (let i = 0; !stop; i++) {
        const txHash = `0xcrash-${lane}-${i}`;
        try {
          const response = await http(first, '/api/v1/registry/announcements', {
            body: { ephemeral_key: randomHex(1088), view_tag: i % 256, tx_hash: txHash },
          });
          if (response.status === 201) acknowledged.set(response.json.id, txHash);
        } catch {
          return; // the connection died with the server
        }
      }
    };
    const lanes = [0, 1, 2, 3].map(writer);
    while (acknowledged.size < 60) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    await first.exited;
    stop = true;
    await Promise.all(lanes);

    const second = await start('crash.db');
    const rows = (await http(second, '/api/v1/registry/announcements?limit=1000')).json.announcements as { id: number; tx_hash: string }[];
    const stored = new Map(rows.map((row) => [row.id, row.tx_hash]));
    for (const [id, txHash] of acknowledged) expect(stored.get(id), `id ${id}`).toBe(txHash);
  });

  it('stops accepting connections on SIGTERM, but finishes a request in flight before stopping', async () => {
    const server = await start('graceful.db');
    const body = JSON.stringify({ ephemeral_key: randomHex(1088), view_tag: 9, tx_hash: '0xslow' });
    const encoder = new TextEncoder();
    let sendRest: () => void = () => {};
    const slowBody = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(body.slice(0, 100)));
        sendRest = () => {
          controller.enqueue(encoder.encode(body.slice(100)));
          controller.close();
        };
      },
    });
    const inFlight = http(server, '/api/v1/registry/announcements', {
      body: slowBody,
      headers: { 'content-type': 'application/json' },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.child.exitCode).toBeNull(); // still waiting for the request
    // It no longer accepts connections meanwhile: a new client is refused at once.
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(server.port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve('connected')));
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    sendRest();
    const response = await inFlight;
    expect(response.status).toBe(201);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(logLines(server).some((line) => line.msg === 'stopped' && line.drained === true)).toBe(true);

    const reopened = await start('graceful.db');
    expect((await http(reopened, '/api/v1/registry/announcements')).json.announcements[0].tx_hash).toBe('0xslow');
  });
});
