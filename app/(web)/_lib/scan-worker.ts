/**
 * Start the Scan page's worker (registry-scan-worker.ts), which walks and scans the registry.
 * Next.js (Turbopack) bundles it as its own chunk because of the `new Worker(new URL(...))` form,
 * so it is served from this origin, with the policy that lets it compile the SDK's WebAssembly
 * kernel (next.config.mjs).
 */
export function spawnRegistryScanWorker(): Worker {
  return new Worker(new URL('./registry-scan-worker.ts', import.meta.url), { type: 'module', name: 'wraith-scan' });
}

/**
 * A worker started ahead of the scan it will run: loading its script and compiling the kernel
 * take a few hundred milliseconds on a first visit, which the user would otherwise wait for after
 * "Start scan". It runs nothing until it is given keys. `take` hands it over, or a fresh worker
 * when the spare failed to load (that one reports the failure to its new owner); `prepare` starts
 * the next spare; `dispose` ends the spare when the page goes, and no spare is started after it.
 */
export function spareRegistryScanWorker(spawn: () => Worker = spawnRegistryScanWorker) {
  let spare: { worker: Worker; failed: boolean } | null = null;
  let disposed = false;
  return {
    prepare(): void {
      if (spare !== null || disposed) return;
      const entry = { worker: spawn(), failed: false };
      entry.worker.addEventListener('error', () => (entry.failed = true), { once: true });
      spare = entry;
    },
    take(): Worker {
      const entry = spare;
      spare = null;
      if (entry === null) return spawn();
      if (!entry.failed) return entry.worker;
      entry.worker.terminate();
      return spawn();
    },
    dispose(): void {
      disposed = true;
      spare?.worker.terminate();
      spare = null;
    },
  };
}
