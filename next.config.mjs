/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ['@wraith-pq/sdk'],
  serverExternalPackages: ['@libsql/client'],
};

export default nextConfig;
