/**
 * A pool of scan workers sized to the cores: each batch is split into contiguous slices, each
 * sent to the least busy worker, and the results are merged back in batch order, so a pool finds
 * the same discoveries, in the same order, with the same stats as one thread.
 *
 * The SDK uses no Node built-in, so the caller says how to start a worker:
 * - browsers: `spawn: () => new Worker(new URL('@wraith-pq/sdk/scan-worker', import.meta.url), { type: 'module' })`;
 * - Node: a `worker_threads` Worker whose script wires `createScanWorkerHandler()` to `parentPort`.
 * Keys are sent to the workers once (they stay on this device: workers are threads of this
 * process/page). Ciphertexts are packed and transferred, not copied per announcement. Scheme-3
 * (ERC-8441) rows go to the workers in slices of their own, with the scan's tracking key.
 * @module
 */
import { erc8441RowOf, MALFORMED_LIST_LIMIT, packAnnouncements, parseAnnouncement, type AnnouncementInput, type Erc8441Row, type MalformedAnnouncement } from './announcement.ts';
import { toBytes } from './bytes.ts';
import { InvalidArgumentError, WraithError, type WraithErrorCode } from './errors.ts';
import { decodeErc8441MetaAddress } from './erc8441-meta-address.ts';
import { ERC8441_EPHEMERAL_KEY_BYTES } from './erc8441-payment.ts';
import { parseSpendingSecret } from './spending-key.ts';
import { completeDiscovery, createScanner, erc8441Discovery, erc8441KeysOfScan, kernelByName, type CreateScannerOptions, type Scanner, type Discovery, type EffectiveKernel, type ScanKeys, type ScanResult } from './scanner.ts';
import type { ScanKernelName } from './scan-kernel.ts';
import type { ScanWorkerRequest, ScanWorkerResponse } from './scan-worker-protocol.ts';
import { CIPHERTEXT_BYTES } from './viewing-key.ts';

/**
 * The part of a Web Worker or a Node `worker_threads` Worker the pool uses: `new Worker(...)` of
 * either is assignable to it under `strict`. The pool always passes a transfer list (the
 * ciphertext buffers, or none), so a `postMessage` that requires one (the DOM's `Transferable[]`
 * overload) fits.
 */
export type ScanWorkerLike = {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  terminate(): unknown;
  addEventListener?(type: 'message' | 'error', listener: (event: any) => void): void;
  on?(event: 'message' | 'error', listener: (value: any) => void): void;
};

/** `strict` is applied on the calling thread, which parses every row: workers only see packed ones. */
export type CreateScanPoolOptions = Pick<CreateScannerOptions, 'mode' | 'strict'> & {
  /** The kernel the workers (and, with `useCallingThread`, the calling thread) run, by name (default `auto`). */
  kernel?: ScanKernelName;
  spawn: () => ScanWorkerLike;
  /**
   * Number of workers (default: `navigator.hardwareConcurrency`, at least 1; with
   * `useCallingThread`, one fewer). Node 20 has no `navigator`, so there the default is 1: pass
   * `os.availableParallelism()` (with `useCallingThread`, `Math.max(1, os.availableParallelism() - 1)`).
   */
  size?: number;
  /**
   * Let the thread that calls `scan` scan rows too, up to 512 at a time, whenever every worker
   * has its slices queued (default false). Otherwise that thread only packs rows and waits, yet
   * its packing still takes a core's time from the workers: on a machine with as many workers as
   * cores the pool runs slower than the cores allow. For Node scripts and scanning services:
   * `size: Math.max(1, os.availableParallelism() - 1), useCallingThread: true`. Each piece holds
   * the calling thread for about 1 ms with the WebAssembly kernel on byte rows (3–6 ms on JSON
   * rows, which need hex parsing), 6–14 ms with the TypeScript kernel, much longer in
   * `mode: 'constant'`: leave it off in a page, and on a server that must answer other requests
   * promptly while it scans.
   */
  useCallingThread?: boolean;
};

