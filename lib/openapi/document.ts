/**
 * The OpenAPI 3.1 document of the API (GET /api/v1/openapi.json), generated from the operation
 * registry (operations.ts) with zod 4's `z.toJSONSchema`.
 *
 * OpenAPI 3.1 schemas are JSON Schema 2020-12, zod's default target. Request schemas are
 * converted in `input` mode (what a client may send: hex with an optional 0x prefix, query
 * values as strings) and responses in `output` mode (what the server answers). Every named
 * request and response schema becomes a component, named by its `.describe()` text (the
 * lib/schemas convention: `PublishAnnouncementRequest`, `ScanResponse`...), and operations
 * refer to it. Hex fields carry their exact pattern (one regex per byte length, lib/schemas/fields.ts);
 * the few rules JSON Schema cannot state ("not all zero", a note's view tag equal to view_tag)
 * are in the field descriptions.
 *
 * Examples (examples.ts) go where OpenAPI 3.1 puts them: named Example Objects on parameters,
 * request bodies and responses, one name per exchange, and `x-example-sequence` gives the order
 * in which they succeed against a fresh server with the status of each. Error responses are the
 * Error component with `error.code` narrowed to that status's codes.
 */
import { z } from 'zod';
import packageJson from '../../package.json';
import { errorResponse } from '../schemas/error.ts';
import { EXAMPLE_SEQUENCE, EXAMPLES, type ExampleCase } from './examples.ts';
import { OPERATIONS, type ErrorCase, type Operation } from './operations.ts';

type JsonObject = Record<string, unknown>;

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  tags: { name: string }[];
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject>; securitySchemes: Record<string, JsonObject> };
  /** The order to send the examples in against a fresh server, with the status each gets (examples.ts). */
  'x-example-sequence': { operationId: string; example: string; status: number }[];
};

const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Build the document. Pure: the same registry always gives the same document. */
export function buildOpenApiDocument(
  operations: readonly Operation[] = OPERATIONS,
  examples: Readonly<Record<string, readonly ExampleCase[]>> = EXAMPLES,
): OpenApiDocument {
  const requests = new Components('input');
  const responses = new Components('output');
  const errorName = responses.add(errorResponse, 'Error');
  const paths: OpenApiDocument['paths'] = {};
  for (const operation of operations) {
    const cases = examples[operation.operationId] ?? [];
    const item: JsonObject = {
      operationId: operation.operationId,
      tags: [operation.tag],
      summary: operation.summary,
      ...(operation.description === undefined ? {} : { description: operation.description }),
    };
    const parameters = [
      ...(operation.pathParameters ?? []).map((p) => ({
        name: p.name,
        in: 'path',
        required: true,
        description: p.description,
        schema: inlineSchema(p.schema, 'input'),
        ...examplesOf(cases, (c) => c.path?.[p.name]),
      })),
      ...queryParameters(operation, cases),
    ];
    if (parameters.length > 0) item['parameters'] = parameters;
    if (operation.body !== undefined) {
      const name = requests.add(operation.body, `${capitalise(operation.operationId)}Request`);
      item['requestBody'] = { required: true, content: { 'application/json': { schema: ref(name), ...examplesOf(cases, (c) => c.body) } } };
    }
    item['responses'] = responsesOf(operation, responses, errorName, cases);
    if (operation.write === true) {
      // Optional: only when the server sets API_KEY. `{}` means "no credentials" is also fine.
      item['security'] = [{}, { apiKey: [] }, { bearerKey: [] }];
    }
    if (operation.secret === true) item['x-secret-keys'] = true;
    (paths[operation.path] ??= {})[operation.method] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Wraith API',
      version: packageJson.version,
      description:
        'Post-quantum stealth payments: keys, one-time addresses, the announcement registry, name resolution, IPFS and private channels. ' +
        'Every error is JSON `{ "error": { "code", "message", "details"? } }` and never quotes request values. ' +
        'Requests are rate limited per client (429 with Retry-After). Hex input accepts an optional 0x prefix in either case; hex output is lowercase without it. ' +
        'Examples: every operation has named request and response examples for one public example recipient (keys from fixed seeds: never send funds to it). ' +
        'Sent in the order of `x-example-sequence` to a freshly started server with the default configuration, each example answers the status listed there ' +
        '(generate, create for the example meta-address, publish that payment, list, stats, scan with its keys, IPFS, names, channels).',
    },
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...requests.schemas(), ...responses.schemas() },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Needed for writes when the server sets API_KEY' },
        bearerKey: { type: 'http', scheme: 'bearer', description: 'The same key as Authorization: Bearer <key>' },
      },
    },
    'x-example-sequence': exampleSequence(operations, examples),
  };
}

/**
 * The named examples (OpenAPI 3.1 Example Objects) of the cases that have a value for this
 * place, in the cases' order, so the first (a request that succeeds) is what "Try it out" fills in.
 */
function examplesOf(cases: readonly ExampleCase[], valueOf: (c: ExampleCase) => unknown): { examples?: Record<string, { summary: string; value: unknown }> } {
  const entries = cases.flatMap((c) => {
    const value = valueOf(c);
    return value === undefined ? [] : [[c.name, { summary: c.summary, value }] as const];
  });
  return entries.length === 0 ? {} : { examples: Object.fromEntries(entries) };
}

/** EXAMPLE_SEQUENCE restricted to the documented operations, each step with the status it expects. */
function exampleSequence(operations: readonly Operation[], examples: Readonly<Record<string, readonly ExampleCase[]>>): OpenApiDocument['x-example-sequence'] {
  const documented = new Set(operations.map((o) => o.operationId));
  return EXAMPLE_SEQUENCE.flatMap(({ operationId, example }) => {
    if (!documented.has(operationId)) return [];
    const found = examples[operationId]?.find((c) => c.name === example);
    if (found === undefined) throw new Error(`x-example-sequence names ${operationId}.${example}, which is not an example of that operation.`);
    return [{ operationId, example, status: found.status }];
  });
}

