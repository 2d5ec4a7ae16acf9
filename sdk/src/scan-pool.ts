/**
 * A pool of scan workers sized to the cores: each batch is split into contiguous slices, one
 * per worker, and the results are merged back in batch order, so a pool finds the same
 * discoveries, in the same order, with the same stats as one thread.
 *
 * The SDK uses no Node built-in, so the caller says how to start a worker:
 * - browsers: `spawn: () => new Worker(new URL('@wraith-pq/sdk/scan-worker', import.meta.url), { type: 'module' })`;
 * - Node: a `worker_threads` Worker whose script wires `createScanWorkerHandler()` to `parentPort`.
 * Keys are sent to the workers once (they stay on this device: workers are threads of this
 * process/page). Ciphertexts are packed and transferred, not copied per announcement.
 * @module
 */
import { parseAnnouncement, type AnnouncementInput } from './announcement.ts';
import { toBytes } from './bytes.ts';
import { InvalidArgumentError, WraithError } from './errors.ts';
import { createScanner, kernelByName, type CreateScannerOptions, type Discovery, type EffectiveKernel, type ScanKeys, type ScanResult } from './scanner.ts';
import type { ScanKernelName } from './scan-kernel.ts';
import type { ScanWorkerRequest, ScanWorkerResponse } from './scan-worker-protocol.ts';
import { CIPHERTEXT_BYTES } from './viewing-key.ts';

/** The part of a Web Worker or a Node `worker_threads` Worker the pool uses. */
export type ScanWorkerLike = {
  postMessage(message: unknown, transfer?: ArrayBuffer[]): void;
  terminate(): unknown;
  addEventListener?(type: 'message' | 'error', listener: (event: any) => void): void;
  on?(event: 'message' | 'error', listener: (value: any) => void): void;
};

export type CreateScanPoolOptions = Pick<CreateScannerOptions, 'mode'> & {
  /** The kernel the workers run, by name (default `auto`). */
  kernel?: ScanKernelName;
  spawn: () => ScanWorkerLike;
  /** Number of workers (default: `navigator.hardwareConcurrency`, at least 1). */
  size?: number;
};

export type ScanPool = {
  readonly size: number;
  /** The kernel the workers run (what `auto` resolved to inside them). */
  readonly kernel: EffectiveKernel;
  scan<A extends AnnouncementInput>(announcements: readonly A[]): Promise<ScanResult<A>>;
  /** Terminate the workers. */
  close(): void;
};

class Channel {
  #pending = new Map<number, (response: ScanWorkerResponse) => void>();
  #ready: Promise<EffectiveKernel>;
  constructor(readonly worker: ScanWorkerLike) {
    let ready!: (r: ScanWorkerResponse) => void;
    this.#ready = new Promise((resolve, reject) => {
      ready = (r) => (r.type === 'ready' ? resolve(r.kernel) : reject(poolError(r)));
    });
    this.#pending.set(-1, ready);
    const onMessage = (data: ScanWorkerResponse) => {
      const key = data.type === 'ready' ? -1 : (data.job ?? -1);
      const settle = this.#pending.get(key);
      this.#pending.delete(key);
      settle?.(data);
    };
    const onError = (error: unknown) => {
      for (const settle of this.#pending.values()) settle({ type: 'error', code: 'INTERNAL_ERROR', message: `scan worker crashed: ${String((error as Error)?.message ?? error)}` });
      this.#pending.clear();
    };
    if (worker.addEventListener) {
      worker.addEventListener('message', (event: { data: ScanWorkerResponse }) => onMessage(event.data));
      worker.addEventListener('error', onError);
    } else if (worker.on) {
      worker.on('message', onMessage);
      worker.on('error', onError);
    } else {
      throw new InvalidArgumentError('spawn', 'must return a Web Worker or a worker_threads Worker');
    }
  }
  ready(): Promise<EffectiveKernel> {
    return this.#ready;
  }
  request(job: number, message: ScanWorkerRequest, transfer: ArrayBuffer[]): Promise<ScanWorkerResponse> {
    return new Promise((resolve) => {
      this.#pending.set(job, resolve);
      this.worker.postMessage(message, transfer);
    });
  }
}

function poolError(response: ScanWorkerResponse): WraithError {
  const r = response as Extract<ScanWorkerResponse, { type: 'error' }>;
  return new WraithError(r.code === 'INVALID_KEY' || r.code === 'KEY_MISMATCH' || r.code === 'INVALID_HEX' ? r.code : 'INVALID_ARGUMENT', r.message);
}

