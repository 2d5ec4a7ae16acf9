/**
 * What a scan worker does with a message, independent of how messages arrive (Web Worker
 * `self`, Node `worker_threads` `parentPort`): the SDK ships this logic and no Node built-in.
 *
 * Messages: `init` (keys and scanner options, once) → `ready`; `scan` (a packed slice of
 * announcements: ciphertexts back to back, their view tags, their indices in the caller's batch)
 * → `result` (discoveries by index, stats). Ciphertexts travel in one transferred ArrayBuffer.
 * @module
 */
import { WraithError } from './errors.ts';
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
  sharedSecret?: Uint8Array;
};

export type ScanWorkerResponse =
  | { type: 'ready'; kernel: EffectiveKernel }
  | { type: 'result'; job: number; discoveries: WorkerDiscovery[]; viewTagMatches: number }
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
      };
    } catch (error) {
      // Codes and messages of WraithError never carry key material (errors.ts).
      const known = error instanceof WraithError;
      return {
        type: 'error',
        ...(request.type === 'scan' ? { job: request.job } : {}),
        code: known ? error.code : 'INTERNAL_ERROR',
        message: known ? error.message : 'scan worker failed',
      };
    }
  };
}
