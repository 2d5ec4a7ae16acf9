/**
 * `ECDH(k, P).x` for many ephemeral keys under one scalar (ERC-8441 Section 2.5: every scheme-3
 * announcement costs the scanner one ECDH with its viewing scalar), in two engines with the same
 * results:
 *
 * - WebAssembly (erc8441-scan-wasm.ts): the scan kernel's secp256k1 batch
 *   (sdk/assembly/secp256k1.ts). The scalar is recoded once per scan: GLV split `k = k1 + k2·lambda (mod n)` with the secp256k1
 *   endomorphism, each half in width-5 wNAF, merged into one program of doublings and additions
 *   that every lane of a batch runs in lockstep with affine formulas and one field inversion per
 *   step for the whole batch (Montgomery's trick). No square root: lanes compute on an
 *   isomorphic curve (see the assembly), and an x that is no curve point is reported invalid.
 * - TypeScript: noble's `Point.multiply`, one key at a time (engines without WebAssembly
 *   SIMD, and the oracle of the tests).
 *
 * Timing of the WASM engine: the program depends on the scalar only, so every batch of a scan
 * runs the same sequence of steps whatever the keys, and the arithmetic is constant-time. What
 * varies: the square test of each key's x^3 + 7 (a variable-time Jacobi symbol, on public data);
 * the program's length with the scalar's recoding (fixed per scan,
 * so a scan's duration per row says something about the number of nonzero wNAF digits of the
 * viewing scalar's halves), and the exact fallback for a lane whose addition would be
 * exceptional (impossible for curve points and a scalar in range, kept as a safety net).
 * @module
 */
import { InvalidArgumentError } from './errors.ts';
import { ecdhX } from './erc8441-payment.ts';
import { CURVE_ORDER, Point } from './spending-key.ts';

/** secp256k1's field prime: an ephemeral key's x must be below it (SEC1). */
const FIELD_PRIME = 2n ** 256n - 2n ** 32n - 977n;
/** lambda: (beta x, y) = lambda·(x, y) on secp256k1. */
const LAMBDA = 0x5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72n;
// The GLV basis (libsecp256k1, noble-curves): short vectors of the lattice {(a, b): a + b lambda = 0 mod n}.
const A1 = 0x3086d221a7d46bcde86c90e49284eb15n;
const B1 = -0xe4437ed6010e88286f547fa90abfe4c3n;
const A2 = 0x114ca50f7a8e2f3f657c1108d9d44cfd8n;
const B2 = A1;
const WINDOW = 5; // wNAF width: odd digits up to 15, a table of 8 points per lane (layout.ts)

/** Per-key results: 0 computed, 1 not a curve point (x >= p, or x^3 + 7 not a square). */
export type EcdhXBatch = {
  /**
   * `count` 32-byte big-endian x-coordinates at `xs` (back to back) -> their `ECDH(k, P).x` at
   * `out` (32 bytes each) and a status per key (0 ok, 1 no curve point: `out` then meaningless).
   */
  run(xs: Uint8Array, count: number, out: Uint8Array, status: Uint8Array): void;
};

function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

function divNearest(a: bigint, b: bigint): bigint {
  return (a + b / 2n) / b;
}

/** `k = s1·k1 + s2·k2·lambda (mod n)` with `k1, k2 < 2^129` (noble-curves' splitScalar). */
export function splitScalar(k: bigint): { k1: bigint; k1Negative: boolean; k2: bigint; k2Negative: boolean } {
  const c1 = divNearest(B2 * k, CURVE_ORDER);
  const c2 = divNearest(-B1 * k, CURVE_ORDER);
  let k1 = mod(k - c1 * A1 - c2 * A2, CURVE_ORDER);
  let k2 = mod(-c1 * B1 - c2 * B2, CURVE_ORDER);
  const k1Negative = k1 > CURVE_ORDER / 2n;
  const k2Negative = k2 > CURVE_ORDER / 2n;
  if (k1Negative) k1 = CURVE_ORDER - k1;
  if (k2Negative) k2 = CURVE_ORDER - k2;
  return { k1, k1Negative, k2, k2Negative };
}

/** Width-w NAF digits of v >= 0, least significant first (odd digits in (-2^(w-1), 2^(w-1)), w-1 zeros after each). */
function wnaf(v: bigint, w: number): number[] {
  const digits: number[] = [];
  const full = 1n << BigInt(w);
  while (v > 0n) {
    let d = 0n;
    if (v & 1n) {
      d = v & (full - 1n);
      if (d >= full >> 1n) d -= full;
      v -= d;
    }
    digits.push(Number(d));
    v >>= 1n;
  }
  return digits;
}

/**
 * The program the assembly runs for scalar k (its byte format is in sdk/assembly/secp256k1.ts):
 * from the top digit down, a doubling per position after the first, an addition per nonzero
 * digit of either half (the first one sets the accumulator).
 * @throws {InvalidArgumentError} when k is not in 1..n-1.
 */
export function ecdhProgram(k: bigint): Uint8Array {
  if (k <= 0n || k >= CURVE_ORDER) throw new InvalidArgumentError('scalar', 'must be in 1..n-1');
  const { k1, k1Negative, k2, k2Negative } = splitScalar(k);
  if (mod((k1Negative ? -k1 : k1) + (k2Negative ? -k2 : k2) * LAMBDA - k, CURVE_ORDER) !== 0n) {
    throw new InvalidArgumentError('scalar', 'GLV split failed'); // cannot happen: kept as an assertion
  }
  const halves = [
    { digits: wnaf(k1, WINDOW), negative: k1Negative, endomorphism: 0 },
    { digits: wnaf(k2, WINDOW), negative: k2Negative, endomorphism: 8 },
  ];
  const top = Math.max(halves[0]!.digits.length, halves[1]!.digits.length) - 1;
  const program: number[] = [];
  let first = true;
  for (let position = top; position >= 0; position--) {
    if (!first) program.push(0xff);
    for (const { digits, negative, endomorphism } of halves) {
      const digit = digits[position] ?? 0;
      if (digit === 0) continue;
      const sign = digit < 0 !== negative ? 16 : 0;
      program.push(((Math.abs(digit) - 1) >> 1) | endomorphism | sign | (first ? 32 : 0));
      first = false;
    }
  }
  return Uint8Array.from(program);
}

/** Whether 32 big-endian bytes at `at` are below p. */
export function belowFieldPrime(bytes: Uint8Array, at: number): boolean {
  // p = 0xffff...fffe fffffc2f: x >= p needs its first 27 bytes all 0xff.
  for (let i = 0; i < 27; i++) if (bytes[at + i] !== 0xff) return true;
  let tail = 0n;
  for (let i = 27; i < 32; i++) tail = (tail << 8n) | BigInt(bytes[at + i]!);
  return tail < (FIELD_PRIME & 0xffffffffffn);
}

/** noble, one key at a time. */
export function createTypescriptEcdhX(scalar: bigint): EcdhXBatch {
  const compressed = new Uint8Array(33);
  compressed[0] = 0x02;
  return {
    run(xs, count, out, status) {
      for (let i = 0; i < count; i++) {
        compressed.set(xs.subarray(i * 32, i * 32 + 32), 1);
        try {
          out.set(ecdhX(scalar, Point.fromBytes(compressed)), i * 32);
          status[i] = 0;
        } catch {
          status[i] = 1;
        }
      }
    },
  };
}
