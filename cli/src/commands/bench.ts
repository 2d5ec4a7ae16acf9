/**
 * `wraith bench`: how fast this machine scans, in announcements per second, with the SDK's
 * scan kernels (the WebAssembly SIMD one by default). The batch is mostly foreign
 * announcements (random 1088-byte ciphertexts: ML-KEM decapsulation accepts any, as real
 * foreign traffic looks to a scanner) with a few real payments mixed in; the run fails if the
 * scan does not find exactly those, so the figure is of a scan that works.
 * @module
 */
import { createScanner, createStealthPayment, effectiveKernel, generateKeys, type Announcement, type ScanKernelName } from '@wraith-pq/sdk';
import { randomBytes } from 'node:crypto';
import { integerFlag, parseCommand } from '../args.js';
import { CliError, UsageError } from '../errors.js';
import { info, result, resultJson } from '../output.js';

export const USAGE = 'wraith bench [--count <n>] [--kernel auto|wasm|typescript|reference] [--json]';
const KERNELS: readonly string[] = ['auto', 'wasm', 'typescript', 'reference'];
/** Small by default: well under a second with the WebAssembly kernel. */
const DEFAULT_COUNT = 5000;
const MAX_COUNT = 1_000_000;
/** Real payments hidden in the batch (the scan must find exactly these). */
const PAYMENTS = 5;

export async function benchCommand(argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, { count: { type: 'string' }, kernel: { type: 'string' }, json: { type: 'boolean' } }, 0, USAGE);
  const count = integerFlag(values.count, 'count', DEFAULT_COUNT, USAGE);
  if (count < PAYMENTS || count > MAX_COUNT) throw new UsageError(`--count must be ${PAYMENTS}..${MAX_COUNT}`, `usage: ${USAGE}`);
  const kernelName = (values.kernel ?? 'auto') as ScanKernelName;
  if (!KERNELS.includes(kernelName)) throw new UsageError(`--kernel must be one of ${KERNELS.join(', ')}`, `usage: ${USAGE}`);

  const keys = generateKeys();
  const announcements: Announcement[] = [];
  const noise = randomBytes(count * 1089);
  for (let i = 0; i < count - PAYMENTS; i++) {
    announcements.push({ ephemeralKey: new Uint8Array(noise.buffer, noise.byteOffset + i * 1089, 1088), viewTag: noise[i * 1089 + 1088]! });
  }
  const expected = new Set<string>();
  for (let i = 0; i < PAYMENTS; i++) {
    const payment = createStealthPayment(keys.metaAddress);
    expected.add(payment.stealthAddress);
    // Spread over the batch, not bunched at the end.
    announcements.splice(Math.floor(((i + 0.5) * announcements.length) / PAYMENTS), 0, { ephemeralKey: payment.ephemeralCiphertext, viewTag: payment.viewTag });
  }
  info(`scanning ${count} announcements (${PAYMENTS} of them real payments) with the ${effectiveKernel(kernelName)} kernel…`);

  const scanner = createScanner(keys, { kernel: kernelName });
  const started = performance.now();
  const { discoveries, stats } = scanner.scan(announcements);
  const seconds = (performance.now() - started) / 1000;
  const found = discoveries.filter((d) => expected.has(d.stealthAddress)).length;
  if (found !== PAYMENTS || discoveries.length !== PAYMENTS) {
    throw new CliError('BENCH_WRONG_RESULT', `the scan found ${discoveries.length} payments, ${found} of the ${PAYMENTS} hidden`, 'the scan kernel is broken on this machine; please report it');
  }
  const rate = count / seconds;
  if (values.json) {
    resultJson({ kernel: effectiveKernel(kernelName), announcements: count, seconds: Number(seconds.toFixed(3)), announcements_per_second: Math.round(rate), view_tag_matches: stats.viewTagMatches, found });
  } else {
    result(`${effectiveKernel(kernelName)} kernel: ${count} announcements in ${seconds.toFixed(3)} s = ${Math.round(rate).toLocaleString('en-US')} announcements/s (found ${found} of ${PAYMENTS} payments)`);
  }
}
