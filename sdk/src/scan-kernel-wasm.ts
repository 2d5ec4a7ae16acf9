/**
 * The WebAssembly SIMD scan kernel (PROTOCOL.md section 5, "a fast scanner may ..."): the same
 * work as the TypeScript kernel — K-PKE decryption, `K' = SHA3-512(m' || H(ek))[0..32]`, view
 * tag — compiled from AssemblyScript (sdk/assembly) with 128-bit SIMD, 8 announcements per
 * group (one per i16x8 lane). Lazy-reduction bounds are argued in sdk/assembly/k-pke.ts.
 *
 * - per key, once: an instance of the module (its own 960 KiB memory, 192 KiB of it for ML-KEM) with `s_hat` expanded
 *   into the base-multiplication table and `H(ek)`;
 * - `candidates` (batch) fills whole SIMD groups; `candidate` (one announcement) runs a group
 *   with one live lane, so batches are several times faster per announcement;
 * - after a tag match only: the re-encryption check in TypeScript, shared with the TypeScript
 *   kernel (k-pke-reencryption-check.ts); it runs for ~1/256 of foreign announcements, so it
 *   stays out of the SIMD module.
 *
 * The module's bytes ship inside the SDK (scan-kernel-wasm.bytes.ts, base64), are compiled
 * synchronously once (`new WebAssembly.Module`, fine in Node, workers and — for a module this
 * small, far below Chrome's 8 MB limit — browser main threads) and cached. Engines without
 * WebAssembly SIMD fail validation: {@link wasmKernelAvailable} is false there and
 * {@link wasmKernel} falls back to the TypeScript kernel.
 * @module
 */
import { base64ToBytes } from './base64.ts';
import { InvalidArgumentError } from './errors.ts';
import { createReencryptionCheck } from './k-pke-reencryption-check.ts';
import { assertBatchBuffers, type ScanKernelFactory } from './scan-kernel.ts';
import { typescriptKernel } from './scan-kernel-typescript.ts';
import { SCAN_KERNEL_WASM_BASE64 } from './scan-kernel-wasm.bytes.ts';
import { CIPHERTEXT_BYTES, SHARED_SECRET_BYTES } from './viewing-key.ts';

const DK_PKE_BYTES = 1152; // ByteEncode_12(s_hat), 3 x 384
const EK_HASH_BYTES = 32;

/** The module's exports (see sdk/assembly/scan.ts for the protocol). */
type KernelExports = {
  memory: WebAssembly.Memory;
  prepareKey(): void;
  candidates(count: number): void;
  decrypt(count: number): void;
  DK_PKE: WebAssembly.Global;
  EK_HASH: WebAssembly.Global;
  INPUT: WebAssembly.Global;
  MAX_BATCH: WebAssembly.Global;
  OUT_SECRETS: WebAssembly.Global;
  OUT_TAGS: WebAssembly.Global;
};

let compiled: WebAssembly.Module | null | undefined;

/** @internal The compiled module (cached), or null where WebAssembly SIMD is unavailable; the secp256k1 batch (erc8441-ecdh.ts) instantiates it too. */
export function compiledModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    compiled = null;
    try {
      if (typeof WebAssembly === 'object' && typeof WebAssembly.validate === 'function') {
        const bytes = base64ToBytes(SCAN_KERNEL_WASM_BASE64).slice(); // slice: typed as backed by an ArrayBuffer
        if (WebAssembly.validate(bytes)) compiled = new WebAssembly.Module(bytes);
      }
    } catch {
      compiled = null; // no WebAssembly, or compilation refused (e.g. a CSP without 'wasm-unsafe-eval')
    }
  }
  return compiled;
}

/** Whether this engine runs the WebAssembly kernel (WebAssembly with the SIMD proposal). */
export function wasmKernelAvailable(): boolean {
  return compiledModule() !== null;
}

/**
 * K-PKE decryption and candidate secrets for one key on one module instance (not shared between
 * concurrent callers). Internal: the scan kernel below wraps it; tests use `decrypt` to compare
 * `m'` with an oracle.
 * @internal
 */
export type WasmScanCore = {
  /** Candidates `K'` (32 bytes each) and view tags of `count` ciphertexts stored back to back. */
  candidates(ciphertexts: Uint8Array, count: number, candidates: Uint8Array, tags: Uint8Array): void;
  /** `m'` (32 bytes each) of `count` ciphertexts stored back to back. */
  decrypt(ciphertexts: Uint8Array, count: number, messages: Uint8Array): void;
};

/** @internal Throws when WebAssembly SIMD is unavailable (check {@link wasmKernelAvailable}). */
export function createWasmScanCore(dkPke: Uint8Array, ekHash: Uint8Array): WasmScanCore {
  const module = compiledModule();
  if (!module) throw new InvalidArgumentError('kernel', 'WebAssembly SIMD is not available in this engine');
  if (dkPke.length !== DK_PKE_BYTES || ekHash.length !== EK_HASH_BYTES) {
    throw new InvalidArgumentError('viewing_sk', 'dk_pke must be 1152 bytes and H(ek) 32 bytes');
  }
  const exports = new WebAssembly.Instance(module, {}).exports as unknown as KernelExports;
  const memory = new Uint8Array(exports.memory.buffer); // fixed size: the module never grows its memory
  const at = (global: WebAssembly.Global) => global.value as number;
  const input = at(exports.INPUT);
  const outSecrets = at(exports.OUT_SECRETS);
  const outTags = at(exports.OUT_TAGS);
  const maxBatch = at(exports.MAX_BATCH);
  memory.set(dkPke, at(exports.DK_PKE));
  memory.set(ekHash, at(exports.EK_HASH));
  exports.prepareKey();

  function run(
    ciphertexts: Uint8Array,
    count: number,
    secrets: Uint8Array,
    tags: Uint8Array | undefined,
    step: (count: number) => void,
  ): void {
    assertBatchBuffers(ciphertexts, count, secrets, tags);
    for (let first = 0; first < count; first += maxBatch) {
      const n = Math.min(maxBatch, count - first);
      memory.set(ciphertexts.subarray(first * CIPHERTEXT_BYTES, (first + n) * CIPHERTEXT_BYTES), input);
      step(n);
      secrets.set(memory.subarray(outSecrets, outSecrets + n * SHARED_SECRET_BYTES), first * SHARED_SECRET_BYTES);
      tags?.set(memory.subarray(outTags, outTags + n), first);
    }
  }

  return {
    candidates: (ciphertexts, count, candidates, tags) => run(ciphertexts, count, candidates, tags, exports.candidates),
    decrypt: (ciphertexts, count, messages) => run(ciphertexts, count, messages, undefined, exports.decrypt),
  };
}

/**
 * The WebAssembly SIMD kernel; where {@link wasmKernelAvailable} is false, the TypeScript kernel
 * (same results).
 */
export const wasmKernel: ScanKernelFactory = (key) => {
  if (!wasmKernelAvailable()) return typescriptKernel(key);
  const core = createWasmScanCore(key.dkPke, key.ekHash);
  const tag = new Uint8Array(1);
  return {
    candidate(ciphertext, out) {
      if (ciphertext.length !== CIPHERTEXT_BYTES) throw new InvalidArgumentError('ciphertext', `must be ${CIPHERTEXT_BYTES} bytes`);
      core.candidates(ciphertext, 1, out, tag);
      return tag[0]!;
    },
    candidates: core.candidates,
    confirm: createReencryptionCheck(key),
  };
};
