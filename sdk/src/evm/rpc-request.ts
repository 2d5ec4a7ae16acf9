/**
 * One JSON-RPC request, made robust: a timeout per call, retries of transient faults (timeouts,
 * HTTP 429 honouring `Retry-After`, 5xx, dropped connections) with exponential backoff and full
 * jitter, a bounded number of attempts, and an `AbortSignal` that stops it at once. Errors are
 * sorted into three kinds: transient (retry), a refused `eth_getLogs` range (split it), and
 * fatal (retrying cannot help: unknown method, bad parameters, unauthorised).
 *
 * Works with anything that has EIP-1193's `request({ method, params })`: a viem client (its own
 * retries are turned off per call, so attempts are counted here only) or a browser wallet.
 * @module
 */
import { backoffDelay, parseRetryAfter, sleep } from '../client/retry.ts';
import { ChainRpcError } from './errors.ts';

/**
 * A JSON-RPC client: a viem `PublicClient` (or any viem client), or an EIP-1193 provider such
 * as `window.ethereum`. The second argument is viem's per-request options; other providers ignore it.
 */
export type ChainRpcClient = {
  request(args: { method: string; params?: unknown }, options?: { retryCount?: number; signal?: AbortSignal }): Promise<unknown>;
};

export type ChainRetryOptions = {
  /** Calls per request, the first included (default 8). */
  attempts?: number;
  /** First backoff step in ms (default 250); the wait before retry n is drawn from [0, min(maxDelayMs, baseDelayMs * 2^(n-1))]. */
  baseDelayMs?: number;
  /** Largest backoff step in ms (default 8000). */
  maxDelayMs?: number;
  /** Time limit of one call in ms (default 20000); a call past it counts as a failed attempt. */
  timeoutMs?: number;
  /** Longest `Retry-After` honoured in ms (default 30000); a longer one is cut to this. */
  maxRetryAfterMs?: number;
  /** Called before each wait: log it, or show "provider busy, retrying". */
  onRetry?: (event: ChainRetryEvent) => void;
};

export type ChainRetryEvent = { method: string; attempt: number; delayMs: number; reason: string };

const DEFAULTS = { attempts: 8, baseDelayMs: 250, maxDelayMs: 8000, timeoutMs: 20_000, maxRetryAfterMs: 30_000 } as const;

/** What kind of failure an error is, and a short reason safe to show (no provider text, which may carry a URL with a key). */
export type RpcFault = { kind: 'transient' | 'range' | 'fatal'; reason: string; retryAfterMs?: number };

/** Thrown by {@link rpcRequest} when the provider refused an `eth_getLogs` range and the caller can split it. */
export class RangeRefused {
  constructor(readonly reason: string) {}
}

/** Our own time limit fired (told apart from the caller's abort). */
class CallTimeout extends Error {
  override name = 'TimeoutError';
}

export type RpcRequestParameters = {
  client: ChainRpcClient;
  method: string;
  params: unknown[];
  retry?: ChainRetryOptions;
  signal?: AbortSignal;
  /** Block range of the call, for the error message. */
  fromBlock?: bigint;
  toBlock?: bigint;
  /** Throw {@link RangeRefused} on a refused range instead of retrying it (the caller splits it). */
  splittable?: boolean;
  /** Reject a malformed result (counted as a failed attempt). */
  accept?: (result: unknown) => boolean;
};

/** Make one request with timeouts and retries; throws ChainRpcError when it keeps failing, the signal's reason when aborted. */
export async function rpcRequest<T>(parameters: RpcRequestParameters): Promise<T> {
  const { client, method, params, signal, splittable = false, accept } = parameters;
  const retry = { ...DEFAULTS, ...parameters.retry };
  const attempts = Math.max(1, Math.floor(retry.attempts));
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    let fault: RpcFault;
    let cause: unknown;
    try {
      const result = await callOnce(client, method, params, retry.timeoutMs, signal);
      if (accept === undefined || accept(result)) return result as T;
      fault = { kind: 'transient', reason: 'malformed result' };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      cause = error;
      fault = classifyRpcFault(error);
    }
    if (fault.kind === 'range' && splittable) throw new RangeRefused(fault.reason);
    if (fault.kind === 'fatal' || attempt >= attempts) {
      throw new ChainRpcError(
        { method, attempts: attempt, reason: fault.reason, ...(parameters.fromBlock === undefined ? {} : { fromBlock: parameters.fromBlock, toBlock: parameters.toBlock ?? parameters.fromBlock }) },
        cause,
      );
    }
    const delayMs =
      fault.retryAfterMs === undefined ? backoffDelay(attempt, retry) : Math.min(fault.retryAfterMs, retry.maxRetryAfterMs);
    retry.onRetry?.({ method, attempt, delayMs, reason: fault.reason });
    await sleep(delayMs, signal);
  }
}

/** One call, bounded by `timeoutMs` and `signal` even when the provider ignores signals. */
function callOnce(client: ChainRpcClient, method: string, params: unknown[], timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new CallTimeout(`${method} timed out after ${timeoutMs} ms`)), timeoutMs);
  const onAbort = () => controller.abort(signal!.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  return new Promise<unknown>((resolve, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    Promise.resolve()
      // retryCount 0: a viem client must not retry on its own (its attempts would multiply ours).
      .then(() => client.request({ method, params }, { retryCount: 0, signal: controller.signal }))
      .then(resolve, (error: unknown) => reject(controller.signal.aborted ? controller.signal.reason : error));
  }).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  });
}

