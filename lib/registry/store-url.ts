/**
 * Reading `REGISTRY_URL` (API.md "Configuration") without leaking it.
 *
 * The URL of a shared store may carry credentials (`postgres://user:password@host/db`,
 * `libsql://host?authToken=...`). Messages and logs quote it only through
 * `redactStoreUrl`, which keeps what an operator needs to spot a typo (scheme, host,
 * path) and drops userinfo, query and fragment.
 */

/** Lowercased URL scheme without the colon, or undefined when there is none. */
export function storeUrlScheme(url: string): string | undefined {
  return /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url.trim())?.[1]?.toLowerCase();
}

/** The URL with userinfo, query and fragment removed, safe to quote in an error message. */
export function redactStoreUrl(url: string): string {
  const withoutQuery = url.trim().replace(/[?#].*$/s, '');
  // Everything up to the last '@' after '//' is userinfo (passwords are not always
  // percent-encoded, so the first '@' is not a safe boundary).
  return withoutQuery.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/).*@/s, '$1');
}

/**
 * Filesystem path of a `file:` URL, read the way libSQL reads it (RFC 3986 with relative
 * paths allowed: `file:./data/registry.db`, `file:/abs.db`, `file:///abs.db`), or
 * undefined for an in-memory database.
 */
export function sqliteFilePath(url: string): string | undefined {
  const match = /^file:(?:\/\/[^/?#]*)?([^?#]*)/is.exec(url.trim());
  const raw = match?.[1];
  if (raw === undefined || raw === '' || raw.startsWith(':memory:')) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
