// @ts-nocheck AssemblyScript (compiled by sdk/scripts/build-wasm.mjs), not part of the SDK's TypeScript program.
/**
 * ECDH(k, P).x for a batch of up to EC_MAX_BATCH points and one fixed scalar k (ERC-8441
 * Section 2.5, `ss_ec = ECDH(viewing_ec, epk).x`), every lane in lockstep so each step of the
 * ladder costs one field inversion for the whole batch (Montgomery's trick) and affine
 * formulas; the host recodes k once per scan into a program (src/erc8441-ecdh.ts; the batch is
 * run from src/erc8441-scan-wasm.ts):
 *
 *     0xff                       double the accumulator
 *     s | l << 3 | n << 4 | i<<5  add (i = 0) or set (i = 1) the accumulator to +-(2s + 1)·P,
 *                                or to +-(2s + 1)·lambda(P) when l = 1 (GLV, beta·x), negated when n = 1
 *
 * No square root: only x is wanted and x(k·P) = x(k·(-P)), so for x with d = x^3 + 7 the lane
 * computes on P' = (d·x, d^2), a point of y^2 = x^3 + 7d^3 (a = 0 formulas never use b), which
 * is the image of (x, sqrt(d)) under (x, y) -> (u^2 x, u^3 y), u^2 = d: x(k·P) = x(k·P') / d.
 * The endomorphism (x, y) -> (beta x, y) commutes with that map, so GLV applies unchanged. An x
 * whose d is not a square is no curve point (the ERC's invalid_epk): its lane gets status 1 and
 * computes on G instead, so the batch stays on the curve.
 *
 * Exceptional additions (equal x: the same or opposite points, or the point at infinity)
 * cannot arise for points of prime order n and a valid recoding, but a zero denominator would
 * zero the whole batch's product: the step then sets that lane's denominator to 1 and marks it
 * status 2, and the host recomputes it with an exact path.
 *
 * Timing: the sequence of steps is the program's, the same for every lane and every batch, and
 * the arithmetic is constant-time; the square test (Jacobi symbol) of each key's x^3 + 7 is
 * variable-time on that public value; only the rare exceptional path branches on secret data.
 */
import { feAdd, feFromBytes, feIsZero, feMul, feMulSmall, feNormalize, feSqr, feSqrN, feSub, feToBytes, feWeak } from './secp256k1-field';
import {
  ACC_X,
  ACC_Y,
  DENOMINATORS,
  EC_INPUT,
  EC_MAX_BATCH,
  EC_OUTPUT,
  EC_PROGRAM,
  EC_PROGRAM_MAX,
  EC_STATUS,
  EC_TEMP,
  FE_BYTES,
  PREFIX,
  TABLE_LX,
  TABLE_X,
  TABLE_Y,
  TWIST,
} from './layout';

const EC_ARRAY: usize = <usize>EC_MAX_BATCH * FE_BYTES;
// Scratch elements in EC_TEMP.
const T_INV: usize = EC_TEMP;
const T_LAMBDA: usize = EC_TEMP + 1 * FE_BYTES;
const T_A: usize = EC_TEMP + 2 * FE_BYTES;
const T_B: usize = EC_TEMP + 3 * FE_BYTES;
const T_ZERO: usize = EC_TEMP + 4 * FE_BYTES;
const T_BETA: usize = EC_TEMP + 5 * FE_BYTES;
const T_GX: usize = EC_TEMP + 6 * FE_BYTES;
const T_SCRATCH: usize = EC_TEMP + 7 * FE_BYTES;
// Exponentiation chain temporaries (x_k = a^(2^k - 1)).
const X2: usize = EC_TEMP + 8 * FE_BYTES;
const X3: usize = EC_TEMP + 9 * FE_BYTES;
const X6: usize = EC_TEMP + 10 * FE_BYTES;
const X9: usize = EC_TEMP + 11 * FE_BYTES;
const X11: usize = EC_TEMP + 12 * FE_BYTES;
const X22: usize = EC_TEMP + 13 * FE_BYTES;
const X44: usize = EC_TEMP + 14 * FE_BYTES;
const X88: usize = EC_TEMP + 15 * FE_BYTES;
const X176: usize = EC_TEMP + 16 * FE_BYTES;
const X220: usize = EC_TEMP + 17 * FE_BYTES;
const X223: usize = EC_TEMP + 18 * FE_BYTES;
const T_POW: usize = EC_TEMP + 19 * FE_BYTES;

