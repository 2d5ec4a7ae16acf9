/**
 * Content Security Policy of the web app's pages (issue 18: pages that sign transactions get a
 * wallet's policy). Scripts run only with this response's nonce: Next.js puts it on its own
 * inline bootstrap and chunk scripts, `'strict-dynamic'` lets those load the rest, and an
 * injected `<script>` without it is refused (and reported on the console). No `'unsafe-inline'`.
 *
 * Workers: `worker-src 'self'` (with `'strict-dynamic'` a browser ignores `'self'` in
 * `script-src`, so workers need their own directive). The scan worker's script compiles the SDK's
 * WebAssembly under its own policy (next.config.mjs).
 *
 * `connect-src` adds the origins of the bundlers the server's chains name for gasless withdrawals
 * (`CHAINS` entries' `gasless.bundler_url`, issue 31): the Scan page sends a user operation there
 * straight from the browser. Only those origins, never a wildcard.
 */

/** 128 random bits, base64: a fresh one for every page response. */
export function createNonce(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The origins of `urls` (http and https only), for `connect-src`; the rest is dropped. */
export function connectOrigins(urls: readonly string[]): string[] {
  const origins = new Set<string>();
  for (const url of urls) {
    try {
      const parsed = new URL(url);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') origins.add(parsed.origin);
    } catch {
      // Not a URL: nothing to allow.
    }
  }
  return [...origins];
}

export function pageContentSecurityPolicy(nonce: string, dev = false, connect: readonly string[] = []): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    ["connect-src 'self'", ...connectOrigins(connect)].join(' '),
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
