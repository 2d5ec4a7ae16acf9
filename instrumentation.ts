/**
 * Next.js start-up hook: `register()` runs once before the server handles requests.
 * It validates the configuration (a bad value exits with status 1 and a clear message) and
 * opens the registry (lib/server/boot.ts). Node.js runtime only: the API needs Node built-ins.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { boot } = await import('./lib/server/boot.ts');
  await boot();
}
