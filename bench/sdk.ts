/**
 * SDK protocol core (issue 2): key generation, payment creation and the reference scanner,
 * against @noble/post-quantum's ML-KEM-768 decapsulation measured in the same run.
 */
import { availableParallelism } from 'node:os';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import * as tinySecp256k1 from 'tiny-secp256k1';
import {
  bytesToHex,
  createScanner,
  createScanPool,
  erc8441KeysOf,
  type ScanResult,
  type StealthPayment,
  createStealthPayment,
  decodeAnnouncementPage,
  encodeAnnouncementPage,
  generateKeys,
  referenceKernel,
  typescriptKernel,
  type AnnouncementRecord,
  type RegistryAnnouncement,
} from '../sdk/src/index.ts';
import { decodeAnnouncementPageReference } from '../sdk/src/announcement-binary-reference.ts';
import { createReencryptionCheck } from '../sdk/src/k-pke-reencryption-check.ts';
import { wasmKernel, wasmKernelAvailable } from '../sdk/src/scan-kernel-wasm.ts';
import { parseViewingSecretKey } from '../sdk/src/viewing-key.ts';
import { bytesToBigInt } from '../sdk/src/bytes.ts';
import { createWasmErc8441Core, wasmErc8441Available } from '../sdk/src/erc8441-scan-wasm.ts';
import { nodeScanWorkerSpawner } from '../tests/helpers/scan-worker-node.ts';
import { benchScheme3Browser } from './browser.ts';
import { formatRate, measureInterleaved, median, printTable, type Measurement } from './harness.ts';

