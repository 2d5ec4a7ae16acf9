/**
 * Heavy suite (CI: WRAITH_HEAVY=1): the fast kernels give exactly the reference scanner's
 * discoveries over 100,000 announcements mixing every kind of input, on one thread and on the
 * worker pool. View-tag match counts legitimately differ between kernels (for a ciphertext that
 * fails re-encryption the reference's candidate is the implicit-rejection key, the fast path's is
 * G(m' || H(ek))), so the comparison with the reference is on discoveries and on what was
 * scanned and skipped. The two fast kernels compute the same K', so their view-tag match counts
 * must agree too: that shows the WASM kernel reaches the re-encryption check on the 10,000 rows
 * crafted for the fast path, and refuses them there.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { shake256 } from '@noble/hashes/sha3.js';
import {
  bytesToHex,
  computeViewTag,
  createScanner,
  createScanPool,
  createStealthPayment,
  generateKeys,
  typescriptKernel,
  wasmKernelAvailable,
  type Announcement,
  type ScanPool,
  type ScanResult,
} from '../src/index.ts';
import { parseViewingSecretKey } from '../src/viewing-key.ts';
import { nodeScanWorkerSpawner } from '../../tests/helpers/scan-worker-node.ts';

const TOTAL = 100_000;
const recipient = generateKeys();
const z = recipient.viewingSecretKey.subarray(2368, 2400);
const fastPath = typescriptKernel(parseViewingSecretKey(recipient.viewingSecretKey));
const scratch = new Uint8Array(32);
const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));

/** A ciphertext whose compressed coefficients sit at the edges: 10-bit fields all 0 or 1023, nibbles 0 or 15. */
function boundaryCiphertext(): Uint8Array {
  const c = new Uint8Array(1088);
  const choice = random(1)[0]!;
  c.fill(choice & 1 ? 0xff : 0x00, 0, 960);
  c.fill(choice & 2 ? 0xff : 0x00, 960);
  for (let i = 0; i < 8; i++) c[random(2)[0]! % 1088] = random(1)[0]!; // a few random bytes so they differ
  return c;
}

function buildRegistry(): { rows: Announcement[]; kinds: Record<string, number> } {
  const kinds: Record<string, number> = {};
  const rows: Announcement[] = [];
  const add = (kind: string, ephemeralKey: Uint8Array, viewTag: number) => {
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    rows.push({ id: rows.length + 1, ephemeralKey, viewTag });
  };
  const honest = Array.from({ length: 1500 }, () => createStealthPayment(recipient.metaAddress));
  const others = [generateKeys(), generateKeys()];
  const foreign = Array.from({ length: 1500 }, (_, i) => createStealthPayment(others[i % 2]!.metaAddress));
  for (const p of honest) add('honest', p.ephemeralCiphertext, p.viewTag);
  for (const p of foreign) add('foreign honest', p.ephemeralCiphertext, p.viewTag);
  for (let i = 0; i < 15_000; i++) {
    const p = honest[i % honest.length]!;
    const c = p.ephemeralCiphertext.slice();
    const bit = random(2)[0]! * 8 + (i % 8);
    c[bit % 1088]! ^= 1 << (i % 8);
    add('bit-flipped honest', c, p.viewTag);
  }
  for (let i = 0; i < 10_000; i++) {
    const c = random(1088);
    add('crafted for the reference (Kbar tag)', c, computeViewTag(shake256.create({ dkLen: 32 }).update(z).update(c).digest()));
  }
  for (let i = 0; i < 10_000; i++) {
    const c = random(1088);
    add("crafted for the fast path (K' tag)", c, fastPath.candidate(c, scratch));
  }
  for (let i = 0; i < 3_000; i++) add('boundary coefficients', boundaryCiphertext(), random(1)[0]!);
  add('all 0xff', new Uint8Array(1088).fill(0xff), 0);
  add('all zero (malformed)', new Uint8Array(1088), 0);
  add('short (malformed)', random(1087), 0);
  while (rows.length < TOTAL) add('random bytes', random(1088), random(1)[0]!);
  // Shuffle, keeping ids in order of position.
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  rows.forEach((r, i) => (r.id = i + 1));
  return { rows, kinds };
}

