/**
 * A generic OpenAPI runner, the way a collection runner uses the document: it knows nothing of
 * this API but what GET /api/v1/openapi.json says. For each step of `x-example-sequence` it
 * builds the request from the operation's examples (path and query parameter examples, request
 * body example of that name), sends it, and checks the answer against the document: the status
 * the step names must be a documented response of the operation, the content type must be one
 * the response documents, and a JSON body must validate against that response's schema
 * (JSON Schema 2020-12, Ajv). Each problem is reported, not thrown, so a test can assert both
 * that the real server passes and that a broken one fails on exactly the broken step.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type JsonObject = Record<string, any>;

export type ContractDocument = JsonObject & {
  paths: Record<string, Record<string, JsonObject>>;
  'x-example-sequence': { operationId: string; example: string; status: number }[];
};

export type ContractOperation = { method: string; path: string; pointer: string; operation: JsonObject };

export type StepResult = {
  step: string;
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  body: unknown;
  problems: string[];
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DOCUMENT_ID = 'https://wraith.invalid/openapi.json';

/** JSON Pointer escaping (RFC 6901). */
const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Validators for the schemas of one document: `$ref`s resolve against the whole document. */
export class ContractSchemas {
  readonly #ajv: Ajv2020;
  readonly #cache = new Map<string, ValidateFunction>();

  constructor(document: ContractDocument) {
    // strict: false because the document is an OpenAPI document (openapi, paths...), not a
    // schema; only the subschemas pointed into are compiled. allErrors: report every mismatch.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  }

  /** Problems of `value` against the schema at `pointer` (a JSON Pointer into the document); empty when valid. */
  check(pointer: string, value: unknown): string[] {
    let validate = this.#cache.get(pointer);
    if (validate === undefined) {
      validate = this.#ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      this.#cache.set(pointer, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}${e.params === undefined ? '' : ` ${JSON.stringify(e.params)}`}`);
  }
}

/** Every operation of the document by operationId. */
export function operationsOf(document: ContractDocument): Map<string, ContractOperation> {
  const found = new Map<string, ContractOperation>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      found.set(operation['operationId'], { method, path, pointer: `/paths/${escapePointer(path)}/${method}`, operation });
    }
  }
  return found;
}

/** The request an example describes, from the document alone. */
export function requestOf(op: ContractOperation, example: string): { url: string; init: RequestInit } {
  const parameters = (op.operation['parameters'] ?? []) as JsonObject[];
  let url = op.path;
  const query = new URLSearchParams();
  for (const parameter of parameters) {
    const value = parameter['examples']?.[example]?.value;
    if (value === undefined) {
      if (parameter['in'] === 'path') throw new Error(`${op.operation['operationId']}.${example}: no example for path parameter ${parameter['name']}`);
      continue;
    }
    if (parameter['in'] === 'path') url = url.replace(`{${parameter['name']}}`, encodeURIComponent(String(value)));
    else if (parameter['in'] === 'query') query.set(parameter['name'], String(value));
  }
  const search = query.toString();
  const init: RequestInit = { method: op.method.toUpperCase(), headers: { accept: 'application/json' } };
  const body = op.operation['requestBody']?.content?.['application/json']?.examples?.[example]?.value;
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...(init.headers as Record<string, string>), 'content-type': 'application/json' };
  } else if (op.operation['requestBody']?.required === true) {
    throw new Error(`${op.operation['operationId']}.${example}: the operation needs a body and the example has none`);
  }
  return { url: search === '' ? url : `${url}?${search}`, init };
}

/**
 * Send every step of the document's example sequence to `baseUrl`, in order, and check each
 * answer against the document.
 */
export async function runExampleSequence(baseUrl: string, document: ContractDocument, schemas = new ContractSchemas(document)): Promise<StepResult[]> {
  const operations = operationsOf(document);
  const results: StepResult[] = [];
  for (const { operationId, example, status: expected } of document['x-example-sequence']) {
    const step = `${operationId}.${example}`;
    const op = operations.get(operationId);
    if (op === undefined) {
      results.push({ step, method: '?', url: '?', status: 0, contentType: null, body: undefined, problems: ['no such operation'] });
      continue;
    }
    const { url, init } = requestOf(op, example);
    const response = await fetch(`${baseUrl}${url}`, init);
    const contentType = response.headers.get('content-type');
    const bytes = new Uint8Array(await response.arrayBuffer());
    const problems: string[] = [];
    let body: unknown = bytes;
    if (response.status !== expected) problems.push(`answered ${response.status}, the document's example expects ${expected}`);
    const documented = op.operation['responses']?.[String(response.status)] as JsonObject | undefined;
    if (documented === undefined) {
      problems.push(`status ${response.status} is not a documented response of ${operationId}`);
    } else {
      const mediaTypes = Object.keys(documented['content'] ?? {});
      const mediaType = mediaTypes.find((type) => contentType?.split(';')[0]?.trim() === type);
      if (mediaType === undefined) {
        problems.push(`content type ${contentType} is not one the ${response.status} response documents (${mediaTypes.join(', ')})`);
      } else if (mediaType === 'application/json') {
        try {
          body = JSON.parse(new TextDecoder().decode(bytes));
          const pointer = `${op.pointer}/responses/${response.status}/content/${escapePointer(mediaType)}/schema`;
          problems.push(...schemas.check(pointer, body).map((p) => `body ${p}`));
        } catch (error) {
          problems.push(`body is not JSON (${(error as Error).message})`);
        }
      } else if (bytes.length === 0) {
        problems.push(`empty ${mediaType} body`);
      }
    }
    results.push({ step, method: init.method!, url, status: response.status, contentType, body, problems });
  }
  return results;
}

/** The steps that failed, as `step: problem` lines (empty when the server keeps the contract). */
export function failuresOf(results: readonly StepResult[]): string[] {
  return results.flatMap((r) => r.problems.map((p) => `${r.step} (${r.method} ${r.url} -> ${r.status}): ${p}`));
}
