/**
 * Cross-origin access (API.md "Cross-cutting behaviour"), configured by `ALLOWED_ORIGINS`:
 * `*` (the default for this public API) or a list of exact origins.
 *
 * The API uses no cookies, so credentials are never allowed and `*` is safe to answer as is.
 * A preflight from an origin not on the list is refused with 403 FORBIDDEN, so a misconfigured
 * front end learns why instead of seeing an opaque network error. `Vary: Origin` is always
 * sent: with a list, the answer depends on the request's origin and caches must know it.
 */
import { HttpError } from './errors.ts';

/** Request headers a browser may send cross-origin. */
export const CORS_ALLOWED_HEADERS = 'content-type, x-api-key, authorization, x-request-id';
/** Response headers a cross-origin script may read. */
export const CORS_EXPOSED_HEADERS = 'x-request-id, retry-after';
/** How long a browser may cache a preflight answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

export type AllowedOrigins = '*' | readonly string[];

export function isOriginAllowed(origin: string, allowed: AllowedOrigins): boolean {
  return allowed === '*' || allowed.includes(origin.toLowerCase());
}

/** Headers for an actual (non-preflight) response. */
export function corsHeaders(origin: string | null, allowed: AllowedOrigins): Record<string, string> {
  const headers: Record<string, string> = { Vary: 'Origin' };
  if (origin !== null && isOriginAllowed(origin, allowed)) {
    headers['Access-Control-Allow-Origin'] = allowed === '*' ? '*' : origin;
    headers['Access-Control-Expose-Headers'] = CORS_EXPOSED_HEADERS;
  }
  return headers;
}

/**
 * Answer an OPTIONS request: a CORS preflight (it has `Origin` and
 * `Access-Control-Request-Method`) gets the allowed methods and headers; a plain OPTIONS gets
 * `Allow`. Both are 204.
 * @throws {HttpError} 403 FORBIDDEN for a preflight from an origin that is not allowed.
 */
export function optionsResponse(request: Request, allowed: AllowedOrigins, methods: readonly string[]): Response {
  const origin = request.headers.get('origin');
  const allow = methods.join(', ');
  if (origin === null || request.headers.get('access-control-request-method') === null) {
    return new Response(null, { status: 204, headers: { Allow: allow } });
  }
  if (!isOriginAllowed(origin, allowed)) {
    throw new HttpError(403, 'FORBIDDEN', 'This origin is not allowed to call the API (ALLOWED_ORIGINS).');
  }
  return new Response(null, {
    status: 204,
    headers: {
      Allow: allow,
      'Access-Control-Allow-Methods': allow,
      'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS,
      'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
    },
  });
}
