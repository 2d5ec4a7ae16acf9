/**
 * The API reference page (/api-docs) as one server-rendered HTML document, built from the
 * OpenAPI document (document.ts) so the page and GET /api/v1/openapi.json cannot disagree.
 *
 * No scripts at all, inline or external, and nothing loaded from elsewhere: the page works under
 * the strict self-only page CSP of next.config.mjs (its one `<style>` element is allowed by
 * `style-src 'unsafe-inline'`), with JavaScript disabled, and in a text browser. Every string
 * from the document is HTML-escaped.
 */
import type { OpenApiDocument } from './document.ts';

type Schema = Record<string, unknown>;
type Row = { name: string; note?: string; depth: number; type: string; required: boolean; description: string; rules: string };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The whole page. */
export function renderApiDocsHtml(doc: OpenApiDocument): string {
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((method) => ({ path, method, op: item[method] as Schema })),
  );
  const byTag = new Map<string, typeof operations>();
  for (const entry of operations) {
    const tag = String((entry.op['tags'] as string[] | undefined)?.[0] ?? 'Other');
    byTag.set(tag, [...(byTag.get(tag) ?? []), entry]);
  }
  const nav = [...byTag]
    .map(
      ([tag, entries]) =>
        `<li><a href="#${anchor('tag', tag)}">${esc(tag)}</a><ul>${entries
          .map((e) => `<li><a href="#${anchor('op', String(e.op['operationId']))}"><span class="m ${e.method}">${e.method.toUpperCase()}</span> ${esc(e.path)}</a></li>`)
          .join('')}</ul></li>`,
    )
    .join('');
  const sections = [...byTag]
    .map(([tag, entries]) => `<section><h2 id="${anchor('tag', tag)}">${esc(tag)}</h2>${entries.map((e) => renderOperation(doc, e.path, e.method, e.op)).join('')}</section>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} ${esc(doc.info.version)} — API reference</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1>
<p>${inlineCode(doc.info.description)}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI ${esc(doc.openapi)}).</p></header>
<nav><h2>Endpoints</h2><ul>${nav}</ul></nav>
<main>${sections}</main>
</body>
</html>
`;
}

function renderOperation(doc: OpenApiDocument, path: string, method: string, op: Schema): string {
  const id = anchor('op', String(op['operationId']));
  const badges = [
    Array.isArray(op['security']) ? '<span class="badge">API key when API_KEY is set</span>' : '',
    op['x-secret-keys'] === true ? '<span class="badge secret">carries secret keys</span>' : '',
  ].join('');
  const parameters = (op['parameters'] as Schema[] | undefined) ?? [];
  const parameterRows: Row[] = parameters.map((p) => ({
    name: String(p['name']),
    note: String(p['in']),
    depth: 0,
    type: typeOf(doc, p['schema'] as Schema),
    required: p['required'] === true,
    description: String(p['description'] ?? ''),
    rules: rulesOf(p['schema'] as Schema),
  }));
  const body = (op['requestBody'] as Schema | undefined)?.['content'] as Record<string, Schema> | undefined;
  const bodySchema = body?.['application/json']?.['schema'] as Schema | undefined;
  const responses = Object.entries((op['responses'] as Record<string, Schema> | undefined) ?? {});
  return `<article id="${id}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3>
<p class="summary">${esc(String(op['summary'] ?? ''))} ${badges}</p>
${op['description'] === undefined ? '' : `<p>${inlineCode(String(op['description']))}</p>`}
${parameterRows.length > 0 ? `<h4>Parameters</h4>${table(parameterRows)}` : ''}
${bodySchema === undefined ? '' : `<h4>Request body <small>application/json${refName(bodySchema)}</small></h4>${table(fieldRows(doc, bodySchema))}`}
${renderExamples(doc, op)}
<h4>Responses</h4>
${responses.filter(([, response]) => !isErrorResponse(response)).map(([status, response]) => renderResponse(doc, status, response)).join('')}
${renderErrors(responses.filter(([, response]) => isErrorResponse(response)))}
</article>`;
}

/**
 * The operation's examples as steps of `x-example-sequence`: their values are in the JSON
 * document (keys run to thousands of hex digits); the page says which exist, in which order, and
 * what a fresh server answers.
 */
function renderExamples(doc: OpenApiDocument, op: Schema): string {
  const steps = doc['x-example-sequence'].flatMap((step, index) => (step.operationId === op['operationId'] ? [{ ...step, number: index + 1 }] : []));
  if (steps.length === 0) return '';
  const items = steps
    .map(
      (step) =>
        `<li>step ${step.number}: <code>${esc(step.example)}</code> <span class="status ${step.status < 300 ? 'ok' : 'err'}">${step.status}</span> ${esc(exampleSummary(op, step.example))}</li>`,
    )
    .join('');
  return `<h4>Examples <small>(in the order of x-example-sequence, against a fresh server)</small></h4><ul class="examples">${items}</ul>`;
}

