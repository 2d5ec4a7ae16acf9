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
import { ERC8441_EPHEMERAL_KEY_BYTES } from './erc8441-payment.ts';
import { createErc8441Scanner, type Erc8441Scanner } from './erc8441-scan.ts';
import { InvalidArgumentError, WraithError } from './errors.ts';
import { createScanner, effectiveKernel, erc8441ScanOptions, kernelByName, type CreateScannerOptions, type EffectiveKernel, type Scanner } from './scanner.ts';
import type { ScanKernelName } from './scan-kernel.ts';

export type ScanWorkerKeys = {
  viewingSecretKey: Uint8Array;
  spendingPublicKey: Uint8Array;
  spendingSecretKey?: Uint8Array;
  /** The scan's ERC-8441 keys (tracking key, meta-address) when it scans scheme-3 rows. */
  erc8441?: { trackingKey: Uint8Array; metaAddress: Uint8Array };
};

export type ScanWorkerRequest =
  | { type: 'init'; keys: ScanWorkerKeys; mode?: CreateScannerOptions['mode']; kernel?: ScanKernelName }
  | { type: 'scan'; job: number; ciphertexts: ArrayBuffer; viewTags: Uint8Array; indices: Uint32Array }
  | {
      /** Scheme-3 rows: `epk || ct` (1121 bytes each) back to back, their view tags and announced addresses. */
      type: 'scan-erc8441';
      job: number;
      ephemeralKeys: ArrayBuffer;
      viewTags: Uint8Array;
      stealthAddresses: string[];
      indices: Uint32Array;
    };

/** A scheme-3 match: the pool completes it (note, one-time key) on its own thread. */
export type WorkerErc8441Match = { index: number; stealthAddress: string; sharedSecret: Uint8Array };

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
      /** Scheme-3 matches, for `scan-erc8441` requests. */
      erc8441?: WorkerErc8441Match[];
      viewTagMatches: number;
      /** The request's ciphertext buffer, handed back for reuse. */
      ciphertexts?: ArrayBuffer;
    }
  | { type: 'error'; job?: number; code: string; message: string };

/** A message handler for one worker; call it with each request and post back the response. */
export function createScanWorkerHandler(): (request: ScanWorkerRequest) => ScanWorkerResponse {
  let scanner: Scanner | undefined;
  let erc8441: Erc8441Scanner | undefined;
  return (request) => {
    try {
      if (request.type === 'init') {
        const { erc8441: erc8441Keys, ...keys } = request.keys;
        const mode = request.mode ? { mode: request.mode } : {};
        scanner = createScanner(keys, { ...mode, kernel: kernelByName(request.kernel) });
        erc8441 = erc8441Keys === undefined ? undefined : createErc8441Scanner({ ...erc8441Keys, ...erc8441ScanOptions(request.kernel, request.mode) });
        return { type: 'ready', kernel: effectiveKernel(request.kernel) };
      }
      if (!scanner) return { type: 'error', job: request.job, code: 'INVALID_ARGUMENT', message: 'scan before init' };
      if (request.type === 'scan-erc8441') {
        if (!erc8441) return { type: 'error', job: request.job, code: 'INVALID_ARGUMENT', message: 'no ERC-8441 keys' };
        const all = new Uint8Array(request.ephemeralKeys);
        const rows = Array.from(request.indices, (_, k) => ({
          ephemeralPubKey: all.subarray(ERC8441_EPHEMERAL_KEY_BYTES * k, ERC8441_EPHEMERAL_KEY_BYTES * (k + 1)),
          metadata: request.viewTags.subarray(k, k + 1),
          stealthAddress: request.stealthAddresses[k]!,
        }));
        const matches: WorkerErc8441Match[] = [];
        let viewTagMatches = 0;
        erc8441.checkBatch(rows).forEach((found, k) => {
          if (found.match || found.reason === 'offset_out_of_range' || found.reason === 'address_mismatch') viewTagMatches++;
          if (found.match) matches.push({ index: request.indices[k]!, stealthAddress: found.stealthAddress, sharedSecret: found.sharedSecret });
        });
        return { type: 'result', job: request.job, discoveries: [], erc8441: matches, viewTagMatches };
      }
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
        ...(request.type === 'init' ? {} : { job: request.job }),
        code: known ? error.code : 'SCAN_WORKER_FAILED',
        message: known ? error.message : 'scan worker failed',
      };
    }
  };
}

/**
 * The messaging side of a worker: a Web Worker's `self`, or Node's `worker_threads` `parentPort`.
 * The listener takes any event object (the DOM's `MessageEvent`, `@types/node`'s `Event`): the
 * request is read from its `data`.
 */
export type ScanWorkerScope = {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  addEventListener?(type: 'message', listener: (event: object) => void): void;
  on?(event: 'message', listener: (data: any) => void): void;
};

/**
 * Serve scan requests on a worker's message port: what a scan worker script does. Results
 * transfer the ciphertext buffer back to the pool instead of copying it.
 *
 * @example
 * // Node, a worker_threads script:
 * import { parentPort } from 'node:worker_threads';
 * import { connectScanWorker } from '@wraith-pq/sdk/scan';
 * connectScanWorker(parentPort); // parentPort is `MessagePort | null`: null off a worker thread, refused
 * @throws {InvalidArgumentError} when `scope` is null (`parentPort` outside a worker thread) or has neither `addEventListener` nor `on`.
 */
export function connectScanWorker(scope: ScanWorkerScope | null): void {
  if (scope === null || typeof scope !== 'object') throw new InvalidArgumentError('scope', 'is null: call connectScanWorker(parentPort) in a worker_threads script, where parentPort is set');
  const handle = createScanWorkerHandler();
  const reply = (request: ScanWorkerRequest) => {
    const response = handle(request);
    scope.postMessage(response, response.type === 'result' && response.ciphertexts ? [response.ciphertexts] : []);
  };
  if (typeof scope.addEventListener === 'function') scope.addEventListener('message', (event) => reply((event as { data: ScanWorkerRequest }).data));
  else if (typeof scope.on === 'function') scope.on('message', reply);
  else throw new InvalidArgumentError('scope', 'must be a Web Worker scope or a worker_threads parentPort');
}
