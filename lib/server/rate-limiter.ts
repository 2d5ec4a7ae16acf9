/**
 * The process's rate-limit buckets (lib/http/rate-limit.ts), one set per process whichever
 * route chunk asks (singleton.ts). `RATE_LIMIT_RPS=0` disables the limit.
 *
 * The Upstash-backed shared limit of API.md (several instances) is not wired yet; with
 * `UPSTASH_REDIS_REST_*` set the in-process limit still applies per instance.
 */
import { TokenBucketLimiter } from '../http/rate-limit.ts';
import { getConfig } from './config.ts';
import { processSingleton } from './singleton.ts';

/** The limiter, or null when rate limiting is disabled. */
export function getRateLimiter(): TokenBucketLimiter | null {
  return processSingleton('rateLimiter', () => {
    const { rateLimitRps, rateLimitBurst } = getConfig();
    return rateLimitRps === 0 ? null : new TokenBucketLimiter({ rate: rateLimitRps, burst: rateLimitBurst });
  });
}
