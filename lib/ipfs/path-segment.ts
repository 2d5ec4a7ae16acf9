/**
 * The last path segment of a request URL, percent-decoded: the `:cid` of /ipfs/:cid and the
 * `:name` of /ens|suins/resolve/:name. defineRoute handlers receive the request, not Next.js's
 * route params, so the segment is read from the URL (as lib/channels/path.ts does).
 * Malformed percent-encoding yields the raw segment, which the caller's parser then rejects.
 */
export function lastPathSegment(url: URL): string {
  const raw = url.pathname.split('/').at(-1) ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
