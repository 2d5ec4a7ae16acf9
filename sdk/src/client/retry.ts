/**
 * When and how long to wait before retrying a request.
 *
 * Only safe methods (GET, HEAD) are retried: a POST that timed out or failed with 503 may have
 * taken effect, and repeating it could publish twice. Retried answers are the transient ones:
 * 429 (rate limited), 502, 503, 504, and network errors. The wait is the server's
 * `Retry-After` when it sends one (RFC 9110 section 10.2.3: seconds or an HTTP date), else
 * exponential backoff with full jitter (delay drawn from [0, min(cap, base * 2^attempt)]), so
 * many clients retrying at once spread out instead of arriving together.
 * @module
 */
import type { ApiError } from './errors.ts';

export type RetryOptions = {
  /** Retries after the first attempt (default 2). */
  retries?: number;
  /** First backoff step in ms (default 250). */
  baseDelayMs?: number;
  /** Largest backoff step in ms (default 8000). */
  maxDelayMs?: number;
  /**
   * Longest `Retry-After` the client waits for, in ms (default 30000). A server asking for
   * more is answered with the error (its `retryAfterMs` says how long), not a long silent wait.
   */
  maxRetryAfterMs?: number;
  /** Called before each wait: log it, or show "retrying in 2 s". */
  onRetry?: (event: RetryEvent) => void;
};

export type RetryEvent = {
  /** The retry about to be made: 1 for the first retry. */
  retry: number;
  /** How long the client waits before it. */
  delayMs: number;
  /** What failed. */
  error: ApiError;
};

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export const DEFAULT_RETRY: Required<Omit<RetryOptions, 'onRetry'>> = {
  retries: 2,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  maxRetryAfterMs: 30_000,
};

/** Whether a request with this method may be sent again. */
export function isRetryableMethod(method: string): boolean {
  return SAFE_METHODS.has(method.toUpperCase());
}

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP date (relative to `now`);
 * `undefined` when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month; without letters Date.parse would read "-1" as a year.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Backoff before retry number `retry` (1-based) when the server gave no `Retry-After`. */
export function backoffDelay(retry: number, options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'> = {}, random: () => number = Math.random): number {
  const base = options.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs;
  const cap = options.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  return Math.floor(random() * Math.min(cap, base * 2 ** (retry - 1)));
}

/** Wait `ms`, or reject with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