export type ScanPool = {
  readonly size: number;
  /**
   * The kernel the workers run (what `auto` resolved to inside them). With `useCallingThread`,
   * the calling thread resolves `auto` on its own, and may differ: a page whose CSP forbids
   * WebAssembly runs the TypeScript kernel even if its workers' policy allows it.
   */
  readonly kernel: EffectiveKernel;
  /**
   * Scan one batch: the same discoveries, `malformed` list (indexes in this batch) and counts as
   * `createScanner(keys).scan(announcements)`; with `strict`, rejects with the same error.
   */
  scan<A extends AnnouncementInput>(announcements: readonly A[]): Promise<ScanResult<A>>;
  /** Terminate the workers; a scan still running rejects instead of waiting forever. */
  close(): void;
};

/**
 * Rows per message to a worker (2.2 MB of ciphertexts): large enough that messaging costs
 * little, small enough that every worker starts early.
 */
const SLICE_ROWS = 2048;
/** Slices queued per worker before the calling thread waits: one scanning, one ready. */
const SLICES_IN_FLIGHT = 2;
/**
 * Rows the calling thread scans at a time with `useCallingThread` (about 1 ms with the
 * WebAssembly kernel on byte rows), before it returns to its event loop to hear from the workers
 * and refill their queues.
 */
const CALLER_ROWS = 512;
/** Scheme-3 rows per message to a worker: the WASM ECDH's batch (EC_MAX_BATCH), ~25 ms of work. */
const ERC8441_SLICE_ROWS = 256;
/** The smallest slice sent to a worker with `useCallingThread`, at the tail of a batch. */
const MIN_SLICE_ROWS = 64;

/**
 * Turns of the event loop: `next()` resolves after the event loop has delivered what is waiting
 * (the workers' answers). Node's `setImmediate` runs after its poll phase, where those arrive. A
 * MessageChannel would not do in Node: a port keeps delivering its own messages, up to 1,000 in a
 * row, before any other port's. Browsers have no `setImmediate`; there a message to oneself is a
 * task like the workers'.
 */
function eventLoopTurns(): { next(): Promise<void>; close(): void } {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  if (typeof immediate === 'function') return { next: () => new Promise((resolve) => void immediate(resolve)), close: () => {} };
  const channel = new MessageChannel();
  return {
    next: () =>
      new Promise((resolve) => {
        channel.port1.onmessage = () => resolve();
        channel.port2.postMessage(null);
      }),
    close: () => {
      channel.port1.close();
      channel.port2.close();
    },
  };
}

/** The worker with the fewest slices in flight (the first such one). */
function leastLoaded(load: readonly number[]): number {
  let best = 0;
  for (let w = 1; w < load.length; w++) if (load[w]! < load[best]!) best = w;
  return best;
}

class Channel {
  #pending = new Map<number, (response: ScanWorkerResponse) => void>();
  #ready: Promise<EffectiveKernel>;
  /** Set once the worker crashed or the pool closed: every later request gets it at once. */
  #gone: ScanWorkerResponse | undefined;
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
    // The worker's own message is not repeated: it may come from anywhere in the worker.
    const onError = () => this.#fail({ type: 'error', code: 'SCAN_WORKER_FAILED', message: 'A scan worker crashed; start a new pool.' });
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
    if (this.#gone) return Promise.resolve(this.#gone);
    return new Promise((resolve) => {
      this.#pending.set(job, resolve);
      this.worker.postMessage(message, transfer);
    });
  }
  /** Terminate the worker; requests still waiting get an error instead of waiting forever. */
  close(): void {
    this.#fail({ type: 'error', code: 'SCAN_WORKER_FAILED', message: 'The scan pool was closed before the scan finished.' });
    this.worker.terminate();
  }
  #fail(response: ScanWorkerResponse): void {
    this.#gone ??= response;
    for (const settle of this.#pending.values()) settle(this.#gone);
    this.#pending.clear();
  }
}

const WORKER_CODES: ReadonlySet<string> = new Set(['INVALID_KEY', 'KEY_MISMATCH', 'INVALID_HEX', 'INVALID_ARGUMENT', 'SCAN_WORKER_FAILED']);