@inline function setLimbs(r: usize, l0: u64, l1: u64, l2: u64, l3: u64, l4: u64, l5: u64, l6: u64, l7: u64, l8: u64, l9: u64): void {
  store<u64>(r, l0, 0); store<u64>(r, l1, 8); store<u64>(r, l2, 16); store<u64>(r, l3, 24); store<u64>(r, l4, 32);
  store<u64>(r, l5, 40); store<u64>(r, l6, 48); store<u64>(r, l7, 56); store<u64>(r, l8, 64); store<u64>(r, l9, 72);
}

export function initSecp256k1(): void {
  setLimbs(T_ZERO, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  // beta, a cube root of unity mod p: (x, y) -> (beta x, y) is multiplication by lambda.
  setLimbs(T_BETA, 0x19501ee, 0x25b0a1c, 0x995c13, 0x1d44bd6, 0x19cf049, 0x30d0d3a, 0x24479ea, 0x1c41b9, 0x22b657c, 0x1eba5a);
  setLimbs(T_GX, 0x2f81798, 0xa056c5, 0x28d959f, 0x36cb738, 0x3029bfc, 0x3a1c2c1, 0x206295c, 0x2eeb156, 0x27ef9dc, 0x1e6f99);
}

/** X223 = a^(2^223 - 1), the common head of libsecp256k1's inversion and square-root chains. */
function chain223(a: usize): void {
  feSqr(X2, a); feMul(X2, X2, a);
  feSqr(X3, X2); feMul(X3, X3, a);
  feSqrN(X6, X3, 3); feMul(X6, X6, X3);
  feSqrN(X9, X6, 3); feMul(X9, X9, X3);
  feSqrN(X11, X9, 2); feMul(X11, X11, X2);
  feSqrN(X22, X11, 11); feMul(X22, X22, X11);
  feSqrN(X44, X22, 22); feMul(X44, X44, X22);
  feSqrN(X88, X44, 44); feMul(X88, X88, X44);
  feSqrN(X176, X88, 88); feMul(X176, X176, X88);
  feSqrN(X220, X176, 44); feMul(X220, X220, X44);
  feSqrN(X223, X220, 3); feMul(X223, X223, X3);
}

/** r = a^(p - 2) = 1/a (0 for 0), constant-time. */
function feInv(r: usize, a: usize): void {
  chain223(a);
  feSqrN(T_POW, X223, 23); feMul(T_POW, T_POW, X22);
  feSqrN(T_POW, T_POW, 5); feMul(T_POW, T_POW, a);
  feSqrN(T_POW, T_POW, 3); feMul(T_POW, T_POW, X2);
  feSqrN(T_POW, T_POW, 2); feMul(r, T_POW, a);
}

/**
 * Whether a (nonzero) is a square mod p: the Jacobi symbol (a/p) by the binary algorithm on four
 * 64-bit words, variable-time. It runs on the ephemeral key's x^3 + 7 only: public data.
 */
function feIsSquareVar(a: usize): bool {
  feNormalize(T_SCRATCH, a);
  const t0 = load<u64>(T_SCRATCH, 0); const t1 = load<u64>(T_SCRATCH, 8); const t2 = load<u64>(T_SCRATCH, 16);
  const t3 = load<u64>(T_SCRATCH, 24); const t4 = load<u64>(T_SCRATCH, 32); const t5 = load<u64>(T_SCRATCH, 40);
  const t6 = load<u64>(T_SCRATCH, 48); const t7 = load<u64>(T_SCRATCH, 56); const t8 = load<u64>(T_SCRATCH, 64);
  const t9 = load<u64>(T_SCRATCH, 72);
  let a0 = t0 | (t1 << 26) | (t2 << 52);
  let a1 = (t2 >> 12) | (t3 << 14) | (t4 << 40);
  let a2 = (t4 >> 24) | (t5 << 2) | (t6 << 28) | (t7 << 54);
  let a3 = (t7 >> 10) | (t8 << 16) | (t9 << 42);
  // p = 2^256 - 2^32 - 977
  let p0: u64 = 0xfffffffefffffc2f;
  let p1: u64 = 0xffffffffffffffff;
  let p2: u64 = 0xffffffffffffffff;
  let p3: u64 = 0xffffffffffffffff;
  let sign = 1;
  while (true) {
    if ((a0 | a1 | a2 | a3) == 0) return (p0 == 1 && (p1 | p2 | p3) == 0) && sign > 0;
    // a = a / 2^k: each factor 2 flips the sign when p = 3 or 5 mod 8.
    while (a0 == 0) {
      a0 = a1; a1 = a2; a2 = a3; a3 = 0; // 64 factors of 2: an even count, no sign change
    }
    const k = <u64>ctz(a0);
    if (k > 0) {
      if ((k & 1) != 0 && ((p0 & 7) == 3 || (p0 & 7) == 5)) sign = -sign;
      a0 = (a0 >> k) | (a1 << (64 - k));
      a1 = (a1 >> k) | (a2 << (64 - k));
      a2 = (a2 >> k) | (a3 << (64 - k));
      a3 = a3 >> k;
    }
    // Now a is odd: if a < p, swap (quadratic reciprocity: flip when both are 3 mod 4).
    const less = a3 != p3 ? a3 < p3 : a2 != p2 ? a2 < p2 : a1 != p1 ? a1 < p1 : a0 < p0;
    if (less) {
      let x = a0; a0 = p0; p0 = x;
      x = a1; a1 = p1; p1 = x;
      x = a2; a2 = p2; p2 = x;
      x = a3; a3 = p3; p3 = x;
      if ((a0 & 3) == 3 && (p0 & 3) == 3) sign = -sign;
    }
    // a = a - p (even now, both odd)
    const d0 = a0 - p0; let borrow: u64 = a0 < p0 ? 1 : 0;
    const d1 = a1 - p1 - borrow; borrow = a1 < p1 || (a1 == p1 && borrow != 0) ? 1 : 0;
    const d2 = a2 - p2 - borrow; borrow = a2 < p2 || (a2 == p2 && borrow != 0) ? 1 : 0;
    const d3 = a3 - p3 - borrow;
    a0 = d0; a1 = d1; a2 = d2; a3 = d3;
  }
  return false;
}

/**
 * One affine step for lanes 0..count-1: out = P1 + (+-P2), or out = 2·P1 when `doubling`
 * (P2 unused). Arrays are per-lane element arrays; out may be P1's. One inversion in all.
 */
function affineStep(count: i32, x1: usize, y1: usize, x2: usize, y2: usize, negate: bool, doubling: bool, outX: usize, outY: usize): void {
  for (let i = 0; i < count; i++) {
    const o = <usize>i * FE_BYTES;
    if (doubling) feMulSmall(DENOMINATORS + o, y1 + o, 2);
    else feSub(DENOMINATORS + o, x2 + o, x1 + o);
  }
  invertAll(count, DENOMINATORS);
  for (let i = 0; i < count; i++) {
    const o = <usize>i * FE_BYTES;
    const px = x1 + o;
    const py = y1 + o;
    if (doubling) {
      // lambda = 3 x1^2 / (2 y1); x3 = lambda^2 - 2 x1
      feSqr(T_B, px);
      feMulSmall(T_B, T_B, 3);
      feMul(T_LAMBDA, T_B, DENOMINATORS + o);
      feAdd(T_B, px, px);
    } else {
      // lambda = (+-y2 - y1) / (x2 - x1); x3 = lambda^2 - x1 - x2
      if (negate) {
        feAdd(T_B, y2 + o, py);
        feSub(T_B, T_ZERO, T_B);
      } else {
        feSub(T_B, y2 + o, py);
      }
      feMul(T_LAMBDA, T_B, DENOMINATORS + o);
      feAdd(T_B, px, x2 + o);
    }
    feSqr(T_A, T_LAMBDA);
    feSub(T_A, T_A, T_B);
    feWeak(T_A, T_A); // x3
    // y3 = lambda (x1 - x3) - y1
    feSub(T_B, px, T_A);
    feMul(T_B, T_B, T_LAMBDA);
    feSub(outY + o, T_B, py);
    feWeak(outY + o, outY + o);
    memory.copy(outX + o, T_A, FE_BYTES);
  }
}

/**
 * Replaces each of `count` elements at `values` (80 bytes apart) by its inverse, with one
 * inversion in all (Montgomery's trick: prefix products, then back to front). A zero element
 * would zero every inverse: it is set to 1 instead and its lane marked exceptional (status 2).
 */
function invertAll(count: i32, values: usize): void {
  prefixProducts(count, values);
  const last = PREFIX + <usize>(count - 1) * FE_BYTES;
  if (feIsZero(last, T_SCRATCH)) {
    for (let i = 0; i < count; i++) {
      const u = values + <usize>i * FE_BYTES;
      if (feIsZero(u, T_SCRATCH)) {
        setLimbs(u, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        store<u8>(EC_STATUS + <usize>i, 2);
      }
    }
    prefixProducts(count, values);
  }
  feInv(T_INV, last);
  for (let i = count - 1; i > 0; i--) {
    const o = <usize>i * FE_BYTES;
    // T_INV = 1/(u_0 ... u_i): u_i's inverse is T_INV times the product before it.
    feMul(T_A, T_INV, PREFIX + o - FE_BYTES);
    feMul(T_INV, T_INV, values + o);
    memory.copy(values + o, T_A, FE_BYTES);
  }
  memory.copy(values, T_INV, FE_BYTES);
}

function prefixProducts(count: i32, values: usize): void {
  memory.copy(PREFIX, values, FE_BYTES);
  for (let i = 1; i < count; i++) {
    const o = <usize>i * FE_BYTES;
    feMul(PREFIX + o, PREFIX + o - FE_BYTES, values + o);
  }
}

/**
 * ECDH(k, P).x of `count` x-coordinates at EC_INPUT (each < p, checked by the host), by the
 * program of `programLength` bytes at EC_PROGRAM; results at EC_OUTPUT, statuses at EC_STATUS.
 */
export function ecdhBatch(count: i32, programLength: i32): void {
  count = min(count, EC_MAX_BATCH);
  programLength = min(programLength, EC_PROGRAM_MAX);
  if (count <= 0) return;
  // Lanes: d = x^3 + 7, the square test, P' = (d x, d^2) as table entry 1P.
  for (let i = 0; i < count; i++) {
    const o = <usize>i * FE_BYTES;
    const x = TABLE_LX + o; // free until the table is built
    const d = TWIST + o;
    feFromBytes(x, EC_INPUT + <usize>i * 32);
    feSqr(d, x);
    feMul(d, d, x);
    store<u64>(d, load<u64>(d) + 7);
    let status: u8 = 0;
    if (!feIsSquareVar(d)) {
      status = 1;
      memory.copy(x, T_GX, FE_BYTES);
      feSqr(d, x);
      feMul(d, d, x);
      store<u64>(d, load<u64>(d) + 7);
    }
    store<u8>(EC_STATUS + <usize>i, status);
    feMul(TABLE_X + o, d, x);
    feSqr(TABLE_Y + o, d);
  }
  // Table: 2P' in the accumulator, then (2j + 1)P' = (2j - 1)P' + 2P'.
  affineStep(count, TABLE_X, TABLE_Y, 0, 0, false, true, ACC_X, ACC_Y);
  for (let j: usize = 1; j < 8; j++) {
    affineStep(count, ACC_X, ACC_Y, TABLE_X + (j - 1) * EC_ARRAY, TABLE_Y + (j - 1) * EC_ARRAY, false, false, TABLE_X + j * EC_ARRAY, TABLE_Y + j * EC_ARRAY);
  }
  for (let j: usize = 0; j < 8; j++) {
    for (let i = 0; i < count; i++) {
      const o = j * EC_ARRAY + <usize>i * FE_BYTES;
      feMul(TABLE_LX + o, TABLE_X + o, T_BETA);
    }
  }
  // The scalar's program.
  for (let s = 0; s < programLength; s++) {
    const op = <u32>load<u8>(EC_PROGRAM + <usize>s);
    if (op == 0xff) {
      affineStep(count, ACC_X, ACC_Y, 0, 0, false, true, ACC_X, ACC_Y);
      continue;
    }
    const entry = <usize>(op & 7) * EC_ARRAY;
    const tx = (op & 8 ? TABLE_LX : TABLE_X) + entry;
    const ty = TABLE_Y + entry;
    const negate = (op & 16) != 0;
    if (op & 32) {
      for (let i = 0; i < count; i++) {
        const o = <usize>i * FE_BYTES;
        memory.copy(ACC_X + o, tx + o, FE_BYTES);
        if (negate) {
          feSub(ACC_Y + o, T_ZERO, ty + o);
          feWeak(ACC_Y + o, ACC_Y + o);
        } else {
          memory.copy(ACC_Y + o, ty + o, FE_BYTES);
        }
      }
    } else {
      affineStep(count, ACC_X, ACC_Y, tx, ty, negate, false, ACC_X, ACC_Y);
    }
  }
  // x = x' / d, with one inversion for all lanes.
  invertAll(count, TWIST);
  for (let i = 0; i < count; i++) {
    const o = <usize>i * FE_BYTES;
    feMul(T_A, TWIST + o, ACC_X + o);
    feToBytes(EC_OUTPUT + <usize>i * 32, T_A, T_SCRATCH);
  }
}
