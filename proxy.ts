/**
 * Per-request CSP nonces for the web app's pages (lib/http/page-csp.ts). The policy travels on
 * the request too, where Next.js reads the nonce and puts it on every script it renders; pages
 * are therefore rendered per request (app/layout.tsx). API routes, /health, /api-docs (no
 * scripts), static files and the SDK reference keep the headers of next.config.mjs. The pages
 * may connect to the gasless bundlers of the server's own configuration (issue 31).
 */
import { NextResponse, type NextRequest } from 'next/server';
import { loadConfig } from '@/lib/config';
import { createNonce, pageContentSecurityPolicy } from '@/lib/http/page-csp';

/** The bundlers the configured chains name for gasless withdrawals (read once); none when the configuration does not load (the server reports that itself). */
let bundlers: string[] | undefined;
function gaslessBundlers(): string[] {
  if (bundlers === undefined) {
    try {
      bundlers = loadConfig().chains.flatMap((chain) => (chain.gasless ? [chain.gasless.bundlerUrl] : []));
    } catch {
      bundlers = [];
    }
  }
  return bundlers;
}

export function proxy(request: NextRequest) {
  const policy = pageContentSecurityPolicy(createNonce(), process.env.NODE_ENV === 'development', gaslessBundlers());
  const headers = new Headers(request.headers);
  headers.set('Content-Security-Policy', policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('Content-Security-Policy', policy);
  return response;
}

export const config = {
  matcher: [
    {
      source: '/((?!api/|api$|api-docs|health|_next/|sdk-docs|icon\\.svg|favicon\\.ico|robots\\.txt).*)',
      // Router prefetches carry no document: no policy needed.
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
