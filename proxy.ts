/**
 * Per-request CSP nonces for the web app's pages (lib/http/page-csp.ts). The policy travels on
 * the request too, where Next.js reads the nonce and puts it on every script it renders; pages
 * are therefore rendered per request (app/layout.tsx). API routes, /health, /api-docs (no
 * scripts), static files and the SDK reference keep the headers of next.config.mjs.
 */
import { NextResponse, type NextRequest } from 'next/server';
import { createNonce, pageContentSecurityPolicy } from '@/lib/http/page-csp';

export function proxy(request: NextRequest) {
  const policy = pageContentSecurityPolicy(createNonce(), process.env.NODE_ENV === 'development');
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
