/**
 * One HTTP exchange with the API, with everything around it: the API key header, a timeout per
 * attempt, the caller's `AbortSignal`, retries of safe requests (./retry.ts) and the mapping of
 * error answers to {@link ApiError}. The body is read inside the attempt, so the timeout and
 * the signal also cover a slow body.
 * @module
 */
import { bytesToHex } from '../bytes.ts';
import { ApiError, NetworkError, TimeoutError } from './errors.ts';
import { backoffDelay, DEFAULT_RETRY, isRetryableMethod, parseRetryAfter, RETRY_STATUSES, sleep, type RetryOptions } from './retry.ts';

/** Options every client call takes as its last argument. */
export type CallOptions = {
  /** Cancel the call (and any wait before a retry); it then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Milliseconds each attempt may take, body included (default: the client's `timeoutMs`). */
  timeoutMs?: number;
  /** Retry policy for this call, or `false` for none. Applies to GET/HEAD only. */
  retry?: RetryOptions | false;
  /** Sent as `x-request-id`; the server echoes it and logs it. */
  requestId?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
};

export type TransportConfig = {
  baseUrl: string;
  apiKey?: string | undefined;
  fetch: typeof fetch;
  timeoutMs: number;
  retry: RetryOptions | false;
  headers: Record<string, string>;
};

export type RequestSpec = {
  method: 'GET' | 'HEAD' | 'POST';
  /** Path below the base URL, e.g. `/api/v1/registry/stats`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** Sent as JSON; `Uint8Array` values become lowercase hex. */
  body?: unknown;
  /** `Accept` header (default `application/json`). */
  accept?: string;
  /** Non-2xx statuses that are answers, not errors (e.g. 503 of a degraded /health). */
  okStatuses?: readonly number[];
};

/** A successful answer, body read. */
export type RawResponse = { status: number; headers: Headers; body: Uint8Array };

/** The request core shared by every call of a client. */
export type Transport = {
  readonly config: TransportConfig;
  request(spec: RequestSpec, options?: CallOptions): Promise<RawResponse>;
  requestJson<T>(spec: RequestSpec, options?: CallOptions): Promise<T>;
};

const decoder = new TextDecoder();

function jsonReplacer(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? bytesToHex(value) : value;
}

function buildUrl(baseUrl: string, spec: RequestSpec): string {
  const url = new URL(baseUrl.replace(/\/+$/, '') + spec.path);
  for (const [name, value] of Object.entries(spec.query ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    url.searchParams.set(name, value === true ? '' : String(value));
  }
  return url.toString();
}

function errorFromAnswer(answer: RawResponse, spec: RequestSpec, attempts: number): ApiError {
  const requestId = answer.headers.get('x-request-id') ?? undefined;
  const retryAfterMs = parseRetryAfter(answer.headers.get('retry-after'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(answer.body));
  } catch {
    parsed = undefined;
  }
  const error = (parsed as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  const base = { status: answer.status, requestId, retryAfterMs, method: spec.method, path: spec.path, attempts };
  if (typeof error?.code !== 'string') {
    return new ApiError({ ...base, code: 'HTTP_ERROR', shortMessage: `The server answered HTTP ${answer.status} without an API error body.` });
  }
  const details = Array.isArray(error.details)
    ? error.details.filter((d): d is { path: string; issue: string } => typeof d?.path === 'string' && typeof d?.issue === 'string').map(({ path, issue }) => ({ path, issue }))
    : [];
  return new ApiError({
    ...base,
    code: error.code,
    shortMessage: typeof error.message === 'string' ? error.message : `The server answered ${error.code}.`,
    details,
  });
}

/** Create the transport of a client. */
export function createTransport(config: TransportConfig): Transport {
  async function attempt(spec: RequestSpec, options: CallOptions, attempts: number): Promise<RawResponse> {
    const timeoutMs = options.timeoutMs ?? config.timeoutMs;
    const controller = new AbortController();
    const signal = options.signal;
    let timedOut = false;
    const onAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const headers: Record<string, string> = { accept: spec.accept ?? 'application/json', ...config.headers, ...options.headers };
    if (options.requestId !== undefined) headers['x-request-id'] = options.requestId;
    // Reads are public; the key goes only where the server asks for it (API.md: non-GET/HEAD).
    if (config.apiKey !== undefined && !isRetryableMethod(spec.method)) headers['x-api-key'] = config.apiKey;
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body, jsonReplacer);
      headers['content-type'] = 'application/json';
    }
    try {
      const response = await config.fetch(buildUrl(config.baseUrl, spec), {
        method: spec.method,
        headers,
        signal: controller.signal,
        ...(body === undefined ? {} : { body }),
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, headers: response.headers, body: bytes };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) throw new TimeoutError({ method: spec.method, path: spec.path, timeoutMs, attempts });
      throw new NetworkError({ method: spec.method, path: spec.path, cause: error, attempts });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async function request(spec: RequestSpec, options: CallOptions = {}): Promise<RawResponse> {
    const policy = options.retry ?? config.retry;
    const retries = policy === false || !isRetryableMethod(spec.method) ? 0 : (policy.retries ?? DEFAULT_RETRY.retries);
    for (let attempts = 1; ; attempts++) {
      options.signal?.throwIfAborted();
      let error: ApiError;
      try {
        const answer = await attempt(spec, options, attempts);
        if ((answer.status >= 200 && answer.status < 300) || spec.okStatuses?.includes(answer.status)) return answer;
        error = errorFromAnswer(answer, spec, attempts);
        if (error.status === undefined || !RETRY_STATUSES.has(error.status)) throw error;
      } catch (thrown) {
        if (!(thrown instanceof NetworkError)) throw thrown;
        error = thrown;
      }
      if (policy === false || attempts > retries) throw error;
      const delayMs = error.retryAfterMs ?? backoffDelay(attempts, policy);
      if (delayMs > (policy.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs)) throw error;
      policy.onRetry?.({ retry: attempts, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }

  async function requestJson<T>(spec: RequestSpec, options?: CallOptions): Promise<T> {
    const answer = await request(spec, options);
    try {
      return JSON.parse(decoder.decode(answer.body)) as T;
    } catch (cause) {
      throw new ApiError({
        code: 'INVALID_RESPONSE',
        shortMessage: 'The server answered with a body that is not JSON.',
        status: answer.status,
        requestId: answer.headers.get('x-request-id') ?? undefined,
        method: spec.method,
        path: spec.path,
        cause,
      });
    }
  }

  return { config, request, requestJson };
}
