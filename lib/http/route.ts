/**
 * `defineRoute`: every cross-cutting rule of API.md, composed once.
 *
 * A route file declares its path, its methods with their zod schemas and handlers, and exports
 * what `defineRoute` returns: a handler for every HTTP method Next.js routes, so methods the
 * route does not serve get a JSON 405 with `Allow` instead of the framework's bare one, and
 * OPTIONS answers CORS preflights. Each request goes through, in order:
 *
 * 1. request id (echo a valid `x-request-id` or make one);
 * 2. per-client rate limit (429 RATE_LIMITED with `Retry-After`; 503 when the shared limit's
 *    store is down and `RATE_LIMIT_FAIL_OPEN=false`);
 * 3. OPTIONS: CORS preflight (204, or 403 for an origin not allowed);
 * 4. method check (405 METHOD_NOT_ALLOWED with `Allow`);
 * 5. API key for methods other than GET/HEAD/OPTIONS when `API_KEY` is set (401);
 * 6. body size by Content-Length (413), query parameters (400), JSON body: content type (415),
 *    size while streaming (413), syntax (400 INVALID_JSON), schema (400 VALIDATION_ERROR);
 * 7. the handler, whose errors are mapped by lib/http/errors.ts;
 * 8. on every response: security headers, `Cache-Control: no-store`, CORS headers, the request
 *    id, and one log line.
 */
import type { z } from 'zod';
import type { Config } from '../config.ts';
import { getConfig } from '../server/config.ts';
import { getRateLimiter } from '../server/rate-limiter.ts';
import { READ_METHODS, requireApiKey } from './auth.ts';
import { checkDeclaredLength, readJsonBody } from './body.ts';
import { clientKey } from './client-ip.ts';
import { corsHeaders, optionsResponse } from './cors.ts';
import { HttpError, isServerFault, toHttpError } from './errors.ts';
import { logFault, logRequest, redactQuery } from './log.ts';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id.ts';
import { API_SECURITY_HEADERS, NO_STORE } from './security-headers.ts';
import { parseInput, queryObject } from './validation.ts';

/** Methods Next.js route handlers can export. */
export const ROUTE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];
/** Methods a route implements itself; HEAD follows GET and OPTIONS is automatic. */
export type ServedMethod = Exclude<RouteMethod, 'HEAD' | 'OPTIONS'>;

type AnyQuerySchema = z.ZodObject<z.core.$ZodLooseShape>;

export type HandlerContext<Body, Query> = {
  request: Request;
  requestId: string;
  url: URL;
  body: Body;
  query: Query;
};

/** One method of a route. Build it with {@link endpoint} so `body` and `query` are typed. */
export type Endpoint = {
  body?: z.ZodType;
  query?: AnyQuerySchema;
  /** Status of a successful response (default 200). */
  status?: number;
  /** Returns the JSON response value, or a `Response` for anything else. */
  handler: (context: HandlerContext<never, never>) => unknown;
};

/**
 * Declare one method of a route: its request schemas, success status and handler.
 * @example
 * endpoint({ body: createStealthRequest, handler: ({ body }) => createStealthPaymentJson(body) })
 */
export function endpoint<B extends z.ZodType | undefined = undefined, Q extends AnyQuerySchema | undefined = undefined>(definition: {
  body?: B;
  query?: Q;
  status?: number;
  handler: (
    context: HandlerContext<B extends z.ZodType ? z.output<B> : undefined, Q extends AnyQuerySchema ? z.output<Q> : undefined>,
  ) => unknown;
}): Endpoint {
  return definition as Endpoint;
}

export type RouteDefinition = {
  /** The route pattern, as logged (e.g. `/api/v1/stealth/scan`). */
  path: string;
  methods: Partial<Record<ServedMethod, Endpoint>>;
  /** Requests or responses carry secret keys: their query strings are never logged. */
  secretBearing?: boolean;
  /** `writes` (default): methods other than GET/HEAD/OPTIONS need `API_KEY` when set. */
  apiKey?: 'writes' | 'never';
  /** Answer every method with 404 NOT_FOUND (the catch-alls under /api and /health). */
  notFound?: boolean;
};

export type RouteHandlers = Record<RouteMethod, (request: Request) => Promise<Response>>;

/** Build every method export of a route file. */
export function defineRoute(route: RouteDefinition): RouteHandlers {
  const allowed = allowedMethods(route);
  const handlers = {} as RouteHandlers;
  for (const method of ROUTE_METHODS) handlers[method] = (request) => serve(route, allowed, method, request);
  return handlers;
}

