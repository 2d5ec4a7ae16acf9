/**
 * Reading a JSON request body safely (API.md "Errors" and "Limits").
 *
 * - The size limit (`MAX_BODY_BYTES`, default 64 KiB) is enforced while the stream is read, so
 *   a client that sends no Content-Length, or a false one, still cannot make the server buffer
 *   more than the limit: reading stops at the first byte over it (413 PAYLOAD_TOO_LARGE).
 * - Only `application/json` (UTF-8) is accepted (415 UNSUPPORTED_MEDIA_TYPE).
 * - Parse failures are 400 INVALID_JSON with a fixed message: `JSON.parse` messages quote the
 *   input, which may be a secret key.
 * `JSON.parse` does not pollute prototypes (`__proto__` becomes an own property) and the
 * parsed value only ever reaches zod, which copies the fields it knows into fresh objects.
 */
import { HttpError } from './errors.ts';

/** `application/json`, optionally with `charset=utf-8`; other parameters are ignored. */
export function isJsonContentType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const [mediaType, ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json') return false;
  const charset = parameters.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

export function payloadTooLarge(maxBytes: number): HttpError {
  return new HttpError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${maxBytes} bytes.`);
}

/**
 * Reject a declared Content-Length over the limit before reading anything.
 * @throws {HttpError} 413
 */
export function checkDeclaredLength(headers: Headers, maxBytes: number): void {
  const declared = headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) throw payloadTooLarge(maxBytes);
}

/** Read at most `maxBytes` of a body stream. @throws {HttpError} 413 past the limit. */
export async function readLimited(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const invalidJson = (message: string) => new HttpError(400, 'INVALID_JSON', message);

/**
 * The request's JSON body, within the limit.
 * @throws {HttpError} 415 (not JSON), 413 (too large), 400 INVALID_JSON (empty, not UTF-8, not JSON).
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with Content-Type: application/json.');
  }
  checkDeclaredLength(request.headers, maxBytes);
  const bytes = await readLimited(request.body, maxBytes);
  if (bytes.length === 0) throw invalidJson('The request body is empty; send a JSON object.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw invalidJson('The request body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidJson('The request body is not valid JSON.');
  }
}
