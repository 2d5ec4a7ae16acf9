/**
 * The real server, black-box: `node server.mjs` on a free loopback port, its stdout captured as
 * the log. Needs a production build (`NEXT_TELEMETRY_DISABLED=1 npx next build`); `npm test`
 * builds first.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_VARIABLES } from '../../lib/config.ts';

export const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));

export function requireBuild(): void {
  if (!existsSync(join(PROJECT_DIR, '.next', 'BUILD_ID'))) {
    throw new Error('No production build: run `NEXT_TELEMETRY_DISABLED=1 npx next build` before the server tests.');
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** A temporary directory, removed by `remove()`. */
export function temporaryDirectory(prefix = 'wraith-server-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export type ServerExit = { code: number | null; signal: NodeJS.Signals | null };

export type RunningServer = {
  url: string;
  port: number;
  child: ChildProcessWithoutNullStreams;
  /** Everything the server wrote to stdout so far (its JSON log). */
  log(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<ServerExit>;
  /** Send a signal and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<ServerExit>;
};

export type StartOptions = { env?: Record<string, string>; port?: number; timeoutMs?: number };

/** Start `node server.mjs` and wait until it logs that it listens. */
export async function startServer({ env = {}, port, timeoutMs = 90_000 }: StartOptions = {}): Promise<RunningServer> {
  requireBuild();
  const child = await spawnServer(env, port ?? (await freePort()));
  const server = child.server;
  await Promise.race([
    waitForLog(server, (line) => line.msg === 'listening', timeoutMs),
    server.exited.then((exit) => {
      throw new Error(`server exited before listening (${JSON.stringify(exit)}):\n${server.stderr()}\n${server.log()}`);
    }),
  ]);
  return server;
}

/** Spawn the server without waiting (e.g. to watch it refuse a bad configuration). */
export async function spawnServer(env: Record<string, string>, port: number): Promise<{ server: RunningServer }> {
  const inherited = { ...process.env };
  // Settings read by the server: inherited values are dropped so each test states its own.
  for (const name of [...CONFIG_VARIABLES, 'NODE_ENV']) delete inherited[name];
  const child = spawn(process.execPath, ['server.mjs'], {
    cwd: PROJECT_DIR,
    env: { ...inherited, NEXT_TELEMETRY_DISABLED: '1', HOSTNAME: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<ServerExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const server: RunningServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    log: () => stdout,
    stderr: () => stderr,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  return { server };
}

/** The server's log as parsed JSON lines (non-JSON lines, e.g. from Next.js, are skipped). */
export function logLines(server: RunningServer): Record<string, unknown>[] {
  return server
    .log()
    .split('\n')
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as unknown;
        return typeof parsed === 'object' && parsed !== null ? [parsed as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
}

export async function waitForLog(server: RunningServer, match: (line: Record<string, unknown>) => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!logLines(server).some(match)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for a log line:\n${server.log()}\n${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export type HttpResult = { status: number; headers: Headers; text: string; json: any };

/** One HTTP request to the server; objects are sent as JSON. */
export async function http(server: RunningServer, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<HttpResult> {
  const headers = new Headers(init.headers);
  let body: BodyInit | undefined;
  if (typeof init.body === 'string' || init.body instanceof ReadableStream || init.body instanceof Uint8Array) body = init.body as BodyInit;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const response = await fetch(`${server.url}${path}`, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body, duplex: 'half' }),
  } as RequestInit);
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
