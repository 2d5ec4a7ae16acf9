/**
 * `npm run bench`: every benchmark suite, measured in one run, with ratios against the reference
 * implementations measured beside them. Results also go to bench/out/results.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { machine } from './harness.ts';
import { benchApi } from './api.ts';
import { benchBrowser } from './browser.ts';
import { benchGasless } from './gasless.ts';
import { benchIndexer } from './indexer.ts';
import { benchLoad } from './load.ts';
import { benchPool } from './pool.ts';
import { benchScanPage } from './scan-page.ts';
import { benchPayGas } from './pay-gas.ts';
import { benchPageDecode, benchScheme3, benchSdk } from './sdk.ts';
import { benchStream } from './stream.ts';

const only = process.argv[2];
const suites: Record<string, () => Promise<unknown> | unknown> = {
  sdk: benchSdk,
  // The binary page decode part of `sdk` alone (issue 24).
  'sdk-decode': () => benchPageDecode(),
  // The scheme-3 (ERC-8441) part of `sdk` alone (issue 25).
  'sdk-scheme3': () => benchScheme3(),
  api: benchApi,
  stream: benchStream,
  pool: benchPool,
  // The scan kernels in Chromium workers, then the Scan page end to end against the SDK in Node.
  browser: async () => [...(await benchBrowser()), ...(await benchScanPage())],
  load: benchLoad,
  indexer: benchIndexer,
  // Issue 30: one payment through WraithPay against separate transactions, in gas.
  'pay-gas': benchPayGas,
  // Gas of a gasless withdrawal (EIP-7702 + ERC-4337 v0.8, alto) against a plain withdrawToken (issue 31).
  gasless: benchGasless,
};

console.log(`# Wraith benchmarks\n\nMachine: ${machine()}\nDate: ${new Date().toISOString()}`);
const results: Record<string, unknown> = {};
for (const [name, run] of Object.entries(suites)) {
  if (only && only !== name) continue;
  results[name] = await run();
}
mkdirSync(new URL('./out/', import.meta.url), { recursive: true });
writeFileSync(new URL('./out/results.json', import.meta.url), JSON.stringify({ machine: machine(), date: new Date().toISOString(), results }, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 2));
