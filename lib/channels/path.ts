/**
 * Reading a channel id from a request path (`/api/v1/yellow/channel/:id/status`).
 *
 * defineRoute handlers receive the request, not Next.js's route params, so the segment is read
 * from the URL; it is validated like a body field (400 VALIDATION_ERROR, path `id`).
 */
import { parseInput } from '../http/validation.ts';
import { channelIdPath } from '../schemas/channels.ts';

/**
 * The 32-byte channel id in the path segment just before `/status`.
 * @throws {HttpError} 400 VALIDATION_ERROR when it is not 64 hex digits.
 */
export function channelIdFromStatusPath(url: URL): Uint8Array {
  const segments = url.pathname.split('/');
  const raw = segments.at(-1) === 'status' ? segments.at(-2) : undefined;
  let id: string | undefined;
  try {
    id = raw === undefined ? undefined : decodeURIComponent(raw);
  } catch {
    id = raw; // malformed percent-encoding: the hex check rejects it
  }
  return parseInput(channelIdPath, { id }, 'path').id;
}
