/**
 * Security headers (API.md "Cross-cutting behaviour"). API responses (/api/v1, /health) set their
 * own, stricter ones in lib/http/route.ts (`default-src 'none'`); every other path gets the
 * headers below.
 *
 * The web app's pages get their Content Security Policy from proxy.ts: a fresh nonce per
 * response, `'strict-dynamic'`, no `'unsafe-inline'` for scripts (lib/http/page-csp.ts). Two
 * kinds of path keep a static policy here:
 * - the scan worker's script (sdk/src/scan-worker.ts bundled as
 *   /_next/static/chunks/turbopack-worker-<hash>.js, via app/(web)/_lib/registry-scan-worker.ts):
 *   a dedicated worker takes its CSP from its own script's response, so only it gets
 *   'wasm-unsafe-eval' (compiling the SDK's WebAssembly kernel; it allows no JavaScript eval);
 * - documents that hold no keys and sign nothing: /api-docs (no scripts at all) and the generated
 *   SDK reference under /sdk-docs, whose TypeDoc pages carry small inline scripts (theme, search).
 */
const isDev = process.env.NODE_ENV === 'development';

const selfOnly = ["img-src 'self' data:", "font-src 'self'", "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"];

const documentContentSecurityPolicy = ["default-src 'self'", `script-src 'self' 'unsafe-inline'${isDev ? " 'unsafe-eval'" : ''}`, "style-src 'self' 'unsafe-inline'", ...selfOnly].join('; ');

const scanWorkerContentSecurityPolicy = ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", ...selfOnly].join('; ');

const securityHeaders = [
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'no-referrer' },
  {
    key: 'Permissions-Policy',
    value: 'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=(), interest-cohort=()',
  },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ['@wraith-pq/sdk'],
  serverExternalPackages: ['@libsql/client', 'libsql'],
  async headers() {
    return [
      // Every path except the API (/api/..., /health), which sets its own headers.
      { source: '/((?!api(?:/|$)|health(?:/|$)).*)', headers: securityHeaders },
      { source: '/api-docs', headers: [{ key: 'Content-Security-Policy', value: documentContentSecurityPolicy }] },
      { source: '/sdk-docs/:path*', headers: [{ key: 'Content-Security-Policy', value: documentContentSecurityPolicy }] },
      {
        source: '/_next/static/chunks/:file(turbopack-worker-.*)',
        headers: [{ key: 'Content-Security-Policy', value: scanWorkerContentSecurityPolicy }],
      },
    ];
  },
};

export default nextConfig;
