/**
 * The OpenAPI document as a working contract (issue 19): a generic runner that knows only
 * GET /api/v1/openapi.json drives a freshly started real server (`node server.mjs`) through every
 * operation's examples in the documented order (`x-example-sequence`) and validates each answer's
 * status and body against the document with Ajv (JSON Schema 2020-12); the document itself is
 * validated against the OpenAPI 3.1 schema. The same runner in front of a deliberately broken
 * server (a proxy that changes one status, one shape and one error code) fails on exactly those
 * steps, so the check can catch drift.
 *
 * Needs a production build (`npm run build`).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../lib/openapi/document.ts';
import { OPERATIONS } from '../../lib/openapi/operations.ts';
import { freePort, startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';
import {
  ContractSchemas,
  failuresOf,
  operationsOf,
  runExampleSequence,
  type ContractDocument,
  type StepResult,
} from '../helpers/openapi-contract.ts';

type Fresh = { server: RunningServer; remove(): void };

/** A fresh server with the default configuration, its registry and IPFS store in a new directory. */
async function freshServer(): Promise<Fresh> {
  const directory = temporaryDirectory('wraith-contract-');
  const server = await startServer({
    env: { REGISTRY_URL: `file:${directory.path}/registry.db`, IPFS_STORE_DIR: `${directory.path}/ipfs`, LOG_LEVEL: 'warn' },
  });
  return { server, remove: directory.remove };
}

type Answer = { status: number; headers: Headers; body: Uint8Array };
type Break = (request: { method: string; path: string }, answer: Answer) => Answer | undefined;

/** An HTTP front for `target` that passes everything through unchanged unless `broken` rewrites the answer. */
async function breakingProxy(target: string, broken: Break): Promise<{ url: string; close(): Promise<void> }> {
  const readBody = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const headers = new Headers();
    for (const name of ['content-type', 'accept']) if (request.headers[name] !== undefined) headers.set(name, String(request.headers[name]));
    const upstream = await fetch(`${target}${request.url}`, { method: request.method!, headers, ...(body.length === 0 ? {} : { body }) });
    const original: Answer = { status: upstream.status, headers: upstream.headers, body: new Uint8Array(await upstream.arrayBuffer()) };
    const answer = broken({ method: request.method!, path: request.url!.split('?')[0]! }, original) ?? original;
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
    response.end(answer.body);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const json = (answer: Answer) => JSON.parse(new TextDecoder().decode(answer.body)) as Record<string, any>;
const withJson = (answer: Answer, status: number, body: unknown): Answer => ({
  status,
  headers: answer.headers,
  body: new TextEncoder().encode(JSON.stringify(body)),
});

/** Steps whose answer is new random keys or a new one-time address on every call. */
const RANDOM_ANSWERS = new Set([
  'openApiDocument.document',
  'generateKeys.newKeys',
  'createStealthPayment.payExampleRecipient',
  'createChannel.toExampleRecipient',
  'discoverChannels.exampleRecipient',
]);
/** Fields set from the clock or a fresh UUID. */
const VOLATILE = new Set(['timestamp', 'uptime_seconds', 'duration_ms', 'rate', 'created_at', 'closed_at', 'discovered_at', 'announced_at', 'tx_id']);
const masked = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(masked)
    : typeof value === 'object' && value !== null
      ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, VOLATILE.has(key) ? '<volatile>' : masked(inner)]))
      : value;

let good: Fresh;
let spare: Fresh;
let document: ContractDocument;
let schemas: ContractSchemas;

