/**
 * Web Worker entry of the scan pool: load it as a module worker, e.g.
 * `new Worker(new URL('@wraith-pq/sdk/scan-worker', import.meta.url), { type: 'module' })`.
 * (In Node, wire {@link createScanWorkerHandler} to `worker_threads`' `parentPort` instead.)
 * @module
 */
import { createScanWorkerHandler, type ScanWorkerRequest } from './scan-worker-protocol.ts';

type WorkerScope = {
  addEventListener(type: 'message', listener: (event: { data: ScanWorkerRequest }) => void): void;
  postMessage(message: unknown): void;
};

const scope = globalThis as unknown as Partial<WorkerScope>;
if (typeof scope.addEventListener === 'function' && typeof scope.postMessage === 'function') {
  const handle = createScanWorkerHandler();
  scope.addEventListener('message', (event) => scope.postMessage!(handle(event.data)));
}