/** Provider texts that mean "this eth_getLogs asks for too much" (Infura, Alchemy, QuickNode, Ankr, geth, erigon, ...). */
const RANGE_TEXT =
  /block range|range (is )?too (large|wide|big)|range limit|range exceeds|more than \d[\d,]* (results|logs|blocks)|too many (results|logs|blocks)|response size|limited to (a )?[\d,]+|exceeds? (the )?(max|maximum|limit)|max(imum)? (block )?range|query timeout exceeded|returned more than/i;
/** Texts of rate limits, which some providers send with -32005 too. */
const RATE_TEXT = /rate limit|too many requests|request rate|rate exceeded|throttl|exceeded .*(requests|credits|compute units|capacity)|capacity/i;
/** Texts of a node that is behind or lost a block: retrying (maybe on another backend) helps. */
const BEHIND_TEXT = /block height|out of range|header not found|unknown block|block not found|not yet|missing trie/i;
const NETWORK_TEXT = /fetch failed|network|socket|econnreset|econnrefused|etimedout|epipe|other side closed|terminated|connection|load failed/i;
/** JSON-RPC / EIP-1193 codes no retry fixes: parse error, method not found, user rejected, unauthorised, unsupported, disconnected wallet. */
const FATAL_CODES = new Set([-32700, -32601, 4001, 4100, 4200]);
const FATAL_STATUSES = new Set([400, 401, 403, 404, 405]);

/**
 * Sort a provider error into transient / refused range / fatal (see the module comment).
 *
 * @example
 * import { classifyRpcFault } from '@wraith-pq/sdk/evm';
 * classifyRpcFault({ code: -32005, message: 'query returned more than 10000 results' }); // { kind: 'range', ... }
 * classifyRpcFault({ status: 429 }); // { kind: 'transient', reason: 'HTTP 429' }
 */
export function classifyRpcFault(error: unknown): RpcFault {
  if (error instanceof CallTimeout) return { kind: 'transient', reason: 'timeout' };
  const facts = factsOf(error);
  const status = facts.statuses[0];
  const code = facts.codes.find((c) => c !== 0);
  const label = status !== undefined ? `HTTP ${status}` : code !== undefined ? `JSON-RPC error ${code}` : 'request failed';
  if (status === 413) return { kind: 'range', reason: label };
  if (facts.tooLarge) return { kind: 'range', reason: 'response too large' };
  if (status === 429 || RATE_TEXT.test(facts.text)) {
    const retryAfterMs = facts.retryAfter === undefined ? undefined : parseRetryAfter(facts.retryAfter);
    return { kind: 'transient', reason: status === 429 ? label : `${label} (rate limited)`, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  if (RANGE_TEXT.test(facts.text) || code === -32005) return { kind: 'range', reason: `${label} (range refused)` };
  if (status !== undefined && status >= 500) return { kind: 'transient', reason: label };
  if (BEHIND_TEXT.test(facts.text)) return { kind: 'transient', reason: `${label} (node behind)` };
  if (status !== undefined && FATAL_STATUSES.has(status)) return { kind: 'fatal', reason: label };
  if (code !== undefined && (FATAL_CODES.has(code) || code === -32602)) return { kind: 'fatal', reason: label };
  if (facts.timeout) return { kind: 'transient', reason: 'timeout' };
  if (status === undefined && code === undefined && NETWORK_TEXT.test(facts.text)) return { kind: 'transient', reason: 'connection failed' };
  return { kind: 'transient', reason: label };
}

type ErrorFacts = { codes: number[]; statuses: number[]; text: string; retryAfter: string | undefined; timeout: boolean; tooLarge: boolean };

/** Codes, HTTP statuses, texts and Retry-After along an error's cause chain (viem nests them). */
function factsOf(error: unknown): ErrorFacts {
  const facts: ErrorFacts = { codes: [], statuses: [], text: '', retryAfter: undefined, timeout: false, tooLarge: false };
  const texts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const e = current as { code?: unknown; status?: unknown; message?: unknown; details?: unknown; shortMessage?: unknown; name?: unknown; headers?: unknown; cause?: unknown };
    if (typeof e.code === 'number') facts.codes.push(e.code);
    if (typeof e.code === 'string') texts.push(e.code);
    if (typeof e.status === 'number') facts.statuses.push(e.status);
    // A viem error's `message` also holds the URL and request body (which must not match a
    // pattern by accident); its `shortMessage` and `details` hold the provider's words.
    const own = typeof e.shortMessage === 'string' ? [e.shortMessage, e.details] : [e.message, e.details];
    for (const text of own) if (typeof text === 'string') texts.push(text);
    if (e.name === 'TimeoutError') facts.timeout = true;
    // viem's transport caps a response body (10 MB by default): the answer for this range is too large.
    if (e.name === 'ResponseBodyTooLargeError') facts.tooLarge = true;
    const headers = e.headers as { get?: (name: string) => string | null } | undefined;
    if (facts.retryAfter === undefined && typeof headers?.get === 'function') facts.retryAfter = headers.get('retry-after') ?? undefined;
    current = e.cause;
  }
  facts.text = texts.join('\n');
  return facts;
}