function allowedMethods(route: RouteDefinition): string[] {
  const served = Object.keys(route.methods) as ServedMethod[];
  const allowed = ROUTE_METHODS.filter((m) => served.includes(m as ServedMethod) || (m === 'HEAD' && served.includes('GET')));
  return [...allowed, 'OPTIONS'];
}

async function serve(route: RouteDefinition, allowed: string[], method: RouteMethod, request: Request): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdFor(request.headers);
  let config: Config | undefined;
  let response: Response;
  let errorCode: string | undefined;
  try {
    config = getConfig();
    response = await dispatch(route, allowed, method, request, requestId, config);
  } catch (thrown) {
    const error = toHttpError(thrown);
    if (isServerFault(error)) logFault(requestId, route.path, thrown);
    errorCode = error.code;
    response = errorResponse(error, allowed);
  }
  finishHeaders(response, request, requestId, config);
  logRequest({
    request_id: requestId,
    method,
    route: route.path,
    status: response.status,
    duration_ms: Math.round(performance.now() - started),
    ...logLocation(route, request),
    ...(errorCode === undefined ? {} : { error_code: errorCode }),
  });
  return response;
}

async function dispatch(
  route: RouteDefinition,
  allowed: string[],
  method: RouteMethod,
  request: Request,
  requestId: string,
  config: Config,
): Promise<Response> {
  const limiter = getRateLimiter();
  if (limiter !== null) {
    const decision = await limiter.take(clientKey(request.headers, config.trustProxy));
    if (!decision.allowed && decision.unavailable === true) {
      // RATE_LIMIT_FAIL_OPEN=false and the shared limit's store is down (lib/ratelimit/shared.ts).
      throw new HttpError(503, 'SERVICE_UNAVAILABLE', 'The rate limiter is unavailable; retry after the number of seconds in Retry-After.', {
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
      });
    }
    if (!decision.allowed) {
      throw new HttpError(429, 'RATE_LIMITED', 'Too many requests from this client; retry after the number of seconds in Retry-After.', {
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
      });
    }
  }
  if (route.notFound) throw new HttpError(404, 'NOT_FOUND', 'There is no such endpoint; the API is under /api/v1 (see /api/v1/openapi.json).');
  if (method === 'OPTIONS') return optionsResponse(request, config.allowedOrigins, allowed);
  const target = method === 'HEAD' ? route.methods.GET : route.methods[method];
  if (target === undefined) {
    throw new HttpError(405, 'METHOD_NOT_ALLOWED', `This endpoint does not accept ${method}; see the Allow header.`);
  }
  if (!READ_METHODS.has(method) && route.apiKey !== 'never' && config.apiKey !== undefined) {
    requireApiKey(request.headers, config.apiKey);
  }
  checkDeclaredLength(request.headers, config.maxBodyBytes);
  const url = new URL(request.url);
  const query = target.query ? parseInput(target.query, queryObject(url, Object.keys(target.query.shape)), 'query') : undefined;
  const body = target.body ? parseInput(target.body, await readJsonBody(request, config.maxBodyBytes), 'body') : undefined;
  const result = await target.handler({ request, requestId, url, body: body as never, query: query as never });
  const response = result instanceof Response ? result : Response.json(result, { status: target.status ?? 200 });
  return method === 'HEAD' ? new Response(null, { status: response.status, headers: response.headers }) : response;
}

function errorResponse(error: HttpError, allowed: string[]): Response {
  const response = Response.json(error.toBody(), { status: error.status, headers: error.headers });
  if (error.status === 405) response.headers.set('Allow', allowed.join(', '));
  return response;
}

function finishHeaders(response: Response, request: Request, requestId: string, config: Config | undefined): void {
  const headers = response.headers;
  if (headers.get('content-type') === 'application/json') headers.set('content-type', 'application/json; charset=utf-8');
  for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) headers.set(name, value);
  // no-store unless the handler chose a policy (only public, secret-free answers do: the
  // immutable binary registry pages).
  if (!headers.has('Cache-Control')) headers.set('Cache-Control', NO_STORE);
  headers.set(REQUEST_ID_HEADER, requestId);
  const cors = corsHeaders(request.headers.get('origin'), config?.allowedOrigins ?? []);
  for (const [name, value] of Object.entries(cors)) {
    if (name === 'Vary') headers.append('Vary', value);
    else headers.set(name, value);
  }
}

/** What the log line says about where the request went; nothing from secret-bearing routes. */
function logLocation(route: RouteDefinition, request: Request): { query?: string; path?: string } {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return {};
  }
  const location: { query?: string; path?: string } = {};
  if (route.notFound) location.path = url.pathname.slice(0, 256); // log.ts masks key-like hex in it
  if (!route.secretBearing && url.search.length > 1) location.query = redactQuery(url.search.slice(1, 513));
  return location;
}
