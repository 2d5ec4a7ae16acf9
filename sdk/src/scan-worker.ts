/**
 * Web Worker entry of the scan pool: load it as a module worker, e.g.
 * `new Worker(new URL('@wraith-pq/sdk/scan-worker', import.meta.url), { type: 'module' })`.
 * (In Node, call `connectScanWorker(parentPort)` in a `worker_threads` script instead.)
 * @module
 */
import { connectScanWorker, type ScanWorkerScope } from './scan-worker-protocol.ts';

const scope = globalThis as unknown as Partial<ScanWorkerScope>;
if (typeof scope.addEventListener === 'function' && typeof scope.postMessage === 'function') {
  connectScanWorker(scope as ScanWorkerScope);
}