export async function benchSdk(): Promise<Measurement[]> {
  const keys = generateKeys();
  const payments = Array.from({ length: 64 }, () => createStealthPayment(generateKeys().metaAddress));
  const batch: AnnouncementRecord[] = payments.map((p, i) => ({ id: i + 1, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag }));

  let i = 0;
  const reference = createScanner(keys, { kernel: referenceKernel });
  const fast = createScanner(keys, { kernel: typescriptKernel });
  const bytesBatch = payments.map((p, j) => ({ id: j + 1, ephemeralKey: p.ephemeralCiphertext, viewTag: p.viewTag }));
  const perAnnouncement = { opsPerCall: batch.length, unit: 'ann/s' };
  // Kernels alone (no parsing): one call per announcement, and the WebAssembly batch form.
  if (!wasmKernelAvailable()) console.log('WebAssembly SIMD unavailable: the WASM rows measure the TypeScript fallback');
  const viewingKey = parseViewingSecretKey(keys.viewingSecretKey);
  const tsKernel = typescriptKernel(viewingKey);
  const wasm = wasmKernel(viewingKey);
  const wasmScanner = createScanner(keys, { kernel: wasmKernel });
  const packed = new Uint8Array(payments.length * 1088);
  payments.forEach((p, j) => packed.set(p.ephemeralCiphertext, j * 1088));
  const secrets = new Uint8Array(payments.length * 32);
  const tags = new Uint8Array(payments.length);
  const secret = new Uint8Array(32);
  // A registry-like mix: random ciphertexts with random tags, so ~1/256 of them match the
  // candidate's tag and pay for the re-encryption check, as foreign announcements do.
  const registryRows = Array.from({ length: 4096 }, (_, j) => ({
    id: j + 1,
    ephemeralKey: crypto.getRandomValues(new Uint8Array(1088)),
    viewTag: j & 0xff,
  }));
  const perRegistry = { opsPerCall: registryRows.length, unit: 'ann/s' };
  // The confirmation after a tag match: the re-encryption check (matrix sampled on the first
  // call, so a fresh check measures preparation + one check) against noble's prepared decapsulation.
  const own = createStealthPayment(keys.metaAddress).ephemeralCiphertext;
  const ownCandidate = new Uint8Array(32);
  tsKernel.candidate(own, ownCandidate);
  const reencryptionCheck = createReencryptionCheck(viewingKey);
  const noblePrepared = ml_kem768.prepare(viewingKey.ek);
  const eachCandidate = (kernel: typeof wasm) => () => {
    for (const p of payments) kernel.candidate(p.ephemeralCiphertext, secret);
  };
  const rows = measureInterleaved([
    { name: 'generateKeys', fn: () => generateKeys() },
    { name: 'createStealthPayment', fn: () => createStealthPayment(keys.metaAddress) },
    { name: 'reference scan (JSON rows)', fn: () => reference.scan(batch), ...perAnnouncement },
    { name: 'TypeScript kernel scan (JSON rows)', fn: () => fast.scan(batch), ...perAnnouncement },
    { name: 'TypeScript kernel scan (byte rows)', fn: () => fast.scan(bytesBatch), ...perAnnouncement },
    { name: 'TypeScript kernel candidate (single calls)', fn: eachCandidate(tsKernel), ...perAnnouncement },
    { name: 'WASM SIMD kernel candidate (single calls)', fn: eachCandidate(wasm), ...perAnnouncement },
    { name: 'WASM SIMD kernel candidates (batch of 64)', fn: () => wasm.candidates?.(packed, payments.length, secrets, tags), ...perAnnouncement },
    { name: 'WASM SIMD kernel scan (JSON rows)', fn: () => wasmScanner.scan(batch), ...perAnnouncement },
    { name: 'WASM SIMD kernel scan (byte rows)', fn: () => wasmScanner.scan(bytesBatch), ...perAnnouncement },
    { name: 'TypeScript kernel scan (4,096 random byte rows, ~1/256 re-encryption checks)', fn: () => fast.scan(registryRows), ...perRegistry },
    { name: 'WASM SIMD kernel scan (4,096 random byte rows, ~1/256 re-encryption checks)', fn: () => wasmScanner.scan(registryRows), ...perRegistry },
    { name: 'confirm: re-encryption check (TypeScript, prepared key)', fn: () => reencryptionCheck(own, ownCandidate) },
    { name: 'confirm: first call of a fresh check (samples A_hat^T)', fn: () => createReencryptionCheck(viewingKey)(own, ownCandidate) },
    { name: 'confirm before: noble prepared decapsulate == candidate', fn: () => noblePrepared.decapsulate(own, viewingKey.dk)[0] === ownCandidate[0] },
    { name: 'noble ML-KEM-768 decapsulate (baseline)', fn: () => ml_kem768.decapsulate(payments[i++ & 63]!.ephemeralCiphertext, keys.viewingSecretKey) },
  ]);
  const decaps = rows.at(-1)!;
  printTable('SDK protocol core (one thread)', rows, decaps);
  return [...rows, ...benchPageDecode(keys), ...(await benchScheme3())];
}

/**
 * Issue 25's target: scheme-3 (ERC-8441) rows scanned per second on one core by each kernel,
 * against one ECDH by noble (`getSharedSecret`) and by libsecp256k1 compiled to WebAssembly
 * (npm tiny-secp256k1, `pointMultiply`), and the scheme-1000 rate, in interleaved rounds of one
 * run; then the pool on all cores. Rows are foreign payments (the recipient's view tag matches
 * ~1 in 256 of them, as on a real registry), 256 per batch: the WASM path's lockstep width.
 */
