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
  serverExternalPackages: ['@libsql/client'],
  async headers() {
    // Every path except the API (/api/..., /health), which sets its own headers.
    return [{ source: '/((?!api(?:/|$)|health(?:/|$)).*)', headers: pageSecurityHeaders }];
  },
};

export default nextConfig;