/** Named schemas of one direction, converted together so shared parts become references. */
class Components {
  readonly #io: 'input' | 'output';
  readonly #registry = z.registry<{ id: string }>();
  readonly #names = new Map<z.ZodType, string>();

  constructor(io: 'input' | 'output') {
    this.#io = io;
  }

  /** Register `schema` (once) and return its component name: its description, or `fallback`. */
  add(schema: z.ZodType, fallback: string): string {
    const known = this.#names.get(schema);
    if (known !== undefined) return known;
    const described = schema.description;
    const name = described !== undefined && COMPONENT_NAME.test(described) ? described : fallback;
    if ([...this.#names.values()].includes(name)) throw new Error(`Two different schemas are both named ${name}.`);
    this.#registry.add(schema, { id: name });
    this.#names.set(schema, name);
    return name;
  }

  schemas(): Record<string, JsonObject> {
    if (this.#names.size === 0) return {};
    const { schemas } = z.toJSONSchema(this.#registry, {
      io: this.#io,
      unrepresentable: 'any',
      uri: (id) => `#/components/schemas/${id}`,
    }) as { schemas: Record<string, JsonObject> };
    return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, withoutDialect(schema)]));
  }
}

function inlineSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  return withoutDialect(z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonObject);
}

/** `$schema` and `$id` belong to standalone documents, not to schemas inside OpenAPI. */
function withoutDialect(schema: JsonObject): JsonObject {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

function queryParameters(operation: Operation, cases: readonly ExampleCase[]): JsonObject[] {
  if (operation.query === undefined) return [];
  return Object.entries(operation.query.shape).map(([name, field]) => {
    const schema = field as z.ZodType;
    return {
      name,
      in: 'query',
      required: !schema.safeParse(undefined).success,
      ...(schema.description === undefined ? {} : { description: schema.description }),
      schema: inlineSchema(schema, 'input'),
      ...examplesOf(cases, (c) => c.query?.[name]),
    };
  });
}

function responsesOf(operation: Operation, components: Components, errorName: string, cases: readonly ExampleCase[]): JsonObject {
  const out: Record<string, { description: string; content?: JsonObject; headers?: JsonObject }> = {};
  for (const response of operation.responses) {
    const entry = (out[String(response.status)] ??= { description: response.description, content: {} });
    if (entry.description !== response.description) entry.description = `${entry.description}; or ${response.description}`;
    const content = entry.content as JsonObject;
    if ('schema' in response) {
      content['application/json'] = { schema: ref(components.add(response.schema, `${capitalise(operation.operationId)}Response`)) };
    } else if ('mediaType' in response) {
      content[response.mediaType] = { schema: { type: 'string', contentMediaType: response.mediaType } };
    } else {
      content['application/json'] = { schema: { type: 'object', description: 'An OpenAPI 3.1 document' } };
    }
  }
  for (const { status, codes } of errorCasesOf(operation)) {
    const description = `Error: ${codes.join(', ')}`;
    const existing = out[String(status)];
    if (existing !== undefined) {
      existing.description = `${existing.description}; or ${description}`;
      continue;
    }
    out[String(status)] = {
      description,
      // The Error component, narrowed to this status's codes: a client (and the contract test)
      // can tell a documented error from drift. `$ref` with siblings is valid in OpenAPI 3.1.
      content: { 'application/json': { schema: { ...ref(errorName), properties: { error: { properties: { code: { enum: codes } } } } } } },
      ...(status === 429 || status === 503
        ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } } }
        : {}),
    };
  }
  for (const c of cases) {
    const content = out[String(c.status)]?.content as Record<string, JsonObject> | undefined;
    if (content === undefined) throw new Error(`Example ${operation.operationId}.${c.name}: ${c.status} is not a documented response.`);
    if (c.response === undefined) continue;
    const media = content['application/json'];
    if (media === undefined) throw new Error(`Example ${operation.operationId}.${c.name}: ${c.status} is not a JSON response.`);
    const named = ((media['examples'] as JsonObject | undefined) ??= {});
    named[c.name] = { summary: c.summary, value: c.response };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)));
}

/** The operation's own error cases plus those every request can meet, merged by status. */
export function errorCasesOf(operation: Operation): ErrorCase[] {
  const validates = operation.body !== undefined || operation.query !== undefined || operation.pathParameters !== undefined;
  const all: ErrorCase[] = [
    ...(validates ? [{ status: 400, codes: operation.body === undefined ? ['VALIDATION_ERROR'] : ['VALIDATION_ERROR', 'INVALID_JSON'] }] : []),
    ...(operation.write === true ? [{ status: 401, codes: ['UNAUTHORIZED'] }] : []),
    ...operation.errors,
    { status: 429, codes: ['RATE_LIMITED'] },
    { status: 500, codes: ['INTERNAL_ERROR'] },
  ];
  const merged = new Map<number, Set<string>>();
  for (const { status, codes } of all) {
    const set = merged.get(status) ?? new Set<string>();
    for (const code of codes) set.add(code);
    merged.set(status, set);
  }
  return [...merged].sort(([a], [b]) => a - b).map(([status, codes]) => ({ status, codes: [...codes] }));
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

let cached: OpenApiDocument | undefined;

/** The document of this build, generated once per process. */
export function openApiDocument(): OpenApiDocument {
  cached ??= buildOpenApiDocument();
  return cached;
}
