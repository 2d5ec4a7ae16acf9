/**
 * Start one scan worker: the SDK's Web Worker entry (sdk/src/scan-worker.ts). Next.js
 * (Turbopack) bundles it as its own chunk because of the `new Worker(new URL(...))` form, so
 * it is served from this origin and rebuilt with the SDK.
 */
import type { ScanWorkerLike } from '@wraith-pq/sdk';

export function spawnScanWorker(): ScanWorkerLike {
  const worker = new Worker(new URL('../../../sdk/src/scan-worker.ts', import.meta.url), { type: 'module', name: 'wraith-scan' });
  // A Web Worker is what the pool expects; only the DOM typings of addEventListener differ.
  return worker as unknown as ScanWorkerLike;
}
