/**
 * Property-based fuzzing of the running server (fast-check): 10,000 generated requests across
 * every endpoint of the OpenAPI registry, plus unknown paths and methods, against `node
 * server.mjs` with the embedded SQLite registry and the rate limit off. Requests start from
 * valid bodies and mutate them (fields dropped, nulled, retyped, replaced by random JSON or
 * garbage; wrong content types; hostile headers), so they reach the handlers as well as the
 * validators. Name services and pinning point at a closed loopback port: those calls fail fast
 * (502) and no traffic leaves the machine.
 *
 * What must hold for every request: no 500 and no crash; every API answer is JSON (or the
 * documented bytes/HTML); a 2xx JSON answer matches the documented response schema; secrets
 * sent (keys, API keys) never come back in any answer or in the log; an error answer never
 * quotes a value from the request; and the server's resident memory stays bounded.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, createStealthPayment, generateKeys } from '../../sdk/src/index.ts';
import { OPERATIONS, type Operation } from '../../lib/openapi/operations.ts';
import { freePort, http, logLines, startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';

const REQUESTS = Number(process.env['FUZZ_REQUESTS'] ?? 10_000);
const BATCH = 25; // requests in flight together
/**
 * Resident memory may grow this much after the first 1,000 requests (caches filling, JIT code,
 * allocator slack). Measured: about 10 MB over 20,000 requests; a leak of 5 KB per request would
 * not fit, and with the old generation capped (below) a larger one would crash the server.
 */
const RSS_GROWTH_LIMIT_MB = 48;

/** V8 old-space cap of the fuzzed server. */
const HEAP_LIMIT_MB = 160;

const directory = temporaryDirectory('wraith-fuzz-');
let server: RunningServer;
beforeAll(async () => {
  const closedPort = await freePort(); // nothing listens: upstream calls fail at once
  server = await startServer({
    env: {
      REGISTRY_URL: `file:${join(directory.path, 'registry.db')}`,
      RATE_LIMIT_RPS: '0',
      LOG_LEVEL: 'info',
      ETH_RPC_URL: `http://127.0.0.1:${closedPort}`,
      SUI_RPC_URL: `http://127.0.0.1:${closedPort}`,
      IPFS_STORE_DIR: join(directory.path, 'ipfs'),
      UPSTREAM_TIMEOUT_MS: '2000',
      // A small old generation: a leak cannot hide behind a growing heap, it ends in a crash.
      NODE_OPTIONS: `--max-old-space-size=${HEAP_LIMIT_MB}`,
    },
  });
});
afterAll(async () => {
  await server?.stop('SIGKILL');
  directory.remove();
});

// ---- Inputs -------------------------------------------------------------------------------

const recipient = generateKeys();
const hex = (bytes: Uint8Array) => bytesToHex(bytes);
const META = hex(recipient.metaAddress);
const payments = Array.from({ length: 8 }, () => createStealthPayment(recipient.metaAddress));

/** The secret part of the recipient's real viewing key (the first 32 bytes of dk_pke), the one key that passes validation. */
const RECIPIENT_DK_PKE = hex(recipient.viewingSecretKey.subarray(0, 32));

/** A secret the client sends: 32 random bytes as hex. It must never come back. */
const secretHex = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hex);
/** A value long and random enough that finding it in an error answer means it was echoed. */
const echoable = fc.string({ minLength: 12, maxLength: 40, unit: fc.constantFrom(...'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ') });
const hexOf = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map(hex);

type Generated = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Values that must appear in no answer and no log line. */
  secrets: string[];
  /** Values an error answer must not quote. */
  echoes: string[];
};

/**
 * A field value: mostly a good one (so that whole requests are often valid and reach the
 * handlers), otherwise missing, null, the wrong type or random text.
 */
function field<T>(good: fc.Arbitrary<T>, extra: fc.Arbitrary<unknown>[] = []): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 24, arbitrary: good },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 1, arbitrary: echoable },
    ...extra.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
}

