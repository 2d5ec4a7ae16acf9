/**
 * What a scan worker does with a message, independent of how messages arrive (Web Worker
 * `self`, Node `worker_threads` `parentPort`): the SDK ships this logic and no Node built-in.
 *
 * Messages: `init` (keys and scanner options, once) → `ready`; `scan` (a packed slice of
 * announcements: ciphertexts back to back, their view tags, their indices in the caller's batch)
 * → `result` (discoveries by index, stats). Ciphertexts travel in one transferred ArrayBuffer,
 * and the result hands that buffer back (transferred again by {@link connectScanWorker}) so the
 * pool refills it instead of allocating fresh memory for every slice.
 * @module
 */
import { InvalidArgumentError, WraithError } from './errors.ts';
import { createScanner, effectiveKernel, kernelByName, type CreateScannerOptions, type EffectiveKernel, type Scanner } from './scanner.ts';
import type { ScanKernelName } from './scan-kernel.ts';

export type ScanWorkerKeys = { viewingSecretKey: Uint8Array; spendingPublicKey: Uint8Array; spendingSecretKey?: Uint8Array };

export type ScanWorkerRequest =
  | { type: 'init'; keys: ScanWorkerKeys; mode?: CreateScannerOptions['mode']; kernel?: ScanKernelName }
  | { type: 'scan'; job: number; ciphertexts: ArrayBuffer; viewTags: Uint8Array; indices: Uint32Array };

export type WorkerDiscovery = {
  index: number;
  stealthPublicKey: Uint8Array;
  stealthAddress: string;
  stealthSuiAddress: string;
  stealthSecretKey?: Uint8Array;
  /** Always sent back: the pool opens the announcement's note with it (it stays on this device). */
  sharedSecret: Uint8Array;
};

export type ScanWorkerResponse =
  | { type: 'ready'; kernel: EffectiveKernel }
  | {
      type: 'result';
      job: number;
      discoveries: WorkerDiscovery[];
      viewTagMatches: number;
      /** The request's ciphertext buffer, handed back for reuse. */
      ciphertexts?: ArrayBuffer;
    }
  | { type: 'error'; job?: number; code: string; message: string };

/** A message handler for one worker; call it with each request and post back the response. */
export function createScanWorkerHandler(): (request: ScanWorkerRequest) => ScanWorkerResponse {
  let scanner: Scanner | undefined;
  return (request) => {
    try {
      if (request.type === 'init') {
        scanner = createScanner(request.keys, { ...(request.mode ? { mode: request.mode } : {}), kernel: kernelByName(request.kernel) });
        return { type: 'ready', kernel: effectiveKernel(request.kernel) };
      }
      if (!scanner) return { type: 'error', job: request.job, code: 'INVALID_ARGUMENT', message: 'scan before init' };
      const { found, viewTagMatches } = scanner.scanPacked(new Uint8Array(request.ciphertexts), request.viewTags, request.indices.length);
      return {
        type: 'result',
        job: request.job,
        viewTagMatches,
        discoveries: found.map(({ position, ...keys }) => ({ ...keys, index: request.indices[position]! })),
        ciphertexts: request.ciphertexts,
      };
    } catch (error) {
      // Codes and messages of WraithError never carry key material (errors.ts).
      const known = error instanceof WraithError;
      return {
        type: 'error',
        ...(request.type === 'scan' ? { job: request.job } : {}),
        code: known ? error.code : 'SCAN_WORKER_FAILED',
        message: known ? error.message : 'scan worker failed',
      };
    }
  };
}

/** The messaging side of a worker: a Web Worker's `self`, or Node's `worker_threads` `parentPort`. */
export type ScanWorkerScope = {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  addEventListener?(type: 'message', listener: (event: { data: ScanWorkerRequest }) => void): void;
  on?(event: 'message', listener: (data: ScanWorkerRequest) => void): void;
};

/**
 * Serve scan requests on a worker's message port: what a scan worker script does. Results
 * transfer the ciphertext buffer back to the pool instead of copying it.
 *
 * @example
 * // Node, a worker_threads script:
 * import { parentPort } from 'node:worker_threads';
 * import { connectScanWorker } from '@wraith-pq/sdk/scan';
 * connectScanWorker(parentPort);
 */
export function connectScanWorker(scope: ScanWorkerScope): void {
  const handle = createScanWorkerHandler();
  const reply = (request: ScanWorkerRequest) => {
    const response = handle(request);
    scope.postMessage(response, response.type === 'result' && response.ciphertexts ? [response.ciphertexts] : []);
  };
  if (typeof scope.addEventListener === 'function') scope.addEventListener('message', (event) => reply(event.data));
  else if (typeof scope.on === 'function') scope.on('message', reply);
  else throw new InvalidArgumentError('scope', 'must be a Web Worker scope or a worker_threads parentPort');
}
