/**
 * The fast K-PKE decryption (lazy reduction, fused base multiplication) must equal a
 * straightforward decryption on edge inputs (the oracle in kpke-oracle.ts).
 */
import { describe, expect, it } from 'vitest';
import { keccakP } from '@noble/hashes/sha3.js';
import { createDecryptor, prepareDecryptionKey } from '../src/k-pke-decrypt.ts';
import { keccakF1600 } from '../src/keccak-f1600.ts';
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
