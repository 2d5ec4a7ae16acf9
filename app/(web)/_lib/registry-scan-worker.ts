/**
 * The Scan page's worker: walks the registry from a cursor and scans every page on this thread,
 * posting one message per page (registry-scan-protocol.ts).
 *
 * Why a worker does all of it (issue 17): on the page's main thread, receiving 1.1 MB per
 * thousand announcements, decoding them into objects and handing them to scan workers cost
 * several times the scan itself, and kept the page busy. Here the bytes of a page arrive in the
 * thread that scans them, are read in place (the ciphertexts stay views of the response) and
 * the WebAssembly kernel needs a few milliseconds per thousand: one thread keeps up with the
 * network, as `scanRegistry` does in Node.
 */
import { bytesToHex, createScanner, effectiveKernel, scanRegistry } from '@wraith-pq/sdk';
import { errorMessage } from './error-message';
import { registryPages } from './registry-source';
import type { RegistryScanEvent, RegistryScanRequest } from './registry-scan-protocol';

type WorkerScope = {
  postMessage(message: RegistryScanEvent): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<RegistryScanRequest>) => void): void;
};
const scope = globalThis as unknown as WorkerScope;

let running: AbortController | null = null;

// Compile the WebAssembly kernel now: this worker is usually started before the user asks for a
// scan (scan-worker.ts), so the compilation is done by the time keys arrive.
effectiveKernel();

scope.addEventListener('message', ({ data }) => {
  if (data.type === 'cancel') {
    running?.abort(new DOMException('Scan cancelled', 'AbortError'));
    return;
  }
  if (data.type === 'start' && running === null) void run(data.keys, data.fromCursor);
});

async function run(keys: Extract<RegistryScanRequest, { type: 'start' }>['keys'], fromCursor: number): Promise<void> {
  const abort = new AbortController();
  running = abort;
  try {
    // Fails here, before any request, if the keys are unusable.
    createScanner(keys);
    scope.postMessage({ type: 'ready', kernel: effectiveKernel() });
    for await (const batch of scanRegistry(registryPages, keys, { fromCursor, signal: abort.signal })) {
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
          txHash: a.txHash ?? null,
          timestamp: a.timestamp,
          ephemeralKey: bytesToHex(a.ephemeralKey),
          viewTag: a.viewTag,
          note: d.note ? { amount: d.note.amount?.toString() ?? null, txHash: d.note.txHash, chainId: d.note.chainId?.toString() ?? null } : null,
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
