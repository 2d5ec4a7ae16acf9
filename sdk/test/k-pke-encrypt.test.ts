/**
 * The scanner's re-encryption check (K-PKE encryption with a prepared key, k-pke-encrypt.ts and
 * k-pke-reencryption-check.ts) must reproduce honest ciphertexts byte for byte and confirm
 * exactly what @noble/post-quantum's full decapsulation confirms ("decapsulate(c) == K'",
 * PROTOCOL.md section 5 step 3), on honest, tampered, random, edge and crafted ciphertexts.
 */
import { describe, expect, it } from 'vitest';
import { sha3_512 } from '@noble/hashes/sha3.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { bytesToHex, equalBytes } from '../src/bytes.ts';
import { createEncryptor, prepareEncryptionKey } from '../src/k-pke-encrypt.ts';
import { createReencryptionCheck } from '../src/k-pke-reencryption-check.ts';
import { typescriptKernel } from '../src/scan-kernel-typescript.ts';
import { wasmKernel, wasmKernelAvailable } from '../src/scan-kernel-wasm.ts';
import { parseViewingSecretKey, type ViewingSecretKeyParts } from '../src/viewing-key.ts';

const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};
const flipBit = (c: Uint8Array, bit: number) => {
  const out = c.slice();
  out[bit >> 3]! ^= 1 << (bit & 7);
  return out;
};
/** ByteEncode_10 of one coefficient value everywhere in c1, ByteEncode_4 of one nibble in c2. */
const uniform = (u: number, v: number) => {
  const c = new Uint8Array(1088);
  for (let bit = 0; bit < 7680; bit++) if ((u >> bit % 10) & 1) c[bit >> 3]! |= 1 << (bit & 7);
  c.fill(v | (v << 4), 960);
  return c;
};

function keyParts(): ViewingSecretKeyParts {
  return parseViewingSecretKey(ml_kem768.keygen().secretKey);
}

/** What the kernels did before: full decapsulation must return exactly the candidate. */
const nobleConfirms = (key: ViewingSecretKeyParts, c: Uint8Array, candidate: Uint8Array) =>
  equalBytes(ml_kem768.decapsulate(c, key.dk), candidate);

describe('K-PKE encryption with a prepared key', () => {
  it('reproduces @noble/post-quantum encapsulation byte for byte (40 random keys, 5 messages each)', () => {
    for (let k = 0; k < 40; k++) {
      const key = keyParts();
      const encrypt = createEncryptor(prepareEncryptionKey(key.ek));
      const out = new Uint8Array(1088);
      for (let t = 0; t < 5; t++) {
        const m = random(32);
        const r = sha3_512(concat(m, key.ekHash)).subarray(32); // (K, r) = G(m || H(ek))
        encrypt(m, r, out);
        expect(bytesToHex(out)).toBe(bytesToHex(ml_kem768.encapsulate(key.ek, m).cipherText));
      }
    }
  });

  it('reproduces the ciphertexts of all-zero and all-0xff messages', () => {
    const key = keyParts();
    const encrypt = createEncryptor(prepareEncryptionKey(key.ek));
    const out = new Uint8Array(1088);
    for (const m of [new Uint8Array(32), new Uint8Array(32).fill(0xff)]) {
      encrypt(m, sha3_512(concat(m, key.ekHash)).subarray(32), out);
      expect(bytesToHex(out)).toBe(bytesToHex(ml_kem768.encapsulate(key.ek, m).cipherText));
    }
  });
});

