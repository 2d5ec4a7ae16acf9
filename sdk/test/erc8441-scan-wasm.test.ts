/**
 * The WebAssembly scheme-3 (ERC-8441) path against the plain ones: the batched secp256k1
 * ECDH.x against noble for thousands of random points and scalars and the edge cases, the hybrid
 * combiner and the vectors, and whole scans of mixed scheme-1000 / scheme-3 batches through every
 * kernel, both modes and the worker pool.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  bytesToHex,
  createErc8441Scanner,
  createScanner,
  createScanPool,
  createStealthPayment,
  erc8441KeysOf,
  erc8441Offset,
  evmAddressOf,
  generateKeys,
  hexToBytes,
  hybridCombine,
  sealNote,
  type Discovery,
  type ScanPool,
} from '../src/index.ts';
import { bytesToBigInt, concatBytes } from '../src/bytes.ts';
import { ecdhProgram, splitScalar } from '../src/erc8441-ecdh.ts';
import { createWasmErc8441Core, wasmErc8441Available } from '../src/erc8441-scan-wasm.ts';
import { erc8441ViewTag } from '../src/erc8441-payment.ts';
import { CURVE_ORDER, Point } from '../src/spending-key.ts';
import { implicitRejectionKey, parseViewingSecretKey, viewingKeyPairFromSeed } from '../src/viewing-key.ts';
import { typescriptKernel } from '../src/scan-kernel-typescript.ts';
import { nodeScanWorkerSpawner } from '../../tests/helpers/scan-worker-node.ts';

const P = 2n ** 256n - 2n ** 32n - 977n;
const N = CURVE_ORDER;
const be32 = (v: bigint) => hexToBytes(v.toString(16).padStart(64, '0'));
const xOf = (point: InstanceType<typeof Point>) => point.toBytes(true).subarray(1);
const dummyPk = Point.BASE.toBytes(true);
const dummyEk = new Uint8Array(1184);

/** ECDH.x of many x-coordinates by the WASM batch: [status, x hex] per key. */
function wasmEcdh(k: bigint, xs: Uint8Array[], program?: Uint8Array): [number, string][] {
  const core = createWasmErc8441Core(k, dummyPk, dummyEk, program)!;
  const packed = concatBytes(...xs);
  const out = new Uint8Array(32 * xs.length);
  const status = new Uint8Array(xs.length);
  core.ecdh.run(packed, xs.length, out, status);
  return xs.map((_, i) => [status[i]!, status[i] === 0 ? bytesToHex(out.subarray(32 * i, 32 * i + 32)) : '']);
}

/** The same by noble's Point.fromBytes and multiply: status 1 where x is no curve point. */
function nobleEcdh(k: bigint, xs: Uint8Array[]): [number, string][] {
  return xs.map((x) => {
    try {
      return [0, bytesToHex(xOf(Point.fromBytes(concatBytes(Uint8Array.of(2), x)).multiply(k)))];
    } catch {
      return [1, ''];
    }
  });
}

