/**
 * API key on writes (API.md "Cross-cutting behaviour"): when `API_KEY` is set, every request
 * under /api/v1 with a method other than GET/HEAD/OPTIONS must carry it, as `X-API-Key: <key>`
 * or `Authorization: Bearer <key>`.
 *
 * Both sides are hashed with SHA-256 before `timingSafeEqual`, so the comparison takes the same
 * time whatever the presented key's length or content: response timing reveals nothing about
 * the configured key.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from './errors.ts';

/** Methods that never need the key. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

function presentedKeys(headers: Headers): string[] {
  const keys: string[] = [];
  const header = headers.get('x-api-key');
  if (header !== null) keys.push(header.trim());
  const bearer = /^Bearer[ \t]+(.+)$/i.exec(headers.get('authorization') ?? '');
  if (bearer) keys.push(bearer[1]!.trim());
  return keys;
}

/**
 * Check the request's API key.
 * @throws {HttpError} 401 UNAUTHORIZED when it is missing or wrong.
 */
export function requireApiKey(headers: Headers, apiKey: string): void {
  const expected = digest(apiKey);
  let ok = false;
  for (const key of presentedKeys(headers)) ok = timingSafeEqual(digest(key), expected) || ok;
  if (!ok) {
    throw new HttpError(401, 'UNAUTHORIZED', 'This endpoint needs the API key: send it as X-API-Key or Authorization: Bearer.', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
}
