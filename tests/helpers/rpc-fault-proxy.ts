/**
 * A misbehaving JSON-RPC provider, for tests: an HTTP server on 127.0.0.1 that forwards
 * JSON-RPC (single calls and batches) to a real node (anvil) and, for a seeded random share of
 * requests, fails the way public providers do: 429 with `Retry-After`, 500/502/503, a request
 * that hangs past the client's timeout, or a dropped connection. It also refuses `eth_getLogs`
 * calls spanning more than `maxLogRange` blocks with the errors real providers send (HTTP 200
 * with a JSON-RPC error -32005 / -32600 / -32602 / -32614, HTTP 400 with -32000, or HTTP 413),
 * varying the wording. `stats` counts what it did, for assertions.
 *
 * @example
 * const proxy = await startRpcFaultProxy({ target: chain.rpcUrl, failureRate: 0.3, maxLogRange: 5, seed: 7 });
 * const client = createPublicClient({ transport: http(proxy.url, { retryCount: 0 }) });
 * ... fetchAnnouncements({ client, ... }) ...
 * expect(proxy.stats.refusedRanges).toBeGreaterThan(0);
 * await proxy.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type FaultMode = '429' | '5xx' | 'hang' | 'reset';
export const FAULT_MODES: readonly FaultMode[] = ['429', '5xx', 'hang', 'reset'];

export type RpcFaultProxyOptions = {
  /** The real node (loopback URL only). */
  target: string;
  /** Share of HTTP requests failed with one of `modes` (0..1, default 0). */
  failureRate?: number;
  /** Refuse eth_getLogs whose block range (to - from + 1) is larger than this. Default: no limit. */
  maxLogRange?: number;
  /** Seed of the fault decisions (same seed and same request order: same faults). Default 1. */
  seed?: number;
  /** Faults to draw from (default all). */
  modes?: readonly FaultMode[];
  /** Fault only requests with a call of one of these methods (default, or null: any request). */
  faultMethods?: readonly string[] | null;
  /** How long a hung request is held before its connection is dropped (default 30 s). */
  hangMs?: number;
  /** `Retry-After` values (seconds) sent with 429, drawn at random (default [0, 1]). */
  retryAfterSeconds?: readonly number[];
  /** Largest request body accepted (default 8 MiB). */
  maxBodyBytes?: number;
};

export type RpcFaultProxyStats = {
  /** HTTP requests received. */
  requests: number;
  /** JSON-RPC calls received (each batch item counts). */
  calls: number;
  /** HTTP requests forwarded to the node. */
  forwarded: number;
  /** Requests failed on purpose, by fault. */
  failed: Record<FaultMode, number>;
  /** eth_getLogs calls refused for their range. */
  refusedRanges: number;
  /** JSON-RPC calls received by method. */
  methods: Record<string, number>;
};

export type RpcFaultProxy = {
  url: string;
  stats: RpcFaultProxyStats;
  /** Change the behaviour from now on (e.g. a provider that goes down: failureRate 1). */
  configure(changes: Partial<Pick<RpcFaultProxyOptions, 'failureRate' | 'maxLogRange' | 'modes' | 'faultMethods' | 'hangMs'>>): void;
  resetStats(): void;
  close(): Promise<void>;
};

type JsonRpcCall = { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown };
type JsonRpcError = { code: number; message: string };

/** mulberry32: a small seeded PRNG, enough for reproducible fault decisions. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const emptyStats = (): RpcFaultProxyStats => ({ requests: 0, calls: 0, forwarded: 0, failed: { '429': 0, '5xx': 0, hang: 0, reset: 0 }, refusedRanges: 0, methods: {} });

/** Range refusals as providers word them; `{n}` is the limit, `{from}`/`{to}` the range asked. */
const REFUSALS: readonly { status: number; error: JsonRpcError }[] = [
  { status: 200, error: { code: -32005, message: 'query returned more than 10000 results. Try with this block range [{from}, {to}].' } },
  { status: 200, error: { code: -32600, message: 'Log response size exceeded. You can make eth_getLogs requests with up to a {n} block range and no limit on the response size.' } },
  { status: 200, error: { code: -32602, message: 'block range is too large' } },
  { status: 200, error: { code: -32614, message: 'eth_getLogs is limited to a {n} range' } },
  { status: 400, error: { code: -32000, message: 'exceed maximum block range: {n}' } },
  // HTTP 413 is used for single calls only (a batch answers per item).
  { status: 413, error: { code: -32000, message: 'Request Entity Too Large' } },
];