const viewTag = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.integer({ min: -5, max: 300 }), fc.constant('7'), fc.double());
const txHash = fc.oneof(fc.constantFrom('0xd0d0', '0xD0D0 ', 'dup'), fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${hex(b)}`), echoable, fc.string({ maxLength: 300 }));
const decimalAmount = fc.oneof(fc.constantFrom('1', '12.5', '0.000001', '0', '-1', '1e3', '１'), fc.nat().map(String), echoable);

/** Body templates per operation: each field valid or mutated. Secret fields carry a tracked secret. */
const bodies: Record<string, fc.Arbitrary<{ body: Record<string, unknown>; secrets: string[] }>> = {
  generateKeys: fc.constant({ body: {}, secrets: [] }),
  createStealthPayment: fc.record({ meta_address: field(fc.constantFrom(META, `0x${META.toUpperCase()}`, `st:eth:0x${META}`, META.slice(2))), channel_id: field(hexOf(32)) }).map((body) => ({ body, secrets: [] })),
  scanRegistry: fc
    .record({
      secret: secretHex,
      viewingKnown: fc.boolean(),
      withSpending: fc.boolean(),
      // A narrowing keeps each scan to a handful of decapsulations; rarely none at all.
      narrowing: fc.oneof(
        { weight: 30, arbitrary: fc.record({ view_tags: fc.array(viewTag, { minLength: 1, maxLength: 4 }) }) },
        { weight: 10, arbitrary: fc.record({ from_timestamp: field(fc.constant(0)), to_timestamp: field(fc.constant(1000)) }) },
        { weight: 1, arbitrary: fc.constant({}) },
      ),
      spending_pk: field(fc.constant(hex(recipient.spendingPublicKey))),
    })
    .map(({ secret, viewingKnown, withSpending, narrowing, spending_pk }) => {
      // An unknown viewing key: the tracked secret, padded to the key's 2400 bytes.
      const viewing = viewingKnown ? hex(recipient.viewingSecretKey) : secret + '00'.repeat(2400 - 32);
      return {
        body: { viewing_sk: viewing, spending_pk, ...(withSpending ? { spending_sk: secret } : {}), ...narrowing },
        secrets: viewingKnown ? [secret, RECIPIENT_DK_PKE] : [secret],
      };
    }),
  publishAnnouncement: fc
    .record({
      ephemeral_key: field(fc.constantFrom(...payments.map((p) => hex(p.ephemeralCiphertext))), [hexOf(1088), fc.constant('00'.repeat(1088))]),
      view_tag: field(viewTag),
      tx_hash: field(txHash),
      channel_id: field(hexOf(32)),
      amount: field(fc.string({ maxLength: 70 })),
      chain: field(fc.constantFrom('ethereum', 'sui')),
    })
    .map((body) => ({ body, secrets: [] })),
  uploadMetaAddress: fc.record({ meta_address: field(fc.constantFrom(META, `st:sui:0x${META}`)), name: field(fc.string({ maxLength: 120 })) }).map((body) => ({ body, secrets: [] })),
  createChannel: fc
    .record({
      recipient: field(fc.constantFrom(META, `st:eth:0x${META}`, 'alice.eth', 'bob.sui', 'not a name')),
      token: field(fc.constantFrom('USDC', 'usdc', 'ETH', 'DOGE')),
      amount: field(decimalAmount),
      channel_id: field(hexOf(32)),
    })
    .map((body) => ({ body, secrets: [] })),
  discoverChannels: fc
    .record({ secret: secretHex, viewingKnown: fc.integer({ min: 0, max: 9 }) })
    .map(({ secret, viewingKnown }) => ({
      body: {
        viewing_sk: viewingKnown === 0 ? hex(recipient.viewingSecretKey) : secret + '11'.repeat(2400 - 32),
        spending_pk: hex(recipient.spendingPublicKey),
        spending_sk: secret,
      },
      secrets: viewingKnown === 0 ? [secret, RECIPIENT_DK_PKE] : [secret],
    })),
  fundChannel: fc.record({ channel_id: field(hexOf(32)), amount: field(decimalAmount) }).map((body) => ({ body, secrets: [] })),
  closeChannel: fc.record({ channel_id: field(hexOf(32)) }).map((body) => ({ body, secrets: [] })),
};

const pathValues: Record<string, fc.Arbitrary<string>> = {
  name: fc.oneof(fc.constantFrom('alice.eth', 'bob.sui', 'ALICE.ETH', 'x.eth', '.eth', '💸.eth'), fc.webSegment(), echoable.map((s) => `${s}.eth`)),
  cid: fc.oneof(fc.constantFrom('bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy', 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG'), fc.webSegment(), echoable),
  id: fc.oneof(hexOf(32), fc.webSegment(), echoable),
};

const queryValue = fc.oneof(fc.nat({ max: 2000 }).map(String), fc.constantFrom('0', '-1', '1e3', '', '99999999999999999', '0x10', ' 5'), echoable, fc.string({ maxLength: 20 }));
const queryOf = (op: Operation) => {
  const known = op.query === undefined ? [] : Object.keys(op.query.shape);
  return fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...(known.length > 0 ? known : ['limit'])), fc.constantFrom('unknown', 'after_id', 'limit')), queryValue), { maxLength: 4 })
    .map((pairs) => pairs);
};

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '') },
);

const extraHeaders = fc.record(
  {
    apiKey: secretHex,
    bearer: secretHex,
    requestId: fc.oneof(fc.uuid(), echoable, fc.string({ maxLength: 300, unit: 'grapheme-ascii' })),
    accept: fc.constantFrom('application/json', 'application/octet-stream', '*/*', 'text/html'),
    forwarded: fc.ipV4(),
  },
  { requiredKeys: [] },
);

function withQuery(path: string, pairs: [string, string][]): string {
  if (pairs.length === 0) return path;
  return `${path}?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
}