/**
 * Start a pool of scan workers for one key set.
 *
 * @example
 * const pool = await createScanPool(keys, {
 *   spawn: () => new Worker(new URL('@wraith-pq/sdk/scan-worker', import.meta.url), { type: 'module' }),
 * });
 * const { discoveries } = await pool.scan(rows);
 * pool.close();
 */
export async function createScanPool(keys: ScanKeys, options: CreateScanPoolOptions): Promise<ScanPool> {
  if (typeof options?.spawn !== 'function') throw new InvalidArgumentError('spawn', 'must be a function that starts a worker');
  // Validate keys and options here, with the usual typed errors, before any worker starts.
  // The reference kernel prepares nothing, so the calling thread never compiles the WASM kernel
  // (a page's CSP may forbid that; the workers' policy allows it).
  kernelByName(options.kernel);
  createScanner(keys, { ...(options.mode ? { mode: options.mode } : {}), kernel: 'reference' });
  const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 1;
  const size = options.size ?? Math.max(1, cores);
  if (!Number.isSafeInteger(size) || size < 1 || size > 256) throw new InvalidArgumentError('size', 'must be an integer from 1 to 256');
  const workerKeys = {
    viewingSecretKey: toBytes(keys.viewingSecretKey, 'viewing_sk').slice(),
    spendingPublicKey: toBytes(keys.spendingPublicKey, 'spending_pk').slice(),
    ...(keys.spendingSecretKey === undefined ? {} : { spendingSecretKey: toBytes(keys.spendingSecretKey, 'spending_sk').slice() }),
  };
  const channels = Array.from({ length: size }, () => new Channel(options.spawn()));
  let kernels: EffectiveKernel[] = [];
  try {
    channels.forEach((c) =>
      c.worker.postMessage({ type: 'init', keys: workerKeys, ...(options.mode ? { mode: options.mode } : {}), ...(options.kernel ? { kernel: options.kernel } : {}) }),
    );
    kernels = await Promise.all(channels.map((c) => c.ready()));
  } catch (error) {
    channels.forEach((c) => c.worker.terminate());
    throw error;
  }
  let nextJob = 0;

  async function scan<A extends AnnouncementInput>(announcements: readonly A[]): Promise<ScanResult<A>> {
    if (!Array.isArray(announcements)) throw new InvalidArgumentError('announcements', 'must be an array');
    const started = performance.now();
    // One pass straight into the buffers that travel (the main thread's share of the work must
    // stay small, or it, not the workers, bounds the pool).
    const n = announcements.length;
    const packed = new Uint8Array(n * CIPHERTEXT_BYTES);
    const viewTags = new Uint8Array(n);
    const indices = new Uint32Array(n);
    let count = 0;
    for (let index = 0; index < n; index++) {
      let parsed;
      try {
        parsed = parseAnnouncement(announcements[index]!, `announcements[${index}]`);
      } catch (error) {
        if (!(error instanceof WraithError)) throw error;
        continue;
      }
      packed.set(parsed.ephemeralKey, count * CIPHERTEXT_BYTES);
      viewTags[count] = parsed.viewTag;
      indices[count] = index;
      count++;
    }
    const per = Math.ceil(count / size);
    const jobs: Promise<ScanWorkerResponse>[] = [];
    for (let w = 0, from = 0; from < count; w++, from += per) {
      const to = Math.min(count, from + per);
      const ciphertexts = packed.slice(from * CIPHERTEXT_BYTES, to * CIPHERTEXT_BYTES).buffer;
      const job = nextJob++;
      jobs.push(
        channels[w]!.request(
          job,
          { type: 'scan', job, ciphertexts, viewTags: viewTags.slice(from, to), indices: indices.slice(from, to) },
          [ciphertexts],
        ),
      );
    }
    const results = await Promise.all(jobs);
    const discoveries: Discovery<A>[] = [];
    let viewTagMatches = 0;
    for (const result of results) {
      if (result.type !== 'result') throw poolError(result);
      viewTagMatches += result.viewTagMatches;
      for (const found of result.discoveries) discoveries.push({ ...found, announcement: announcements[found.index]! });
    }
    const durationMs = performance.now() - started;
    return {
      discoveries,
      stats: {
        totalScanned: announcements.length,
        viewTagMatches,
        discoveries: discoveries.length,
        malformed: n - count,
        durationMs,
        rate: durationMs > 0 ? (announcements.length * 1000) / durationMs : 0,
      },
    };
  }

  return { size, kernel: kernels[0]!, scan, close: () => channels.forEach((c) => c.worker.terminate()) };
}
