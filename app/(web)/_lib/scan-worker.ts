/**
 * Start the Scan page's worker (registry-scan-worker.ts), which walks and scans the registry.
 * Next.js (Turbopack) bundles it as its own chunk because of the `new Worker(new URL(...))` form,
 * so it is served from this origin, with the policy that lets it compile the SDK's WebAssembly
 * kernel (next.config.mjs).
 */
export function spawnRegistryScanWorker(): Worker {
  return new Worker(new URL('./registry-scan-worker.ts', import.meta.url), { type: 'module', name: 'wraith-scan' });
}
