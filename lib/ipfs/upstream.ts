/**
 * Upstream failures as API.md states them: 502 UPSTREAM_ERROR when a name-service RPC, the
 * pinning service or the gateway fails, 504 UPSTREAM_TIMEOUT when it does not answer within
 * `UPSTREAM_TIMEOUT_MS`.
 *
 * Messages name the service and, at most, the HTTP status. Never the URL (RPC URLs often carry
 * an API key), a token, or the upstream body: those would reach the client or the log. The
 * `cause` attached for the log line is a one-line summary built here, not the library error.
 */
import { HttpError } from '../http/errors.ts';

/** Services this server calls. */
export type UpstreamService = 'pinning service' | 'IPFS gateway' | 'Ethereum RPC' | 'Sui RPC' | 'chain RPC';

/** What the log line gets instead of the raw upstream error. */
export class UpstreamFault extends Error {
  override name = 'UpstreamFault';
}

/** 502 UPSTREAM_ERROR: "The <service> <problem>." `summary` goes to the log only. */
export function upstreamError(service: UpstreamService, problem: string, summary: string = problem): HttpError {
  return new HttpError(502, 'UPSTREAM_ERROR', `The ${service} ${problem}; retry later, or check the server's configuration if it persists.`, {
    cause: new UpstreamFault(`${service}: ${summary}`),
  });
}

/** 504 UPSTREAM_TIMEOUT. */
export function upstreamTimeout(service: UpstreamService, timeoutMs: number): HttpError {
  return new HttpError(504, 'UPSTREAM_TIMEOUT', `The ${service} did not answer within ${timeoutMs} ms (UPSTREAM_TIMEOUT_MS); retry later.`, {
    cause: new UpstreamFault(`${service}: timeout after ${timeoutMs} ms`),
  });
}

/** True for the error an aborted-by-timeout fetch or body read rejects with. */
export function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || (error.name === 'AbortError' && isTimeout(error.cause)));
}

/** The error name of a failure, for a log summary (never its message, which may hold a URL). */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/**
 * `fetch` with the upstream timeout covering the whole exchange (headers and body).
 * @throws {HttpError} 504 on timeout, 502 when the service cannot be reached.
 */
export async function fetchUpstream(service: UpstreamService, url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    if (isTimeout(error)) throw upstreamTimeout(service, timeoutMs);
    throw upstreamError(service, 'could not be reached', `request failed (${errorName(error)})`);
  }
}

/**
 * Read a response body of at most `maxBytes`, stopping as soon as it is exceeded (a hostile
 * upstream cannot make the server buffer more).
 * @throws {HttpError} 502 when the body is larger, 504 when reading it times out.
 */
export async function readCappedBody(service: UpstreamService, response: Response, maxBytes: number, timeoutMs: number): Promise<Uint8Array> {
  const tooLarge = () => upstreamError(service, `returned more than ${maxBytes} bytes, more than this server accepts`, 'body over the size cap');
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    discardBody(response);
    throw tooLarge();
  }
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxBytes) {
        reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    if (isTimeout(error)) throw upstreamTimeout(service, timeoutMs);
    throw upstreamError(service, 'broke off its response', `body read failed (${errorName(error)})`);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

/**
 * Discard a response body we will not read (frees the connection). Not awaited: a cancel can
 * wait on the peer, and the answer to our client must not.
 */
export function discardBody(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}