describe.runIf(wasmErc8441Available())('WASM secp256k1 batch ECDH.x', () => {
  it('equals noble for thousands of random points and scalars (k·(r·G) = (k·r mod n)·G)', () => {
    let checked = 0;
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: N - 1n }), fc.array(fc.bigInt({ min: 1n, max: N - 1n }), { minLength: 100, maxLength: 300 }), (k, rs) => {
        const xs = rs.map((r) => xOf(Point.BASE.multiply(r)));
        const expected = rs.map((r) => [0, bytesToHex(xOf(Point.BASE.multiply((k * r) % N)))]);
        expect(wasmEcdh(k, xs)).toEqual(expected);
        checked += rs.length;
      }),
      { numRuns: 12 },
    );
    expect(checked).toBeGreaterThan(1000);
  });

  it('equals noble Point.multiply on random 32-byte strings, invalid x included (about half are no curve point)', () => {
    const k = bytesToBigInt(crypto.getRandomValues(new Uint8Array(32))) % (N - 1n) + 1n;
    const xs = Array.from({ length: 200 }, () => crypto.getRandomValues(new Uint8Array(32)));
    const got = wasmEcdh(k, xs);
    expect(got).toEqual(nobleEcdh(k, xs));
    expect(got.filter(([s]) => s === 1).length).toBeGreaterThan(50); // non-residue x^3 + 7
  });

  it('handles edge scalars (1, 2, 3, small, (n-1)/2, 2^128, lambda, n-2, n-1) on lanes that coincide or are negatives of each other', () => {
    const r = [1n, 2n, 3n, 5n, N - 1n, N - 2n, 12345n];
    // Lanes with the same x: the same point and its negative (x-only input: -P has P's x).
    const points = [...r.map((v) => Point.BASE.multiply(v)), Point.BASE, Point.BASE.negate(), Point.BASE.multiply(7n), Point.BASE.multiply(N - 7n)];
    const xs = points.map(xOf);
    const lambda = 0x5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72n;
    const scalars = [1n, 2n, 3n, 4n, 7n, 15n, 16n, 17n, 31n, 33n, 255n, (N - 1n) / 2n, 2n ** 128n, 2n ** 128n - 1n, lambda, lambda - 1n, N - lambda, N - 3n, N - 2n, N - 1n];
    for (const k of scalars) expect(wasmEcdh(k, xs), `k = ${k}`).toEqual(nobleEcdh(k, xs));
  });

  it('reports x >= p and x whose x^3 + 7 is not a square as no point, and computes the lanes beside them', () => {
    const k = 0xc0ffeen;
    const valid = xOf(Point.BASE.multiply(99n));
    const xs = [be32(P), be32(P + 1n), be32(2n ** 256n - 1n), be32(0n), be32(5n), valid, be32(P - 1n), valid];
    const got = wasmEcdh(k, xs);
    expect(got).toEqual(nobleEcdh(k, xs));
    // x = p - 1 gives x^3 + 7 = 6, which is not a square mod p (Euler's criterion: 6^((p-1)/2) = -1).
    let square = 1n;
    for (let base = 6n, e = (P - 1n) / 2n; e > 0n; e >>= 1n, base = (base * base) % P) if (e & 1n) square = (square * base) % P;
    expect(square).toBe(P - 1n);
    expect(got.map(([s]) => s)).toEqual([1, 1, 1, 1, 1, 0, 1, 0]);
    expect(got[5]![1]).toBe(bytesToHex(xOf(Point.BASE.multiply(99n * k))));
  });

  it('spans several lockstep batches (256 lanes each) and single keys alike', () => {
    const k = 0x1234567890abcdefn;
    const xs = Array.from({ length: 600 }, (_, i) => xOf(Point.BASE.multiply(BigInt(i + 1) * 1000003n)));
    expect(wasmEcdh(k, xs)).toEqual(xs.map((_, i) => [0, bytesToHex(xOf(Point.BASE.multiply((BigInt(i + 1) * 1000003n * k) % N)))]));
    expect(wasmEcdh(k, xs.slice(0, 1))).toEqual(nobleEcdh(k, xs.slice(0, 1)));
  });

  it('recomputes exactly a lane whose addition is exceptional (P + P, P + (-P)) instead of poisoning the batch', () => {
    const xs = [5n, 6n, 7n].map((v) => xOf(Point.BASE.multiply(v)));
    // "set P; add P" is 2P through an addition with equal x; "set P; add -P" reaches infinity.
    const plusSelf = Uint8Array.of(0x20, 0x00);
    const plusNegated = Uint8Array.of(0x20, 0x10);
    expect(wasmEcdh(2n, xs, plusSelf)).toEqual(nobleEcdh(2n, xs));
    expect(wasmEcdh(9n, xs, plusNegated)).toEqual(nobleEcdh(9n, xs));
    // A program with no exceptional step runs as recoded: 1P, doubled, plus 1P = 3P.
    expect(wasmEcdh(3n, xs, Uint8Array.of(0x20, 0xff, 0x00))).toEqual(nobleEcdh(3n, xs));
  });

  it('recodes a scalar into a GLV split whose halves fit 129 bits, and a program of ~130 doublings', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: N - 1n }), (k) => {
        const { k1, k2 } = splitScalar(k);
        expect(k1 < 2n ** 129n && k2 < 2n ** 129n).toBe(true);
        const program = ecdhProgram(k);
        expect(program.filter((op) => op === 0xff).length).toBeLessThanOrEqual(130);
      }),
      { numRuns: 200 },
    );
    expect(() => ecdhProgram(0n)).toThrow();
    expect(() => ecdhProgram(N)).toThrow();
  });
});

const section2 = JSON.parse(readFileSync(new URL('./erc8441/section-2.json', import.meta.url), 'utf8')).vectors as Record<string, { given: any; expect: any }>;

