/**
 * The two hashes of the scan hot path, each a single Keccak block on a reused, bit-interleaved
 * state (keccak-f1600.ts, bit-interleave.ts):
 *
 *     (K', r') = SHA3-512(m' || H(ek))              64 bytes, one block of rate 72
 *     view tag = SHAKE256(u32le(19) || domain || K')[0]   55 bytes, one block of rate 136
 *
 * Generic hash objects allocate per call and cost as much as the permutation itself. Here each
 * block starts from a template built once per key (FIPS 202 section 5.1 padding in place: SHA3
 * domain bits 01 + pad10*1 → byte 0x06, SHAKE bits 1111 → 0x1f, last byte of the rate |= 0x80;
 * `H(ek)` and the domain prefix already interleaved). `m'` arrives interleaved from the
 * decryptor (k-pke-decrypt.ts), and `K'` is shifted into the second block while still
 * interleaved, so per announcement the only conversion is writing `K'` out as bytes.
 * Little-endian hosts only (every current browser and Node platform); `available` says so.
 * @module
 */
import { deinterleaveToBytes, firstByte, interleaveBytes } from './bit-interleave.ts';
import { keccakF1600Interleaved } from './keccak-f1600.ts';

export const available = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

const SHA3_512_RATE = 72;
const SHAKE256_RATE = 136;

/**
 * Hashes one candidate: from `m'` as 4 interleaved lanes (8 words), writes `K'` (32 bytes) to
 * `secretOut` at `outOffset` (default 0) and returns the view tag of `K'`.
 */
export type CandidateHasher = (messageLanes: Int32Array, secretOut: Uint8Array, outOffset?: number) => number;

/** A hasher for one key: `ekHash` is `H(ek)` (32 bytes), `viewTagPrefix` the view-tag domain prefix. */
export function createCandidateHasher(ekHash: Uint8Array, viewTagPrefix: Uint8Array): CandidateHasher {
  if (ekHash.length !== 32) throw new RangeError('H(ek) must be 32 bytes');
  if (viewTagPrefix.length + 32 >= SHAKE256_RATE) throw new RangeError('the view-tag prefix must leave room for K′ in one block');
  const template = (rate: number, build: (bytes: Uint8Array) => void) => {
    const bytes = new Uint8Array(200);
    build(bytes);
    bytes[rate - 1] = bytes[rate - 1]! | 0x80;
    const words = new Int32Array(50);
    interleaveBytes(bytes, words);
    return words;
  };
  const sha3Template = template(SHA3_512_RATE, (bytes) => {
    bytes.set(ekHash, 32); // m' (bytes 0..31) is written per call
    bytes[64] = 0x06;
  });
  const prefixLength = viewTagPrefix.length;
  const shakeTemplate = template(SHAKE256_RATE, (bytes) => {
    bytes.set(viewTagPrefix, 0); // K' (the next 32 bytes) is XORed in per call
    bytes[prefixLength + 32] = 0x1f;
  });
  // K' starts `prefixLength` bytes in: at lane `firstLane`, shifted left by 8 * (prefixLength % 8)
  // bits, an even amount, so each half-word shifts by half of it (`shift`).
  const firstLane = prefixLength >> 3;
  const shift = 4 * (prefixLength & 7);
  const state = new Int32Array(50);

  return (messageLanes, secretOut, outOffset = 0) => {
    state.set(sha3Template);
    for (let i = 0; i < 8; i++) state[i] = messageLanes[i]!;
    keccakF1600Interleaved(state);
    deinterleaveToBytes(state, 4, secretOut, outOffset); // K' = the first 32 bytes
    const k0 = state[0]!, k1 = state[1]!, k2 = state[2]!, k3 = state[3]!, k4 = state[4]!, k5 = state[5]!, k6 = state[6]!, k7 = state[7]!;
    state.set(shakeTemplate);
    xorShiftedLane(state, firstLane, shift, k0, k1);
    xorShiftedLane(state, firstLane + 1, shift, k2, k3);
    xorShiftedLane(state, firstLane + 2, shift, k4, k5);
    xorShiftedLane(state, firstLane + 3, shift, k6, k7);
    keccakF1600Interleaved(state);
    return firstByte(state[0]!, state[1]!);
  };
}

/** XOR the interleaved lane (`even`, `odd`) shifted left by `2 * shift` bits into lanes `lane` and `lane + 1`. */
function xorShiftedLane(state: Int32Array, lane: number, shift: number, even: number, odd: number): void {
  const at = 2 * lane;
  state[at] = state[at]! ^ (even << shift);
  state[at + 1] = state[at + 1]! ^ (odd << shift);
  if (shift === 0) return;
  state[at + 2] = state[at + 2]! ^ (even >>> (32 - shift));
  state[at + 3] = state[at + 3]! ^ (odd >>> (32 - shift));
}