describe('re-encryption check', () => {
  const key = keyParts();
  const honest = Array.from({ length: 8 }, () => ml_kem768.encapsulate(key.ek));
  const fastPath = typescriptKernel(key);
  const candidateOf = (c: Uint8Array) => {
    const out = new Uint8Array(32);
    fastPath.candidate(c, out);
    return out;
  };

  const cases: [string, Uint8Array][] = [];
  honest.forEach(({ cipherText }, i) => cases.push([`honest ${i}`, cipherText]));
  for (let i = 0; i < 12; i++) {
    const c = honest[i % honest.length]!.cipherText;
    const coefficient = Math.floor(Math.random() * 768);
    cases.push([`honest, c1 low bit flipped (coefficient ${coefficient})`, flipBit(c, coefficient * 10)]);
    cases.push([`honest, c1 high bit flipped (coefficient ${coefficient})`, flipBit(c, coefficient * 10 + 9)]);
    cases.push([`honest, c2 bit flipped`, flipBit(c, 7680 + Math.floor(Math.random() * 1024))]);
  }
  cases.push(['honest, first bit flipped', flipBit(honest[0]!.cipherText, 0)]);
  cases.push(['honest, last bit flipped', flipBit(honest[0]!.cipherText, 1088 * 8 - 1)]);
  for (let i = 0; i < 8; i++) cases.push([`random ${i}`, random(1088)]);
  cases.push(['all-0xff', new Uint8Array(1088).fill(0xff)]);
  cases.push(['all-zero', new Uint8Array(1088)]);
  for (const [u, v] of [[0, 0], [1023, 15], [512, 8], [1, 15], [1023, 0], [511, 7]] as const) {
    cases.push([`every u coefficient ${u}, every v coefficient ${v}`, uniform(u, v)]);
  }
  {
    // An honest ciphertext with its first u and v coefficients pushed to the compression edges.
    const c = honest[1]!.cipherText.slice();
    c[0] = 0xff;
    c[1] = c[1]! | 0x03; // u[0][0] = 1023
    c[960] = c[960]! | 0x0f; // v[0] = 15
    cases.push(['honest with boundary coefficients', c]);
  }

  it.each(cases)('agrees with decapsulation-based confirmation: %s', (_name, c) => {
    const check = createReencryptionCheck(key);
    const candidate = candidateOf(c);
    expect(check(c, candidate)).toBe(nobleConfirms(key, c, candidate));
  });

  it('confirms every honest ciphertext with its shared secret, and none with another secret', () => {
    const check = createReencryptionCheck(key);
    for (const { cipherText, sharedSecret } of honest) {
      expect(check(cipherText, sharedSecret)).toBe(true);
      expect(check(cipherText, flipBit(sharedSecret, 0))).toBe(false);
      expect(check(cipherText, random(32))).toBe(false);
    }
  });

  it('rejects 200 random ciphertexts announced with the fast path’s own candidate (crafted against the view tag)', () => {
    const check = createReencryptionCheck(key);
    for (let i = 0; i < 200; i++) {
      const c = random(1088);
      expect(check(c, candidateOf(c))).toBe(false);
    }
  });

  it('rejects ciphertexts of another key and ciphertexts of the wrong length', () => {
    const check = createReencryptionCheck(key);
    const other = ml_kem768.encapsulate(keyParts().ek);
    expect(check(other.cipherText, candidateOf(other.cipherText))).toBe(false);
    expect(check(other.cipherText, other.sharedSecret)).toBe(false);
    expect(check(honest[0]!.cipherText.subarray(0, 1087), honest[0]!.sharedSecret)).toBe(false);
  });

  it('carries no state from one check to the next (buffers and the lazily sampled matrix are reused)', () => {
    const check = createReencryptionCheck(key);
    const results = cases.map(([, c]) => check(c, candidateOf(c)));
    const again = cases.map(([, c]) => check(c, candidateOf(c)));
    expect(again).toEqual(results);
    expect(results.filter(Boolean).length).toBe(honest.length);
  });

  it.each([
    ['TypeScript kernel', typescriptKernel],
    ['WebAssembly kernel', wasmKernel],
  ] as const)('is what the %s confirms with, on 300 honest, tampered and crafted ciphertexts', (_name, kernel) => {
    if (kernel === wasmKernel) expect(wasmKernelAvailable()).toBe(true);
    const k = kernel(key);
    const out = new Uint8Array(32);
    for (let i = 0; i < 100; i++) {
      const { cipherText } = ml_kem768.encapsulate(key.ek);
      for (const c of [cipherText, flipBit(cipherText, Math.floor(Math.random() * 8704)), random(1088)]) {
        k.candidate(c, out);
        expect(k.confirm(c, out)).toBe(nobleConfirms(key, c, out));
      }
    }
  });
});