describe.runIf(wasmErc8441Available())('WASM scheme-3 path against the ERC-8441 vectors', () => {
  it('V3-04: ss_ec = ECDH(esk, viewing_pk_ec).x', () => {
    const { esk, viewing_pk_ec } = section2['V3-04']!.given;
    expect(wasmEcdh(BigInt(`0x${esk}`), [hexToBytes(viewing_pk_ec).subarray(1)])).toEqual([[0, section2['V3-04']!.expect.ss_ec]]);
  });

  it('V3-06, V3-07: the WASM combiner gives the vector ss, and binds epk (same x, other parity: another ss)', () => {
    const { parts } = section2['V3-06']!.given;
    const core = createWasmErc8441Core(1n, hexToBytes(parts.viewing_pk_ec), hexToBytes(parts.ek))!;
    const flipped = hexToBytes(section2['V3-07']!.given.epk_parity_flipped);
    const keys = [concatBytes(hexToBytes(parts.epk), hexToBytes(parts.ct)), concatBytes(flipped, hexToBytes(parts.ct)), concatBytes(hexToBytes(parts.epk), hexToBytes(parts.ct))];
    const out = new Uint8Array(96);
    const twice = (b: Uint8Array) => concatBytes(b, b, b);
    const tags = new Uint8Array(3);
    core.combine(twice(hexToBytes(parts.ss_ec)), twice(hexToBytes(parts.ss_pq)), keys, 3, out, tags);
    expect(bytesToHex(out.subarray(0, 32))).toBe(section2['V3-06']!.expect.ss);
    expect(bytesToHex(out.subarray(32, 64))).toBe(section2['V3-07']!.expect.ss_b);
    expect(bytesToHex(out.subarray(64, 96))).toBe(section2['V3-06']!.expect.ss); // an odd last row hashed alone
    expect([...tags]).toEqual([0, 1, 2].map((i) => erc8441ViewTag(out.subarray(32 * i, 32 * i + 32))));
  });

  it('the WASM combiner gives each secret its view tag (SHA-256 in the kernel), over more than one kernel batch', () => {
    const core = createWasmErc8441Core(1n, new Uint8Array(33).fill(2), new Uint8Array(1184).fill(7))!;
    const count = 150; // COMBINE_MAX_BATCH is 64: three kernel batches
    const ssEc = crypto.getRandomValues(new Uint8Array(32 * count));
    const ssPq = crypto.getRandomValues(new Uint8Array(32 * count));
    const keys = Array.from({ length: count }, () => crypto.getRandomValues(new Uint8Array(1121)));
    const out = new Uint8Array(32 * count);
    const tags = new Uint8Array(count);
    core.combine(ssEc, ssPq, keys, count, out, tags);
    for (let i = 0; i < count; i++) expect(tags[i]).toBe(erc8441ViewTag(out.subarray(32 * i, 32 * i + 32)));
  });

  it('finds every vector case announcement (vectors.shared.json scheme3) in a batch of foreign ones; V3-08a and V3-15 shapes as the ERC says', () => {
    const cases = (JSON.parse(readFileSync(new URL('./vectors.shared.json', import.meta.url), 'utf8')) as { cases: { scheme3: any }[] }).cases;
    const foreignMeta = erc8441KeysOf(generateKeys()).metaAddress;
    const foreign = Array.from({ length: 40 }, () => {
      const p = createStealthPayment(foreignMeta);
      return { ephemeralPubKey: p.ephemeralCiphertext, metadata: Uint8Array.of(p.viewTag), stealthAddress: p.stealthAddress };
    });
    for (const { scheme3: v } of cases) {
      const scanner = createErc8441Scanner({ trackingKey: v.tracking_key, metaAddress: v.meta_address });
      const own = { ephemeralPubKey: hexToBytes(v.ephemeral_pub_key), metadata: hexToBytes(v.note_metadata), stealthAddress: v.stealth_address };
      const results = scanner.checkBatch([...foreign.slice(0, 20), own, ...foreign.slice(20)]);
      expect(results[20]).toEqual({ match: true, stealthAddress: v.stealth_address, sharedSecret: hexToBytes(v.ss), viewTag: v.view_tag });
      expect(results.filter((r) => r.match)).toHaveLength(1);
      // V3-08a: metadata = view tag alone or followed by token bytes: the same result.
      expect(scanner.checkBatch([{ ...own, metadata: Uint8Array.of(v.view_tag) }, { ...own, metadata: concatBytes(Uint8Array.of(v.view_tag), new Uint8Array(56).fill(0xee)) }]).every((r) => r.match)).toBe(true);
    }
    // V3-15: lengths other than 1121 and empty metadata are skips, never errors.
    const scanner = createErc8441Scanner({ trackingKey: cases[0]!.scheme3.tracking_key, metaAddress: cases[0]!.scheme3.meta_address });
    const { ephemeralPubKey_lengths, metadata_lengths } = section2['V3-15']!.given as { ephemeralPubKey_lengths: number[]; metadata_lengths: number[] };
    // Keys of each length start 02 || x = 5 (no curve point), so the well-formed shape is an invalid_epk.
    const key = (length: number) => concatBytes(Uint8Array.of(2), be32(5n), new Uint8Array(1121)).subarray(0, length);
    const shapes = ephemeralPubKey_lengths.flatMap((e) => metadata_lengths.map((m) => ({ ephemeralPubKey: key(e), metadata: new Uint8Array(m), stealthAddress: '0x' })));
    expect(scanner.checkBatch(shapes).map((r) => (r.match ? 'match' : r.reason))).toEqual(
      shapes.map(({ ephemeralPubKey, metadata }) => (ephemeralPubKey.length === 1121 && metadata.length > 0 ? 'invalid_epk' : 'malformed')),
    );
  });
});

