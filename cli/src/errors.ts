/**
 * How the command line fails: one line on stderr, `wraith: <CODE>: <message> — <what to do>`,
 * and a non-zero exit status (2 for a usage mistake, 1 for everything else). Never a stack
 * trace, never a secret: SDK and API errors are reduced to their code and `shortMessage`,
 * which by design never quote the offending value (sdk/src/errors.ts).
 * @module
 */
import { isApiError, WraithError } from '@wraith-pq/sdk';
import { redactUrl, redactUrls } from './redact-url.js';

/** Exit status of a usage mistake (bad flag, missing argument), as POSIX utilities use it. */
export const EXIT_USAGE = 2;
/** Exit status of every other failure. */
export const EXIT_FAILURE = 1;

/** A failure of the command line itself (usage, files, prompts), with what to do about it. */
export class CliError extends Error {
  override name = 'CliError';
  readonly code: string;
  readonly hint: string;
  readonly exitCode: number;

  constructor(code: string, message: string, hint: string, exitCode = EXIT_FAILURE) {
    super(message);
    this.code = code;
    this.hint = hint;
    this.exitCode = exitCode;
  }
}

/** A command line that does not parse: exit status 2. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string, hint = 'run `wraith help` for the commands and their options') {
    super('USAGE', message, hint, EXIT_USAGE);
  }
}

/** A failure with its message kept and its hint replaced (e.g. a scan of a server that failed: try --rpc). */
export function withHint(error: unknown, hint: string): CliError {
  const { code, message, exitCode } = describeError(error);
  return new CliError(code, message, hint, exitCode);
}

/** The server `--api` names, for errors that carry only the request's path (set by src/recipient.ts). */
let apiBaseUrl: string | null = null;
export function noteApiBaseUrl(url: string): void {
  apiBaseUrl = url;
}

/** The errors of `error`'s `cause` chain, outermost first (bounded: a cycle must not hang the exit). */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== null && e !== undefined && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** What the innermost cause says: an errno code (ECONNREFUSED, ENOTFOUND) with its message, URLs redacted. */
function rootCause(error: unknown): string | null {
  const innermost = causeChain(error).at(-1) as { code?: unknown; message?: unknown } | undefined;
  if (innermost === undefined || innermost === error) return null;
  const message = typeof innermost.message === 'string' ? firstLine(redactUrls(innermost.message)) : '';
  if (typeof innermost.code === 'string' && !message.includes(innermost.code)) return `${innermost.code}${message === '' ? '' : `: ${message}`}`;
  return message === '' ? null : message;
}

/** viem's errors of a request that got no JSON-RPC answer (by name: the CLI and the SDK may hold different viem instances). */
const TRANSPORT_ERRORS = new Set(['HttpRequestError', 'TimeoutError', 'WebSocketRequestError', 'SocketClosedError']);

/** A viem transport failure anywhere in the chain, with the URL it names (an RPC error answered by the node is not one). */
function transportFailure(error: unknown): { url: string; status: number | undefined; name: string } | null {
  for (const e of causeChain(error)) {
    const candidate = e as { url?: unknown; status?: unknown; name?: unknown };
    if (typeof candidate.url === 'string' && TRANSPORT_ERRORS.has(String(candidate.name))) return { url: candidate.url, status: typeof candidate.status === 'number' ? candidate.status : undefined, name: String(candidate.name) };
  }
  return null;
}

