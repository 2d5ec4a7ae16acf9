/**
 * A Node `worker_threads` scan worker for the SDK's pool: the SDK ships the message handler
 * (connectScanWorker) and no Node built-in, so this wires it to `parentPort`. The handler
 * module is bundled once with esbuild into a temporary ES module.
 */
import { build } from 'esbuild';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

let bundled: Promise<string> | undefined;

function bundleHandler(): Promise<string> {
  bundled ??= (async () => {
    const result = await build({
      entryPoints: [new URL('../../sdk/src/scan-worker-protocol.ts', import.meta.url).pathname],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      write: false,
      logLevel: 'silent',
    });
    const file = join(mkdtempSync(join(tmpdir(), 'wraith-worker-')), 'scan-worker-protocol.mjs');
    writeFileSync(file, result.outputFiles[0]!.text);
    return pathToFileURL(file).href;
  })();
  return bundled;
}

/** A `spawn` for createScanPool in Node. */
export async function nodeScanWorkerSpawner(): Promise<() => Worker> {
  const url = await bundleHandler();
  const code = `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(url)}).then(({ connectScanWorker }) => connectScanWorker(parentPort));`;
  return () => new Worker(code, { eval: true });
}
