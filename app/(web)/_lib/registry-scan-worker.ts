/**
 * The Scan page's worker: decodes and scans the registry pages the page sends it, in order
 * (registry-source.ts), posting one message per page (registry-scan-protocol.ts).
 *
 * Why a worker (issue 17): on the page's main thread, decoding 1.1 MB per thousand announcements
 * into objects and scanning them would keep the page busy. Here a page's bytes arrive
 * transferred, are read in place (the ciphertexts stay views of them) and the WebAssembly kernel
 * needs a few milliseconds per thousand, while the page's thread receives the next pages.
 */
import { bytesToHex, createScanner, decodeAnnouncementPage, effectiveKernel, scanRegistry } from '@wraith-pq/sdk';
import { errorMessage } from './error-message';
import { pageQueue } from './registry-source';
import type { RegistryScanEvent, RegistryScanRequest } from './registry-scan-protocol';

type WorkerScope = {
  postMessage(message: RegistryScanEvent): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<RegistryScanRequest>) => void): void;
};
const scope = globalThis as unknown as WorkerScope;

let running: AbortController | null = null;
let started = false;

// Compile the WebAssembly kernel now: this worker is usually started before the user asks for a
// scan (scan-worker.ts), so the compilation is done by the time keys arrive.
effectiveKernel();

/** This worker runs one scan: the pages of its walk, queued as they come. */
const pages = pageQueue(decodeAnnouncementPage, () => scope.postMessage({ type: 'consumed' }));

scope.addEventListener('message', ({ data }) => {
  if (data.type === 'page' || data.type === 'end' || data.type === 'fetch-failed') {
    pages.push(data);
    return;
  }
  if (data.type === 'cancel') {
    running?.abort(new DOMException('Scan cancelled', 'AbortError'));
    return;
  }
  // One scan per worker: its page queue belongs to that scan.
  if (data.type === 'start' && !started) {
    started = true;
    void run(data.keys, data.fromCursor);
  }
});

async function run(keys: Extract<RegistryScanRequest, { type: 'start' }>['keys'], fromCursor: number): Promise<void> {
  const abort = new AbortController();
  running = abort;
  try {
    // Fails here, before any request, if the keys are unusable.
    createScanner(keys);
    scope.postMessage({ type: 'ready', kernel: effectiveKernel() });
    for await (const batch of scanRegistry(pages.source, keys, { fromCursor, signal: abort.signal })) {
      const secrets: [number, Uint8Array][] = [];
      const discoveries = batch.discoveries.map((d) => {
        const a = d.announcement;
        if (d.stealthSecretKey) secrets.push([a.id, d.stealthSecretKey]);
        return {
          id: a.id,
          stealthAddress: d.stealthAddress,
          stealthSuiAddress: d.stealthSuiAddress,
          amount: a.amount ?? null,
          chain: a.chain ?? null,
          chainId: rowChainId(a) ?? noteChainId(d.note?.chainId),
          txHash: a.txHash ?? null,
          timestamp: a.timestamp,
          ephemeralKey: bytesToHex(a.ephemeralKey),
          viewTag: a.viewTag,
          note: d.note ? { amount: d.note.amount?.toString() ?? null, txHash: d.note.txHash, chainId: d.note.chainId?.toString() ?? null, ...noteAsset(d.note) } : null,
        };
      });
      scope.postMessage({
        type: 'batch',
        cursor: batch.cursor,
        scanned: batch.scanned,
        progress: { scanned: batch.progress.scanned, rate: batch.progress.rate },
        discoveries,
        secrets,
      });
    }
    scope.postMessage({ type: 'done' });
  } catch (cause) {
    scope.postMessage(abort.signal.aborted ? { type: 'cancelled' } : { type: 'failed', message: errorMessage(cause) });
  } finally {
    running = null;
  }
}

/**
 * The registry row's `chain_id` (API.md "Several chains"): the chain the indexer read the
 * announcement from. Read by shape, so rows of a server or SDK without the field still scan.
 */
function rowChainId(row: object): number | null {
  const id = (row as { chainId?: unknown }).chainId;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : null;
}

/**
 * The asset a version-1 note names (PROTOCOL.md 8.1; the SDK's `note.token`: 'coin' or the
 * token's address), kept as `native` or the address; a version-0 note names none.
 */
function noteAsset(note: { token: string | null }): { asset?: string } {
  if (note.token === null) return {};
  return { asset: note.token === 'coin' ? 'native' : note.token };
}

/** The note's chain id (PROTOCOL.md section 8, a u64), where it fits a JavaScript number. */
function noteChainId(id: bigint | null | undefined): number | null {
  return id !== null && id !== undefined && id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : null;
}
