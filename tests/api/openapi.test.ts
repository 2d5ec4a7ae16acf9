/**
 * GET /api/v1/openapi.json and the /api-docs page (lib/openapi): the document covers every route
 * the app serves, its request schemas are the ones the handlers validate with, and the page is
 * plain server-rendered HTML. Route handlers are called directly, as Next.js would.
 */
import { join, relative, sep } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument, type OpenApiDocument } from '../../lib/openapi/document.ts';
import { OPERATIONS } from '../../lib/openapi/operations.ts';
import * as docsPage from '../../app/api-docs/route.ts';
import * as openApiRoute from '../../app/api/v1/openapi.json/route.ts';
import { call, configure, type Handler } from '../helpers/api.ts';
import { APP_DIR, routeFiles, routeSegments } from '../helpers/route-files.ts';


/** Route files that are not API operations: the catch-all 404s and the docs page itself. */
const NOT_OPERATIONS = new Set(['api/v1/[...path]', 'api/v1', 'api/[[...path]]', 'health/[...path]', 'api-docs']);

/** `app/api/v1/ens/resolve/[name]/route.ts` → `/api/v1/ens/resolve/{name}`; route groups `(x)` add no segment. */
function templateOf(file: string): string {
  const dir = routeSegments(file).join('/');
  return `/${dir.replace(/\[([^\]]+)\]/g, '{$1}')}`;
}

type RouteModule = Record<string, Handler>;

const document: OpenApiDocument = buildOpenApiDocument();
const componentOf = (schema: unknown) =>
  document.components.schemas[String((schema as { $ref: string }).$ref).replace('#/components/schemas/', '')]!;

beforeEach(() => configure());