function poolError(response: ScanWorkerResponse): WraithError {
  const r = response as Extract<ScanWorkerResponse, { type: 'error' }>;
  return new WraithError(WORKER_CODES.has(r.code) ? (r.code as WraithErrorCode) : 'SCAN_WORKER_FAILED', r.message);
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
  // With useCallingThread this thread scans too, so it prepares the real kernel.
  if (options.useCallingThread !== undefined && typeof options.useCallingThread !== 'boolean') {
    throw new InvalidArgumentError('useCallingThread', 'must be a boolean');
  }
  const caller = options.useCallingThread === true;
  if (options.strict !== undefined && typeof options.strict !== 'boolean') throw new InvalidArgumentError('strict', 'must be a boolean');
  const strict = options.strict === true;
  const kernel = kernelByName(options.kernel);
  const mode = options.mode ? { mode: options.mode } : {};
  const checked = createScanner(keys, { ...mode, kernel: caller ? kernel : 'reference' });
  // The calling thread's own scanner (it holds the parsed keys): dropped by close().
  let local: Scanner | undefined = caller ? checked : undefined;
  const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 1;
  const size = options.size ?? Math.max(1, cores - (caller ? 1 : 0));
  if (!Number.isSafeInteger(size) || size < 1 || size > 256) throw new InvalidArgumentError('size', 'must be an integer from 1 to 256');
  // Scheme-3 rows go to the workers too, with the scan's ERC-8441 keys (checked by `checked` above).
  const erc8441Keys = erc8441KeysOfScan(keys);
  const erc8441 = erc8441Keys && {
    trackingKey: toBytes(erc8441Keys.trackingKey, 'tracking_key').slice(),
    metaAddress: toBytes(erc8441Keys.metaAddress, 'meta_address').slice(),
  };
  const erc8441Meta = erc8441 && { meta: decodeErc8441MetaAddress(erc8441.metaAddress) };
  const spendingSecret = keys.spendingSecretKey === undefined ? undefined : parseSpendingSecret(keys.spendingSecretKey, 'spending_sk');
  /** Scheme-3 stealth addresses this pool has reported (ERC-8441 Section 2.5: once, over all batches). */
  const erc8441Seen = new Set<string>();
  const workerKeys = {
    viewingSecretKey: toBytes(keys.viewingSecretKey, 'viewing_sk').slice(),
    spendingPublicKey: toBytes(keys.spendingPublicKey, 'spending_pk').slice(),
    ...(keys.spendingSecretKey === undefined ? {} : { spendingSecretKey: toBytes(keys.spendingSecretKey, 'spending_sk').slice() }),
    ...(erc8441 ? { erc8441 } : {}),
  };
  const channels = Array.from({ length: size }, () => new Channel(options.spawn()));
  let kernels: EffectiveKernel[] = [];
  try {
    channels.forEach((c) =>
      c.worker.postMessage({ type: 'init', keys: workerKeys, ...(options.mode ? { mode: options.mode } : {}), ...(options.kernel ? { kernel: options.kernel } : {}) }, []),
    );
    kernels = await Promise.all(channels.map((c) => c.ready()));
  } catch (error) {
    channels.forEach((c) => c.close());
    throw error;
  }
  let nextJob = 0;
  // Ciphertext buffers handed back by the workers, refilled for later slices: fresh memory costs
  // the calling thread a page fault per 4 KiB, as much as packing itself.
  const spare: ArrayBuffer[] = [];
  const takeBuffer = (bytes: number): ArrayBuffer => {
    const at = spare.findIndex((buffer) => buffer.byteLength >= bytes);
    return at >= 0 ? spare.splice(at, 1)[0]! : new ArrayBuffer(bytes);
  };
  const keep = (buffer: ArrayBuffer) => {
    if (spare.length < size * SLICES_IN_FLIGHT) spare.push(buffer);
  };
  const recycle = (response: ScanWorkerResponse): ScanWorkerResponse => {
    if (response.type === 'result' && response.ciphertexts) keep(response.ciphertexts);
    return response;
  };

  async function scan<A extends AnnouncementInput>(announcements: readonly A[]): Promise<ScanResult<A>> {
    if (!Array.isArray(announcements)) throw new InvalidArgumentError('announcements', 'must be an array');
    const started = performance.now();
    // The calling thread's share (parse + pack) is serial: it must stay small, or it, not the
    // workers, bounds the pool. The batch goes out in contiguous slices, each packed straight
    // into the buffer that travels and posted at once, so every worker starts after one slice and
    // the calling thread packs while the workers scan. A slice goes to the worker with the fewest
    // in flight, so a worker slowed down (by the calling thread or anything else sharing its
    // core) gets fewer slices instead of holding up the others. At most SLICES_IN_FLIGHT slices
    // wait per worker, which bounds the memory in flight whatever the batch size; when every
    // worker is full, the calling thread waits for any one slice to finish, or, with
    // useCallingThread, scans CALLER_ROWS rows itself and then looks again. Its slices are then
    // a share of the rows left (threads x SLICES_IN_FLIGHT shares), so a small batch reaches
    // every worker and the calling thread too, and near the end of a large one no worker is
    // still busy with a long queue when the calling thread runs out of rows.
    const n = announcements.length;
    const threads = size + (caller ? 1 : 0);
    const evenRows = Math.max(1, Math.min(SLICE_ROWS, Math.ceil(n / size)));
    const load = channels.map(() => 0);
    const running = new Set<Promise<ScanWorkerResponse>>();
    // Every part of the batch in order: a worker's answer, or rows the calling thread scanned.
    const parts: (Promise<ScanWorkerResponse> | { from: number; result: ScanResult<A> })[] = [];
    const turns = caller ? eventLoopTurns() : undefined;
    // Rows are parsed here in batch order (packed slices and the calling thread's own pieces
    // alike), so the list holds the batch's first malformed rows, as one thread's would.
    const malformed: MalformedAnnouncement[] = [];
    // Scheme-3 (ERC-8441) rows met while packing go to the workers in slices of their own (up to
    // ERC8441_SLICE_ROWS, the WASM ECDH's lockstep width): each costs a worker tens of times a
    // scheme-1000 row (34x-46x in BENCHMARKS.md). Without the scan's ERC-8441 keys they are only counted.
    const erc8441Pending: { index: number; row: Erc8441Row }[] = [];
    let erc8441Count = 0;
    const packOptions = {
      malformed,
      strict,
      erc8441: (index: number, row: Erc8441Row) => {
        erc8441Count++;
        // A row of the wrong shape is a skip (ERC-8441 Section 2.7) that never reaches a worker.
        if (erc8441 && row.ephemeralPubKey.length === ERC8441_EPHEMERAL_KEY_BYTES && row.metadata.length > 0) erc8441Pending.push({ index, row });
      },
    };
    const post = (worker: number, message: ScanWorkerRequest & { job: number }, transfer: ArrayBuffer[]) => {
      load[worker]!++;
      const answer: Promise<ScanWorkerResponse> = channels[worker]!.request(message.job, message, transfer).then((response) => {
        load[worker]!--;
        running.delete(answer);
        if (response.type === 'error') failed = true;
        return recycle(response);
      });
      running.add(answer);
      parts.push(answer);
    };
    /** Sends up to `rows` pending scheme-3 rows to `worker`. */
    const postErc8441 = (worker: number, rows: number) => {
      const slice = erc8441Pending.splice(0, rows);
      const ephemeralKeys = new Uint8Array(slice.length * ERC8441_EPHEMERAL_KEY_BYTES);
      const viewTags = new Uint8Array(slice.length);
      slice.forEach(({ row }, k) => {
        ephemeralKeys.set(row.ephemeralPubKey, k * ERC8441_EPHEMERAL_KEY_BYTES);
        viewTags[k] = row.metadata[0]!;
      });
      post(
        worker,
        {
          type: 'scan-erc8441',
          job: nextJob++,
          ephemeralKeys: ephemeralKeys.buffer,
          viewTags,
          stealthAddresses: slice.map(({ row }) => row.stealthAddress),
          indices: Uint32Array.from(slice, ({ index }) => index),
        },
        [ephemeralKeys.buffer],
      );
    };
    let wellFormed = 0;
    let failed = false;
    try {
      for (let from = 0; from < n && !failed; ) {
        const w = leastLoaded(load);
        if (load[w]! >= SLICES_IN_FLIGHT) {
          if (turns) {
            if (!local) throw new WraithError('SCAN_WORKER_FAILED', 'The scan pool was closed before the scan finished.');
            const to = Math.min(n, from + CALLER_ROWS);
            const result = local.scan(announcements.slice(from, to));
            wellFormed += to - from - result.stats.malformed;
            erc8441Count += result.stats.erc8441;
            for (const row of result.malformed) {
              // Thrown with the row's index in the whole batch, not in this piece.
              if (strict) parseAnnouncement(announcements[from + row.index]!, `announcements[${from + row.index}]`);
              if (malformed.length < MALFORMED_LIST_LIMIT) malformed.push({ index: from + row.index, reason: row.reason });
            }
            parts.push({ from, result });
            from = to;
            await turns.next();
          } else {
            // A failed slice (worker crashed, pool closed) fails the batch: stop packing the rest.
            if ((await Promise.race(running)).type === 'error') failed = true;
          }
          continue;
        }
        if (erc8441Pending.length >= ERC8441_SLICE_ROWS) {
          postErc8441(w, ERC8441_SLICE_ROWS);
          continue;
        }
        const sliceRows = caller ? Math.min(SLICE_ROWS, Math.max(MIN_SLICE_ROWS, Math.ceil((n - from) / (threads * SLICES_IN_FLIGHT)))) : evenRows;
        const to = Math.min(n, from + sliceRows);
        const buffer = takeBuffer((to - from) * CIPHERTEXT_BYTES);
        const packed = new Uint8Array(buffer);
        const viewTags = new Uint8Array(to - from);
        const indices = new Uint32Array(to - from);
        const diverted = erc8441Count;
        const count = packAnnouncements(announcements, from, to, packed, viewTags, indices, packOptions);
        from = to;
        wellFormed += count + (erc8441Count - diverted);
        if (count === 0) {
          keep(buffer);
          continue;
        }
        post(w, { type: 'scan', job: nextJob++, ciphertexts: buffer, viewTags: viewTags.subarray(0, count), indices: indices.subarray(0, count) }, [buffer]);
      }
      // The scheme-3 rows left: shared out evenly over the workers, as they free up.
      while (erc8441Pending.length > 0 && !failed) {
        const w = leastLoaded(load);
        if (load[w]! >= SLICES_IN_FLIGHT) {
          if ((await Promise.race(running)).type === 'error') failed = true;
          continue;
        }
        postErc8441(w, Math.min(ERC8441_SLICE_ROWS, Math.ceil(erc8441Pending.length / size)));
      }
    } finally {
      turns?.close();
    }
    const discoveries: Discovery<A>[] = [];
    let viewTagMatches = 0;
    for (const part of parts) {
      if ('result' in part) {
        viewTagMatches += part.result.stats.viewTagMatches;
        for (const found of part.result.discoveries) discoveries.push({ ...found, index: found.index + part.from });
        continue;
      }
      const result = await part;
      if (result.type !== 'result') throw poolError(result);
      viewTagMatches += result.viewTagMatches;
      for (const { index, ...found } of result.discoveries) discoveries.push(completeDiscovery(found, announcements[index]!, index, checked.viewOnly));
      for (const { index, stealthAddress, sharedSecret } of result.erc8441 ?? []) {
        const announcement = announcements[index]!;
        discoveries.push(erc8441Discovery(sharedSecret, stealthAddress, erc8441RowOf(announcement)!, announcement, index, erc8441Meta!, spendingSecret));
      }
    }
    // Batch order, whatever the scheme; a scheme-3 payment once per pool, its earliest row
    // (the calling thread's pieces were deduplicated by its own scanner, a subset of this set).
    discoveries.sort((x, y) => x.index - y.index);
    const reported = discoveries.filter((d) => {
      if (d.schemeId !== 3) return true;
      if (erc8441Seen.has(d.stealthAddress)) return false;
      erc8441Seen.add(d.stealthAddress);
      return true;
    });
    const durationMs = performance.now() - started;
    return {
      discoveries: reported,
      malformed,
      stats: {
        totalScanned: announcements.length,
        viewTagMatches,
        discoveries: reported.length,
        malformed: n - wellFormed,
        erc8441: erc8441Count,
        durationMs,
        rate: durationMs > 0 ? (announcements.length * 1000) / durationMs : 0,
      },
    };
  }

  const close = () => {
    local = undefined;
    channels.forEach((c) => c.close());
  };
  return { size, kernel: kernels[0]!, scan, close };
}
