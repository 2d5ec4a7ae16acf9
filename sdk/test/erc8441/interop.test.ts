/**
 * Interop both ways with an implementation that shares no code with the SDK: the ERC-8441
 * formulas (Sections 1, 2.1, 2.4, 2.5) written out in this file on @noble primitives alone
 * (secp256k1 from @noble/curves, SHA-256 / SHA3-256 / keccak-256 from @noble/hashes, and
 * ML-KEM-768 from @noble/post-quantum, while the SDK runs its own ML-KEM), checked against the
 * public vectors.
 *
 * - The formulas reproduce the ERC's public vectors (keys, ss_ec, the combiner, the view tag,
 *   the address, a skip). The ERC's vectors hold no announcement whose recipient's seed they
 *   give (V3-08's `ek` is ACVP encapDecap's, without its `dk`); the deterministic announcements
 *   with a known recipient are the `scheme3` blocks of the shared vectors (PROTOCOL.md section
 *   10), made by an independent implementation: these formulas confirm each, then the SDK's
 *   scanners find each, with the stated `ss` and one-time key.
 * - The SDK's announcements, random and deterministic, verify under the vectors' rules: the
 *   independent scanner below finds them at the address they announce, with their `ss`.
 */
import { readFileSync } from 'node:fs';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256, sha3_256 } from '@noble/hashes/sha3.js';
import { bytesToHex as nobleHex, concatBytes, hexToBytes as nobleBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { describe, expect, it } from 'vitest';
import {
  announcementMetadata,
  createErc8441Payment,
  createErc8441Scanner,
  createScanner,
  createStealthPayment,
  erc8441KeysFromSeed,
  erc8441KeysOf,
  erc8441StealthKey,
  generateKeys,
  openNote,
} from '../../src/index.ts';

type Row = { given: Record<string, any>; expect: Record<string, any> };
const load = (file: string): Record<string, Row> => JSON.parse(readFileSync(new URL(`./${file}`, import.meta.url), 'utf8')).vectors;
const s2 = load('section-2.json');

// ---- The ERC's formulas, independently (nothing below imports the SDK) ----

const Point = secp256k1.Point;
const N = Point.CURVE().n;
const DS_HYBRID = utf8ToBytes('pq-stealth/hybrid-payment/v1');
const DS_OFFSET = utf8ToBytes('pq-stealth/offset/v1');
const DS_VIEW_TAG = utf8ToBytes('pq-stealth/view-tag/v1');
const big = (bytes: Uint8Array) => BigInt(`0x${nobleHex(bytes) || '0'}`);
const scalarBytes = (value: bigint) => nobleBytes(value.toString(16).padStart(64, '0'));

/** Section 1: H(ss), range-checked, never reduced; null on failure. */
function offsetOf(ss: Uint8Array): bigint | null {
  const base = big(sha256(concatBytes(DS_OFFSET, ss)));
  return base > 0n && base < N ? base : null;
}
const viewTagOf = (ss: Uint8Array) => sha256(concatBytes(DS_VIEW_TAG, ss))[0]!;
/** Section 1: keccak256(uncompressed(pk)[1..65])[12..32], lowercase hex. */
const addressOf = (point: InstanceType<typeof Point>) => `0x${nobleHex(keccak_256(point.toBytes(false).subarray(1)).subarray(12))}`;
const combine = (ssEc: Uint8Array, ssPq: Uint8Array, epk: Uint8Array, ct: Uint8Array, viewingPk: Uint8Array, ek: Uint8Array) => sha3_256(concatBytes(DS_HYBRID, ssEc, ssPq, epk, ct, viewingPk, ek));
const ecdhX = (scalar: bigint, point: Uint8Array) => Point.fromBytes(point).multiply(scalar).toBytes(true).subarray(1);

/** Section 2.1 from a 128-byte seed. */
function keysFromSeed(seed: Uint8Array) {
  const spendingSk = big(seed.subarray(0, 32));
  const viewingEc = big(seed.subarray(32, 64));
  const { publicKey: ek, secretKey: dk } = ml_kem768.keygen(seed.subarray(64, 128));
  const spendingPk = Point.BASE.multiply(spendingSk).toBytes(true);
  const viewingPk = Point.BASE.multiply(viewingEc).toBytes(true);
  return { spendingSk, viewingEc, dk, ek, spendingPk, viewingPk, meta: concatBytes(spendingPk, viewingPk, ek), tracking: seed.slice(32) };
}
type Keys = ReturnType<typeof keysFromSeed>;

/** Section 2.5 with the recipient's keys: the match (address, ss) or why it is skipped. */
type IndependentScan = { skip: 'shape' | 'view tag' | 'offset' | 'address' } | { address: string; ss: Uint8Array; stealthSk: bigint };
function independentScan(keys: Keys, announcement: { ephemeralPubKey: Uint8Array; metadata: Uint8Array; stealthAddress: string }): IndependentScan {
  if (announcement.ephemeralPubKey.length !== 1121 || announcement.metadata.length === 0) return { skip: 'shape' };
  const epk = announcement.ephemeralPubKey.subarray(0, 33);
  const ct = announcement.ephemeralPubKey.subarray(33);
  const ss = combine(ecdhX(keys.viewingEc, epk), ml_kem768.decapsulate(ct, keys.dk), epk, ct, keys.viewingPk, keys.ek);
  if (viewTagOf(ss) !== announcement.metadata[0]) return { skip: 'view tag' };
  const offset = offsetOf(ss);
  if (offset === null) return { skip: 'offset' };
  const address = addressOf(Point.fromBytes(keys.spendingPk).add(Point.BASE.multiply(offset)));
  if (address !== announcement.stealthAddress.toLowerCase()) return { skip: 'address' };
  return { address, ss, stealthSk: (keys.spendingSk + offset) % N };
}

/** Section 2.4 with fixed randomness: the announcement a conforming sender makes. */
function independentPayment(meta: Uint8Array, esk: bigint, message: Uint8Array) {
  const spendingPk = meta.subarray(0, 33);
  const viewingPk = meta.subarray(33, 66);
  const ek = meta.subarray(66);
  const epk = Point.BASE.multiply(esk).toBytes(true);
  const { cipherText: ct, sharedSecret: ssPq } = ml_kem768.encapsulate(ek, message);
  const ss = combine(ecdhX(esk, viewingPk), ssPq, epk, ct, viewingPk, ek);
  const offset = offsetOf(ss)!;
  return { ephemeralPubKey: concatBytes(epk, ct), viewTag: viewTagOf(ss), ss, address: addressOf(Point.fromBytes(spendingPk).add(Point.BASE.multiply(offset))) };
}

// ---- The vectors ----

const v309 = s2['V3-09']!;
/** The V3-09 recipient (ek is NIST ACVP keygen tcId 26). */
const recipient = keysFromSeed(nobleBytes(v309.given.keygen_seed));

describe('the independent formulas reproduce the vectors (so they can judge the SDK)', () => {
  it('V3-09 keys from the seed; V3-04 ss_ec, V3-06 ss, V3-08 view tag and V3-13 address from the given values', () => {
    expect(nobleHex(recipient.meta)).toBe(v309.expect.meta_address);
    expect(nobleHex(recipient.tracking)).toBe(v309.expect.tracking);
    const parts = s2['V3-06']!.given.parts;
    const esk = big(nobleBytes(s2['V3-04']!.given.esk));
    expect(nobleHex(Point.BASE.multiply(esk).toBytes(true))).toBe(parts.epk);
    expect(nobleHex(ecdhX(esk, nobleBytes(s2['V3-04']!.given.viewing_pk_ec)))).toBe(s2['V3-04']!.expect.ss_ec);
    expect(s2['V3-08']!.expect.ephemeralPubKey).toBe(parts.epk + parts.ct);
    const ss = combine(nobleBytes(parts.ss_ec), nobleBytes(parts.ss_pq), nobleBytes(parts.epk), nobleBytes(parts.ct), nobleBytes(parts.viewing_pk_ec), nobleBytes(parts.ek));
    expect(nobleHex(ss)).toBe(s2['V3-06']!.expect.ss);
    expect(viewTagOf(ss).toString(16).padStart(2, '0')).toBe(s2['V3-08']!.expect.metadata);
    expect(addressOf(Point.fromBytes(nobleBytes(s2['V3-13']!.given.stealth_pk_compressed)))).toBe(`0x${s2['V3-13']!.expect.address}`);
  });

  it('V3-14: the modified-ciphertext announcement decapsulates to the stated ss_pq and is skipped on its view tag (derived 1a, announced 1b)', () => {
    const { announcement } = s2['V3-14']!.given;
    const acvp = JSON.parse(readFileSync(new URL('../fixtures/acvp-ml-kem-768-decap-tcid88.json', import.meta.url), 'utf8')) as { dk: string };
    const dk = nobleBytes(acvp.dk);
    // V3-14 uses the V3-04/V3-09 viewing key and the ACVP decapsulation tcId 88 key pair.
    const keys = { ...recipient, dk, ek: dk.slice(1152, 2336) };
    expect(nobleHex(ml_kem768.decapsulate(nobleBytes(announcement.ct), dk))).toBe(s2['V3-14']!.expect.ss_pq);
    const ephemeralPubKey = concatBytes(nobleBytes(announcement.ephemeralPubKey), nobleBytes(announcement.ct));
    expect(independentScan(keys, { ephemeralPubKey, metadata: nobleBytes(announcement.view_tag), stealthAddress: `0x${'00'.repeat(20)}` })).toEqual({ skip: 'view tag' });
  });
});

type Scheme3 = { viewing_ec: string; meta_address: string; tracking_key: string; esk: string; ephemeral_pub_key: string; ss: string; view_tag: number; stealth_address: string; stealth_sk: string; note_metadata: string };
type Case = { name: string; input: { spending_secret: string; viewing_seed: string; encapsulation_message: string }; note: { input: { amount: string } }; scheme3: Scheme3 };
const cases = (JSON.parse(readFileSync(new URL('../vectors.shared.json', import.meta.url), 'utf8')) as { cases: Case[] }).cases;

describe("the vectors' deterministic announcements are found by the SDK's scanner (PROTOCOL.md section 10's scheme3 blocks, made by an independent implementation)", () => {
  it.each(cases.map((c) => [c.name, c] as const))('case %s: the independent scanner confirms the announcement, then the SDK finds it by tracking key and by identity, with the stated ss and one-time key', (_name, c) => {
    const v = c.scheme3;
    // The ERC's keygen of seed = b || viewing_ec || d || z (viewing_seed is d || z).
    const keys = keysFromSeed(concatBytes(nobleBytes(c.input.spending_secret), nobleBytes(v.viewing_ec), nobleBytes(c.input.viewing_seed)));
    expect(nobleHex(keys.meta)).toBe(v.meta_address);
    expect(nobleHex(keys.tracking)).toBe(v.tracking_key);
    const announcement = { ephemeralPubKey: nobleBytes(v.ephemeral_pub_key), metadata: nobleBytes(v.note_metadata), stealthAddress: v.stealth_address };
    const independent = independentScan(keys, announcement);
    expect('ss' in independent && nobleHex(independent.ss)).toBe(v.ss);
    expect('ss' in independent && nobleHex(scalarBytes(independent.stealthSk))).toBe(v.stealth_sk);

    const found = createErc8441Scanner({ trackingKey: v.tracking_key, metaAddress: v.meta_address }).check(announcement);
    expect(found).toMatchObject({ match: true, stealthAddress: v.stealth_address, viewTag: v.view_tag });
    if (!found.match) return;
    expect(nobleHex(found.sharedSecret)).toBe(v.ss);
    expect(nobleHex(erc8441StealthKey({ spendingSecretKey: c.input.spending_secret, sharedSecret: found.sharedSecret, stealthAddress: found.stealthAddress }))).toBe(v.stealth_sk);
    if (c.note.input.amount !== '0') expect(openNote(found.sharedSecret, announcement.metadata.subarray(1))?.amount).toBe(BigInt(c.note.input.amount));
    // The same announcement as a registry row, in one scan beside a foreign row, by the identity.
    const identity = generateKeys({ spendingSecret: c.input.spending_secret, viewingSeed: c.input.viewing_seed });
    const foreign = createErc8441Payment(erc8441KeysOf(generateKeys()).metaAddress);
    const { discoveries } = createScanner(identity).scan([
      { ephemeralKey: foreign.ephemeralPubKey, viewTag: foreign.viewTag, stealthAddress: foreign.stealthAddress, schemeId: 3 },
      { ephemeralKey: announcement.ephemeralPubKey, viewTag: v.view_tag, stealthAddress: v.stealth_address, schemeId: 3 },
    ]);
    expect(discoveries.map((d) => [d.schemeId, d.stealthAddress, d.index, nobleHex(d.stealthSecretKey!)])).toEqual([[3, v.stealth_address, 1, v.stealth_sk]]);
  });
});

describe("the SDK's announcements verify under the vectors' rules", () => {
  it('deterministic: createErc8441Payment with a fixed esk and encapsulation message equals the independent sender byte for byte', () => {
    for (let i = 1; i <= 3; i++) {
      const esk = big(sha256(utf8ToBytes(`interop esk ${i}`))) % N;
      const message = sha256(utf8ToBytes(`interop m ${i}`));
      const mine = independentPayment(recipient.meta, esk, message);
      const sdk = createErc8441Payment(v309.expect.meta_address, { ephemeralSecretKey: scalarBytes(esk), encapsulationMessage: message });
      expect(nobleHex(sdk.ephemeralPubKey)).toBe(nobleHex(mine.ephemeralPubKey));
      expect(nobleHex(sdk.sharedSecret)).toBe(nobleHex(mine.ss));
      expect(sdk.viewTag).toBe(mine.viewTag);
      expect(sdk.metadata[0]).toBe(mine.viewTag);
      expect(sdk.stealthAddress.toLowerCase()).toBe(mine.address);
    }
  });

  it('random: every SDK payment (both SDK entry points, with and without a sealed note) is found by the independent scanner at its announced address, with its ss', () => {
    const payments = [
      ...Array.from({ length: 4 }, () => createErc8441Payment(v309.expect.meta_address)),
      createErc8441Payment(v309.expect.meta_address, { note: { amount: 123n, chainId: 8453n } }),
    ].map((p) => ({ ephemeralPubKey: p.ephemeralPubKey, metadata: p.metadata, stealthAddress: p.stealthAddress, ss: p.sharedSecret }));
    // createStealthPayment (the entry payStealth and POST /stealth/create use) with the metadata payStealth announces.
    const viaGeneric = createStealthPayment(v309.expect.meta_address);
    expect(viaGeneric.schemeId).toBe(3);
    payments.push({ ephemeralPubKey: viaGeneric.ephemeralCiphertext, metadata: announcementMetadata(viaGeneric, { amount: 5n }), stealthAddress: viaGeneric.stealthAddress, ss: viaGeneric.sharedSecret });
    for (const payment of payments) {
      const found = independentScan(recipient, payment);
      expect('ss' in found ? 'match' : found.skip).toBe('match');
      if (!('ss' in found)) continue;
      expect(nobleHex(found.ss)).toBe(nobleHex(payment.ss));
      expect(found.address).toBe(payment.stealthAddress.toLowerCase());
    }
    // The sealed note is keyed from ss alone (PROTOCOL.md section 10): it opens with the independently derived ss.
    for (const [sealed, amount] of [[payments[4]!, 123n], [payments[5]!, 5n]] as const) {
      const found = independentScan(recipient, sealed);
      if ('ss' in found) expect(openNote(found.ss, sealed.metadata.subarray(1))?.amount).toBe(amount);
    }
  });

  it("an SDK payment to someone else is skipped by the independent scanner, and a Wraith identity's 1250-byte keys are the ERC's keygen of its 128-byte seed", () => {
    const identity = generateKeys();
    const scheme3 = erc8441KeysOf(identity);
    const other = createErc8441Payment(scheme3.metaAddress);
    expect(independentScan(recipient, { ephemeralPubKey: other.ephemeralPubKey, metadata: other.metadata, stealthAddress: other.stealthAddress })).toMatchObject({ skip: expect.stringMatching(/view tag|address/) });
    // PROTOCOL.md section 10: seed = b || viewing_ec || d || z; the ERC's keygen of that seed is the identity's meta-address.
    const seed = concatBytes(identity.spendingSecretKey, scheme3.trackingKey);
    const independent = keysFromSeed(seed);
    expect(nobleHex(independent.meta)).toBe(nobleHex(scheme3.metaAddress));
    expect(nobleHex(erc8441KeysFromSeed(seed).metaAddress)).toBe(nobleHex(scheme3.metaAddress));
    // And the identity's own scan of both schemes finds what the independent sender paid it.
    const mine = independentPayment(independent.meta, 7n, sha256(utf8ToBytes('to a wraith identity')));
    const { discoveries } = createScanner(identity).scan([{ ephemeralKey: mine.ephemeralPubKey, viewTag: mine.viewTag, stealthAddress: mine.address, schemeId: 3 }]);
    expect(discoveries.map((d) => [d.schemeId, d.stealthAddress.toLowerCase()])).toEqual([[3, mine.address]]);
    expect(addressOf(Point.BASE.multiply(big(discoveries[0]!.stealthSecretKey!)))).toBe(mine.address);
  });
});