export async function benchScheme3(): Promise<Measurement[]> {
  const identity = generateKeys();
  const others = Array.from({ length: 32 }, () => erc8441KeysOf(generateKeys()).metaAddress);
  // Payments as createStealthPayment returns them (a form the scanner reads), one of them ours.
  const foreign = Array.from({ length: 256 }, (_, j) => createStealthPayment(others[j % others.length]!));
  foreign[128] = createStealthPayment(erc8441KeysOf(identity).metaAddress);
  const small = foreign.slice(0, 8);
  const wasmRows = createScanner(identity, { kernel: 'wasm' });
  const tsRows = createScanner(identity, { kernel: 'typescript' });
  // A fresh scanner per call would rebuild keys; the dedup set only holds the one match (index 128).
  const found = (result: ScanResult<StealthPayment>) => {
    if (result.stats.erc8441 !== result.stats.totalScanned) throw new Error('rows were not read as scheme 3');
  };
  const thousand = createScanner(identity, { kernel: 'wasm' });
  const registryRows = Array.from({ length: 4096 }, (_, j) => ({ id: j + 1, ephemeralKey: crypto.getRandomValues(new Uint8Array(1088)), viewTag: j & 0xff }));
  const sk = secp256k1.utils.randomSecretKey();
  const peers = Array.from({ length: 16 }, () => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
  let j = 0;
  const ecdh = createWasmErc8441Core(bytesToBigInt(sk), erc8441KeysOf(identity).metaAddress.subarray(33, 66), erc8441KeysOf(identity).metaAddress.subarray(66))?.ecdh;
  const xs = new Uint8Array(256 * 32);
  for (let k = 0; k < 256; k++) xs.set(foreign[k]!.ephemeralCiphertext.subarray(1, 33), 32 * k);
  const ecdhOut = new Uint8Array(256 * 32);
  const ecdhStatus = new Uint8Array(256);
  if (!wasmErc8441Available()) console.log('WebAssembly SIMD unavailable: the WASM scheme-3 rows measure the TypeScript fallback');
  const rows = measureInterleaved(
    [
      { name: 'noble secp256k1 getSharedSecret', fn: () => secp256k1.getSharedSecret(sk, peers[j++ & 15]!) },
      { name: 'tiny-secp256k1 pointMultiply (libsecp256k1 in WASM)', fn: () => tinySecp256k1.pointMultiply(peers[j++ & 15]!, sk) },
      ...(ecdh ? [{ name: 'WASM kernel ECDH.x alone (batch of 256)', fn: () => ecdh.run(xs, 256, ecdhOut, ecdhStatus), opsPerCall: 256, unit: 'ECDH/s' }] : []),
      { name: 'scheme-3 scan, WASM kernel (256 rows a batch)', fn: () => found(wasmRows.scan(foreign)), opsPerCall: 256, unit: 'rows/s' },
      { name: 'scheme-3 scan, TypeScript kernel (8 rows a batch)', fn: () => found(tsRows.scan(small)), opsPerCall: 8, unit: 'rows/s' },
      { name: 'scheme-1000 scan, WASM kernel (4,096 random byte rows)', fn: () => thousand.scan(registryRows), opsPerCall: 4096, unit: 'rows/s' },
    ],
    { rounds: 5, roundMs: 1000 },
  );
  const tiny = rows[1]!;
  printTable('Scheme 3 (ERC-8441) on one core', rows, tiny);
  const pooled = [...(await benchScheme3Pool(identity, foreign)), ...(await benchScheme3Browser())];
  const all = [...rows, ...pooled];
  const wasmRate = rows.find((r) => r.name.startsWith('scheme-3 scan, WASM'))!.opsPerSecond;
  console.log(`\nWASM kernel scheme-3 rows/s on one core / tiny-secp256k1 pointMultiply/s: ${(wasmRate / tiny.opsPerSecond).toFixed(2)}x (target: at least 3x)`);
  console.log(`scheme-1000 rows/s / scheme-3 rows/s (WASM kernel, one core): ${(rows.at(-1)!.opsPerSecond / wasmRate).toFixed(0)}x`);
  console.log('');
  for (const p of pooled) console.log(`${p.name}: ${formatRate(p.opsPerSecond)} rows/s, ${(p.opsPerSecond / tiny.opsPerSecond).toFixed(2)}x tiny-secp256k1's one-core rate`);
  return all;
}

/** The scan pool on every core (worker_threads, `availableParallelism()` workers) on 2,048 scheme-3 rows. */
async function benchScheme3Pool(identity: ReturnType<typeof generateKeys>, foreign: StealthPayment[]): Promise<Measurement[]> {
  const batch = Array.from({ length: 8 }, () => foreign).flat();
  const spawn = await nodeScanWorkerSpawner();
  const size = availableParallelism();
  const pool = await createScanPool(identity, { spawn, size });
  try {
    // Warm-up (V8's optimising tier); the payment is reported once per pool, in the first batch.
    if ((await pool.scan(batch)).discoveries.length !== 1) throw new Error('the pool found the wrong scheme-3 payments');
    await pool.scan(batch);
    const samples: number[] = [];
    for (let round = 0; round < 5; round++) {
      const started = performance.now();
      const { stats } = await pool.scan(batch);
      samples.push((batch.length * 1000) / (performance.now() - started));
      if (stats.erc8441 !== batch.length) throw new Error('rows were not read as scheme 3');
    }
    return [{ name: `scheme-3 scan, pool of ${size} workers (${pool.kernel}), 2,048 rows a batch`, opsPerSecond: median(samples), unit: 'rows/s', samples }];
  } finally {
    pool.close();
  }
}

/**
 * Decoding binary registry pages (what a streamed scan does to every page before scanning it)
 * against scanning the decoded rows with the WASM kernel: HTTP-published rows (a tx hash) and
 * chain events (tx hash, chain, chain id, sealed note, stealth address, block position). Issue 24's
 * target: a page of chain events decodes at least twice as fast as the kernel scans it. Stealth
 * addresses are checksummed when read, so the scan row (which reads none: no row is ours) and
 * the checksum of every row (what a decoder that renders them all pays) are both measured.
 * `npm run bench -- sdk-decode` runs this part alone.
 */
export function benchPageDecode(keys: ReturnType<typeof generateKeys> = generateKeys()): Measurement[] {
  const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
  const rows = (chain: boolean): RegistryAnnouncement[] =>
    Array.from({ length: 5000 }, (_, j) => ({
      id: j + 1,
      timestamp: 1_700_000_000 + j,
      viewTag: j & 0xff,
      ephemeralKey: random(1088),
      txHash: `0x${bytesToHex(random(32))}`,
      ...(chain ? { chain: 'eip155:1', chainId: 1, metadata: random(92), stealthAddress: `0x${bytesToHex(random(20))}`, blockNumber: 19_000_000 + j, logIndex: j % 200 } : {}),
    }));
  const httpPage = encodeAnnouncementPage(rows(false));
  const chainPage = encodeAnnouncementPage(rows(true));
  const scanner = createScanner(keys, { kernel: wasmKernel });
  const decodedChain = decodeAnnouncementPage(chainPage);
  const perPage = { opsPerCall: 5000, unit: 'ann/s' };
  const measured = measureInterleaved([
    { name: 'decode a binary page of HTTP rows (tx hash)', fn: () => decodeAnnouncementPage(httpPage), ...perPage },
    { name: 'decode a binary page of chain events (stealth address, note, position, chain id)', fn: () => decodeAnnouncementPage(chainPage), ...perPage },
    { name: 'plain reference decoder, same page (every text and EIP-55 address rendered at once)', fn: () => decodeAnnouncementPageReference(chainPage), ...perPage },
    {
      name: 'decode a binary page of chain events and read every stealth address (EIP-55)',
      fn: () => {
        for (const row of decodeAnnouncementPage(chainPage)) void row.stealthAddress;
      },
      ...perPage,
    },
    { name: 'WASM SIMD kernel scan of the decoded chain events (reference)', fn: () => scanner.scan(decodedChain), ...perPage },
  ], { rounds: 5 });
  printTable('Binary page decode (5,000 rows a page, one thread)', measured, measured.at(-1)!);
  return measured;
}