describe('the OpenAPI document', () => {
  it('is an OpenAPI 3.1 document with a JSON Schema 2020-12 component for every named request and response', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBe('Wraith API');
    for (const name of ['PublishAnnouncementRequest', 'ListAnnouncementsResponse', 'ScanRequest', 'Error', 'Health']) {
      expect(document.components.schemas[name]).toMatchObject({ type: 'object' });
      expect(document.components.schemas[name]).not.toHaveProperty('$schema');
    }
    const refs = JSON.stringify(document).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
    for (const target of new Set(refs)) expect(document.components.schemas).toHaveProperty(JSON.parse(target).split('/').pop());
  });

  it('lists every route file of the app with exactly the methods it serves', async () => {
    const served = new Map<string, string[]>();
    for (const file of routeFiles()) {
      const dir = relative(APP_DIR, file).split(sep).slice(0, -1).join('/');
      if (NOT_OPERATIONS.has(dir)) continue;
      const module = (await import(file)) as RouteModule;
      const options = await call(module['OPTIONS']!, templateOf(file).replace(/\{[^}]+\}/g, 'x'), { method: 'OPTIONS' });
      const methods = (options.headers.get('allow') ?? '').split(', ').filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
      served.set(templateOf(file), methods.map((m) => m.toLowerCase()).sort());
    }
    const documented = new Map(Object.entries(document.paths).map(([path, item]) => [path, Object.keys(item).sort()]));
    expect(documented).toEqual(served);
  });

  it.each(OPERATIONS.filter((op) => op.body !== undefined).map((op) => [op.operationId, op] as const))(
    '%s: the handler refuses an empty body on exactly the fields the document marks required',
    async (_, operation) => {
      const file = join(APP_DIR, ...operation.path.replace(/\{([^}]+)\}/g, '[$1]').split('/').filter(Boolean), 'route.ts');
      const module = (await import(file)) as RouteModule;
      const response = await call(module[operation.method.toUpperCase()]!, operation.path, { body: {} });
      expect(response.status).toBe(400);
      expect(response.json.error.code).toBe('VALIDATION_ERROR');
      const schema = componentOf((document.paths[operation.path]![operation.method]!['requestBody'] as any).content['application/json'].schema);
      const required = [...((schema['required'] as string[] | undefined) ?? [])].sort();
      const named = response.json.error.details.map((d: { path: string }) => d.path).sort();
      // A body whose fields are all optional but which needs one of several (the scan: scheme-1000
      // keys, scheme-3 keys, or both) is still refused, naming a field the document describes.
      if (required.length === 0) expect(named.every((path: string) => path in (schema['properties'] as object))).toBe(true);
      expect(named.length).toBeGreaterThan(0);
      if (required.length > 0) expect(named).toEqual(required);
    },
  );

  it('documents query parameters the handlers check: a malformed value is refused on that parameter', async () => {
    const listing = OPERATIONS.find((op) => op.operationId === 'listAnnouncements')!;
    const module = (await import(join(APP_DIR, 'api/v1/registry/announcements/route.ts'))) as RouteModule;
    const parameters = (document.paths[listing.path]!['get']!['parameters'] as { name: string; schema: { pattern?: string } }[]).filter(
      (p) => p.schema.pattern !== undefined,
    );
    expect(parameters.map((p) => p.name).sort()).toEqual(Object.keys(listing.query!.shape).sort());
    for (const { name, schema } of parameters) {
      expect(new RegExp(schema.pattern!).test('1e3')).toBe(false);
      const response = await call(module['GET']!, `${listing.path}?${name}=1e3`);
      expect(response.status).toBe(400);
      expect(response.json.error.details).toContainEqual(expect.objectContaining({ path: name }));
    }
  });

  it('states the errors each operation can answer, with Retry-After on 429', () => {
    const publish = document.paths['/api/v1/registry/announcements']!['post']!['responses'] as Record<string, any>;
    expect(Object.keys(publish)).toEqual(['201', '400', '401', '403', '409', '413', '415', '422', '429', '500', '502', '503', '504']);
    expect(publish['409'].description).toContain('DUPLICATE_ANNOUNCEMENT');
    expect(publish['403'].description).toContain('PUBLISH_CLOSED');
    expect(publish['422'].description).toContain('TX_NOT_VERIFIED');
    expect(publish['429'].headers).toHaveProperty('Retry-After');
    expect(document.paths['/api/v1/registry/announcements']!['post']!['security']).toContainEqual({ apiKey: [] });
    expect(document.paths['/api/v1/stealth/scan']!['post']!['x-secret-keys']).toBe(true);
  });

  it('describes every request field, so the reference page explains each one', () => {
    for (const operation of OPERATIONS.filter((op) => op.body !== undefined)) {
      const schema = z.toJSONSchema(operation.body!, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, { description?: string }> };
      for (const [field, property] of Object.entries(schema.properties)) {
        expect(property.description, `${operation.operationId}.${field}`).toBeTruthy();
      }
    }
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('answers the document as cacheable JSON with the API headers', async () => {
    const response = await call(openApiRoute.GET, '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.json).toEqual(JSON.parse(JSON.stringify(document)));
  });
});

describe('the /api-docs page', () => {
  it('renders every operation with its fields as plain HTML, without any script or external resource', async () => {
    const response = await docsPage.GET();
    const html = await response.text();
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    for (const operation of OPERATIONS) {
      expect(html).toContain(`<code>${operation.path}</code>`);
      expect(html).toContain(`id="op-${operation.operationId.toLowerCase()}"`);
    }
    for (const field of ['ephemeral_key', 'view_tag', 'tx_hash', 'viewing_sk', 'after_id', 'total_announcements']) {
      expect(html).toContain(`<code>${field}</code>`);
    }
    expect(html).not.toMatch(/<script|<link|<iframe|<img|\son[a-z]+=|javascript:/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect([...html.matchAll(/href="([^"]*)"/g)].every(([, target]) => target!.startsWith('#') || target!.startsWith('/api/'))).toBe(true);
  });

  it('lists each operation\'s examples with their step in x-example-sequence and the status a fresh server answers', async () => {
    const html = await (await docsPage.GET()).text();
    const sequence = document['x-example-sequence'];
    expect(sequence.length).toBeGreaterThanOrEqual(OPERATIONS.length);
    for (const [index, step] of sequence.entries()) {
      expect(html).toContain(`<li>step ${index + 1}: <code>${step.example}</code> <span class="status ${step.status < 300 ? 'ok' : 'err'}">${step.status}</span>`);
    }
  });

  it('escapes text from the document instead of interpreting it as markup', async () => {
    const { renderApiDocsHtml } = await import('../../lib/openapi/html.ts');
    const hostile = buildOpenApiDocument([{ ...OPERATIONS[0]!, summary: '<script>alert(1)</script>', description: 'a "quoted" <b>tag</b> & `code`' }]);
    const html = renderApiDocsHtml(hostile);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('a &quot;quoted&quot; &lt;b&gt;tag&lt;/b&gt; &amp; <code>code</code>');
  });
});
