/**
 * A small HTTP front that speaks the Upstash Redis REST protocol to a real local Redis, so the
 * shared rate limit (lib/ratelimit/shared.ts, `@upstash/redis` + `@upstash/ratelimit`) runs
 * against real Redis in tests, with no network.
 *
 * The protocol, as `@upstash/redis` uses it:
 * - `Authorization: Bearer <token>` on every request (401 otherwise);
 * - `POST /` with a JSON array `["EVALSHA", "<sha>", 1, "key", ...]`: one command, answered
 *   `{"result": ...}`, or HTTP 400 `{"error": "ERR ..."}` for an error reply;
 * - `POST /pipeline` with an array of commands: `[{"result": ...} | {"error": ...}, ...]`;
 * - `POST /multi-exec`: the same, run atomically between MULTI and EXEC;
 * - `Upstash-Encoding: base64`: every string in a result is base64 (integers and nulls stay).
 *
 * Redis 7.0 rejects the `#!lua flags=allow-key-locking` first line that `@upstash/ratelimit`
 * 2.1+ puts on its scripts (TOOLCHAIN.md), so the front strips such a line from EVAL and SCRIPT
 * LOAD scripts, and maps the SHA-1 the client computed over the original text to the SHA-1 of
 * what Redis stored, in both directions (EVALSHA in, SCRIPT LOAD out).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { RespConnection, RespError, type RespValue } from './redis.ts';

export type UpstashFront = {
  /** Base URL for `UPSTASH_REDIS_REST_URL`. */
  url: string;
  token: string;
  /** Commands received so far (all endpoints). */
  commands(): number;
  close(): Promise<void>;
};

type Argument = string | number | Buffer;

const SHEBANG = /^#![^\n]*\n/;

/** Start the front on a free loopback port, forwarding to Redis on `redisPort`. */
export async function startUpstashFront({ redisPort, token = 'test-upstash-token' }: { redisPort: number; token?: string }): Promise<UpstashFront> {
  const redis = new RespConnection(redisPort);
  /** Client-side SHA-1 (over the script as sent) → SHA-1 of the script Redis stored. */
  const shas = new Map<string, string>();
  let received = 0;

  /** Rewrite one command for Redis 7.0; returns it and how to map its result back. */
  const translate = (command: Argument[]): { args: Argument[]; reply?: (value: RespValue) => RespValue } => {
    const name = String(command[0] ?? '').toUpperCase();
    if ((name === 'EVAL' || name === 'EVAL_RO') && typeof command[1] === 'string') {
      const stored = remember(command[1]);
      return { args: [command[0]!, stored, ...command.slice(2)] };
    }
    if ((name === 'EVALSHA' || name === 'EVALSHA_RO') && typeof command[1] === 'string') {
      return { args: [command[0]!, shas.get(command[1].toLowerCase()) ?? command[1], ...command.slice(2)] };
    }
    if (name === 'SCRIPT' && String(command[1]).toUpperCase() === 'LOAD' && typeof command[2] === 'string') {
      const original = command[2];
      remember(original);
      return { args: [command[0]!, command[1]!, original.replace(SHEBANG, '')], reply: () => sha1(original) };
    }
    return { args: command };
  };

  const remember = (script: string): string => {
    const stripped = script.replace(SHEBANG, '');
    shas.set(sha1(script), sha1(stripped));
    return stripped;
  };

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      // Redis unreachable: Upstash answers such failures with a JSON error and a 5xx status.
      send(response, 500, { error: `ERR front: ${error instanceof Error ? error.message : String(error)}` });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const auth = request.headers.authorization ?? '';
    if (auth !== `Bearer ${token}`) return send(response, 401, { error: 'Unauthorized' });
    const base64 = String(request.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    const body = JSON.parse(await readBody(request)) as unknown;
    const path = (request.url ?? '/').split('?')[0];
    const encode = (value: RespValue): unknown => encodeResult(value, base64);
    if (path === '/' || path === '') {
      if (!isCommand(body)) return send(response, 400, { error: 'ERR the body must be a JSON array command' });
      received++;
      const { args, reply } = translate(body.map(argument));
      const value = await redis.command(args);
      if (value instanceof RespError) return send(response, 400, { error: value.message });
      return send(response, 200, { result: encode(reply ? reply(value) : value) });
    }
    if (path === '/pipeline' || path === '/multi-exec') {
      if (!Array.isArray(body) || !body.every(isCommand)) return send(response, 400, { error: 'ERR the body must be an array of commands' });
      received += body.length;
      const translated = body.map((command) => translate(command.map(argument)));
      let values: RespValue[];
      if (path === '/pipeline') {
        values = await redis.batch(translated.map((t) => t.args));
      } else {
        const replies = await redis.batch([['MULTI'], ...translated.map((t) => t.args), ['EXEC']]);
        const exec = replies[replies.length - 1];
        if (!Array.isArray(exec)) {
          const queued = replies.find((r): r is RespError => r instanceof RespError);
          return send(response, 400, { error: (exec instanceof RespError ? exec : queued)?.message ?? 'EXECABORT Transaction discarded' });
        }
        values = exec;
      }
      return send(
        response,
        200,
        values.map((value, i) => {
          if (value instanceof RespError) return { error: value.message };
          const reply = translated[i]?.reply;
          return { result: encode(reply ? reply(value) : value) };
        }),
      );
    }
    return send(response, 404, { error: 'ERR unknown endpoint' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    commands: () => received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      redis.close();
    },
  };
}

function isCommand(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length > 0;
}

/** JSON arguments as Redis sees them: numbers and booleans as their text, null as empty. */
function argument(value: unknown): Argument {
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function encodeResult(value: RespValue, base64: boolean): unknown {
  if (value === null || typeof value === 'number') return value;
  if (Array.isArray(value)) return value.map((item) => encodeResult(item, base64));
  if (value instanceof RespError) return value.message;
  const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value);
  return base64 ? bytes.toString('base64') : bytes.toString('utf8');
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
