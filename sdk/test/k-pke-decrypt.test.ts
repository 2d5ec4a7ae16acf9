/**
 * The fast K-PKE decryption (lazy reduction, fused base multiplication) must equal a
 * straightforward decryption on edge inputs. The oracle here shares no code with it: it maps
 * s_hat back to s with a fully reduced inverse NTT and multiplies by schoolbook negacyclic
 * convolution in Z_q[X]/(X^256 + 1), so an NTT bug and its inverse cannot cancel out.
 */
import { describe, expect, it } from 'vitest';
import { keccakP } from '@noble/hashes/sha3.js';
import { createDecryptor, prepareDecryptionKey } from '../src/k-pke-decrypt.ts';
import { keccakF1600 } from '../src/keccak-f1600.ts';
import { bytesToHex, createStealthPayment, generateKeys } from '../src/index.ts';

const Q = 3329;
const mod = (x: number) => ((x % Q) + Q) % Q;

function zetas(): number[] {
  const out: number[] = [];
  for (let i = 0; i < 128; i++) {
    let e = 0;
    for (let b = 0; b < 7; b++) e |= ((i >> b) & 1) << (6 - b);
    let r = 1;
    for (let j = 0; j < e; j++) r = (r * 17) % Q;
    out.push(r);
  }
  return out;
}
const Z = zetas();

/** FIPS 203 Algorithm 10 with every operation reduced. */
function inverseNttReduced(fIn: number[]): number[] {
  const f = fIn.map(mod);
  let k = 127;
  for (let len = 2; len <= 128; len *= 2) {
    for (let start = 0; start < 256; start += 2 * len) {
      const zeta = Z[k--]!;
      for (let j = start; j < start + len; j++) {
        const t = f[j]!;
        f[j] = mod(t + f[j + len]!);
        f[j + len] = mod(zeta * mod(f[j + len]! - t));
      }
    }
  }
  return f.map((x) => mod(x * 3303));
}

function schoolbookNegacyclic(a: number[], b: number[]): number[] {
  const out = new Array<number>(256).fill(0);
  for (let i = 0; i < 256; i++) {
    for (let j = 0; j < 256; j++) {
      const p = (a[i]! * b[j]!) % Q;
      const k = i + j;
      if (k < 256) out[k] = (out[k]! + p) % Q;
      else out[k - 256] = mod(out[k - 256]! - p);
    }
  }
  return out;
}

function decodeBits(bytes: Uint8Array, bits: number, count: number, offset = 0): number[] {
  const out: number[] = [];
  let acc = 0n;
  let have = 0;
  let pos = offset;
  while (out.length < count) {
    while (have < bits) {
      acc |= BigInt(bytes[pos++]!) << BigInt(have);
      have += 8;
    }
    out.push(Number(acc & ((1n << BigInt(bits)) - 1n)));
    acc >>= BigInt(bits);
    have -= bits;
  }
  return out;
}

/** Straightforward FIPS 203 Algorithm 15. */
function referenceDecrypt(dkPke: Uint8Array, c: Uint8Array): string {
  const sHat = decodeBits(dkPke, 12, 768).map(mod);
  const s = [0, 1, 2].map((i) => inverseNttReduced(sHat.slice(256 * i, 256 * i + 256)));
  const u = [0, 1, 2].map((i) => decodeBits(c, 10, 256, 320 * i).map((y) => Math.round((Q * y) / 1024)));
  const v = decodeBits(c, 4, 256, 960).map((y) => Math.round((Q * y) / 16));
  const su = [0, 1, 2].map((i) => schoolbookNegacyclic(s[i]!, u[i]!));
  const w = v.map((vj, j) => mod(vj - su[0]![j]! - su[1]![j]! - su[2]![j]!));
  const m = new Uint8Array(32);
  w.forEach((wj, j) => {
    const bit = Math.round((2 * wj) / Q) % 2;
    m[j >> 3] = m[j >> 3]! | (bit << (j & 7));
  });
  return bytesToHex(m);
}

const keys = generateKeys();
const honest = createStealthPayment(keys.metaAddress).ephemeralCiphertext;
const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
const fill = (n: number, v: number) => new Uint8Array(n).fill(v);

const secretKeys: [string, Uint8Array][] = [
  ['a generated key', keys.viewingSecretKey.subarray(0, 1152)],
  ['all-0xff s_hat (coefficients 4095, not canonical)', fill(1152, 0xff)],
  ['s_hat of coefficient q-1 everywhere', Uint8Array.from({ length: 1152 }, (_, i) => [0x00, 0xd0, 0xcf][i % 3]!)],
  ['all-zero s_hat', fill(1152, 0)],
  ['random 12-bit s_hat', random(1152)],
];
const ciphertexts: [string, Uint8Array][] = [
  ['an honest ciphertext', honest],
  ['all-zero bytes', fill(1088, 0)],
  ['all-0xff bytes (maximal compressed coefficients)', fill(1088, 0xff)],
  ['alternating 0x55/0xaa', Uint8Array.from({ length: 1088 }, (_, i) => (i & 1 ? 0xaa : 0x55))],
  ['random bytes', random(1088)],
  ['random bytes (2)', random(1088)],
];

describe('fast K-PKE decryption equals a straightforward decryption', () => {
  const cases = secretKeys.flatMap(([kn, dk]) => ciphertexts.map(([cn, c]) => [kn, cn, dk, c] as const));
  it.each(cases)('%s, %s', (_kn, _cn, dk, c) => {
    const out = new Uint8Array(32);
    createDecryptor(prepareDecryptionKey(dk))(c, out);
    expect(bytesToHex(out)).toBe(referenceDecrypt(dk, c));
  });

  it('reuses its buffers without carrying state from one ciphertext to the next', () => {
    const decrypt = createDecryptor(prepareDecryptionKey(keys.viewingSecretKey.subarray(0, 1152)));
    const a = new Uint8Array(32);
    const b = new Uint8Array(32);
    decrypt(honest, a);
    decrypt(fill(1088, 0xff), b);
    decrypt(honest, b);
    expect(bytesToHex(b)).toBe(bytesToHex(a));
  });
});

describe('unrolled Keccak-f[1600]', () => {
  it('equals @noble/hashes keccakP on random and edge states', () => {
    const states = [new Uint32Array(50), new Uint32Array(50).fill(0xffffffff), ...Array.from({ length: 50 }, () => crypto.getRandomValues(new Uint32Array(50)))];
    for (const state of states) {
      const expected = state.slice();
      keccakP(expected);
      const actual = state.slice();
      keccakF1600(actual);
      expect(Array.from(actual)).toEqual(Array.from(expected));
    }
  });
});
