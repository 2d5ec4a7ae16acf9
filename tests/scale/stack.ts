/**
 * The scaled-out deployment, on loopback: N `node server.mjs` instances sharing one PostgreSQL
 * registry and, optionally, one Redis behind the Upstash REST front for the shared rate limit.
 * Each suite starts its own stack and tears it down; every process is started here and stopped
 * by `stop()`.
 */
import { randomBytes } from 'node:crypto';
import { startPostgres, type PostgresCluster } from '../helpers/postgres.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';
import { http, startServer, type HttpResult, type RunningServer } from '../helpers/server.ts';
import { startUpstashFront, type UpstashFront } from '../helpers/upstash-front.ts';

export type Stack = {
  postgres: PostgresCluster;
  redis: RedisServer | undefined;
  front: UpstashFront | undefined;
  servers: RunningServer[];
  /** Start one more instance on the same services. */
  addServer(env?: Record<string, string>): Promise<RunningServer>;
  stop(): Promise<void>;
};

export type StackOptions = {
  instances: number;
  /** Share the rate limit through Redis (else RATE_LIMIT_RPS=0 unless `env` says otherwise). */
  sharedRateLimit?: boolean;
  env?: Record<string, string>;
};

export async function startStack({ instances, sharedRateLimit = false, env = {} }: StackOptions): Promise<Stack> {
  const postgres = await startPostgres();
  const redis = sharedRateLimit ? await startRedis() : undefined;
  const front = redis === undefined ? undefined : await startUpstashFront({ redisPort: redis.port });
  const baseEnv: Record<string, string> = {
    REGISTRY_URL: postgres.url(),
    LOG_LEVEL: 'info',
    ...(front === undefined
      ? { RATE_LIMIT_RPS: '0' }
      : { UPSTASH_REDIS_REST_URL: front.url, UPSTASH_REDIS_REST_TOKEN: front.token }),
    ...env,
  };
  const servers: RunningServer[] = [];
  const addServer = async (extra: Record<string, string> = {}) => {
    const server = await startServer({ env: { ...baseEnv, ...extra } });
    servers.push(server);
    return server;
  };
  try {
    // One at a time: both run the migrations at start-up; the advisory lock makes that safe
    // either way, and starting sequentially keeps the two cores free for each boot.
    for (let i = 0; i < instances; i++) await addServer();
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await front?.close();
    await redis?.kill();
    postgres.destroy();
    throw error;
  }
  return {
    postgres,
    redis,
    front,
    servers,
    addServer,
    async stop() {
      await Promise.all(servers.map((server) => server.stop('SIGKILL')));
      await front?.close();
      await redis?.kill();
      postgres.destroy();
    },
  };
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A valid publish body with a random ciphertext (the registry does not decapsulate). */
export function announcementBody(txHash: string, viewTag = 7): Record<string, unknown> {
  return { ephemeral_key: randomHex(1088), view_tag: viewTag, tx_hash: txHash };
}

export function publish(server: RunningServer, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<HttpResult> {
  return http(server, '/api/v1/registry/announcements', { body, headers });
}

/** Every announcement in the registry, walked with the after_id cursor. */
export async function listAll(server: RunningServer): Promise<{ id: number; tx_hash: string }[]> {
  const all: { id: number; tx_hash: string }[] = [];
  let afterId = 0;
  for (;;) {
    const page = await http(server, `/api/v1/registry/announcements?limit=1000&after_id=${afterId}`);
    if (page.status !== 200) throw new Error(`list answered ${page.status}: ${page.text}`);
    const rows = page.json.announcements as { id: number; tx_hash: string }[];
    if (rows.length === 0) return all;
    all.push(...rows.map(({ id, tx_hash }) => ({ id, tx_hash })));
    afterId = rows[rows.length - 1]!.id;
  }
}

/** What one publish under load came to: a status and body, or a connection failure. */
export type Outcome = { txHash: string; at: number; ms: number; status?: number; code?: string; id?: number; contentType?: string; failed?: string };

/**
 * Publish unique announcements from `concurrency` loops, round-robin over `targets`, until
 * `stop()` says so. Connection failures (a killed instance) are outcomes, not exceptions.
 */
export async function publishUnderLoad(
  targets: () => RunningServer[],
  { concurrency, stop, prefix, progress }: { concurrency: number; stop: () => boolean; prefix: string; /** Filled as outcomes arrive: tests wait on it rather than on fixed sleeps, which a loaded machine outruns. */ progress?: Outcome[] },
): Promise<Outcome[]> {
  const outcomes: Outcome[] = progress ?? [];
  let next = 0;
  const loop = async () => {
    while (!stop()) {
      const n = next++;
      const servers = targets();
      const server = servers[n % servers.length]!;
      const txHash = `0x${prefix}${n.toString(16).padStart(6, '0')}`;
      const started = performance.now();
      try {
        const response = await publish(server, announcementBody(txHash, n % 256));
        outcomes.push({
          txHash,
          at: started,
          ms: performance.now() - started,
          status: response.status,
          code: response.json?.error?.code,
          id: response.json?.id,
          contentType: response.headers.get('content-type') ?? '',
        });
      } catch (error) {
        outcomes.push({ txHash, at: started, ms: performance.now() - started, failed: error instanceof Error ? error.message : String(error) });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return outcomes;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
