/**
 * A URL as it may be printed: RPC and API URLs often carry a credential, as userinfo
 * (`https://user:secret@host`), in the query (`?apikey=…`) or as a path segment (Infura's
 * `/v3/<key>`, Alchemy's `/v2/<key>`). An error names the host and path it could not reach with
 * those parts removed: userinfo, query and fragment dropped, and a path segment that looks like
 * a key (20 or more letters, digits, `-` or `_`) shown as `…`.
 * @module
 */

const KEY_LIKE_SEGMENT = /^[A-Za-z0-9_-]{20,}$/;

/** `url` without the parts that may hold a secret; text that is not a URL is replaced entirely. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(a URL)';
  }
  const path = parsed.pathname
    .split('/')
    .map((segment) => (KEY_LIKE_SEGMENT.test(segment) ? '…' : segment))
    .join('/');
  return `${parsed.protocol}//${parsed.host}${path === '/' ? '' : path}`;
}

/** `text` with every http(s) URL in it redacted. */
export function redactUrls(text: string): string {
  return text.replace(/https?:\/\/[^\s"'<>()]+/gi, (url) => redactUrl(url));
}
