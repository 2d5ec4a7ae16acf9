/**
 * The process's rate limiter, one per process whichever route chunk asks (singleton.ts).
 * `RATE_LIMIT_RPS=0` disables it. With `UPSTASH_REDIS_REST_URL` / `_TOKEN` set, the buckets
 * live in Redis and every instance shares them (lib/ratelimit/shared.ts, which also explains
 * `RATE_LIMIT_FAIL_OPEN`); otherwise they live in this process (lib/http/rate-limit.ts).
 */
import { log } from '../http/log.ts';
import { TokenBucketLimiter, type RateLimiter } from '../http/rate-limit.ts';
import { createSharedRateLimiter } from '../ratelimit/shared.ts';
import { getConfig } from './config.ts';
import { processSingleton } from './singleton.ts';

/** The limiter, or null when rate limiting is disabled. */
export function getRateLimiter(): RateLimiter | null {
  return processSingleton('rateLimiter', () => {
    const config = getConfig();
    if (config.rateLimitRps === 0) return null;
    const local = new TokenBucketLimiter({ rate: config.rateLimitRps, burst: config.rateLimitBurst });
    if (config.upstash === undefined) return local;
    const failOpen = config.rateLimitFailOpen;
    return createSharedRateLimiter({
      ...config.upstash,
      rate: config.rateLimitRps,
      burst: config.rateLimitBurst,
      failOpen,
      timeoutMs: config.rateLimitTimeoutMs,
      fallback: local,
      onStoreChange: (event) =>
        event.available
          ? log('info', 'rate limit store available again: the shared limit applies')
          : log('warn', 'rate limit store unavailable', {
              code: event.code,
              // RATE_LIMIT_FAIL_OPEN says which; both are deliberate (lib/ratelimit/shared.ts).
              behaviour: failOpen ? 'fail open: per-instance limit' : 'fail closed: 503',
            }),
    });
  });
}