const summary = (r: ScanResult<Announcement>) => ({
  found: r.discoveries.map((d) => `${d.index}:${d.stealthAddress}:${bytesToHex(d.stealthSecretKey!)}`),
  scanned: r.stats.totalScanned,
  malformed: r.stats.malformed,
});

/** The view-tag matches of the TypeScript kernel on one thread; every fast run must agree. */
let fastMatches: number | undefined;
const matchesOf = (r: ScanResult<Announcement>) => r.stats.viewTagMatches;

const pools: ScanPool[] = [];
afterAll(() => pools.forEach((p) => p.close()));

describe.runIf(process.env.WRAITH_HEAVY === '1')('fast kernels equal the reference over 100,000 announcements', () => {
  const { rows, kinds } = buildRegistry();
  let reference: ReturnType<typeof summary>;

  it('the reference scanner (the oracle) finds exactly the untampered honest payments', async () => {
    const pool = await createScanPool(recipient, { spawn: await nodeScanWorkerSpawner(), size: 2, kernel: 'reference' });
    pools.push(pool);
    reference = summary(await pool.scan(rows));
    expect(kinds.honest).toBe(1500);
    expect(reference.found).toHaveLength(1500); // bit flips never leave a payment valid (re-encryption binds every bit)
    expect(reference.scanned).toBe(TOTAL);
    expect(reference.malformed).toBe(2);
  }, 600_000);

  it('the TypeScript kernel on one thread gives identical discoveries', () => {
    const result = createScanner(recipient, { kernel: 'typescript' }).scan(rows);
    expect(summary(result)).toEqual(reference);
    fastMatches = matchesOf(result);
    // Honest payments, bit flips that keep m', and every row crafted for the fast path's tag.
    expect(fastMatches).toBeGreaterThanOrEqual(1500 + 10_000);
  }, 600_000);

  it('the TypeScript kernel on a 2-worker pool gives identical discoveries in the same order', async () => {
    const pool = await createScanPool(recipient, { spawn: await nodeScanWorkerSpawner(), size: 2, kernel: 'typescript' });
    pools.push(pool);
    const result = await pool.scan(rows);
    expect(summary(result)).toEqual(reference);
    expect(matchesOf(result)).toBe(fastMatches);
  }, 600_000);

  it('the WebAssembly SIMD kernel on one thread gives identical discoveries and the same view-tag matches', () => {
    expect(wasmKernelAvailable()).toBe(true);
    const result = createScanner(recipient, { kernel: 'wasm' }).scan(rows);
    expect(summary(result)).toEqual(reference);
    expect(matchesOf(result)).toBe(fastMatches);
  }, 600_000);

  it('the WebAssembly SIMD kernel on a 2-worker pool gives identical discoveries in the same order', async () => {
    const pool = await createScanPool(recipient, { spawn: await nodeScanWorkerSpawner(), size: 2, kernel: 'wasm' });
    pools.push(pool);
    const result = await pool.scan(rows);
    expect(summary(result)).toEqual(reference);
    expect(matchesOf(result)).toBe(fastMatches);
  }, 600_000);

  it('the WebAssembly SIMD kernel on 1 worker with the calling thread scanning too gives identical discoveries in the same order', async () => {
    const pool = await createScanPool(recipient, { spawn: await nodeScanWorkerSpawner(), size: 1, kernel: 'wasm', useCallingThread: true });
    pools.push(pool);
    const result = await pool.scan(rows);
    expect(summary(result)).toEqual(reference);
    expect(matchesOf(result)).toBe(fastMatches);
  }, 600_000);

  it("mode 'constant' gives identical discoveries", () => {
    expect(summary(createScanner(recipient, { mode: 'constant' }).scan(rows.slice(0, 5000)))).toEqual(
      summary(createScanner(recipient, { kernel: 'reference' }).scan(rows.slice(0, 5000))),
    );
  }, 600_000);
});
