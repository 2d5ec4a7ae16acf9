/**
 * The cross-cutting rules of API.md on every route file under app/ (found on disk, so a new
 * route is covered without being listed here): API key on writes, rate limit, CORS preflight,
 * JSON 405 with Allow, and the security headers and request id on every answer. The rules are
 * composed once (lib/http/route.ts); this shows that every route actually goes through them.
 * Each request is refused before any handler runs, so no upstream (RPC, pinning) is called.
 */
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, configure, type Handler } from '../helpers/api.ts';
import { APP_DIR, routeFiles, routeSegments } from '../helpers/route-files.ts';

const SERVED = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const API_KEY = 'k'.repeat(32);

/** Concrete values for dynamic segments. */
const SEGMENT_VALUES: Record<string, string> = {
  '[name]': 'alice.eth',
  '[cid]': 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy',
  '[id]': 'ab'.repeat(32),
  '[address]': '0x6538E6bf4B0eBd30A8Ea093027Ac2422ce5d6538',
  '[...path]': 'unknown/thing',
  '[[...path]]': 'v2/unknown',
};

type RouteModule = Partial<Record<string, Handler>> & { dynamic?: string };
type RouteFile = { file: string; path: string; module: RouteModule };

/** The API's route files (pages and the docs page aside), with a concrete path each. */
async function apiRoutes(): Promise<RouteFile[]> {
  const routes: RouteFile[] = [];
  for (const file of routeFiles()) {
    const segments = routeSegments(file);
    if (segments[0] !== 'api' && segments[0] !== 'health') continue;
    const path = `/${segments.map((s) => SEGMENT_VALUES[s] ?? s).join('/')}`;
    routes.push({ file: relative(APP_DIR, file), path, module: (await import(file)) as RouteModule });
  }
  return routes;
}

const routes = await apiRoutes();
/** Methods a route serves, from the `Allow` header of a plain OPTIONS (no handler runs). */
async function servedMethods(route: RouteFile): Promise<string[]> {
  const response = await call(route.module.OPTIONS!, route.path, { method: 'OPTIONS' });
  if (response.status === 404) return []; // the catch-alls
  expect(response.status).toBe(204);
  return (response.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter((m) => (SERVED as readonly string[]).includes(m));
}

function expectApiHeaders(headers: Headers): void {
  expect(headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('permissions-policy')).toContain('camera=()');
  expect(headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
  expect(headers.get('vary')).toContain('Origin');
}

describe('every API route file', () => {
  it('was found: the API, the health check and the catch-alls', () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
    expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining(['/health', '/api/v1/yellow/channel/create', '/api/v1/ipfs/upload']));
  });

  describe.each(routes.map((r) => [r.file, r] as const))('%s', (_file, route) => {
    it('exports a handler for every method, renders dynamically, and answers a method it does not serve with JSON 405 and Allow', async () => {
      await configure();
      for (const method of [...SERVED, 'HEAD', 'OPTIONS']) expect(typeof route.module[method]).toBe('function');
      expect(route.module.dynamic).toBe('force-dynamic');
      const served = await servedMethods(route);
      const unserved = SERVED.find((m) => !served.includes(m))!;
      const response = await call(route.module[unserved]!, route.path, { method: unserved });
      expectApiHeaders(response.headers);
      if (served.length === 0) {
        expect(response.status).toBe(404); // the catch-alls answer every method with 404
        expect(response.json.error.code).toBe('NOT_FOUND');
        return;
      }
      expect(response.status).toBe(405);
      expect(response.json.error.code).toBe('METHOD_NOT_ALLOWED');
      const allow = (response.headers.get('allow') ?? '').split(', ').sort();
      expect(allow).toEqual([...served, ...(served.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort());
    });

    it('with API_KEY set, refuses its writes without the key (401) before reading the body', async () => {
      await configure({ API_KEY });
      const writes = (await servedMethods(route)).filter((m) => m !== 'GET');
      for (const method of writes) {
        const response = await call(route.module[method]!, route.path, { method, body: '{not json', headers: { 'content-type': 'application/json' } });
        expect(response.status, `${method} ${route.path}`).toBe(401);
        expect(response.json.error.code).toBe('UNAUTHORIZED');
        expectApiHeaders(response.headers);
      }
      if (writes.length > 0) {
        const method = writes[0]!;
        const keyed = await call(route.module[method]!, route.path, { method, body: '{not json', headers: { 'content-type': 'application/json', 'x-api-key': API_KEY } });
        expect(keyed.status).not.toBe(401); // with the key, the request gets as far as its body
      }
    });

    it('answers a CORS preflight from an allowed origin with 204, and from another origin with 403', async () => {
      await configure({ ALLOWED_ORIGINS: 'https://wallet.example' });
      const ask = (origin: string) =>
        call(route.module.OPTIONS!, route.path, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-api-key' },
        });
      const catchAll = (await servedMethods(route)).length === 0;
      const allowed = await ask('https://wallet.example');
      expect(allowed.status).toBe(catchAll ? 404 : 204);
      expectApiHeaders(allowed.headers);
      if (allowed.status === 204) {
        expect(allowed.headers.get('access-control-allow-origin')).toBe('https://wallet.example');
        expect(allowed.headers.get('access-control-allow-headers')).toContain('x-api-key');
        const refused = await ask('https://evil.example');
        expect(refused.status).toBe(403);
        expect(refused.json.error.code).toBe('FORBIDDEN');
      }
    });

    it('counts against the client\'s rate limit and answers 429 with Retry-After once it is spent', async () => {
      await configure({ RATE_LIMIT_RPS: '0.01', RATE_LIMIT_BURST: '1' });
      await call(route.module.OPTIONS!, route.path, { method: 'OPTIONS' }); // spends the one token
      const limited = await call(route.module.GET!, route.path, { method: 'GET' });
      expect(limited.status).toBe(429);
      expect(limited.json.error.code).toBe('RATE_LIMITED');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expectApiHeaders(limited.headers);
      const other = await call(route.module.OPTIONS!, route.path, { method: 'OPTIONS', peer: '10.0.0.9' });
      expect(other.status).not.toBe(429); // another client has its own budget
    });
  });
});
