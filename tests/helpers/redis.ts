/**
 * A real Redis for tests (TOOLCHAIN.md "Real services"): `redis-server` on a free loopback port,
 * no persistence, run as a child process so a test can kill it (an outage) and start it again;
 * and a minimal RESP2 client, enough for tests/helpers/upstash-front.ts and assertions.
 *
 * Without the binary the suites that need it skip with {@link REDIS_MISSING}, unless
 * `REQUIRE_SERVICES=1` (.ci/run): then {@link redisOrSkip} throws and the suite fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { servicesRequired } from './postgres.ts';
import { freePort } from './server.ts';

const CANDIDATES = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'];

/** Path of redis-server, or undefined when Redis is not installed. */
export const REDIS_SERVER = CANDIDATES.find((path) => existsSync(path));

export const REDIS_MISSING = `redis-server not found in ${CANDIDATES.join(' or ')} (apt-get install redis-server; .ci/run does)`;

/** Whether Redis suites can run; throws when Redis is absent and REQUIRE_SERVICES=1. */
export function redisOrSkip(): boolean {
  if (REDIS_SERVER !== undefined) return true;
  if (servicesRequired()) throw new Error(`REQUIRE_SERVICES=1 but ${REDIS_MISSING}.`);
  console.warn(`skipping Redis tests: ${REDIS_MISSING}`);
  return false;
}

export type RedisServer = {
  port: number;
  /** Kill the server (SIGKILL: an outage, not a shutdown) and wait for it to exit. */
  kill(): Promise<void>;
  /** Start it again on the same port (empty: nothing is persisted). */
  start(): Promise<void>;
};

/** Start redis-server on a free port and wait until it answers PING. */
export async function startRedis(): Promise<RedisServer> {
  if (REDIS_SERVER === undefined) throw new Error(REDIS_MISSING);
  const binary = REDIS_SERVER;
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], {
      stdio: 'ignore',
    });
    const current = child;
    process.once('exit', () => current.kill('SIGKILL'));
    await waitForPing(port);
  };
  await start();
  return {
    port,
    async kill() {
      const current = child;
      child = undefined;
      if (current === undefined || current.exitCode !== null) return;
      const exited = new Promise((resolve) => current.once('exit', resolve));
      current.kill('SIGKILL');
      await exited;
    },
    start,
  };
}

async function waitForPing(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const connection = new RespConnection(port);
    try {
      if ((await connection.command(['PING'])) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      connection.close();
    }
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An error reply (`-ERR ...`), returned in place (pipelines carry one per command). */
export class RespError {
  constructor(readonly message: string) {}
}

/** A decoded RESP2 reply: bulk strings stay bytes so callers choose UTF-8 or base64. */
export type RespValue = string | number | Buffer | null | RespError | RespValue[];

type Pending = { resolve: (value: RespValue) => void; reject: (error: Error) => void };

/**
 * One connection to Redis with pipelining: commands are written as they come and replies are
 * matched in order. A command batch is written in one piece, so MULTI ... EXEC stays contiguous
 * even when other callers share the connection. When the socket fails, every pending command
 * rejects and the next command opens a new connection.
 */
export class RespConnection {
  readonly #port: number;
  #socket: Socket | undefined;
  #buffer = Buffer.alloc(0);
  readonly #pending: Pending[] = [];

  constructor(port: number) {
    this.#port = port;
  }

  command(args: readonly (string | number | Buffer)[]): Promise<RespValue> {
    return this.batch([args]).then((replies) => replies[0] ?? null);
  }

  /** Send several commands in one write; resolves with their replies in order. */
  batch(commands: readonly (readonly (string | number | Buffer)[])[]): Promise<RespValue[]> {
    const socket = this.#connect();
    const replies = commands.map(
      () => new Promise<RespValue>((resolve, reject) => this.#pending.push({ resolve, reject })),
    );
    socket.write(Buffer.concat(commands.map(encodeCommand)));
    return Promise.all(replies);
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  #connect(): Socket {
    if (this.#socket !== undefined && !this.#socket.destroyed) return this.#socket;
    const socket = connect(this.#port, '127.0.0.1');
    socket.setNoDelay(true);
    this.#buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      for (;;) {
        const parsed = parseReply(this.#buffer, 0);
        if (parsed === undefined) break;
        this.#buffer = this.#buffer.subarray(parsed.end);
        this.#pending.shift()?.resolve(parsed.value);
      }
    });
    const fail = (error: Error) => {
      if (this.#socket === socket) this.#socket = undefined;
      for (const pending of this.#pending.splice(0)) pending.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection to redis closed')));
    this.#socket = socket;
    return socket;
  }
}

function encodeCommand(args: readonly (string | number | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** One reply starting at `start`, or undefined when the buffer does not hold all of it yet. */
function parseReply(buffer: Buffer, start: number): { value: RespValue; end: number } | undefined {
  const lineEnd = buffer.indexOf('\r\n', start);
  if (lineEnd === -1) return undefined;
  const type = String.fromCharCode(buffer[start]!);
  const line = buffer.toString('utf8', start + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
      return { value: line, end: next };
    case '-':
      return { value: new RespError(line), end: next };
    case ':':
      return { value: Number(line), end: next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: Buffer.from(buffer.subarray(next, next + length)), end: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: RespValue[] = [];
      let offset = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, offset);
        if (item === undefined) return undefined;
        items.push(item.value);
        offset = item.end;
      }
      return { value: items, end: offset };
    }
    default:
      throw new Error(`unexpected RESP reply type ${JSON.stringify(type)}`);
  }
}
