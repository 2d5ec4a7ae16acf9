/**
 * Calling the route handlers directly, as Next.js would, with a controlled environment.
 *
 * The server reads its configuration lazily into process-wide singletons (lib/server/), so a
 * test sets the environment with {@link configure}, which also forgets the singletons (config,
 * rate-limit buckets, registry): each test starts from an empty `memory:` registry unless it
 * asks otherwise. Vitest runs each file in its own process (pool: forks).
 */
import { afterAll, vi } from 'vitest';
import { CONFIG_VARIABLES } from '../../lib/config.ts';
import { clearProcessSingleton } from '../../lib/server/singleton.ts';
import { closeRegistry } from '../../lib/server/registry.ts';
import { PEER_IP_HEADER } from '../../lib/http/client-ip.ts';

/** Test defaults: an in-memory registry, no rate limit, no log noise. */
export const TEST_ENV: Record<string, string> = { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '0', LOG_LEVEL: 'silent' };

/** Forget every process-wide singleton (closing the registry). */
export async function resetServer(): Promise<void> {
  await closeRegistry();
  clearProcessSingleton('config');
  clearProcessSingleton('rateLimiter');
}

/** Set the server's environment to {@link TEST_ENV} plus `overrides`, and start afresh. */
export async function configure(overrides: Record<string, string | undefined> = {}): Promise<void> {
  for (const name of CONFIG_VARIABLES) delete process.env[name]; // every variable the server reads
  for (const [name, value] of Object.entries({ ...TEST_ENV, ...overrides })) {
    if (value !== undefined) process.env[name] = value;
  }
  await resetServer();
}

afterAll(resetServer);

/** Route handlers run as under server.mjs, which vouches for the peer header it sets. */
(globalThis as Record<symbol, unknown>)[Symbol.for('wraith.peerHeaderTrusted')] = true;

export type Handler = (request: Request) => Promise<Response>;

export type CallInit = {
  method?: string;
  /** An object is sent as JSON; a string or stream as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Peer address as server.mjs would set it. Default 127.0.0.1. */
  peer?: string | null;
};

export type CallResult = { status: number; headers: Headers; text: string; json: any };

/** Build the Request a client would send to `path`. */
export function buildRequest(path: string, init: CallInit = {}): Request {
  const headers = new Headers(init.headers);
  if (init.peer !== null) headers.set(PEER_IP_HEADER, init.peer ?? '127.0.0.1');
  let body: BodyInit | undefined;
  if (init.body instanceof ReadableStream || typeof init.body === 'string' || init.body instanceof Uint8Array) {
    body = init.body as BodyInit;
  } else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
  }
  if (body !== undefined && !headers.has('content-type') && typeof init.body === 'object' && !(init.body instanceof ReadableStream) && !(init.body instanceof Uint8Array)) {
    headers.set('content-type', 'application/json');
  }
  return new Request(`http://localhost${path}`, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body, duplex: 'half' }),
  } as RequestInit);
}

/** Call a route handler and read its response. */
export async function call(handler: Handler, path: string, init: CallInit = {}): Promise<CallResult> {
  const response = await handler(buildRequest(path, init));
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Capture what the server writes to stdout (its log) while `action` runs. */
export async function captureLog<T>(action: () => Promise<T>): Promise<{ result: T; log: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk));
    return true;
  });
  try {
    const result = await action();
    return { result, log: lines.join('') };
  } finally {
    spy.mockRestore();
  }
}