/** What to do about an SDK or API error code; the message alone says what went wrong. */
const HINTS: Record<string, string> = {
  WRONG_PASSWORD: 'check the password (WRAITH_PASSWORD or the prompt) and try again',
  KEYSTORE_TAMPERED: 'the file was modified after it was sealed; restore the keystore from a backup you trust',
  INVALID_KEYSTORE: 'pass a file written by `wraith keys new` or `wraith keys from-signature`',
  INVALID_META_ADDRESS: 'pass a .eth or .sui name, or a meta-address (st:eth:0x02… or its hex)',
  LEGACY_META_ADDRESS: 'ask the recipient for a new (version 2) meta-address',
  INVALID_HEX: 'pass the value as hex (0x optional)',
  INVALID_ARGUMENT: 'check the value of that option',
  INVALID_NAME: 'pass a name such as alice.eth or alice.sui',
  NAME_NOT_FOUND: 'check the spelling of the name',
  NO_STEALTH_RECORD: 'the name exists but publishes no meta-address; ask its owner to set a stealth-meta record',
  DUPLICATE_ANNOUNCEMENT: 'this transaction hash is already announced; pass the hash of the payment transaction',
  VALIDATION_ERROR: 'check the values passed to the command',
  UNAUTHORIZED: 'set WRAITH_API_KEY to the server\'s API key',
  RATE_LIMITED: 'wait a moment and try again',
  PUBLISH_CLOSED: 'this server takes announcements from the chain only: use --announce chain',
  TX_NOT_VERIFIED: 'this server only stores announcements made on chain: use --announce chain',
  NETWORK_ERROR: 'check the URL and that the server is running',
  TIMEOUT: 'the server did not answer in time; try again later',
  UPSTREAM_ERROR: 'the server could not reach a name service or chain; try again later',
  UPSTREAM_TIMEOUT: 'the server could not reach a name service or chain in time; try again later',
  SERVICE_UNAVAILABLE: 'the server is not ready; try again later',
  CHAIN_RPC_FAILED: 'check --rpc and that the node is reachable',
  INSUFFICIENT_GAS: 'fund the address with the chain\'s native coin first',
  TRANSACTION_REVERTED: 'nothing was paid; check the amount, the token and the sender\'s balance',
  BUNDLER_UNREACHABLE: 'check --bundler (or the server\'s chain settings) and try again; nothing was sent',
  PAYMASTER_REFUSED: 'nothing was moved; check --paymaster and --token, or withdraw without --gasless after sending the address some coin',
  QUOTE_EXPIRED: 'the paymaster\'s price lapsed; try again later, nothing was sent',
  FEE_ABOVE_MAX: 'the fee rose since the estimate; run the command again to see the new fee',
  ENTRY_POINT_MISSING: 'this chain has no EntryPoint v0.8: withdraw without --gasless',
  RECEIPT_TIMEOUT: 'the operation may still be mined: run wraith scan --rpc before withdrawing again (a mined one leaves nothing to withdraw)',
  PAYMENT_NOT_ANNOUNCED: 'do not pay again: announce the kept payment with wraith pay --payment <file> --announce chain --rpc <url>',
};

/** The one line printed for `error` (without the `wraith: ` prefix). */
export function describeError(error: unknown): { code: string; message: string; hint: string; exitCode: number } {
  if (error instanceof CliError) return { code: error.code, message: error.message, hint: error.hint, exitCode: error.exitCode };
  if (error instanceof WraithError) {
    return { code: error.code, message: error.shortMessage, hint: HINTS[error.code] ?? 'check the input', exitCode: EXIT_FAILURE };
  }
  if (isApiError(error)) {
    const status = error.status === undefined ? '' : ` (HTTP ${error.status})`;
    const where = apiBaseUrl === null ? error.path : `${redactUrl(apiBaseUrl)}${error.path}`;
    if (error.code === 'NETWORK_ERROR' || error.code === 'TIMEOUT') {
      const cause = rootCause(error);
      const what = error.code === 'TIMEOUT' ? `${where} did not answer: ${error.shortMessage.replace(/\.$/, '')}` : `could not reach ${where}${cause === null ? '' : ` (${cause})`}`;
      return { code: error.code, message: what, hint: 'check --api (or WRAITH_API_URL) and that the server is running', exitCode: EXIT_FAILURE };
    }
    return { code: error.code, message: `${error.shortMessage}${status}`, hint: HINTS[error.code] ?? 'see the server\'s API documentation', exitCode: EXIT_FAILURE };
  }
  // viem's errors: the short message names the failure; the long one dumps request details.
  const transport = transportFailure(error);
  if (transport !== null) {
    const url = redactUrl(transport.url);
    const cause = rootCause(error);
    const message =
      transport.status !== undefined
        ? `the node at ${url} answered HTTP ${transport.status}`
        : /timeout/i.test(transport.name)
          ? `the node at ${url} did not answer in time`
          : `could not reach the node at ${url}${cause === null ? '' : ` (${cause})`}`;
    return { code: 'RPC_UNREACHABLE', message, hint: 'check --rpc (or WRAITH_RPC_URL) and that the node is running', exitCode: EXIT_FAILURE };
  }
  const viem = error as { name?: unknown; shortMessage?: unknown } | null;
  if (typeof viem?.shortMessage === 'string') {
    return { code: 'CHAIN_ERROR', message: firstLine(viem.shortMessage), hint: 'check --rpc, the sender\'s balance and the chain', exitCode: EXIT_FAILURE };
  }
  const message = error instanceof Error ? firstLine(error.message) : 'unexpected failure';
  return { code: 'INTERNAL', message, hint: 'please report this with the command you ran (without secrets)', exitCode: EXIT_FAILURE };
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** `wraith: CODE: message — what to do`, one line. */
export function formatError(error: unknown): { line: string; exitCode: number } {
  const { code, message, hint, exitCode } = describeError(error);
  // One line whatever the parts hold: a newline would split the message in logs and scripts.
  // URLs are redacted here too: an RPC's API key must not reach a terminal log through any message.
  const text = redactUrls(message).replace(/\s+/g, ' ').replace(/[.\s]+$/, '');
  return { line: `wraith: ${code}: ${text} — ${hint.replace(/\s+/g, ' ').trim()}`, exitCode };
}
