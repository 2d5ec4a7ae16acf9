/**
 * Security headers of every API response (API.md "Cross-cutting behaviour").
 *
 * The API serves JSON only, so its policy forbids everything: no scripts, styles, frames or
 * fetches from a response that a browser might render, and no framing of it. Pages get their
 * own self-only policy from next.config.mjs `headers()`.
 */

export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Permissions-Policy': 'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=(), interest-cohort=()',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/**
 * Every API response is `no-store`. API.md requires it for responses carrying secret keys
 * (keys/generate, stealth/scan); registry reads change with every publish, so caching them
 * would only serve stale lists.
 */
export const NO_STORE = 'no-store';
