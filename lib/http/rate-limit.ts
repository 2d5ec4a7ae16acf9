/**
 * Per-client token bucket (API.md "Cross-cutting behaviour"): each client holds up to `burst`
 * tokens, refilled continuously at `rate` per second; a request spends one. Defaults 10/s with a
 * burst of 30. When the bucket is empty the answer says how long until the next token, which
 * becomes `Retry-After`.
 *
 * Memory is bounded: buckets are kept in least-recently-used order and the oldest are dropped
 * beyond `maxClients`. A dropped client starts again with a full bucket, the same state an idle
 * client reaches anyway after `burst / rate` seconds.
 */

/**
 * `unavailable`: the limiter could not decide (its shared store is down) and is configured to
 * refuse rather than guess (`RATE_LIMIT_FAIL_OPEN=false`): answered 503, not 429.
 */
export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; unavailable?: true };

/** A per-client limit: this in-process bucket, or the shared one (lib/ratelimit/shared.ts). */
export interface RateLimiter {
  /** Spend one token of `client`'s bucket if it has one. */
  take(client: string): RateLimitDecision | Promise<RateLimitDecision>;
}

export type TokenBucketOptions = {
  /** Tokens per second (> 0). */
  rate: number;
  /** Bucket capacity (>= 1). */
  burst: number;
  /** Most clients tracked at once. */
  maxClients?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
};

type Bucket = { tokens: number; updatedMs: number };

export class TokenBucketLimiter implements RateLimiter {
  readonly #rate: number;
  readonly #burst: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor({ rate, burst, maxClients = 100_000, now = () => performance.now() }: TokenBucketOptions) {
    if (!(rate > 0) || !(burst >= 1)) throw new RangeError('rate must be > 0 and burst >= 1');
    this.#rate = rate;
    this.#burst = burst;
    this.#maxClients = maxClients;
    this.#now = now;
  }

  /** Spend one token of `client`'s bucket if it has one. */
  take(client: string): RateLimitDecision {
    const nowMs = this.#now();
    const bucket = this.#buckets.get(client) ?? { tokens: this.#burst, updatedMs: nowMs };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * this.#rate);
    bucket.updatedMs = nowMs;
    // Re-insert: Map iteration order is insertion order, so the first key is the least recent.
    this.#buckets.delete(client);
    this.#buckets.set(client, bucket);
    if (this.#buckets.size > this.#maxClients) this.#buckets.delete(this.#buckets.keys().next().value!);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#rate)) };
  }

  /** Number of clients currently tracked. */
  get size(): number {
    return this.#buckets.size;
  }
}