/** The summary of a named example, wherever the operation shows it (body, parameter or response). */
function exampleSummary(op: Schema, name: string): string {
  const body = (op['requestBody'] as Schema | undefined)?.['content'] as Record<string, Schema> | undefined;
  const places: unknown[] = [
    body?.['application/json']?.['examples'],
    ...((op['parameters'] as Schema[] | undefined) ?? []).map((p) => p['examples']),
    ...Object.values((op['responses'] as Record<string, Schema> | undefined) ?? {}).map(
      (response) => ((response['content'] as Record<string, Schema> | undefined)?.['application/json'] as Schema | undefined)?.['examples'],
    ),
  ];
  for (const examples of places) {
    const summary = (examples as Record<string, { summary?: unknown }> | undefined)?.[name]?.summary;
    if (typeof summary === 'string') return summary;
  }
  return '';
}

/** Answers in the common error shape (`{ error: { code, message, details? } }`). */
function isErrorResponse(response: Schema): boolean {
  const content = (response['content'] as Record<string, Schema> | undefined) ?? {};
  return refName((content['application/json']?.['schema'] as Schema | undefined) ?? {}) === ' — Error';
}

/** The error answers of an operation as one compact table: status and codes. */
function renderErrors(errors: [string, Schema][]): string {
  if (errors.length === 0) return '';
  const rows = errors
    .map(([status, response]) => {
      const codes = String(response['description'] ?? '').replace(/^Error: /, '');
      const retry = (response['headers'] as Schema | undefined)?.['Retry-After'] === undefined ? '' : ' <span class="rules">with Retry-After</span>';
      return `<tr><td><span class="status err">${esc(status)}</span></td><td>${codes.split(', ').map((code) => `<code>${esc(code)}</code>`).join(' ')}${retry}</td></tr>`;
    })
    .join('');
  return `<table class="errors"><thead><tr><th>Error</th><th>Codes (body: <code>{ "error": { "code", "message", "details"? } }</code>)</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function renderResponse(doc: OpenApiDocument, status: string, response: Schema): string {
  const content = (response['content'] as Record<string, Schema> | undefined) ?? {};
  const parts = Object.entries(content).map(([mediaType, media]) => {
    const schema = media['schema'] as Schema | undefined;
    if (schema === undefined || mediaType !== 'application/json' || resolve(doc, schema)['properties'] === undefined) {
      return `<p class="media">${esc(mediaType)}${esc(refName(schema ?? {}))}</p>`;
    }
    return `<p class="media">${esc(mediaType)}${esc(refName(schema))}</p>${table(fieldRows(doc, schema))}`;
  });
  const kind = status.startsWith('2') ? 'ok' : 'err';
  return `<div class="response"><p><span class="status ${kind}">${esc(status)}</span> ${esc(String(response['description'] ?? ''))}</p>${parts.join('')}</div>`;
}

function table(rows: Row[]): string {
  if (rows.length === 0) return '<p class="empty">No fields.</p>';
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${rows
    .map(
      (row) =>
        `<tr><td class="d${Math.min(row.depth, 4)}"><code>${esc(row.name)}</code>${row.note === undefined ? '' : ` <span class="rules">${esc(row.note)}</span>`}</td><td>${esc(row.type)}</td><td>${row.required ? 'yes' : ''}</td><td>${esc(row.description)}${row.rules === '' ? '' : ` <span class="rules">${esc(row.rules)}</span>`}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

/** The fields of an object schema, nested objects and arrays of objects indented below their field. */
function fieldRows(doc: OpenApiDocument, schema: Schema, depth = 0, seen = new Set<Schema>()): Row[] {
  const object = resolve(doc, schema);
  if (seen.has(object)) return [];
  const properties = object['properties'] as Record<string, Schema> | undefined;
  if (properties === undefined) return [];
  const required = new Set((object['required'] as string[] | undefined) ?? []);
  return Object.entries(properties).flatMap(([name, property]) => {
    const resolved = resolve(doc, property);
    const row: Row = {
      name,
      depth,
      type: typeOf(doc, property),
      required: required.has(name),
      description: String(resolved['description'] ?? nonNull(doc, property)['description'] ?? ''),
      rules: rulesOf(nonNull(doc, property)),
    };
    const inner = nonNull(doc, property);
    const nested = inner['type'] === 'array' ? resolve(doc, (inner['items'] as Schema | undefined) ?? {}) : inner;
    return [row, ...fieldRows(doc, nested, depth + 1, new Set([...seen, object]))];
  });
}

function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  const target = schema['$ref'];
  if (typeof target !== 'string') return schema;
  return doc.components.schemas[target.replace('#/components/schemas/', '')] ?? {};
}

/** The schema without a `null` alternative (`anyOf: [X, {type: null}]` or `type: [X, "null"]`). */
function nonNull(doc: OpenApiDocument, schema: Schema): Schema {
  const resolved = resolve(doc, schema);
  const anyOf = resolved['anyOf'] as Schema[] | undefined;
  if (anyOf !== undefined) {
    const others = anyOf.filter((s) => s['type'] !== 'null');
    if (others.length === 1) return resolve(doc, others[0]!);
  }
  return resolved;
}