/** Start the proxy. Call `close()` in afterAll. */
export async function startRpcFaultProxy(options: RpcFaultProxyOptions): Promise<RpcFaultProxy> {
  const target = new URL(options.target);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) throw new Error('the fault proxy forwards to loopback targets only');
  const settings = {
    failureRate: options.failureRate ?? 0,
    maxLogRange: options.maxLogRange,
    modes: options.modes ?? FAULT_MODES,
    faultMethods: options.faultMethods,
    hangMs: options.hangMs ?? 30_000,
  };
  const retryAfter = options.retryAfterSeconds ?? [0, 1];
  const maxBody = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const random = seededRandom(options.seed ?? 1);
  let stats = emptyStats();
  let refusalTurn = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const forward = async (body: string): Promise<{ status: number; text: string; contentType: string }> => {
    stats.forwarded++;
    const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: response.status, text: await response.text(), contentType: response.headers.get('content-type') ?? 'application/json' };
  };
  const head = async (): Promise<number> => {
    const { text } = await forward(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] }));
    return Number.parseInt((JSON.parse(text) as { result: string }).result, 16);
  };
  const blockOf = async (tag: unknown): Promise<number> => {
    if (tag === undefined || tag === 'latest' || tag === 'pending' || tag === 'safe' || tag === 'finalized') return head();
    if (tag === 'earliest') return 0;
    return typeof tag === 'string' ? Number.parseInt(tag, 16) : Number(tag);
  };
  /** The refusal for this call, or undefined when it may pass. */
  const refusalFor = async (call: JsonRpcCall, single: boolean): Promise<{ status: number; error: JsonRpcError } | undefined> => {
    if (settings.maxLogRange === undefined || call.method !== 'eth_getLogs' || !Array.isArray(call.params)) return undefined;
    const filter = (call.params[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown };
    if (filter.blockHash !== undefined) return undefined;
    const from = await blockOf(filter.fromBlock);
    const to = await blockOf(filter.toBlock);
    if (to - from + 1 <= settings.maxLogRange) return undefined;
    stats.refusedRanges++;
    const choices = single ? REFUSALS : REFUSALS.filter((r) => r.status === 200);
    const { status, error } = choices[refusalTurn++ % choices.length]!;
    const message = error.message.replace('{n}', String(settings.maxLogRange)).replace('{from}', `0x${from.toString(16)}`).replace('{to}', `0x${(from + settings.maxLogRange - 1).toString(16)}`);
    return { status, error: { code: error.code, message } };
  };

  const fail = (mode: FaultMode, request: IncomingMessage, response: ServerResponse) => {
    stats.failed[mode]++;
    switch (mode) {
      case '429':
        response.writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(retryAfter[Math.floor(random() * retryAfter.length)] ?? 0) }).end('Too Many Requests');
        return;
      case '5xx': {
        const status = [500, 502, 503][Math.floor(random() * 3)]!;
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 500 ? 'Internal Server Error' : status === 502 ? 'Bad Gateway' : 'Service Unavailable');
        return;
      }
      case 'hang': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          request.socket.destroy();
        }, settings.hangMs);
        timers.add(timer);
        return;
      }
      case 'reset':
        request.socket.destroy();
        return;
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    stats.requests++;
    if (request.method !== 'POST') return void response.writeHead(405, { allow: 'POST' }).end();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBody) return void response.writeHead(413, { 'content-type': 'text/plain', connection: 'close' }).end('Request Entity Too Large');
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
    }
    const batch = Array.isArray(parsed);
    const calls = (batch ? parsed : [parsed]) as JsonRpcCall[];
    stats.calls += calls.length;
    for (const call of calls) {
      const method = typeof call?.method === 'string' ? call.method : '?';
      stats.methods[method] = (stats.methods[method] ?? 0) + 1;
    }
    const faultable = settings.faultMethods == null || calls.some((call) => settings.faultMethods!.includes(call?.method as string));
    if (faultable && settings.failureRate > 0 && random() < settings.failureRate && settings.modes.length > 0) {
      return fail(settings.modes[Math.floor(random() * settings.modes.length)]!, request, response);
    }
    const refusals = await Promise.all(calls.map((call) => refusalFor(call, !batch)));
    if (!batch) {
      const refusal = refusals[0];
      if (refusal) {
        const payload = JSON.stringify({ jsonrpc: '2.0', id: calls[0]!.id ?? null, error: refusal.error });
        return void response.writeHead(refusal.status, { 'content-type': refusal.status === 413 ? 'text/plain' : 'application/json' }).end(refusal.status === 413 ? refusal.error.message : payload);
      }
      const answer = await forward(body);
      return void response.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.text);
    }
    // A batch: forward the calls that pass, answer the refused ones in place.
    const passing = calls.filter((_, i) => refusals[i] === undefined);
    const answers = new Map<unknown, unknown>();
    if (passing.length > 0) {
      const answer = await forward(JSON.stringify(passing));
      if (answer.status !== 200) return void response.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.text);
      for (const item of JSON.parse(answer.text) as { id: unknown }[]) answers.set(item.id, item);
    }
    const merged = calls.map((call, i) => (refusals[i] ? { jsonrpc: '2.0', id: call.id ?? null, error: refusals[i]!.error } : answers.get(call.id)));
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(merged));
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' }).end('Bad Gateway');
      else response.destroy();
    });
  });
  server.maxConnections = 256;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    get stats() {
      return stats;
    },
    configure: (changes) => {
      for (const [key, value] of Object.entries(changes)) if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
    },
    resetStats: () => {
      stats = emptyStats();
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
