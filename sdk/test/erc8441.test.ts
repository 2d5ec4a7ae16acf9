/**
 * ERC-8441 (schemeId 3) against its 25 public vectors (../shared/erc8441/vectors, unmodified),
 * the scheme-3 blocks of the project's shared vectors (PROTOCOL.md section 10, computed by an
 * independent implementation), and the mistakes the vectors' notes say they do not catch.
 */
import { existsSync, readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { concatBytes } from '../src/bytes.ts';
import { Point } from '../src/spending-key.ts';
import { decapsulate } from '../src/viewing-key.ts';
import {
  bytesToHex,
  createErc8441Payment,
  createErc8441Scanner,
  decodeAnyMetaAddress,
  decodeErc8441MetaAddress,
  ecdhX,
  erc8441KeysFromSeed,
  erc8441KeysOf,
  erc8441OffsetBase,
  erc8441OffsetOfBase,
  erc8441StealthKey,
  erc8441ViewTag,
  evmAddressOf,
  hexToBytes,
  hybridCombine,
  openNote,
  splitErc8441EphemeralKey,
  wraithViewingScalar,
  InvalidArgumentError,
  InvalidKeyError,
  InvalidMetaAddressError,
  KeyMismatchError,
} from '../src/index.ts';

type Row = { given: Record<string, any>; expect: Record<string, any> };
const load = (file: string): Record<string, Row> => JSON.parse(readFileSync(new URL(`./erc8441/${file}`, import.meta.url), 'utf8')).vectors;
const s1 = load('section-1.json');
const s2 = load('section-2.json');
const hex = (text: string) => hexToBytes(text);
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('the ERC-8441 vectors in this tree', () => {
  it('are the published files: each hashes to its manifest digest (25 rows in all)', () => {
    const manifest = JSON.parse(readFileSync(new URL('./erc8441/manifest.json', import.meta.url), 'utf8')) as { files: Record<string, { sha256: string }> };
    for (const file of ['section-1.json', 'section-2.json']) {
      expect(bytesToHex(sha256(readFileSync(new URL(`./erc8441/${file}`, import.meta.url)))), file).toBe(manifest.files[file]!.sha256);
    }
    expect(Object.keys(s1).length + Object.keys(s2).length).toBe(25);
  });

  const shared = new URL('../../../shared/erc8441/vectors/', import.meta.url);
  it.skipIf(!existsSync(shared))('equal ../shared/erc8441/vectors byte for byte', () => {
    for (const file of ['section-1.json', 'section-2.json', 'manifest.json']) {
      expect(readFileSync(new URL(`./erc8441/${file}`, import.meta.url)).equals(readFileSync(new URL(file, shared))), file).toBe(true);
    }
  });
});

describe('ERC-8441 public vectors: Section 1 (offset and view tag)', () => {
  it('V1-01, V1-02: H(ss) is SHA256("pq-stealth/offset/v1" || ss) read big-endian', () => {
    const base = erc8441OffsetBase(hex(s1['V1-01']!.given.ss));
    expect(bytesToHex(base)).toBe(s1['V1-01']!.expect.base);
    expect(erc8441OffsetOfBase(base)!.toString(16).padStart(64, '0')).toBe(s1['V1-01']!.expect.offset);
    expect(erc8441OffsetOfBase(hex(s1['V1-02']!.given.base))!.toString(16).padStart(64, '0')).toBe(s1['V1-02']!.expect.offset_big_endian);
  });

  it('V1-03, V1-04, V1-05: base 0 and base n fail, n - 1 is valid (never reduced mod n)', () => {
    expect(erc8441OffsetOfBase(hex(s1['V1-03']!.given.base))).toBeNull();
    expect(erc8441OffsetOfBase(hex(s1['V1-04']!.given.base))).toBeNull();
    expect(erc8441OffsetOfBase(hex(s1['V1-05']!.given.base))).toBe(N - 1n);
  });

  it('V1-07: the view tag is one byte of its own digest', () => {
    expect(erc8441ViewTag(hex(s1['V1-07']!.given.ss)).toString(16).padStart(2, '0')).toBe(s1['V1-07']!.expect.view_tag);
  });
});

describe('ERC-8441 public vectors: Section 2 (schemeId 3)', () => {
  const v309 = s2['V3-09']!;
  const seed = hex(v309.given.keygen_seed);

  it('V3-01: key generation takes 128 bytes and refuses 96 and 127', () => {
    expect(() => erc8441KeysFromSeed(seed)).not.toThrow();
    for (const short of s2['V3-01']!.given.lengths.filter((n: number) => n !== 128)) expect(() => erc8441KeysFromSeed(seed.slice(0, short))).toThrow(InvalidKeyError);
    expect(() => erc8441KeysFromSeed(concatBytes(seed, Uint8Array.of(1)))).toThrow(InvalidKeyError);
  });

  it('V3-02, V3-02a: a spending seed repeated as viewing_ec, d or z is refused; none repeated is accepted', () => {
    const spending = hex(s2['V3-02']!.given.spending_seed);
    for (const delegated of Object.values(s2['V3-02']!.given.delegated_objects_by_component) as string[]) {
      expect(() => erc8441KeysFromSeed(concatBytes(spending, hex(delegated)))).toThrow(/must not equal/);
    }
    expect(() => erc8441KeysFromSeed(concatBytes(hex(s2['V3-02a']!.given.spending_seed), hex(s2['V3-02a']!.given.delegated)))).not.toThrow();
  });

  it('V3-03: a 0x05-tagged viewing key is refused at decode, with a valid spending key beside it', () => {
    const ek = hex(v309.expect.meta_address).subarray(66);
    expect(() => decodeErc8441MetaAddress(concatBytes(hex(s2['V3-03']!.given.spending_pk), hex(s2['V3-03']!.given.viewing_pk_ec_compact_0x05), ek))).toThrow(InvalidMetaAddressError);
  });

  it('V3-04: ss_ec is the x-coordinate alone', () => {
    const { esk, viewing_pk_ec } = s2['V3-04']!.given;
    expect(bytesToHex(ecdhX(BigInt(`0x${esk}`), Point.fromBytes(hex(viewing_pk_ec))))).toBe(s2['V3-04']!.expect.ss_ec);
  });

  it('V3-05: the domain separator comes first, with no length prefix', () => {
    const { domain_separator, ikm } = s2['V3-05']!.given;
    expect(bytesToHex(sha3_256(concatBytes(new TextEncoder().encode(domain_separator), hex(ikm))))).toBe(s2['V3-05']!.expect.ss);
  });

  const parts = s2['V3-06']!.given.parts;
  const combine = (override: Partial<Record<keyof typeof parts, string>> = {}) => {
    const p = { ...parts, ...override };
    return bytesToHex(hybridCombine({ ssEc: hex(p.ss_ec), ssPq: hex(p.ss_pq), epk: hex(p.epk), ciphertext: hex(p.ct), viewingPublicKeyEc: hex(p.viewing_pk_ec), encapsulationKey: hex(p.ek) }));
  };

  it('V3-06: the combiner hashes exactly ss_ec, ss_pq, epk, ct, viewing_pk_ec, ek in that order', () => {
    expect(combine()).toBe(s2['V3-06']!.expect.ss);
  });

  it('V3-06a, V3-06b, V3-07: ct, the viewing key and epk are each bound in', () => {
    expect(combine({ ct: s2['V3-06a']!.given.ct_b })).toBe(s2['V3-06a']!.expect.ss_b);
    expect(combine({ viewing_pk_ec: s2['V3-06b']!.given.viewing_pk_ec_b })).toBe(s2['V3-06b']!.expect.ss_b);
    expect(combine({ epk: s2['V3-07']!.given.epk_parity_flipped })).toBe(s2['V3-07']!.expect.ss_b);
  });

  it('V3-08: the announced ephemeralPubKey is epk || ct (1121 bytes), the metadata the view tag', () => {
    const { epk, ct, view_tag } = s2['V3-08']!.given;
    const announced = hex(s2['V3-08']!.expect.ephemeralPubKey);
    expect(bytesToHex(concatBytes(hex(epk), hex(ct)))).toBe(s2['V3-08']!.expect.ephemeralPubKey);
    expect(announced).toHaveLength(1121);
    const split = splitErc8441EphemeralKey(announced);
    expect([bytesToHex(split.epk), bytesToHex(split.ciphertext)]).toEqual([epk, ct]);
    expect(s2['V3-08']!.expect.metadata).toBe(view_tag);
  });

  it('V3-09: key generation is deterministic in the seed (ek is NIST ACVP keygen tcId 26)', () => {
    const keys = erc8441KeysFromSeed(seed);
    expect(bytesToHex(keys.metaAddress)).toBe(v309.expect.meta_address);
    expect(bytesToHex(keys.spendingPublicKey)).toBe(v309.expect.spending_pk);
    expect(bytesToHex(keys.viewingPublicKeyEc)).toBe(v309.expect.viewing_pk_ec);
    expect(bytesToHex(keys.trackingKey)).toBe(v309.expect.tracking);
    expect(bytesToHex(keys.spendingSecretKey)).toBe(v309.expect.master);
    expect(bytesToHex(erc8441KeysFromSeed(seed).metaAddress)).toBe(v309.expect.meta_address);
  });

  it('V3-10: spending 0 and n are refused, n - 1 accepted, viewing 0 refused', () => {
    const variants = s2['V3-10']!.given.seeds_128_B_differing_only_in_the_first_or_second_32;
    const withSpending = (value: string) => concatBytes(hex(value), seed.subarray(32));
    expect(() => erc8441KeysFromSeed(withSpending(variants.spending_seed_0))).toThrow(InvalidKeyError);
    expect(() => erc8441KeysFromSeed(withSpending(variants.spending_seed_n))).toThrow(InvalidKeyError);
    expect(() => erc8441KeysFromSeed(withSpending(variants.spending_seed_n_minus_1))).not.toThrow();
    expect(() => erc8441KeysFromSeed(concatBytes(seed.subarray(0, 32), hex(variants.viewing_ec_seed_0), seed.subarray(64)))).toThrow(InvalidKeyError);
  });

  it('V3-11: a meta-address of 1249 or 1251 bytes is refused, 1250 accepted', () => {
    const meta = hex(v309.expect.meta_address);
    expect(() => decodeErc8441MetaAddress(meta.subarray(0, 1249))).toThrow(InvalidMetaAddressError);
    expect(decodeErc8441MetaAddress(meta).bytes).toHaveLength(1250);
    expect(() => decodeErc8441MetaAddress(concatBytes(meta, Uint8Array.of(0)))).toThrow(InvalidMetaAddressError);
  });

  it('V3-12: 02 || x for x = 5 is not a point and is refused at decode', () => {
    const meta = hex(v309.expect.meta_address);
    const withViewing = (key: string) => concatBytes(meta.subarray(0, 33), hex(key), meta.subarray(66));
    expect(() => decodeErc8441MetaAddress(withViewing(s2['V3-12']!.given.viewing_pk_ec_nonpoint))).toThrow(/not a point/);
    expect(() => decodeErc8441MetaAddress(withViewing(s2['V3-12']!.given.viewing_pk_ec_valid))).not.toThrow();
  });

  it('V3-13: the address is keccak256 of the uncompressed point without its 04 prefix, last 20 bytes', () => {
    const point = Point.fromBytes(hex(s2['V3-13']!.given.stealth_pk_compressed));
    expect(bytesToHex(point.toBytes(false))).toBe(s2['V3-13']!.given.stealth_pk_uncompressed);
    expect(evmAddressOf(point)).toBe(s2['V3-13']!.expect.eip55);
  });

  it('V3-14: a modified ciphertext decapsulates without failing, and its view tag does not match: a skip', () => {
    const acvp = JSON.parse(readFileSync(new URL('./fixtures/acvp-ml-kem-768-decap-tcid88.json', import.meta.url), 'utf8')) as { dk: string };
    const { ek, announcement } = s2['V3-14']!.given;
    expect(acvp.dk.slice(2304, 2304 + 2368)).toBe(ek);
    const ssPq = decapsulate(hex(announcement.ct), hex(acvp.dk));
    expect(bytesToHex(ssPq)).toBe(s2['V3-14']!.expect.ss_pq);
    const ss = hybridCombine({ ssEc: hex(parts.ss_ec), ssPq, epk: hex(announcement.ephemeralPubKey), ciphertext: hex(announcement.ct), viewingPublicKeyEc: hex(parts.viewing_pk_ec), encapsulationKey: hex(ek) });
    expect(bytesToHex(ss)).toBe(s2['V3-14']!.expect.ss);
    expect(erc8441ViewTag(ss).toString(16)).toBe(s2['V3-14']!.expect.derived_view_tag);
    expect(erc8441ViewTag(ss)).not.toBe(Number.parseInt(announcement.view_tag, 16));
  });

  it('V3-08a, V3-15: malformed shapes are skips, never errors; the view tag is metadata[0] whatever follows', () => {
    const keys = erc8441KeysFromSeed(seed);
    const scanner = createErc8441Scanner({ trackingKey: keys.trackingKey, metaAddress: keys.metaAddress });
    const payment = createErc8441Payment(keys.metaAddress);
    const tokenBlock = new Uint8Array(56).fill(0xee);
    for (const metadata of [Uint8Array.of(payment.viewTag), concatBytes(Uint8Array.of(payment.viewTag), tokenBlock)]) {
      expect(scanner.check({ ephemeralPubKey: payment.ephemeralPubKey, metadata, stealthAddress: payment.stealthAddress })).toMatchObject({ match: true, viewTag: payment.viewTag });
    }
    const { ephemeralPubKey_lengths, metadata_lengths } = s2['V3-15']!.given as { ephemeralPubKey_lengths: number[]; metadata_lengths: number[] };
    for (const keyLength of ephemeralPubKey_lengths) {
      for (const metadataLength of metadata_lengths) {
        const ephemeralPubKey = new Uint8Array(keyLength);
        ephemeralPubKey.set(payment.ephemeralPubKey.subarray(0, Math.min(keyLength, 1121)));
        const metadata = concatBytes(Uint8Array.of(payment.viewTag), new Uint8Array(56)).subarray(0, metadataLength);
        const result = scanner.check({ ephemeralPubKey, metadata, stealthAddress: payment.stealthAddress });
        if (keyLength === 1121 && metadataLength > 0) expect(result.match, `${keyLength}/${metadataLength}`).toBe(true);
        else expect(result, `${keyLength}/${metadataLength}`).toEqual({ match: false, reason: 'malformed' });
      }
    }
  });
});

describe('ERC-8441: what the vectors do not catch', () => {
  const keys = erc8441KeysFromSeed(hex(s2['V3-09']!.given.keygen_seed));
  const scanner = createErc8441Scanner({ trackingKey: keys.trackingKey, metaAddress: keys.metaAddress });

  it('finds its own payments, and the one-time key controls the announced address', () => {
    for (let i = 0; i < 4; i++) {
      const payment = createErc8441Payment(keys.metaAddress, { note: { amount: BigInt(i + 1) * 10n ** 16n, chainId: 8453n } });
      const found = scanner.check({ ephemeralPubKey: payment.ephemeralPubKey, metadata: payment.metadata, stealthAddress: payment.stealthAddress.toLowerCase() });
      expect(found).toMatchObject({ match: true, stealthAddress: payment.stealthAddress });
      if (!found.match) continue;
      const key = erc8441StealthKey({ spendingSecretKey: keys.spendingSecretKey, sharedSecret: found.sharedSecret, stealthAddress: found.stealthAddress });
      expect(evmAddressOf(Point.BASE.multiply(BigInt(`0x${bytesToHex(key)}`)))).toBe(payment.stealthAddress);
      expect(openNote(found.sharedSecret, payment.metadata.subarray(1))).toMatchObject({ amount: BigInt(i + 1) * 10n ** 16n, chainId: 8453n });
    }
  });

  it('never reports a forged announced address, even with the right view tag (the address decides, not the tag)', () => {
    const payment = createErc8441Payment(keys.metaAddress);
    const forged = `0x${'12'.repeat(20)}`;
    expect(scanner.check({ ephemeralPubKey: payment.ephemeralPubKey, metadata: payment.metadata, stealthAddress: forged })).toEqual({ match: false, reason: 'address_mismatch' });
  });

  it("skips another recipient's payments, and an epk that is not a point", () => {
    const other = erc8441KeysFromSeed(concatBytes(hex('22'.repeat(32)), hex('33'.repeat(32)), hex('55'.repeat(64))));
    let viewTagCollisions = 0;
    for (let i = 0; i < 40; i++) {
      const payment = createErc8441Payment(other.metaAddress);
      const result = scanner.check({ ephemeralPubKey: payment.ephemeralPubKey, metadata: payment.metadata, stealthAddress: payment.stealthAddress });
      expect(result.match).toBe(false);
      if (!result.match && result.reason === 'address_mismatch') viewTagCollisions++;
    }
    expect(viewTagCollisions).toBeLessThan(5);
    const payment = createErc8441Payment(keys.metaAddress);
    const badEpk = concatBytes(hex(`02${'00'.repeat(31)}05`), payment.ephemeralPubKey.subarray(33));
    expect(scanner.check({ ephemeralPubKey: badEpk, metadata: payment.metadata, stealthAddress: payment.stealthAddress })).toEqual({ match: false, reason: 'invalid_epk' });
  });

  it("refuses a tracking key that is not the meta-address's (viewing_ec·G or ek differ)", () => {
    const other = erc8441KeysFromSeed(concatBytes(hex('22'.repeat(32)), hex('33'.repeat(32)), hex('55'.repeat(64))));
    expect(() => createErc8441Scanner({ trackingKey: other.trackingKey, metaAddress: keys.metaAddress })).toThrow(KeyMismatchError);
    const mixed = concatBytes(keys.trackingKey.subarray(0, 32), other.trackingKey.subarray(32));
    expect(() => createErc8441Scanner({ trackingKey: mixed, metaAddress: keys.metaAddress })).toThrow(KeyMismatchError);
  });

  it('refuses an unknown mode or ecdh (a typo must not run the fast path silently)', () => {
    const base = { trackingKey: keys.trackingKey, metaAddress: keys.metaAddress };
    for (const options of [{ mode: 'Constant' }, { mode: 'slow' }, { mode: null }, { ecdh: 'WASM' }, { ecdh: 'noble' }, { ecdh: 0 }]) {
      expect(() => createErc8441Scanner({ ...base, ...(options as object) }), JSON.stringify(options)).toThrow(InvalidArgumentError);
    }
    for (const options of [{}, { mode: 'fast' }, { mode: 'constant' }, { ecdh: 'wasm' }, { ecdh: 'typescript' }] as const) {
      expect(() => createErc8441Scanner({ ...base, ...options }), JSON.stringify(options)).not.toThrow();
    }
  });

  it('skips an announcement whose stealthAddress is not a string as malformed, after a matching view tag too, in every path', () => {
    const payment = createErc8441Payment(keys.metaAddress);
    const proper = { ephemeralPubKey: payment.ephemeralPubKey, metadata: payment.metadata, stealthAddress: payment.stealthAddress };
    const scanners = [scanner, createErc8441Scanner({ trackingKey: keys.trackingKey, metaAddress: keys.metaAddress, ecdh: 'typescript' }), createErc8441Scanner({ trackingKey: keys.trackingKey, metaAddress: keys.metaAddress, mode: 'constant' })];
    for (const s of scanners) {
      // The view tag matches: the check would otherwise go on to the address.
      expect(s.check(proper)).toMatchObject({ match: true });
      for (const stealthAddress of [undefined, null, 42, { toLowerCase: 1 }, Uint8Array.of(1)]) {
        const bad = { ...proper, stealthAddress } as unknown as Parameters<typeof s.check>[0];
        expect(s.check(bad), String(stealthAddress)).toEqual({ match: false, reason: 'malformed' });
        expect(s.checkBatch([bad, proper, bad]), String(stealthAddress)).toEqual([{ match: false, reason: 'malformed' }, expect.objectContaining({ match: true }), { match: false, reason: 'malformed' }]);
      }
    }
  });

  it('reduces the one-time key mod n, not mod 2^256', () => {
    // A spending key near n makes b + H(ss) exceed n for most payments.
    const nearN = (N - 5n).toString(16).padStart(64, '0');
    const high = erc8441KeysFromSeed(concatBytes(hex(nearN), keys.trackingKey));
    const highScanner = createErc8441Scanner({ trackingKey: high.trackingKey, metaAddress: high.metaAddress });
    const payment = createErc8441Payment(high.metaAddress);
    const found = highScanner.check({ ephemeralPubKey: payment.ephemeralPubKey, metadata: payment.metadata, stealthAddress: payment.stealthAddress });
    if (!found.match) throw new Error('not found');
    expect(() => erc8441StealthKey({ spendingSecretKey: high.spendingSecretKey, sharedSecret: found.sharedSecret, stealthAddress: payment.stealthAddress })).not.toThrow();
  });
});

describe('PROTOCOL.md section 10: a Wraith identity under scheme 3 (the shared vectors, independent implementation)', () => {
  type Scheme3 = { viewing_ec: string; viewing_ec_counter: number; meta_address: string; tracking_key: string; esk: string; ephemeral_pub_key: string; ss: string; view_tag: number; stealth_address: string; stealth_sk: string; note_metadata: string };
  type Case = {
    name: string;
    input: { spending_secret: string; viewing_seed: string; encapsulation_message: string };
    keys: { meta_address: string };
    note: { input: { tx_hash: string; amount: string; chain_id: string } };
    note_v2: { input: { tx_hash: string; amount: string; chain_id: string; token: string }; scheme3_metadata: string };
    scheme3: Scheme3;
  };
  const cases = (JSON.parse(readFileSync(new URL('./vectors.shared.json', import.meta.url), 'utf8')) as { cases: Case[] }).cases;

  it('has a scheme3 block in every case', () => {
    expect(cases.length).toBeGreaterThanOrEqual(3);
    for (const c of cases) expect(c.scheme3.meta_address).toHaveLength(2500);
  });

  it.each(cases.map((c) => [c.name, c] as const))('case %s: viewing scalar, keys, payment, one-time key and sealed note', (_name, c) => {
    const { input, scheme3: v } = c;
    expect(wraithViewingScalar(input.spending_secret, input.viewing_seed)).toEqual({ viewingEc: hex(v.viewing_ec), counter: v.viewing_ec_counter });
    const keys = erc8441KeysOf({ spendingSecretKey: input.spending_secret, viewingSeed: input.viewing_seed });
    expect(bytesToHex(keys.metaAddress)).toBe(v.meta_address);
    expect(bytesToHex(keys.trackingKey)).toBe(v.tracking_key);
    const zero = (text: string) => /^0+$/.test(text);
    const note = {
      ...(zero(c.note.input.tx_hash) ? {} : { txHash: c.note.input.tx_hash }),
      ...(c.note.input.amount === '0' ? {} : { amount: BigInt(c.note.input.amount) }),
      ...(c.note.input.chain_id === '0' ? {} : { chainId: BigInt(c.note.input.chain_id) }),
    };
    const payment = createErc8441Payment(keys.metaAddress, { ephemeralSecretKey: v.esk, encapsulationMessage: input.encapsulation_message, note });
    expect(bytesToHex(payment.ephemeralPubKey)).toBe(v.ephemeral_pub_key);
    expect(bytesToHex(payment.sharedSecret)).toBe(v.ss);
    expect(payment.viewTag).toBe(v.view_tag);
    expect(payment.stealthAddress).toBe(v.stealth_address);
    expect(bytesToHex(payment.metadata)).toBe(v.note_metadata);
    expect(bytesToHex(erc8441StealthKey({ spendingSecretKey: input.spending_secret, sharedSecret: v.ss, stealthAddress: v.stealth_address }))).toBe(v.stealth_sk);
    // The scanner finds the independent implementation's announcement.
    const scanner = createErc8441Scanner({ trackingKey: v.tracking_key, metaAddress: v.meta_address });
    expect(scanner.check({ ephemeralPubKey: hex(v.ephemeral_pub_key), metadata: hex(v.note_metadata), stealthAddress: v.stealth_address })).toMatchObject({ match: true });
    // Either form decodes by its length; one identity, both schemes.
    expect(decodeAnyMetaAddress(v.meta_address).schemeId).toBe(3);
    expect(decodeAnyMetaAddress(c.keys.meta_address).schemeId).toBe(1000);
  });

  it.each(cases.map((c) => [c.name, c] as const))('case %s: the payment seals the note that names its asset (note_v2.scheme3_metadata), and a scan reads its token', async (_name, c) => {
    const { createScanner, generateKeys, toChecksumAddress } = await import('../src/index.ts');
    const { input, scheme3: v, note_v2: n } = c;
    const keys = erc8441KeysOf({ spendingSecretKey: input.spending_secret, viewingSeed: input.viewing_seed });
    const note = { txHash: n.input.tx_hash, amount: BigInt(n.input.amount), chainId: BigInt(n.input.chain_id), token: n.input.token };
    const payment = createErc8441Payment(keys.metaAddress, { ephemeralSecretKey: v.esk, encapsulationMessage: input.encapsulation_message, note });
    expect(bytesToHex(payment.metadata)).toBe(n.scheme3_metadata);
    const identity = generateKeys({ spendingSecret: input.spending_secret, viewingSeed: input.viewing_seed });
    const row = { id: 1, scheme_id: 3, ephemeral_key: v.ephemeral_pub_key, view_tag: v.view_tag, stealth_address: v.stealth_address, metadata: n.scheme3_metadata.slice(2) };
    const [found] = createScanner(identity).scan([row]).discoveries;
    expect(found).toMatchObject({ schemeId: 3, stealthAddress: v.stealth_address, noteStatus: 'opened' });
    expect(found!.note!.token).toBe(/^0+$/.test(n.input.token) ? 'coin' : toChecksumAddress(n.input.token));
    expect(found!.note!.amount).toBe(BigInt(n.input.amount) === 0n ? null : BigInt(n.input.amount));
  });
});

describe('createScanner: one identity receives under both schemes', () => {
  it('finds scheme-3 and scheme-1000 payments in one batch, each with its scheme and the key that spends it', async () => {
    const { createScanner, createStealthPayment, generateKeys } = await import('../src/index.ts');
    const identity = generateKeys();
    const three = createStealthPayment(erc8441KeysOf(identity).metaAddress);
    const thousand = createStealthPayment(identity.metaAddress);
    const foreign = createStealthPayment(erc8441KeysOf(generateKeys()).metaAddress);
    const { discoveries, stats } = createScanner(identity).scan([foreign, three, thousand]);
    expect(discoveries.map((d) => [d.schemeId, d.stealthAddress, d.index])).toEqual([
      [3, three.stealthAddress, 1],
      [1000, thousand.stealthAddress, 2],
    ]);
    expect(evmAddressOf(Point.BASE.multiply(BigInt(`0x${bytesToHex(discoveries[0]!.stealthSecretKey!)}`)))).toBe(three.stealthAddress);
    expect(discoveries[0]!.sharedSecret).toBeUndefined(); // never the one-time key together with its ss
    expect(stats).toMatchObject({ erc8441: 2, malformed: 0, discoveries: 2 });
  });

  it('reports a replayed scheme-3 announcement once per scanner, over all its batches', async () => {
    const { createScanner, createStealthPayment, generateKeys } = await import('../src/index.ts');
    const identity = generateKeys();
    const three = createStealthPayment(erc8441KeysOf(identity).metaAddress);
    const scanner = createScanner(identity);
    expect(scanner.scan([three, { ...three }]).discoveries).toHaveLength(1);
    expect(scanner.scan([three]).discoveries).toHaveLength(0);
    expect(createScanner(identity).scan([three]).discoveries).toHaveLength(1);
  });

  it('reads a row by the scheme it declares: a 1121-byte key declared scheme 1000 is malformed, not scheme 3', async () => {
    const { createScanner, createStealthPayment, generateKeys } = await import('../src/index.ts');
    const identity = generateKeys();
    const three = createStealthPayment(erc8441KeysOf(identity).metaAddress);
    const { discoveries, stats } = createScanner(identity).scan([{ ephemeralKey: three.ephemeralCiphertext, viewTag: three.viewTag, stealthAddress: three.stealthAddress, schemeId: 1000 }]);
    expect(discoveries).toHaveLength(0);
    expect(stats).toMatchObject({ malformed: 1, erc8441: 0 });
  });

  it('a view-only scan with the tracking key finds scheme-3 payments with their ss and no one-time key', async () => {
    const { createScanner, createStealthPayment, generateKeys } = await import('../src/index.ts');
    const identity = generateKeys();
    const keys3 = erc8441KeysOf(identity);
    const three = createStealthPayment(keys3.metaAddress);
    const { discoveries } = createScanner({ viewingSecretKey: identity.viewingSecretKey, spendingPublicKey: identity.spendingPublicKey, erc8441: { trackingKey: keys3.trackingKey, metaAddress: keys3.metaAddress } }).scan([three]);
    expect(discoveries).toHaveLength(1);
    expect(discoveries[0]!.stealthSecretKey).toBeUndefined();
    expect(bytesToHex(discoveries[0]!.sharedSecret!)).toBe(bytesToHex(three.sharedSecret));
    expect(discoveries[0]!.stealthAddress).toBe(three.stealthAddress);
  });
});
