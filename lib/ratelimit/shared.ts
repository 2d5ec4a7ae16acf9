/**
 * The rate limit shared by every instance (API.md "Cross-cutting behaviour"): with
 * `UPSTASH_REDIS_REST_URL` / `UPSTASH_REDIS_REST_TOKEN` set, each client's token bucket lives
 * in Redis behind the Upstash REST API and is spent through `@upstash/ratelimit`, so a client
 * spreading requests over N instances gets one budget, not N.
 *
 * Same bucket as the in-process limiter (lib/http/rate-limit.ts): `burst` tokens, refilled at
 * `rate` per second. Upstash's token bucket refills in steps (`refill` tokens every `interval`),
 * so the rate becomes one token every 1000 / rate ms (10/s: one every 100 ms), rounded to whole
 * milliseconds; above 1000/s, several tokens per millisecond.
 *
 * When the store fails (error, or no answer within `timeoutMs`) the choice is the operator's,
 * `RATE_LIMIT_FAIL_OPEN`:
 * - true (default): availability of payments beats strict limiting. The request is served
 *   under this instance's in-process bucket with the same rate and burst, so a client is still
 *   limited per instance (at most N times its budget across N instances) while the store is down.
 * - false: the request is refused with 503 (decision `unavailable`), never served unlimited.
 * Either way one warning is logged when the store goes down and one line when it is back. After
 * a failure the store is left alone for {@link RETRY_STORE_AFTER_MS}, so an outage does not add
 * a timeout to every request.
 */
import { Ratelimit, type Duration } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis';
import type { RateLimitDecision, RateLimiter } from '../http/rate-limit.ts';

/** How long a failed store is bypassed before it is tried again. */
export const RETRY_STORE_AFTER_MS = 2_000;

/** Redis key prefix of the buckets. */
export const RATE_LIMIT_PREFIX = 'wraith:ratelimit';

export type SharedRateLimiterOptions = {
  /** Upstash REST endpoint and token. */
  url: string;
  token: string;
  /** Tokens per second (> 0) and bucket capacity (>= 1). */
  rate: number;
  burst: number;
  /** Serve with `fallback` when the store fails (true) or refuse (false). */
  failOpen: boolean;
  /** Longest wait for the store per request, ms. */
  timeoutMs: number;
  /** The in-process bucket used while the store is down and failing open. */
  fallback: RateLimiter;
  /** Told when the store goes down (with an error code, never a value) and when it is back. */
  onStoreChange?: (event: { available: false; code: string } | { available: true }) => void;
};

/** Upstash token-bucket parameters for `rate` tokens per second. */
export function upstashRefill(rate: number): { refill: number; interval: Duration } {
  const intervalMs = Math.max(1, Math.round(1000 / rate));
  return { refill: Math.max(1, Math.round((rate * intervalMs) / 1000)), interval: `${intervalMs} ms` };
}

/**
 * Create the shared limiter.
 * @example
 * const limiter = createSharedRateLimiter({ url, token, rate: 10, burst: 30, failOpen: true, timeoutMs: 1000,
 *   fallback: new TokenBucketLimiter({ rate: 10, burst: 30 }) });
 * const decision = await limiter.take('203.0.113.7');
 */
export function createSharedRateLimiter(options: SharedRateLimiterOptions): RateLimiter {
  return new SharedRateLimiter(options);
}

class SharedRateLimiter implements RateLimiter {
  readonly #options: SharedRateLimiterOptions;
  readonly #ratelimit: Ratelimit;
  /** While `Date.now()` is below this, the store counts as down. */
  #downUntil = 0;
  #down = false;

  constructor(options: SharedRateLimiterOptions) {
    this.#options = options;
    const redis = new Redis({
      url: options.url,
      token: options.token,
      // One attempt: a retry loop would hold the request for seconds during an outage.
      retry: { retries: 0 },
      enableTelemetry: false,
      signal: () => AbortSignal.timeout(options.timeoutMs),
    });
    const { refill, interval } = upstashRefill(options.rate);
    this.#ratelimit = new Ratelimit({
      redis,
      limiter: Ratelimit.tokenBucket(refill, interval, options.burst),
      prefix: RATE_LIMIT_PREFIX,
      // Its local cache of blocked clients would let instances disagree; its own timeout
      // would silently allow (we decide what a timeout means: the fail-open setting).
      ephemeralCache: false,
      timeout: 0,
      analytics: false,
    });
  }

  async take(client: string): Promise<RateLimitDecision> {
    if (Date.now() < this.#downUntil) return this.#withoutStore(client);
    let result: Awaited<ReturnType<Ratelimit['limit']>>;
    try {
      result = await withTimeout(this.#ratelimit.limit(client), this.#options.timeoutMs);
    } catch (error) {
      this.#downUntil = Date.now() + RETRY_STORE_AFTER_MS;
      if (!this.#down) {
        this.#down = true;
        this.#options.onStoreChange?.({ available: false, code: errorCode(error) });
      }
      return this.#withoutStore(client);
    }
    if (this.#down) {
      this.#down = false;
      this.#options.onStoreChange?.({ available: true });
    }
    if (result.success) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((result.reset - Date.now()) / 1000)) };
  }

  #withoutStore(client: string): RateLimitDecision | Promise<RateLimitDecision> {
    if (this.#options.failOpen) return this.#options.fallback.take(client);
    const retryAfterSeconds = Math.max(1, Math.ceil((this.#downUntil - Date.now()) / 1000));
    return { allowed: false, retryAfterSeconds, unavailable: true };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'TIMEOUT' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A code for the log: Upstash errors quote the command (with the client's address), so their
 * messages are never logged.
 */
function errorCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'unknown error';
}
