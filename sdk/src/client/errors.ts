/**
 * Errors of the HTTP client. A sibling of the SDK's {@link WraithError}: same `code`,
 * `shortMessage`, `details` and `cause`, plus what an HTTP failure adds (status, request id,
 * `Retry-After`). The server's own `code` is kept as it came (API.md "Errors"), so callers
 * branch on `error.code === 'DUPLICATE_ANNOUNCEMENT'`, not on message text.
 * @module
 */
import type { WraithError, WraithErrorDetail } from '../errors.ts';

/**
 * Codes of API.md "Errors", and the client's own for failures without a server answer:
 * `TIMEOUT` (no answer in time), `NETWORK_ERROR` (fetch failed: DNS, refused, reset, CORS),
 * `INVALID_RESPONSE` (a success answer the client cannot read) and `HTTP_ERROR` (an error
 * status without the API's error body, e.g. from a proxy).
 */
export type ApiErrorCode =
  | 'INVALID_JSON'
  | 'VALIDATION_ERROR'
  | 'INVALID_META_ADDRESS'
  | 'LEGACY_META_ADDRESS'
  | 'INVALID_NAME'
  | 'INVALID_CID'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'NAME_NOT_FOUND'
  | 'NO_STEALTH_RECORD'
  | 'METHOD_NOT_ALLOWED'
  | 'DUPLICATE_ANNOUNCEMENT'
  | 'CHANNEL_CLOSED'
  | 'TX_NOT_VERIFIED'
  | 'CHAIN_NOT_FOLLOWED'
  | 'TRACKING_KEY_MISMATCH'
  | 'PUBLISH_CLOSED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'CONTENT_MISMATCH'
  | 'RATE_LIMITED'
  | 'UPSTREAM_ERROR'
  | 'UPSTREAM_TIMEOUT'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR'
  | 'TIMEOUT'
  | 'NETWORK_ERROR'
  | 'INVALID_RESPONSE'
  | 'HTTP_ERROR'
  | (string & {}); // codes added by later server versions stay readable

export type ApiErrorParameters = {
  code: ApiErrorCode;
  shortMessage: string;
  /** HTTP status; `undefined` when no answer arrived (timeout, network error). */
  status?: number | undefined;
  details?: WraithErrorDetail[] | undefined;
  /** The `x-request-id` of the answer: quote it when reporting a problem. */
  requestId?: string | undefined;
  /** Milliseconds the server asked to wait (`Retry-After`). */
  retryAfterMs?: number | undefined;
  method: string;
  /** Path of the request, without query string or host. */
  path: string;
  /** Attempts made, retries included. */
  attempts?: number;
  cause?: unknown;
};

/** A request to the API failed. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ApiErrorCode;
  readonly shortMessage: string;
  readonly status: number | undefined;
  readonly details: WraithErrorDetail[];
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;

  constructor(params: ApiErrorParameters) {
    const details = params.details ?? [];
    const lines = [
      params.shortMessage,
      '',
      `Request: ${params.method} ${params.path}`,
      ...(params.status === undefined ? [] : [`Status: ${params.status} ${params.code}`]),
      ...details.map((d) => `Detail: ${d.path}: ${d.issue}`),
      ...(params.requestId === undefined ? [] : [`Request id: ${params.requestId}`]),
    ];
    super(lines.join('\n'), params.cause === undefined ? undefined : { cause: params.cause });
    this.code = params.code;
    this.shortMessage = params.shortMessage;
    this.status = params.status;
    this.details = details;
    this.requestId = params.requestId;
    this.retryAfterMs = params.retryAfterMs;
    this.method = params.method;
    this.path = params.path;
    this.attempts = params.attempts ?? 1;
  }
}

/** No answer within the timeout (`timeoutMs`). Not retried: the server may still be working. */
export class TimeoutError extends ApiError {
  override name = 'TimeoutError';
  constructor(params: { method: string; path: string; timeoutMs: number; attempts?: number }) {
    super({
      code: 'TIMEOUT',
      shortMessage: `No answer within ${params.timeoutMs} ms.`,
      method: params.method,
      path: params.path,
      ...(params.attempts === undefined ? {} : { attempts: params.attempts }),
    });
  }
}

/** `fetch` itself failed: the server is unreachable, the connection broke, or CORS refused. */
export class NetworkError extends ApiError {
  override name = 'NetworkError';
  constructor(params: { method: string; path: string; cause: unknown; attempts?: number }) {
    super({
      code: 'NETWORK_ERROR',
      shortMessage: 'The request did not reach the server (network error).',
      method: params.method,
      path: params.path,
      cause: params.cause,
      ...(params.attempts === undefined ? {} : { attempts: params.attempts }),
    });
  }
}

/** Whether `error` is an {@link ApiError} (also across two copies of the SDK). */
export function isApiError(error: unknown): error is ApiError {
  return (
    error instanceof ApiError ||
    (error instanceof Error && typeof (error as Partial<ApiError>).code === 'string' && 'requestId' in error && 'method' in error)
  );
}
