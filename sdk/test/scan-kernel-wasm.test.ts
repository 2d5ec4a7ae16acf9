/**
 * The WebAssembly SIMD scan kernel must compute exactly what the TypeScript kernel and a
 * straightforward FIPS 203 decryption compute, one announcement at a time or in SIMD groups,
 * and a scan with it must find exactly what the reference kernel finds.
 *
 * The m' oracle shares no code with either kernel: it maps s_hat back to s with a fully reduced
 * inverse NTT and multiplies by schoolbook negacyclic convolution in Z_q[X]/(X^256 + 1).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { shake256 } from '@noble/hashes/sha3.js';
import {
  bytesToHex,
  computeViewTag,
  createStealthPayment,
  generateKeys,
  InvalidArgumentError,
  referenceKernel,
  scanAnnouncements,
  type AnnouncementRecord,
  type Discovery,
  type ScanResult,
} from '../src/index.ts';
import { typescriptKernel } from '../src/scan-kernel-typescript.ts';
import { createWasmScanCore, wasmKernel, wasmKernelAvailable } from '../src/scan-kernel-wasm.ts';
import { SCAN_KERNEL_WASM_BASE64 } from '../src/scan-kernel-wasm.bytes.ts';
import { parseViewingSecretKey } from '../src/viewing-key.ts';
import { mod, referenceDecrypt } from './kpke-oracle.ts';

const oracleDecrypt = referenceDecrypt;

const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
const fill = (n: number, v: number) => new Uint8Array(n).fill(v);
const pack = (items: Uint8Array[]) => {
  const out = new Uint8Array(items.length * 1088);
  items.forEach((c, i) => out.set(c, i * 1088));
  return out;
};

const recipient = generateKeys();
const key = parseViewingSecretKey(recipient.viewingSecretKey);
const honest = Array.from({ length: 4 }, () => createStealthPayment(recipient.metaAddress));

const secretKeys: [string, Uint8Array][] = [
  ['a generated key', key.dkPke],
  ['all-0xff dk_pke (coefficients 4095, not canonical)', fill(1152, 0xff)],
  ['s_hat of coefficient q-1 everywhere', Uint8Array.from({ length: 1152 }, (_, i) => [0x00, 0xd0, 0xcf][i % 3]!)],
  ['all-zero s_hat', fill(1152, 0)],
  ['random 12-bit s_hat', random(1152)],
];
const edgeCiphertexts: [string, Uint8Array][] = [
  ['an honest ciphertext', honest[0]!.ephemeralCiphertext],
  ['all-zero bytes', fill(1088, 0)],
  ['all-0xff bytes (maximal compressed coefficients)', fill(1088, 0xff)],
  ['alternating 0x55/0xaa', Uint8Array.from({ length: 1088 }, (_, i) => (i & 1 ? 0xaa : 0x55))],
  ['alternating 0x00/0xff', Uint8Array.from({ length: 1088 }, (_, i) => (i & 1 ? 0xff : 0x00))],
  ['random bytes', random(1088)],
  ['random bytes (2)', random(1088)],
  ['another honest ciphertext', honest[1]!.ephemeralCiphertext],
  ['random bytes (3)', random(1088)],
];

describe('WebAssembly SIMD kernel', () => {
  it('is available on this engine (Node 20 has WebAssembly SIMD), so these tests exercise the WebAssembly code', () => {
    expect(wasmKernelAvailable()).toBe(true);
  });

  it('is shipped as a module without imports that uses SIMD (a non-SIMD engine rejects it)', () => {
    const bytes = Uint8Array.from(atob(SCAN_KERNEL_WASM_BASE64), (ch) => ch.charCodeAt(0));
    const module = new WebAssembly.Module(bytes);
    expect(WebAssembly.Module.imports(module)).toEqual([]);
    // v128 appears in the type section as value type 0x7b; SIMD opcodes use the 0xfd prefix.
    expect(bytes.includes(0x7b) && bytes.includes(0xfd)).toBe(true);
  });

  describe.each(secretKeys)("m' equals a straightforward decryption (%s)", (_name, dkPke) => {
    it.each(edgeCiphertexts)('one at a time: %s', (_cn, c) => {
      const messages = new Uint8Array(32);
      createWasmScanCore(dkPke, key.ekHash).decrypt(c, 1, messages);
      expect(bytesToHex(messages)).toBe(oracleDecrypt(dkPke, c));
    });

    it('all edge ciphertexts side by side in SIMD lanes', () => {
      const cs = edgeCiphertexts.map(([, c]) => c); // 9: one full group and a tail of one
      const messages = new Uint8Array(cs.length * 32);
      createWasmScanCore(dkPke, key.ekHash).decrypt(pack(cs), cs.length, messages);
      cs.forEach((c, i) => expect(bytesToHex(messages.subarray(32 * i, 32 * i + 32)), `lane ${i}`).toBe(oracleDecrypt(dkPke, c)));
    });
  });

  it.each([832, -832, 1664, 819])(
    "m' is exact when crafted inputs make the inverse NTT's unreduced sums grow as fast as possible (NTT-domain product %i everywhere)",
    (target) => {
      // u_0 = Decompress_10(1) = 3 is a constant polynomial, so NTT(u_0) = (3, 0, 3, 0, ...) and its
      // product with s_hat_0 = target * 3^-1 is `target` in every NTT slot: all layer-1 sums are
      // equal, all differences 0, and later sums double per layer (-1665 * 2^k for 832) unless
      // they are reduced where the bounds in assembly/k-pke.ts say.
      const coefficient = mod(target * 1110); // 3^-1 mod q = 1110
      const dkPke = new Uint8Array(1152);
      for (let i = 0; i < 128; i++) {
        dkPke[3 * i] = coefficient & 0xff; // ByteEncode_12: two coefficients per 3 bytes
        dkPke[3 * i + 1] = (coefficient >> 8) | ((coefficient & 0x0f) << 4);
        dkPke[3 * i + 2] = coefficient >> 4;
      }
      const cs = [new Uint8Array(1088), new Uint8Array(1088)];
      cs[0]![0] = 1;
      cs[1]![0] = 1;
      cs[1]!.set(random(128), 960);
      const messages = new Uint8Array(64);
      createWasmScanCore(dkPke, key.ekHash).decrypt(pack(cs), 2, messages);
      cs.forEach((c, i) => expect(bytesToHex(messages.subarray(32 * i, 32 * i + 32))).toBe(oracleDecrypt(dkPke, c)));
    },
  );

  it("K' and view tags equal the TypeScript kernel's on 500 random ciphertexts and keys", () => {
    for (let round = 0; round < 5; round++) {
      const k = parseViewingSecretKey(generateKeys().viewingSecretKey);
      const ts = typescriptKernel(k);
      const cs = Array.from({ length: 100 }, () => random(1088));
      const secrets = new Uint8Array(100 * 32);
      const tags = new Uint8Array(100);
      wasmKernel(k).candidates!(pack(cs), 100, secrets, tags);
      const expected = new Uint8Array(32);
      cs.forEach((c, i) => {
        const tag = ts.candidate(c, expected);
        expect(bytesToHex(secrets.subarray(32 * i, 32 * i + 32))).toBe(bytesToHex(expected));
        expect(tags[i]).toBe(tag);
      });
    }
  });

  it("yields an honest payment's shared secret and announced view tag", () => {
    const kernel = wasmKernel(key);
    for (const p of honest) {
      const out = new Uint8Array(32);
      expect(kernel.candidate(p.ephemeralCiphertext, out)).toBe(p.viewTag);
      expect(kernel.confirm(p.ephemeralCiphertext, out)).toBe(true);
      expect(computeViewTag(out)).toBe(p.viewTag);
    }
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 63, 64, 65, 130])(
    'a batch of %i gives exactly what single calls give',
    (count) => {
      const kernel = wasmKernel(key);
      const cs = Array.from({ length: count }, (_, i) => (i % 3 === 0 ? honest[i % 4]!.ephemeralCiphertext : random(1088)));
      // Leave different data in the input slots beyond the batch: a ragged tail must not depend on it.
      kernel.candidates!(pack(Array.from({ length: 72 }, () => random(1088))), 72, new Uint8Array(72 * 32), new Uint8Array(72));
      const secrets = new Uint8Array(count * 32 + 32).fill(0xee);
      const tags = new Uint8Array(count + 1).fill(0xee);
      kernel.candidates!(pack(cs), count, secrets, tags);
      const single = new Uint8Array(32);
      cs.forEach((c, i) => {
        const tag = kernel.candidate(c, single);
        expect(bytesToHex(secrets.subarray(32 * i, 32 * i + 32)), `announcement ${i}`).toBe(bytesToHex(single));
        expect(tags[i], `announcement ${i}`).toBe(tag);
      });
      expect(secrets.subarray(count * 32).every((b) => b === 0xee)).toBe(true); // nothing written past count
      expect(tags[count]).toBe(0xee);
    },
  );

  it('keeps keys apart: two kernels used alternately each compute for their own key', () => {
    const other = generateKeys();
    const otherKey = parseViewingSecretKey(other.viewingSecretKey);
    const mine = wasmKernel(key);
    const theirs = wasmKernel(otherKey);
    const payment = createStealthPayment(other.metaAddress);
    const a = new Uint8Array(32);
    const b = new Uint8Array(32);
    const expected = new Uint8Array(32);
    for (const c of [honest[2]!.ephemeralCiphertext, payment.ephemeralCiphertext]) {
      mine.candidate(c, a);
      theirs.candidate(c, b);
      typescriptKernel(key).candidate(c, expected);
      expect(bytesToHex(a)).toBe(bytesToHex(expected));
      typescriptKernel(otherKey).candidate(c, expected);
      expect(bytesToHex(b)).toBe(bytesToHex(expected));
    }
    expect(theirs.candidate(payment.ephemeralCiphertext, b)).toBe(payment.viewTag);
  });

  it('rejects a ciphertext of the wrong length and buffers shorter than the batch', () => {
    const kernel = wasmKernel(key);
    expect(() => kernel.candidate(new Uint8Array(1087), new Uint8Array(32))).toThrow(InvalidArgumentError);
    expect(() => kernel.candidates!(new Uint8Array(1088), 2, new Uint8Array(64), new Uint8Array(2))).toThrow(InvalidArgumentError);
    expect(() => kernel.candidates!(new Uint8Array(2176), 2, new Uint8Array(32), new Uint8Array(2))).toThrow(InvalidArgumentError);
  });
});

describe('WebAssembly kernel fallback', () => {
  it.each([
    ['without WebAssembly', undefined],
    ['where the SIMD module fails validation', { ...WebAssembly, validate: () => false }],
  ])('uses the TypeScript kernel %s, with the same results', async (_name, replacement) => {
    vi.resetModules();
    vi.stubGlobal('WebAssembly', replacement);
    try {
      const fresh = await import('../src/scan-kernel-wasm.ts');
      expect(fresh.wasmKernelAvailable()).toBe(false);
      const kernel = fresh.wasmKernel(key);
      const out = new Uint8Array(32);
      expect(kernel.candidate(honest[0]!.ephemeralCiphertext, out)).toBe(honest[0]!.viewTag);
      const tags = new Uint8Array(2);
      kernel.candidates!(pack([honest[1]!.ephemeralCiphertext, honest[2]!.ephemeralCiphertext]), 2, new Uint8Array(64), tags);
      expect([...tags]).toEqual([honest[1]!.viewTag, honest[2]!.viewTag]);
    } finally {
      vi.unstubAllGlobals();
      vi.resetModules();
    }
  });
});

describe('scanning a mixed registry with the WebAssembly kernel', () => {
  const z = key.z;
  const record = (id: number, ciphertext: Uint8Array, viewTag: number): AnnouncementRecord => ({ id, ephemeral_key: bytesToHex(ciphertext), view_tag: viewTag });
  const comparable = (d: Discovery<AnnouncementRecord>) => ({
    id: d.announcement.id,
    index: d.index,
    address: d.stealthAddress,
    sui: d.stealthSuiAddress,
    p: d.stealthSecretKey && bytesToHex(d.stealthSecretKey),
  });
  const stats = ({ stats: { durationMs: _d, rate: _r, ...rest } }: ScanResult<AnnouncementRecord>) => rest;

  it('finds exactly what the reference kernel finds among foreign, crafted, tampered and honest announcements', () => {
    let id = 0;
    const registry: AnnouncementRecord[] = [];
    const others = Array.from({ length: 3 }, () => generateKeys());
    for (let i = 0; i < 600; i++) {
      const p = createStealthPayment(others[i % 3]!.metaAddress);
      registry.push(record(++id, p.ephemeralCiphertext, p.viewTag));
    }
    // Tagged with the implicit-rejection key's view tag (Kbar = SHAKE256(z || c)).
    for (let i = 0; i < 60; i++) {
      const c = random(1088);
      registry.push(record(++id, c, computeViewTag(shake256.create({ dkLen: 32 }).update(z).update(c).digest())));
    }
    // Tagged with the view tag of their K-PKE candidate: every fast kernel's tag check passes.
    const fastPath = typescriptKernel(key);
    const scratch = new Uint8Array(32);
    for (let i = 0; i < 60; i++) {
      const c = random(1088);
      registry.push(record(++id, c, fastPath.candidate(c, scratch)));
    }
    // Honest payments to the recipient with one flipped bit, announced with the honest tag.
    for (let i = 0; i < 30; i++) {
      const p = createStealthPayment(recipient.metaAddress);
      const c = p.ephemeralCiphertext.slice();
      const bit = Math.floor(Math.random() * 1088 * 8);
      c[bit >> 3]! ^= 1 << (bit & 7);
      registry.push(record(++id, c, p.viewTag));
    }
    // Announcements that are not well-formed.
    registry.push({ id: ++id, ephemeral_key: 'zz', view_tag: 1 }, { id: ++id, ephemeral_key: bytesToHex(random(1087)), view_tag: 1 });
    const honestIds = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const p = createStealthPayment(recipient.metaAddress);
      registry.push(record(++id, p.ephemeralCiphertext, p.viewTag));
      honestIds.add(id);
    }
    registry.sort(() => Math.random() - 0.5);

    const wasm = scanAnnouncements(recipient, registry, { kernel: wasmKernel });
    const reference = scanAnnouncements(recipient, registry, { kernel: referenceKernel });
    const typescript = scanAnnouncements(recipient, registry, { kernel: typescriptKernel });

    expect(wasm.discoveries.map(comparable)).toEqual(reference.discoveries.map(comparable));
    expect(new Set(wasm.discoveries.map((d) => d.announcement.id))).toEqual(honestIds);
    expect(wasm.stats).toMatchObject({ totalScanned: registry.length, malformed: 2, discoveries: 12 });
    expect(stats(wasm)).toMatchObject({ totalScanned: reference.stats.totalScanned, malformed: reference.stats.malformed, discoveries: reference.stats.discoveries });
    // View-tag matches count candidate secrets: K' for both fast kernels, Kbar for the reference
    // on foreign ciphertexts, so the fast kernels agree with each other exactly.
    expect(stats(wasm)).toEqual(stats(typescript));
    expect(wasm.stats.viewTagMatches).toBeGreaterThanOrEqual(60 + 12);

    // The attack set has teeth: without the confirmation this kernel would accept the crafted ones.
    const careless = scanAnnouncements(recipient, registry, { kernel: (k) => ({ ...wasmKernel(k), confirm: () => true }) });
    expect(careless.discoveries.length).toBeGreaterThanOrEqual(60 + 12);
  });
});

describe('generated module', () => {
  it('is up to date with the AssemblyScript sources (sdk/src/scan-kernel-wasm.bytes.ts rebuilt and compared)', () => {
    const script = fileURLToPath(new URL('../scripts/build-wasm.mjs', import.meta.url));
    const output = execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8', timeout: 120_000 });
    expect(output).toContain('up to date');
  }, 120_000);
});