/** One request to a documented operation (valid or mutated). */
const operationRequest: fc.Arbitrary<Generated> = fc.constantFrom(...OPERATIONS).chain((op) =>
  fc
    .record({
      pathParams: fc.record(Object.fromEntries((op.pathParameters ?? []).map((p) => [p.name, pathValues[p.name] ?? fc.webSegment()]))),
      query: queryOf(op),
      body: op.body === undefined ? fc.constant(undefined) : (bodies[op.operationId] ?? fc.constant({ body: {}, secrets: [] })),
      rawBody: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 200 }), echoable.map((s) => `{"${s}":`)) }),
      contentType,
      headers: extraHeaders,
      method: fc.oneof({ weight: 12, arbitrary: fc.constant(op.method.toUpperCase()) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') }),
    })
    .map(({ pathParams, query, body, rawBody, contentType: type, headers, method }) => {
      let path = op.path;
      const echoes: string[] = [];
      for (const [name, value] of Object.entries(pathParams)) {
        path = path.replace(`{${name}}`, encodeURIComponent(value as string));
        echoes.push(value as string);
      }
      const secrets = [...(body?.secrets ?? [])];
      const sent: Record<string, string> = {};
      if (type !== '') sent['content-type'] = type;
      if (headers.apiKey !== undefined) sent['x-api-key'] = headers.apiKey;
      if (headers.bearer !== undefined) sent['authorization'] = `Bearer ${headers.bearer}`;
      if (headers.requestId !== undefined) sent['x-request-id'] = headers.requestId;
      if (headers.accept !== undefined) sent['accept'] = headers.accept;
      if (headers.forwarded !== undefined) sent['x-forwarded-for'] = headers.forwarded;
      for (const secret of [headers.apiKey, headers.bearer]) if (secret !== undefined) secrets.push(secret);
      for (const [, value] of query) echoes.push(value);
      const text = rawBody ?? (body === undefined ? undefined : JSON.stringify(body.body));
      if (body !== undefined) collectStrings(body.body, echoes);
      if (rawBody !== undefined) echoes.push(rawBody);
      const allowsBody = method !== 'GET' && method !== 'HEAD';
      return { method, path: withQuery(path, query), headers: sent, body: allowsBody ? text : undefined, secrets, echoes };
    }),
);

/** Paths the API does not have, under /api/v1 and around it. */
const strayRequest: fc.Arbitrary<Generated> = fc
  .record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
    path: fc.oneof(
      fc.webPath().map((p) => `/api/v1${p.startsWith('/') ? p : `/${p}`}`),
      fc.constantFrom('/api/v1', '/api/v1/', '/api/v1/registry', '/api/v1/%zz', '/health/x', '/api/v1/openapi.json/x', '/api-docs'),
      echoable.map((s) => `/api/v1/${s}`),
    ),
    body: fc.option(fc.json(), { nil: undefined }),
  })
  .map(({ method, path, body }) => ({
    method,
    path,
    headers: { 'content-type': 'application/json' },
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
    secrets: [],
    echoes: [],
  }));

const generatedRequest = fc.oneof({ weight: 9, arbitrary: operationRequest }, { weight: 1, arbitrary: strayRequest });

function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) collectStrings(item, out);
}

// ---- Checks -------------------------------------------------------------------------------

type Answer = { status: number; contentType: string; text: string; json: any };