describe('the request schemas of the document and of the handlers', () => {
  const local = JSON.parse(JSON.stringify(buildOpenApiDocument())) as ContractDocument;
  const localSchemas = new ContractSchemas(local);
  const localOperations = operationsOf(local);
  /** Fields the handler decodes itself (INVALID_META_ADDRESS / LEGACY_META_ADDRESS): the document states their pattern, zod takes any string. */
  const DECODED_BY_HANDLER = new Set(['meta_address']);

  it.each(OPERATIONS.filter((op) => op.body !== undefined).map((op) => [op.operationId, op] as const))(
    '%s: the document accepts exactly the variations of its example that the handler\'s zod schema accepts',
    (operationId, operation) => {
      const { pointer, operation: documented } = localOperations.get(operationId)!;
      const examples = Object.entries(documented['requestBody'].content['application/json'].examples as Record<string, { value: any }>);
      // Bodies the handler accepted: successes, and 404s of an optional feature a fresh server runs
      // without (the ENS gateway), answered only after the body validated.
      const successful = examples.filter(([name]) => local['x-example-sequence'].some((s) => s.operationId === operationId && s.example === name && (s.status < 300 || s.status === 404)));
      expect(successful.length).toBeGreaterThan(0);
      const disagreements: string[] = [];
      let compared = 0;
      for (const [name, { value }] of successful) {
        for (const [path, variant] of variationsOf(value)) {
          compared++;
          const byZod = operation.body!.safeParse(variant).success;
          const byDocument = localSchemas.check(`${pointer}/requestBody/content/application~1json/schema`, variant).length === 0;
          if (byZod === byDocument) continue;
          if (!byDocument && DECODED_BY_HANDLER.has(path.split('.').pop()!)) continue;
          disagreements.push(`${name} ${path}: zod ${byZod ? 'accepts' : 'refuses'}, the document ${byDocument ? 'accepts' : 'refuses'}`);
        }
      }
      expect(disagreements).toEqual([]);
      expect(compared).toBeGreaterThan(0);
    },
  );
});

/**
 * The example with one string field changed at a time: one hex digit short or long, a non-hex
 * digit, the 0X prefix, the placeholder a generic client sends; and each field's value as given.
 */
function* variationsOf(value: unknown, path = ''): Generator<[string, unknown]> {
  if (path === '') yield ['(as given)', value];
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    const replaced = (next: unknown) => ({ ...(value as object), [key]: next });
    if (typeof inner === 'string') {
      const bare = inner.replace(/^0[xX]/, '');
      for (const next of [inner.slice(0, -1), `${inner}a`, `${inner.slice(0, -1)}g`, `0X${bare}`, '<string>', '']) yield [at, replaced(next)];
    } else if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
      for (const [innerPath, innerVariant] of variationsOf(inner, at)) yield [innerPath, replaced(innerVariant)];
    }
  }
}

const bodyExample = (operationId: string, example: string) =>
  operationsOf(document).get(operationId)!.operation['requestBody'].content['application/json'].examples[example].value;

