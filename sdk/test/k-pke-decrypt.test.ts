/**
 * The fast K-PKE decryption (lazy reduction, fused base multiplication) must equal a
 * straightforward decryption on edge inputs (the oracle in kpke-oracle.ts); the unrolled and
 * bit-interleaved Keccak permutations and the scan hashes built on them must equal
 * @noble/hashes; the TypeScript kernel's batch form must equal its single calls.
 */
import { describe, expect, it } from 'vitest';
import { keccakP, sha3_512, shake256 } from '@noble/hashes/sha3.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { deinterleaveToBytes, firstByte, interleaveBytes } from '../src/bit-interleave.ts';
import { InvalidArgumentError } from '../src/errors.ts';
import { createDecryptor, inverseNtt, messageBit, ntt, prepareDecryptionKey } from '../src/k-pke-decrypt.ts';
import { createCandidateHasher } from '../src/keccak-block.ts';
import { keccakF1600, keccakF1600Interleaved } from '../src/keccak-f1600.ts';
import { typescriptKernel } from '../src/scan-kernel-typescript.ts';
import { decapsulate, parseViewingSecretKey } from '../src/viewing-key.ts';
import { bytesToHex, createStealthPayment, generateKeys } from '../src/index.ts';
import { referenceDecrypt } from './kpke-oracle.ts';

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

describe('Compress_1 of the message step', () => {
  it('is round(2 (w mod q) / q) mod 2 (FIPS 203 section 4.2.1) for every w in (-q, 2q)', () => {
    const Q = 3329;
    const wrong: number[] = [];
    for (let w = -(Q - 1); w < 2 * Q; w++) {
      const r = ((w % Q) + Q) % Q;
      if (messageBit(w) !== Math.round((2 * r) / Q) % 2) wrong.push(w);
    }
    expect(wrong).toEqual([]);
  });
});

describe('the lazy NTT and inverse NTT (three layers per pass) equal FIPS 203 Algorithms 9 and 10', () => {
  const Q = 3329;
  const mod = (x: number) => ((x % Q) + Q) % Q;
  const bitRev7 = (i: number) => parseInt(i.toString(2).padStart(7, '0').split('').reverse().join(''), 2);
  const pow = (b: number, e: number) => Array.from({ length: e }).reduce<number>((r) => (r * b) % Q, 1);
  const zeta = (i: number) => pow(17, bitRev7(i));
  // Straight from the standard, every value reduced to [0, q).
  const algorithm9 = (input: number[]) => {
    const f = input.map(mod);
    let i = 1;
    for (let len = 128; len >= 2; len /= 2) {
      for (let start = 0; start < 256; start += 2 * len) {
        const z = zeta(i++);
        for (let j = start; j < start + len; j++) {
          const t = (z * f[j + len]!) % Q;
          f[j + len] = mod(f[j]! - t);
          f[j] = (f[j]! + t) % Q;
        }
      }
    }
    return f;
  };
  const algorithm10 = (input: number[]) => {
    const f = input.map(mod);
    let i = 127;
    for (let len = 2; len <= 128; len *= 2) {
      for (let start = 0; start < 256; start += 2 * len) {
        const z = zeta(i--);
        for (let j = start; j < start + len; j++) {
          const t = f[j]!;
          f[j] = (t + f[j + len]!) % Q;
          f[j + len] = (z * mod(f[j + len]! - t)) % Q;
        }
      }
    }
    return f.map((x) => (x * 3303) % Q);
  };
  const inputs: [string, number[]][] = [
    ['all q-1', Array(256).fill(Q - 1)],
    ['all zero', Array(256).fill(0)],
    ['alternating 0 and q-1', Array.from({ length: 256 }, (_, i) => (i & 1 ? Q - 1 : 0))],
    ['a single q-1', Array.from({ length: 256 }, (_, i) => (i === 255 ? Q - 1 : 0))],
    ['random', Array.from({ length: 256 }, () => Math.floor(Math.random() * Q))],
  ];

  it.each(inputs)('NTT of %s: the same residues, each below 8q in absolute value', (_name, input) => {
    const f = Int32Array.from(input);
    ntt(f);
    expect(Array.from(f, mod)).toEqual(algorithm9(input));
    expect(Math.max(...Array.from(f, Math.abs))).toBeLessThan(8 * Q);
  });

  const signed: [string, number[]][] = [
    ...inputs,
    ['all -(q-1)', Array(256).fill(-(Q - 1))],
    ['alternating q-1 and -(q-1)', Array.from({ length: 256 }, (_, i) => (i & 1 ? Q - 1 : -(Q - 1)))],
    ['random in (-q, q)', Array.from({ length: 256 }, () => Math.floor(Math.random() * (2 * Q - 1)) - (Q - 1))],
  ];
  it.each(signed)('inverse NTT of %s: the same residues, each in (-q, q)', (_name, input) => {
    const f = Int32Array.from(input);
    inverseNtt(f);
    expect(Array.from(f, mod)).toEqual(algorithm10(input));
    expect(Math.max(...Array.from(f, Math.abs))).toBeLessThan(Q);
  });

  it('the inverse undoes the forward transform', () => {
    const input = inputs[4]![1];
    const f = Int32Array.from(input);
    ntt(f);
    for (let j = 0; j < 256; j++) f[j] = f[j]! % Q;
    inverseNtt(f);
    expect(Array.from(f, mod)).toEqual(input);
  });
});