function typeOf(doc: OpenApiDocument, schema: Schema | undefined): string {
  if (schema === undefined) return 'any';
  const resolved = resolve(doc, schema);
  if ('const' in resolved) return JSON.stringify(resolved['const']);
  if (Array.isArray(resolved['enum'])) return (resolved['enum'] as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  const anyOf = resolved['anyOf'] as Schema[] | undefined;
  if (anyOf !== undefined) return anyOf.map((s) => typeOf(doc, s)).join(' or ');
  const type = resolved['type'];
  if (Array.isArray(type)) return type.join(' or ');
  if (type === 'array') return `array of ${typeOf(doc, resolved['items'] as Schema | undefined)}`;
  if (typeof type === 'string') return type;
  return 'any';
}

function rulesOf(schema: Schema | undefined): string {
  if (schema === undefined) return '';
  const rules: string[] = [];
  const number = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  const [min, max] = [number('minimum'), number('maximum')];
  // zod states the safe-integer bounds of every int; they say nothing to a reader.
  if (min !== undefined && min !== Number.MIN_SAFE_INTEGER && !(min === 0 && max === Number.MAX_SAFE_INTEGER)) rules.push(`≥ ${min}`);
  if (max !== undefined && max !== Number.MAX_SAFE_INTEGER) rules.push(`≤ ${max}`);
  if (number('minLength') !== undefined) rules.push(`length ≥ ${number('minLength')}`);
  if (number('maxLength') !== undefined) rules.push(`length ≤ ${number('maxLength')}`);
  if (number('maxItems') !== undefined) rules.push(`at most ${number('maxItems')} items`);
  if (typeof schema['pattern'] === 'string') rules.push(`pattern ${schema['pattern']}`);
  return rules.length === 0 ? '' : `(${rules.join(', ')})`;
}

function refName(schema: Schema): string {
  const target = schema['$ref'];
  return typeof target === 'string' ? ` — ${target.replace('#/components/schemas/', '')}` : '';
}

function anchor(kind: string, text: string): string {
  return `${kind}-${text.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}

/** Escape, then show `backticked` words as code. */
function inlineCode(text: string): string {
  return esc(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1d2433;--muted:#5b6478;--line:#d9dde6;--bg:#fff;--code:#f3f5f9;--get:#0b7a4b;--post:#1f5fbf;--err:#b3261e}
@media (prefers-color-scheme:dark){:root{--fg:#e4e7ee;--muted:#9aa3b5;--line:#343b4a;--bg:#12151c;--code:#1c212b;--get:#3fc28a;--post:#6ea2ff;--err:#ff8a80}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);display:grid;grid-template-columns:minmax(14rem,20rem) 1fr;grid-template-areas:"head head" "nav main"}
header{grid-area:head;padding:1.5rem 2rem;border-bottom:1px solid var(--line)}header h1{margin:0 0 .5rem}header small{color:var(--muted);font-weight:400}
nav{grid-area:nav;padding:1rem 1.5rem;border-right:1px solid var(--line);font-size:13px}nav ul{list-style:none;padding-left:0;margin:0}nav ul ul{padding-left:.5rem;margin-bottom:.75rem}nav a{color:inherit;text-decoration:none;display:flex;gap:.4rem;align-items:baseline;overflow-wrap:anywhere}nav li li{margin:.1rem 0}nav a:hover{text-decoration:underline}
main{grid-area:main;padding:1rem 2rem;min-width:0}article{border:1px solid var(--line);border-radius:8px;padding:1rem 1.25rem;margin:1rem 0}
h2{margin-top:1.5rem}h3{margin:0 0 .25rem;font-size:1.05rem}h4{margin:1rem 0 .4rem;font-size:.9rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}h4 small{text-transform:none;letter-spacing:0}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--code);padding:.05rem .3rem;border-radius:4px;overflow-wrap:anywhere}
.m{display:inline-block;flex:none;min-width:3.2rem;text-align:center;font:700 12px ui-monospace,monospace;border-radius:4px;padding:.1rem .3rem;color:#fff}.m.get{background:var(--get)}.m.post{background:var(--post)}
.badge{display:inline-block;font-size:12px;border:1px solid var(--line);border-radius:999px;padding:0 .5rem;margin-left:.25rem;color:var(--muted)}.badge.secret{border-color:var(--err);color:var(--err)}
.summary{margin:.25rem 0}table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid var(--line);text-align:left;padding:.35rem .5rem;vertical-align:top}th{color:var(--muted);font-weight:600}
td:first-child code{white-space:nowrap}table.errors{margin-top:.75rem}table.errors code{margin-right:.25rem}td.d1{padding-left:1.5rem}td.d2{padding-left:2.5rem}td.d3{padding-left:3.5rem}td.d4{padding-left:4.5rem}.rules{color:var(--muted)}
.status{font:700 13px ui-monospace,monospace}.status.ok{color:var(--get)}.status.err{color:var(--err)}.response{margin:.5rem 0}.media{margin:.25rem 0;color:var(--muted);font-size:13px}.empty{color:var(--muted)}
@media (max-width:800px){body{display:block}nav{border-right:0;border-bottom:1px solid var(--line)}}
`;
