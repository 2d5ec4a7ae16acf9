/**
 * The WebAssembly half of the ERC-8441 (scheme 3) scanner: one instance of the scan kernel's
 * module per scan holds the viewing scalar's program (erc8441-ecdh.ts) and runs, for batches of
 * announcements, `ECDH(viewing_ec, epk).x` (sdk/assembly/secp256k1.ts) and the hybrid
 * combiner's SHA3-256 over `DS || ss_ec || ss_pq || epk || ct || viewing_pk_ec || ek` (ERC
 * Section 1.1; sdk/assembly/keccak.ts, two announcements per permutation) with each result's view
 * tag (sdk/assembly/sha256.ts). The constant parts
 * of each message (`DS`, `viewing_pk_ec`, `ek`, padding) are written once per scan; a batch
 * writes only `ss_ec`, `ss_pq` and the 1121-byte `epk || ct`.
 * @module
 */
import { belowFieldPrime, createTypescriptEcdhX, ecdhProgram, type EcdhXBatch } from './erc8441-ecdh.ts';
import { InvalidArgumentError } from './errors.ts';
import { HYBRID_DS } from './erc8441-domains.ts';
import { ERC8441_EPHEMERAL_KEY_BYTES } from './erc8441-payment.ts';
import { compiledModule } from './scan-kernel-wasm.ts';
import { Point } from './spending-key.ts';

const MESSAGE_BYTES = 2430; // 28 + 32 + 32 + 33 + 1088 + 33 + 1184
const GENERATOR_X = Point.BASE.toBytes(true).slice(1);

type Exports = {
  memory: WebAssembly.Memory;
  ecdhBatch(count: number, programLength: number): void;
  combine(count: number): void;
  EC_INPUT: WebAssembly.Global;
  EC_OUTPUT: WebAssembly.Global;
  EC_STATUS: WebAssembly.Global;
  EC_PROGRAM: WebAssembly.Global;
  EC_PROGRAM_MAX: WebAssembly.Global;
  EC_MAX_BATCH: WebAssembly.Global;
  COMBINE_INPUT: WebAssembly.Global;
  COMBINE_OUTPUT: WebAssembly.Global;
  COMBINE_STRIDE: WebAssembly.Global;
  COMBINE_MAX_BATCH: WebAssembly.Global;
  COMBINE_TAGS: WebAssembly.Global;
};

export type Erc8441WasmCore = {
  /** `ECDH(viewing_ec, P).x` of x-coordinates (see {@link EcdhXBatch}). */
  ecdh: EcdhXBatch;
  /**
   * `ss` of `count` announcements: `ssEc` and `ssPq` hold 32 bytes per announcement, `ephemeralKeys[i]`
   * is announcement i's 1121-byte `epk || ct`; the secrets go to `out` (32 bytes each) and their
   * view tags (`erc8441ViewTag`) to `tags`.
   */
  combine(ssEc: Uint8Array, ssPq: Uint8Array, ephemeralKeys: readonly Uint8Array[], count: number, out: Uint8Array, tags: Uint8Array): void;
};

/** Whether this engine runs the WebAssembly scheme-3 path (WebAssembly with SIMD). */
export function wasmErc8441Available(): boolean {
  return compiledModule() !== null;
}

/**
 * The WebAssembly core for one viewing scalar and meta-address; null where WebAssembly SIMD is
 * unavailable. `program` replaces the scalar's recoding in tests of the exceptional-lane path
 * (lanes the kernel marks exceptional are recomputed with noble and `scalar`).
 */
export function createWasmErc8441Core(scalar: bigint, viewingPublicKeyEc: Uint8Array, encapsulationKey: Uint8Array, program = ecdhProgram(scalar)): Erc8441WasmCore | null {
  const module = compiledModule();
  if (!module) return null;
  const exports = new WebAssembly.Instance(module, {}).exports as unknown as Exports;
  const memory = new Uint8Array(exports.memory.buffer); // fixed size: the module never grows its memory
  const at = (g: WebAssembly.Global) => g.value as number;
  if (program.length > at(exports.EC_PROGRAM_MAX)) throw new InvalidArgumentError('scalar', 'recoding longer than the kernel takes'); // cannot happen: ~175 bytes
  const input = at(exports.EC_INPUT);
  const output = at(exports.EC_OUTPUT);
  const statuses = at(exports.EC_STATUS);
  const maxBatch = at(exports.EC_MAX_BATCH);
  memory.set(program, at(exports.EC_PROGRAM));
  const exact = createTypescriptEcdhX(scalar);
  const one = new Uint8Array(1);

  const combineInput = at(exports.COMBINE_INPUT);
  const combineOutput = at(exports.COMBINE_OUTPUT);
  const stride = at(exports.COMBINE_STRIDE);
  const combineBatch = at(exports.COMBINE_MAX_BATCH);
  const combineTags = at(exports.COMBINE_TAGS);
  for (let slot = 0; slot < combineBatch; slot++) {
    const base = combineInput + slot * stride;
    memory.fill(0, base, base + stride);
    memory.set(HYBRID_DS, base);
    memory.set(viewingPublicKeyEc, base + 92 + ERC8441_EPHEMERAL_KEY_BYTES);
    memory.set(encapsulationKey, base + 92 + ERC8441_EPHEMERAL_KEY_BYTES + 33);
    memory[base + MESSAGE_BYTES] = 0x06; // SHA3 domain bits 01, then pad10*1 (FIPS 202 section 5.1)
    memory[base + stride - 1]! |= 0x80;
  }

  const ecdh: EcdhXBatch = {
    run(xs, count, out, status) {
      if (xs.length < count * 32 || out.length < count * 32 || status.length < count) throw new InvalidArgumentError('xs', 'buffers are shorter than count keys');
      for (let first = 0; first < count; first += maxBatch) {
        const n = Math.min(maxBatch, count - first);
        for (let i = 0; i < n; i++) {
          const from = (first + i) * 32;
          // x >= p is no field element: the lane computes on G's x instead and is reported invalid.
          memory.set(belowFieldPrime(xs, from) ? xs.subarray(from, from + 32) : GENERATOR_X, input + i * 32);
        }
        exports.ecdhBatch(n, program.length);
        out.set(memory.subarray(output, output + n * 32), first * 32);
        for (let i = 0; i < n; i++) {
          const from = (first + i) * 32;
          const s = memory[statuses + i]!;
          if (!belowFieldPrime(xs, from)) {
            status[first + i] = 1;
          } else if (s === 2) {
            // An exceptional addition in this lane: the exact path.
            exact.run(xs.subarray(from, from + 32), 1, out.subarray(from, from + 32), one);
            status[first + i] = one[0]!;
          } else {
            status[first + i] = s;
          }
        }
      }
    },
  };

  return {
    ecdh,
    combine(ssEc, ssPq, ephemeralKeys, count, out, tags) {
      for (let first = 0; first < count; first += combineBatch) {
        const n = Math.min(combineBatch, count - first);
        for (let i = 0; i < n; i++) {
          const base = combineInput + i * stride;
          const row = first + i;
          memory.set(ssEc.subarray(row * 32, row * 32 + 32), base + 28);
          memory.set(ssPq.subarray(row * 32, row * 32 + 32), base + 60);
          memory.set(ephemeralKeys[row]!, base + 92);
        }
        exports.combine(n);
        out.set(memory.subarray(combineOutput, combineOutput + n * 32), first * 32);
        tags.set(memory.subarray(combineTags, combineTags + n), first);
      }
    },
  };
}