describe('unrolled Keccak-f[1600]', () => {
  // One lane set per 64-bit position, so a wrong rotation or a swapped half shows up.
  const singleBits = Array.from({ length: 64 }, (_, bit) => {
    const state = new Uint32Array(50);
    state[2 * (bit % 25) + (bit >> 5)] = 1 << (bit & 31);
    return state;
  });
  const states = [
    new Uint32Array(50),
    new Uint32Array(50).fill(0xffffffff),
    ...singleBits,
    ...Array.from({ length: 50 }, () => crypto.getRandomValues(new Uint32Array(50))),
  ];

  it('equals @noble/hashes keccakP on random and edge states', () => {
    for (const state of states) {
      const expected = state.slice();
      keccakP(expected);
      const actual = state.slice();
      keccakF1600(actual);
      expect(Array.from(actual)).toEqual(Array.from(expected));
    }
  });

  it('in the bit-interleaved layout, equals keccakP on the same states (through interleaveBytes and deinterleaveToBytes)', () => {
    for (const state of states) {
      const expected = state.slice();
      keccakP(expected);
      const words = new Int32Array(50);
      interleaveBytes(new Uint8Array(state.buffer), words);
      keccakF1600Interleaved(words);
      const actual = new Uint8Array(200);
      deinterleaveToBytes(words, 25, actual);
      expect(bytesToHex(actual)).toBe(bytesToHex(new Uint8Array(expected.buffer)));
    }
  });

  it('interleaving puts even bits in the first word and odd bits in the second, and firstByte reads byte 0 back', () => {
    const words = new Int32Array(2);
    interleaveBytes(Uint8Array.of(0b01010101, 0, 0, 0, 0, 0, 0, 0x80), words);
    expect([words[0], words[1]]).toEqual([0b1111, 1 << 31]);
    for (const byte of [0, 1, 0x5a, 0xa5, 0xff]) {
      interleaveBytes(Uint8Array.of(byte, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), words);
      expect(firstByte(words[0]!, words[1]!)).toBe(byte);
    }
  });
});

describe('the candidate hasher (interleaved single-block SHA3-512 and SHAKE256)', () => {
  // The prefix lengths cover K' starting on a lane boundary (no shift), one byte after one, and
  // the view-tag domain's 23 bytes.
  it.each([0, 1, 8, 23, 31, 40, 103])("equals SHA3-512(m' || H(ek)) and SHAKE256(prefix || K')[0] for a %i-byte prefix", (prefixLength) => {
    for (let round = 0; round < 20; round++) {
      const m = random(32);
      const ekHash = random(32);
      const prefix = random(prefixLength);
      const lanes = new Int32Array(8);
      interleaveBytes(m, lanes);
      const out = new Uint8Array(40).fill(0xee);
      const tag = createCandidateHasher(ekHash, prefix)(lanes, out, 3);
      const secret = sha3_512(concatBytes(m, ekHash)).subarray(0, 32);
      expect(bytesToHex(out.subarray(3, 35))).toBe(bytesToHex(secret));
      expect([...out.subarray(0, 3), ...out.subarray(35)]).toEqual([0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee]);
      expect(tag).toBe(shake256(concatBytes(prefix, secret), { dkLen: 1 })[0]);
    }
  });

  it('rejects an H(ek) of the wrong size and a prefix that leaves no room for K′ in one block', () => {
    expect(() => createCandidateHasher(random(31), random(23))).toThrow(RangeError);
    expect(() => createCandidateHasher(random(32), random(104))).toThrow(RangeError);
  });
});

describe('the TypeScript kernel batch form', () => {
  const key = parseViewingSecretKey(keys.viewingSecretKey);
  it('gives what candidate gives one by one, at each offset, for honest and random ciphertexts', () => {
    const kernel = typescriptKernel(key);
    const cs = [honest, ...Array.from({ length: 9 }, () => random(1088)), createStealthPayment(keys.metaAddress).ephemeralCiphertext];
    const packed = new Uint8Array(cs.length * 1088);
    cs.forEach((c, i) => packed.set(c, i * 1088));
    const secrets = new Uint8Array(cs.length * 32);
    const tags = new Uint8Array(cs.length);
    kernel.candidates!(packed, cs.length, secrets, tags);
    const single = new Uint8Array(32);
    cs.forEach((c, i) => {
      expect(tags[i]).toBe(kernel.candidate(c, single));
      expect(bytesToHex(secrets.subarray(32 * i, 32 * i + 32))).toBe(bytesToHex(single));
    });
    expect(bytesToHex(secrets.subarray(0, 32))).toBe(bytesToHex(decapsulate(honest, key.dk)));
  });

  it('rejects buffers shorter than the batch and a count that is not a non-negative integer', () => {
    const kernel = typescriptKernel(key);
    expect(() => kernel.candidates!(new Uint8Array(1088), 2, new Uint8Array(64), new Uint8Array(2))).toThrow(InvalidArgumentError);
    expect(() => kernel.candidates!(new Uint8Array(2176), 2, new Uint8Array(32), new Uint8Array(2))).toThrow(InvalidArgumentError);
    expect(() => kernel.candidates!(new Uint8Array(2176), 2, new Uint8Array(64), new Uint8Array(1))).toThrow(InvalidArgumentError);
    expect(() => kernel.candidates!(new Uint8Array(2176), 1.5, new Uint8Array(64), new Uint8Array(2))).toThrow(InvalidArgumentError);
  });
});
