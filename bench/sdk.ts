/**
 * SDK protocol core (issue 2): key generation, payment creation and the reference scanner,
 * against @noble/post-quantum's ML-KEM-768 decapsulation measured in the same run.
 */
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import {
  bytesToHex,
  createScanner,
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
import { measureInterleaved, printTable, type Measurement } from './harness.ts';

export function benchSdk(): Measurement[] {
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
  return [...rows, ...benchPageDecode(keys)];
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
