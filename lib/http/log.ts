/**
 * Structured logging: one JSON line per request on stdout (API.md "Logging"), plus error lines.
 *
 * What is logged is chosen, not filtered: request id, method, route, status, duration and, for
 * routes that carry no secrets, the query string. Bodies are never logged. As a second line of
 * defence every record passes through {@link redact}: fields named like a secret are replaced,
 * and long hex runs in free text (a key pasted into a URL, an error message quoting one) are
 * masked, so a slip elsewhere does not put a spending key in a log file.
 */
import type { LogLevel } from '../config.ts';
import { getConfig } from '../server/config.ts';

/** Field names whose values are secret (API.md "Authentication", PROTOCOL.md section 5). */
export const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set([
  'spending_sk',
  'viewing_sk',
  'stealth_sk',
  'eth_private_key',
  'shared_secret',
  'viewing_seed',
  'api_key',
  'x-api-key',
  'authorization',
]);

const REDACTED = '[redacted]';
/** 40+ hex digits: a key, a ciphertext, a hash. Too long to be an id or a number worth reading. */
const LONG_HEX = /(?:0[xX])?[0-9a-fA-F]{40,}/g;
const MAX_DEPTH = 6;
const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Parameter names that suggest a secret even when they are not one of ours (`?token=`, `?password=`). */
const SECRET_LIKE_NAME = /secret|token|passw|private|api_?key|_sk$|^sk$/i;

/**
 * A query string (without `?`) with the values of secret-looking parameters replaced: the
 * API takes no secret in a query, but a client that puts one there must not get it logged.
 */
export function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at < 0) return pair;
      let name = pair.slice(0, at);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // keep the raw name
      }
      return SECRET_FIELD_NAMES.has(name.toLowerCase()) || SECRET_LIKE_NAME.test(name) ? `${pair.slice(0, at)}=${REDACTED}` : pair;
    })
    .join('&');
}

/** Mask long hex runs in free text. */
export function redactText(text: string): string {
  return text.replace(LONG_HEX, REDACTED);
}

/** A copy of `value` with secret-named fields replaced and long hex runs masked. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[truncated]';
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a key named __proto__ stays an ordinary field of the copy.
    Object.defineProperty(out, key, {
      value: SECRET_FIELD_NAMES.has(key.toLowerCase()) ? REDACTED : redact(item, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function threshold(): number {
  try {
    return SEVERITY[getConfig().logLevel];
  } catch {
    return SEVERITY.info; // configuration invalid: boot is failing and says why
  }
}

/** Write one log line at `level`. */
export function log(level: Exclude<LogLevel, 'silent'>, msg: string, fields: Record<string, unknown> = {}): void {
  if (SEVERITY[level] < threshold()) return;
  const record = { time: new Date().toISOString(), level, msg, ...(redact(fields) as Record<string, unknown>) };
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

export type RequestLogFields = {
  request_id: string;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  /** Query string without `?`; left out on secret-bearing routes. */
  query?: string;
  /** The error code when the response is an error. */
  error_code?: string;
};

/** The one line per request. */
export function logRequest(fields: RequestLogFields): void {
  log(fields.status >= 500 ? 'error' : 'info', 'request', fields);
}

/** Details of a server-side fault, tied to the request by id (the response says only "internal error"). */
export function logFault(requestId: string, route: string, error: unknown): void {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  log('error', 'unhandled error', {
    request_id: requestId,
    route,
    error_name: cause instanceof Error ? cause.name : typeof cause,
    error_message: cause instanceof Error ? cause.message : String(cause),
    stack: cause instanceof Error ? cause.stack : undefined,
  });
}