describe('scheme-3 batches: every kernel, both modes and the pool give the same discoveries', () => {
  const identity = generateKeys();
  const erc8441 = erc8441KeysOf(identity);
  const stranger = generateKeys();
  // Their notes, sealed under ss: one naming a token, one the coin (PROTOCOL.md 8.1), one naming no asset (section 8).
  const tokens = ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'coin', null] as const;
  const three = tokens.map((token, i) => {
    const payment = createStealthPayment(erc8441.metaAddress);
    return { ...payment, metadata: sealNote(payment.sharedSecret, { amount: BigInt(i + 1), token }) };
  });
  const thousand = [0, 1].map(() => createStealthPayment(identity.metaAddress));
  const foreign3 = Array.from({ length: 300 }, () => createStealthPayment(erc8441KeysOf(stranger).metaAddress));
  const foreign1000 = Array.from({ length: 30 }, () => createStealthPayment(stranger.metaAddress));
  const invalidEpk = concatBytes(Uint8Array.of(2), be32(5n), three[0]!.ephemeralCiphertext.subarray(33)); // x = 5: no point
  const batch = [
    ...foreign3.slice(0, 100),
    three[0]!,
    ...foreign1000.slice(0, 10),
    thousand[0]!,
    { schemeId: 3 as const, ephemeralKey: invalidEpk, viewTag: 1, stealthAddress: three[1]!.stealthAddress },
    { ...three[1]!, stealthAddress: three[0]!.stealthAddress }, // a forged announced address
    ...foreign3.slice(100, 250),
    three[2]!,
    { ...three[0]! }, // a replay
    ...foreign1000.slice(10),
    thousand[1]!,
    ...foreign3.slice(250),
    three[1]!,
  ];
  const expectedAddresses = [three[0]!, thousand[0]!, three[2]!, thousand[1]!, three[1]!].map((p) => p.stealthAddress);
  const comparable = (discoveries: Discovery<unknown>[]) =>
    discoveries.map((d) => ({ scheme: d.schemeId, index: d.index, address: d.stealthAddress, p: d.stealthSecretKey && bytesToHex(d.stealthSecretKey), note: d.noteStatus, token: d.note?.token }));

  const reference = createScanner(identity, { kernel: 'reference' }).scan(batch);
  const fast = createScanner(identity, { kernel: 'typescript' }).scan(batch);
  // View-tag matches of foreign rows differ between full decapsulation (the implicit-rejection
  // key) and the kernels' candidates (K-PKE decryption): the fast paths are compared with each other.
  const counts = (stats: typeof reference.stats, viewTagMatches: number) => ({ ...stats, durationMs: 0, rate: 0, viewTagMatches });

  it('the reference scan finds exactly the payments made for the identity, once each, in batch order', () => {
    expect(reference.discoveries.map((d) => d.stealthAddress)).toEqual(expectedAddresses);
    expect(reference.stats).toMatchObject({ totalScanned: batch.length, erc8441: 306, discoveries: 5 });
    expect(reference.discoveries.filter((d) => d.schemeId === 3).map((d) => [d.note?.amount, d.note?.token])).toEqual([
      [1n, tokens[0]],
      [3n, null],
      [2n, 'coin'],
    ]);
    for (const d of reference.discoveries) expect(evmAddressOf(Point.BASE.multiply(bytesToBigInt(d.stealthSecretKey!)))).toBe(d.stealthAddress);
  });

  it.each(['wasm', 'typescript', 'auto'] as const)('the %s kernel, fast and constant mode', (kernel) => {
    for (const mode of ['fast', 'constant'] as const) {
      const { discoveries, stats } = createScanner(identity, { kernel, mode }).scan(batch);
      expect(comparable(discoveries), `${kernel} ${mode}`).toEqual(comparable(reference.discoveries));
      expect(counts(stats, 0)).toEqual(counts(reference.stats, 0));
      if (mode === 'fast') expect(stats.viewTagMatches).toBe(fast.stats.viewTagMatches);
    }
  });

  const pools: ScanPool[] = [];
  afterAll(() => pools.forEach((p) => p.close()));

  it('the worker pool (scheme-3 rows on the workers, in slices), with and without the calling thread, over two batches', async () => {
    const spawn = await nodeScanWorkerSpawner();
    for (const options of [{ size: 2 }, { size: 1, useCallingThread: true }]) {
      const pool = await createScanPool(identity, { spawn, ...options });
      pools.push(pool);
      const { discoveries, stats } = await pool.scan(batch);
      expect(comparable(discoveries)).toEqual(comparable(reference.discoveries));
      expect(counts(stats, 0)).toEqual(counts(fast.stats, 0));
      expect(stats.viewTagMatches).toBe(fast.stats.viewTagMatches);
      // Scheme-3 payments are reported once per pool, over all its batches; scheme 1000 each time.
      const again = await pool.scan(batch);
      expect(again.discoveries.map((d) => d.schemeId)).toEqual([1000, 1000]);
    }
  });
});