async function send(request: Generated): Promise<Answer> {
  const response = await fetch(`${server.url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, json };
}

/** The documented operation a request addresses, if any. */
function operationFor(request: Generated): Operation | undefined {
  const pathname = request.path.split('?')[0]!;
  const method = request.method === 'HEAD' ? 'get' : request.method.toLowerCase();
  return OPERATIONS.find((op) => op.method === method && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname));
}

/** Why an answer breaks a rule, or undefined when it keeps all of them. */
function violation(request: Generated, answer: Answer): string | undefined {
  if (answer.status >= 500 && answer.status !== 502 && answer.status !== 503 && answer.status !== 504) return `status ${answer.status}`;
  const pathname = request.path.split('?')[0]!;
  const isApi = pathname === '/health' || pathname.startsWith('/api/');
  const binary = answer.contentType.startsWith('application/octet-stream');
  if (isApi && request.method !== 'HEAD' && answer.status !== 204 && answer.status !== 304 && !binary && !answer.contentType.startsWith('application/json')) {
    return `content-type ${answer.contentType} for an API answer`;
  }
  const lower = answer.text.toLowerCase();
  for (const secret of request.secrets) if (lower.includes(secret.toLowerCase())) return 'a secret came back';
  if (answer.status >= 400) {
    if (isApi && request.method !== 'HEAD' && typeof answer.json?.error?.code !== 'string') return 'error answer without { error: { code } }';
    for (const value of request.echoes) if (value.length >= 12 && answer.text.includes(value)) return 'an error answer quotes a request value';
  }
  const operation = operationFor(request);
  if (operation !== undefined && answer.status < 300 && answer.contentType.startsWith('application/json') && request.method !== 'HEAD') {
    const documented = operation.responses.find((r) => r.status === answer.status && 'schema' in r);
    if (documented === undefined || !('schema' in documented)) {
      if (!operation.responses.some((r) => r.status === answer.status)) return `undocumented status ${answer.status}`;
    } else {
      const parsed = documented.schema.safeParse(answer.json);
      if (!parsed.success) return `answer does not match ${operation.operationId} ${answer.status}: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`;
    }
  }
  return undefined;
}

/** The tracked secrets that occur in `text`, found through its hex runs (one pass, not one per secret). */
function secretsIn(text: string, secrets: Set<string>): string[] {
  const found: string[] = [];
  for (const [run] of text.toLowerCase().matchAll(/[0-9a-f]{64,}/g)) {
    for (let i = 0; i + 64 <= run.length; i++) if (secrets.has(run.slice(i, i + 64))) found.push(run.slice(i, i + 64));
  }
  return found;
}

function rssMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

describe('the API reference on the running server', () => {
  it('serves /api-docs as script-free HTML under the strict page CSP, and the document it renders as JSON', async () => {
    const page = await http(server, '/api-docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.text).not.toMatch(/<script/i);
    for (const operation of OPERATIONS) expect(page.text).toContain(`<code>${operation.path}</code>`);
    const document = await http(server, '/api/v1/openapi.json');
    expect(document.status).toBe(200);
    expect(document.json.openapi).toBe('3.1.0');
    expect(Object.keys(document.json.paths)).toEqual([...new Set(OPERATIONS.map((op) => op.path))]);
  });
});

describe('fuzzing the running server', () => {
  it(`answers ${REQUESTS} generated requests across every endpoint without a 500, a crash, an echoed secret or growing memory`, async () => {
    let sent = 0;
    let rssAfterWarmUp = 0;
    const statuses = new Map<number, number>();
    const secrets: string[] = [];
    const rssTrace: number[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(generatedRequest, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const answers = await Promise.all(batch.map(send));
        sent += batch.length;
        if (sent === 1_000) rssAfterWarmUp = rssMegabytes(server.child.pid!);
        if (sent % 1_000 === 0) rssTrace.push(Math.round(rssMegabytes(server.child.pid!)));
        batch.forEach((request, i) => {
          const answer = answers[i]!;
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          secrets.push(...request.secrets);
          const problem = violation(request, answer);
          if (problem !== undefined) {
            throw new Error(`${problem}\nrequest: ${request.method} ${request.path}\nheaders: ${JSON.stringify(request.headers)}\nbody: ${request.body?.slice(0, 500)}\nanswer ${answer.status}: ${answer.text.slice(0, 500)}`);
          }
        });
      }),
      { numRuns: REQUESTS / BATCH, endOnFailure: true },
    );
    const rssAtEnd = rssMegabytes(server.child.pid!);
    expect(sent).toBe(REQUESTS);
    expect(server.child.exitCode).toBeNull();
    expect((await http(server, '/health')).status).toBe(200);
    expect(statuses.get(500) ?? 0).toBe(0);
    // The mix reached past validation: successes, refusals and failed upstream calls all occurred.
    for (const status of [200, 201, 400, 404, 409]) expect(statuses.get(status) ?? 0, `status ${status}`).toBeGreaterThan(0);
    const lines = logLines(server);
    expect(lines.filter((line) => line['status'] === 500 || line['msg'] === 'unhandled error in request handler')).toEqual([]);
    expect(lines.filter((line) => line['msg'] === 'request').length).toBeGreaterThanOrEqual(REQUESTS * 0.9);
    expect(secretsIn(server.log(), new Set(secrets.map((s) => s.toLowerCase())))).toEqual([]);
    expect(rssAtEnd - rssAfterWarmUp, `RSS ${rssAfterWarmUp.toFixed(0)} MB after warm-up, ${rssAtEnd.toFixed(0)} MB at the end`).toBeLessThan(RSS_GROWTH_LIMIT_MB);
    console.log(`fuzz: ${sent} requests; statuses ${JSON.stringify(Object.fromEntries(statuses))}; RSS per 1000 requests (MB): ${rssTrace.join(' ')}`);
  }, 300_000);
});