describe('GET /api/v1/openapi.json as a contract, against fresh real servers', () => {
  beforeAll(async () => {
    // Two fresh servers: the contract run publishes, so the broken run needs its own empty registry.
    [good, spare] = await Promise.all([freshServer(), freshServer()]);
    const response = await fetch(`${good.server.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as ContractDocument;
    schemas = new ContractSchemas(document);
  }, 180_000);

  afterAll(async () => {
    for (const fresh of [good, spare]) {
      if (fresh === undefined) continue;
      await fresh.server.stop();
      fresh.remove();
    }
  });

  it('is the document of this source tree (a stale build would test an old contract)', () => {
    expect(document, 'run npm run build').toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('gives every operation examples, each sent once in the documented order', () => {
    const operations = operationsOf(document);
    const sequence = document['x-example-sequence'];
    expect(new Set(sequence.map((s) => s.operationId))).toEqual(new Set(operations.keys()));
    const steps = sequence.map((s) => `${s.operationId}.${s.example}`);
    expect(new Set(steps).size).toBe(steps.length);
    // Every named example of a request body or parameter is a step: none is shown that the run skips.
    const named = new Set<string>();
    for (const [operationId, { operation }] of operations) {
      const places = [operation['requestBody']?.content['application/json'].examples, ...((operation['parameters'] ?? []) as any[]).map((p) => p.examples)];
      for (const examples of places) for (const name of Object.keys(examples ?? {})) named.add(`${operationId}.${name}`);
    }
    expect([...named].filter((step) => !steps.includes(step))).toEqual([]);
    for (const { operationId, example, status } of sequence) {
      const { operation } = operations.get(operationId)!;
      expect(operation['responses'], `${operationId}.${example}`).toHaveProperty(String(status));
    }
    // The order: generate, create for that meta-address, publish, list, scan with those keys.
    const at = (step: string) => steps.indexOf(step);
    expect(at('generateKeys.newKeys')).toBeLessThan(at('createStealthPayment.payExampleRecipient'));
    expect(at('createStealthPayment.payExampleRecipient')).toBeLessThan(at('publishAnnouncement.examplePayment'));
    expect(at('publishAnnouncement.examplePayment')).toBeLessThan(at('listAnnouncements.byViewTag'));
    expect(at('listAnnouncements.byViewTag')).toBeLessThan(at('scanRegistry.exampleRecipient'));
  });

  it('has request examples of the successful steps and every response example valid against their schemas', () => {
    const operations = operationsOf(document);
    const problems: string[] = [];
    let checked = 0;
    for (const { operationId, example, status } of document['x-example-sequence']) {
      const { operation, pointer } = operations.get(operationId)!;
      if (status < 300) {
        const body = operation['requestBody']?.content['application/json'].examples?.[example];
        if (body !== undefined) {
          checked++;
          problems.push(...schemas.check(`${pointer}/requestBody/content/application~1json/schema`, body.value).map((p) => `${operationId}.${example} request ${p}`));
        }
        for (const [index, parameter] of ((operation['parameters'] ?? []) as any[]).entries()) {
          const value = parameter.examples?.[example]?.value;
          if (value === undefined) continue;
          checked++;
          problems.push(...schemas.check(`${pointer}/parameters/${index}/schema`, value).map((p) => `${operationId}.${example} ${parameter.name} ${p}`));
        }
      }
      const media = operation['responses'][String(status)].content['application/json'];
      const shown = media?.examples?.[example];
      if (shown !== undefined) {
        checked++;
        problems.push(
          ...schemas.check(`${pointer}/responses/${status}/content/application~1json/schema`, shown.value).map((p) => `${operationId}.${example} response ${p}`),
        );
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(30);
  });

  it('states exact lengths of hex fields, so a client cannot send a placeholder as a meta-address', () => {
    const patternOf = (property: { pattern?: string; anyOf?: { pattern?: string }[] }) => property.pattern ?? property.anyOf?.find((option) => option.pattern !== undefined)?.pattern;
    const components = document.components as Record<string, any>;
    const patterns = {
      // Optional since scheme 3 (a scan may carry tracking_key and meta_address instead): the pattern
      // sits beside null in anyOf.
      'ScanRequest.viewing_sk': patternOf(components.schemas.ScanRequest.properties.viewing_sk),
      'ScanRequest.spending_pk': patternOf(components.schemas.ScanRequest.properties.spending_pk),
      'PublishAnnouncementRequest.ephemeral_key': components.schemas.PublishAnnouncementRequest.properties.ephemeral_key.pattern,
      'KeyBundle.meta_address': components.schemas.KeyBundle.properties.meta_address.pattern,
      'Announcement.ephemeral_key': components.schemas.ListAnnouncementsResponse.properties.announcements.items.properties.ephemeral_key.pattern,
    };
    expect(patterns).toEqual({
      'ScanRequest.viewing_sk': '^(0[xX])?[0-9a-fA-F]{4800}$',
      'ScanRequest.spending_pk': '^(0[xX])?[0-9a-fA-F]{66}$',
      // 1088 bytes (scheme 1000) or 1121 (scheme 3: epk || ct).
      'PublishAnnouncementRequest.ephemeral_key': '^(0[xX])?([0-9a-fA-F]{2176}|[0-9a-fA-F]{2242})$',
      'KeyBundle.meta_address': '^[0-9a-f]{2436}$',
      'Announcement.ephemeral_key': '^([0-9a-f]{2176}|[0-9a-f]{2242})$',
    });
    const create = `${operationsOf(document).get('createStealthPayment')!.pointer}/requestBody/content/application~1json/schema`;
    // What a generic client sends when a document has no example and no pattern (issue 19).
    expect(schemas.check(create, { meta_address: '<string>' })).not.toEqual([]);
    expect(schemas.check(create, bodyExample('createStealthPayment', 'payExampleRecipient'))).toEqual([]);
  });

  it('is kept by a fresh real server: every example answers its documented status and schema, in order', async () => {
    const results = await runExampleSequence(good.server.url, document, schemas);
    expect(failuresOf(results)).toEqual([]);
    expect(results).toHaveLength(document['x-example-sequence'].length);
    const result = (step: string) => results.find((r) => r.step === step)! as StepResult & { body: any };

    // The examples chain: what publish stored is what list, stats and scan then find with the example keys.
    const published = bodyExample('publishAnnouncement', 'examplePayment');
    expect(result('publishAnnouncement.examplePayment').body).toEqual({ id: 1, success: true });
    expect(result('listAnnouncements.byViewTag').body.announcements.map((a: any) => a.tx_hash)).toEqual([published.tx_hash]);
    expect(result('registryStats.counts').body.total_announcements).toBe(1);
    const scan = result('scanRegistry.exampleRecipient').body;
    expect(scan.discoveries).toHaveLength(1);
    expect(scan.discoveries[0]).toMatchObject({ tx_hash: published.tx_hash, note_status: 'opened', note: { amount: '1000000000000000', chain_id: '1' } });
    // The one-time address create showed for this ciphertext is the one the scan derives.
    const created = (document.paths['/api/v1/stealth/create']!['post']!['responses']['200'].content['application/json'].examples.payExampleRecipient.value) as any;
    expect(created.ephemeral_ciphertext).toBe(published.ephemeral_key);
    expect(scan.discoveries[0].stealth_address).toBe(created.stealth_address);

    const meta = bodyExample('uploadMetaAddress', 'exampleMetaAddress').meta_address as string;
    const downloaded = result('downloadCid.exampleMetaAddress').body as Uint8Array;
    expect(Buffer.from(downloaded).toString('hex')).toBe(meta);

    const channelId = bodyExample('createChannel', 'toExampleRecipient').channel_id;
    expect(result('discoverChannels.exampleRecipient').body.channels.map((c: any) => c.channel_id)).toEqual([channelId]);
    expect(result('channelStatus.exampleChannel').body).toMatchObject({ channel_id: channelId, status: 'open', amount: '25' });
    expect(result('fundChannel.afterClose').body.error.code).toBe('CHANNEL_CLOSED');
    expect(result('publishAnnouncement.sameTransactionAgain').body.error.code).toBe('DUPLICATE_ANNOUNCEMENT');

    // The response examples are what the server answers, but for clocks, ids it makes up and fresh randomness.
    const operations = operationsOf(document);
    const differing: string[] = [];
    for (const r of results) {
      if (RANDOM_ANSWERS.has(r.step) || r.body instanceof Uint8Array) continue;
      const [operationId, example] = r.step.split('.') as [string, string];
      const shown = operations.get(operationId)!.operation['responses'][String(r.status)].content['application/json'].examples?.[example]?.value;
      if (JSON.stringify(masked(r.body)) !== JSON.stringify(masked(shown))) differing.push(r.step);
    }
    expect(differing).toEqual([]);
  }, 120_000);

  it('catches a server that drifts: a changed status, shape or error code fails exactly those steps', async () => {
    const proxy = await breakingProxy(spare.server.url, ({ method, path }, answer) => {
      if (method === 'POST' && path === '/api/v1/registry/announcements' && answer.status === 201) return withJson(answer, 200, json(answer)); // status
      if (method === 'GET' && path === '/api/v1/registry/stats') {
        const { view_tag_distribution: _dropped, ...rest } = json(answer); // shape: a required field missing
        return withJson(answer, answer.status, rest);
      }
      if (method === 'POST' && path === '/api/v1/yellow/channel/fund' && answer.status === 409) {
        const body = json(answer);
        return withJson(answer, 409, { error: { ...body['error'], code: 'CONFLICT' } }); // an undocumented error code
      }
      return undefined;
    });
    try {
      const results = await runExampleSequence(proxy.url, document, schemas);
      const failed = results.filter((r) => r.problems.length > 0);
      expect(failed.map((r) => r.step)).toEqual(['publishAnnouncement.examplePayment', 'registryStats.counts', 'fundChannel.afterClose']);
      expect(failed[0]!.problems.join('\n')).toMatch(/answered 200, the document's example expects 201[\s\S]*status 200 is not a documented response/);
      expect(failed[1]!.problems.join('\n')).toContain("must have required property 'view_tag_distribution'");
      expect(failed[2]!.problems.join('\n')).toMatch(/\/error\/code must be equal to one of the allowed values/);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
