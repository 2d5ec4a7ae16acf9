/**
 * The payment link a recipient shares: `<origin>/send?to=<value>`, where the value is the CID of
 * their published meta-address (a hash of it: a mistyped link finds nothing, never someone else's
 * key) or a name. Short enough for a QR code a phone camera reads at a glance (about 90 characters
 * against 2,438 for the meta-address in hex).
 * @module
 */

/** The link that opens Send with `to` filled in. */
export function paymentLink(origin: string, to: string): string {
  return `${origin.replace(/\/+$/, '')}/send?to=${encodeURIComponent(to)}`;
}

/**
 * What a pasted payment link carries (its `to`), `''` for a link to Send that names no one, or
 * null when `text` is not a link to a Send page (a name, an address...).
 */
export function linkTarget(text: string): string | null {
  if (!/^https?:\/\//i.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (!/\/send\/?$/.test(url.pathname)) return null;
  return url.searchParams.get('to')?.trim() ?? '';
}