describe('what the fast path skips and constant mode finds', () => {
  it('a payment only the tracking key holder can build: a ciphertext failing re-encryption, its ss made from the implicit-rejection key', () => {
    const identity = generateKeys();
    const keys = erc8441KeysOf(identity);
    const honest = createStealthPayment(keys.metaAddress);
    const epk = honest.ephemeralCiphertext.subarray(0, 33);
    const ciphertext = honest.ephemeralCiphertext.slice(33);
    ciphertext[5]! ^= 1; // no longer an encryption of anything under this key: Decaps rejects it implicitly
    const z = keys.trackingKey.subarray(64, 96);
    const viewing = bytesToBigInt(keys.trackingKey.subarray(0, 32));
    const ssEc = xOf(Point.fromBytes(epk).multiply(viewing));
    const ek = viewingKeyPairFromSeed(keys.trackingKey.subarray(32)).publicKey;
    const ss = hybridCombine({ ssEc, ssPq: implicitRejectionKey(z, ciphertext), epk, ciphertext, viewingPublicKeyEc: keys.metaAddress.subarray(33, 66), encapsulationKey: ek });
    const address = evmAddressOf(Point.fromBytes(keys.metaAddress.subarray(0, 33)).add(Point.BASE.multiply(erc8441Offset(ss)!)));
    const viewTag = sha256(concatBytes(new TextEncoder().encode('pq-stealth/view-tag/v1'), ss))[0]!;
    const row = { ephemeralPubKey: concatBytes(epk, ciphertext), metadata: Uint8Array.of(viewTag), stealthAddress: address };
    const constant = createErc8441Scanner({ trackingKey: keys.trackingKey, metaAddress: keys.metaAddress, mode: 'constant' });
    const fast = createErc8441Scanner({ trackingKey: keys.trackingKey, metaAddress: keys.metaAddress });
    expect(constant.check(row)).toMatchObject({ match: true, stealthAddress: address });
    // The fast path's ss uses the kernel's candidate K' (K-PKE decryption): it goes on to the
    // re-encryption check, and then finds the payment, only when that ss's view tag matches too.
    const candidate = new Uint8Array(32);
    typescriptKernel(parseViewingSecretKey(viewingKeyPairFromSeed(keys.trackingKey.subarray(32)).secretKey)).candidate(ciphertext, candidate);
    const candidateSs = hybridCombine({ ssEc, ssPq: candidate, epk, ciphertext, viewingPublicKeyEc: keys.metaAddress.subarray(33, 66), encapsulationKey: ek });
    const candidateTag = sha256(concatBytes(new TextEncoder().encode('pq-stealth/view-tag/v1'), candidateSs))[0]!;
    expect(fast.checkBatch([row])[0]).toEqual(candidateTag === viewTag ? { match: true, stealthAddress: address, sharedSecret: ss, viewTag } : { match: false, reason: 'view_tag' });
  });
});
