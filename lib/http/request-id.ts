/**
 * `x-request-id` (API.md "Errors"): every response carries one, and so does its log line, so a
 * client can quote it when reporting a problem. A valid incoming id is echoed (a proxy or the
 * client chose it to correlate logs); anything else is replaced, never reflected, so the header
 * cannot carry injected text into logs or other systems.
 */

export const REQUEST_ID_HEADER = 'x-request-id';

/** Safe characters only, bounded length. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The incoming request id when it is valid, else a fresh UUID. */
export function requestIdFor(headers: Headers): string {
  const incoming = headers.get(REQUEST_ID_HEADER);
  return incoming !== null && VALID_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}
