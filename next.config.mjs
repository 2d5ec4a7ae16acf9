/**
 * Security headers of pages (API.md "Cross-cutting behaviour"). API responses (/api/v1, /health)
 * set their own, stricter ones in lib/http/route.ts (`default-src 'none'`), so this policy is
 * applied to every other path.
 *
 * Page CSP: self-only. `script-src` needs 'unsafe-inline' because Next.js streams the React
 * Server Components payload and its bootstrap as inline <script> tags; without a per-request
 * nonce (which would force dynamic rendering of every page through a proxy) no stricter
 * policy lets the pages hydrate. Nothing else is allowed off-origin, nothing may frame the
 * pages, and plugins and <base> are off. 'unsafe-eval' only in `next dev` (React debugging).
 */
const isDev = process.env.NODE_ENV === 'development';

const pageContentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${isDev ? " 'unsafe-eval'" : ''}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The scan worker (sdk/src/scan-worker.ts, bundled by Turbopack as
 * /_next/static/chunks/turbopack-worker-<hash>.js) compiles the SDK's WebAssembly scan kernel.
 * A dedicated worker takes its CSP from its own script's response, so only that script gets
 * 'wasm-unsafe-eval' (compiling WebAssembly; it allows no JavaScript eval). Pages keep the
 * policy above.
 */
const scanWorkerContentSecurityPolicy = pageContentSecurityPolicy.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'");

const pageSecurityHeaders = [
  { key: 'Content-Security-Policy', value: pageContentSecurityPolicy },
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
    // Every path except the API (/api/..., /health), which sets its own headers.
    return [
      { source: '/((?!api(?:/|$)|health(?:/|$)).*)', headers: pageSecurityHeaders },
      // Later rules win for the same header: the scan worker's script gets its own policy.
      {
        source: '/_next/static/chunks/:file(turbopack-worker-.*)',
        headers: [{ key: 'Content-Security-Policy', value: scanWorkerContentSecurityPolicy }],
      },
    ];
  },
};

export default nextConfig;
