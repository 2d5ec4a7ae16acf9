/**
 * The 25 public ERC-8441 vectors (section-1.json, section-2.json) as plain checks that run
 * wherever the SDK runs: Node imports this module, and sdk/test/browser-erc8441.test.ts bundles
 * it for the browser (esbuild, platform "browser") and runs it in Chromium. Each vector gives one
 * result naming what differed, so a failure in one runtime points at its row.
 *
 * The checks follow sdk/test/erc8441.test.ts row by row, through the SDK's exports; two rows need
 * internals (`Point` to parse V3-04's and V3-13's points, `decapsulate` for V3-14's ACVP key).
 */
import { sha3_256 } from '@noble/hashes/sha3.js';
import {
  bytesToHex,
  createErc8441Payment,
  createErc8441Scanner,
  decodeErc8441MetaAddress,
  ecdhX,
  erc8441KeysFromSeed,
  erc8441OffsetBase,
  erc8441OffsetOfBase,
  erc8441ViewTag,
  evmAddressOf,
  hexToBytes,
  hybridCombine,
  splitErc8441EphemeralKey,
  InvalidKeyError,
  InvalidMetaAddressError,
} from '../../src/index.ts';
import { concatBytes } from '../../src/bytes.ts';
import { Point } from '../../src/spending-key.ts';
import { decapsulate } from '../../src/viewing-key.ts';

/** One vector file's rows (`{"section", "vectors": {id: row}}`). */
export type VectorRows = Record<string, { given: Record<string, any>; expect: Record<string, any> }>;
/** The inputs of the checks: both vector files and the ACVP decapsulation key V3-14 names. */
export type VectorInputs = { section1: VectorRows; section2: VectorRows; acvpTcId88Dk: string };
export type VectorResult = { id: string; ok: boolean; detail: string };

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

class Mismatch extends Error {}
function equal(got: unknown, want: unknown, what: string): void {
  if (got !== want) throw new Mismatch(`${what}: got ${String(got)}, want ${String(want)}`);
}
function truthy(value: boolean, what: string): void {
  if (!value) throw new Mismatch(what);
}
function refuses(run: () => unknown, what: string, kind?: new (...args: any[]) => Error, message?: RegExp): void {
  try {
    run();
  } catch (error) {
    if (kind !== undefined && !(error instanceof kind)) throw new Mismatch(`${what}: threw ${(error as Error)?.name}, want ${kind.name}`);
    if (message !== undefined && !message.test((error as Error).message)) throw new Mismatch(`${what}: threw "${(error as Error).message}"`);
    return;
  }
  throw new Mismatch(`${what}: accepted`);
}
const scalarHex = (value: bigint | null) => (value === null ? 'null' : value.toString(16).padStart(64, '0'));

/** Run every vector; one result per row id, in file order. */
export function runErc8441Vectors({ section1: s1, section2: s2, acvpTcId88Dk }: VectorInputs): VectorResult[] {
  const hex = hexToBytes;
  const seed = hex(s2['V3-09']!.given.keygen_seed);
  const meta = hex(s2['V3-09']!.expect.meta_address);
  const parts = s2['V3-06']!.given.parts;
  const combine = (override: Record<string, string> = {}) => {
    const p = { ...parts, ...override };
    return bytesToHex(hybridCombine({ ssEc: hex(p.ss_ec), ssPq: hex(p.ss_pq), epk: hex(p.epk), ciphertext: hex(p.ct), viewingPublicKeyEc: hex(p.viewing_pk_ec), encapsulationKey: hex(p.ek) }));
  };

  const checks: Record<string, () => void> = {
    'V1-01': () => {
      const base = erc8441OffsetBase(hex(s1['V1-01']!.given.ss));
      equal(bytesToHex(base), s1['V1-01']!.expect.base, 'base');
      equal(scalarHex(erc8441OffsetOfBase(base)), s1['V1-01']!.expect.offset, 'offset');
    },
    'V1-02': () => equal(scalarHex(erc8441OffsetOfBase(hex(s1['V1-02']!.given.base))), s1['V1-02']!.expect.offset_big_endian, 'big-endian offset'),
    'V1-03': () => equal(erc8441OffsetOfBase(hex(s1['V1-03']!.given.base)), null, 'base 0'),
    'V1-04': () => equal(erc8441OffsetOfBase(hex(s1['V1-04']!.given.base)), null, 'base n'),
    'V1-05': () => equal(erc8441OffsetOfBase(hex(s1['V1-05']!.given.base)), N - 1n, 'base n - 1'),
    'V1-07': () => equal(erc8441ViewTag(hex(s1['V1-07']!.given.ss)).toString(16).padStart(2, '0'), s1['V1-07']!.expect.view_tag, 'view tag'),
    'V3-01': () => {
      erc8441KeysFromSeed(seed);
      for (const length of (s2['V3-01']!.given.lengths as number[]).filter((n) => n !== 128)) refuses(() => erc8441KeysFromSeed(seed.slice(0, length)), `${length}-byte seed`, InvalidKeyError);
    },
    'V3-02': () => {
      const spending = hex(s2['V3-02']!.given.spending_seed);
      for (const [component, delegated] of Object.entries(s2['V3-02']!.given.delegated_objects_by_component as Record<string, string>)) {
        refuses(() => erc8441KeysFromSeed(concatBytes(spending, hex(delegated))), `spending seed repeated as ${component}`, undefined, /must not equal/);
      }
    },
    'V3-02a': () => void erc8441KeysFromSeed(concatBytes(hex(s2['V3-02a']!.given.spending_seed), hex(s2['V3-02a']!.given.delegated))),
    'V3-03': () =>
      refuses(() => decodeErc8441MetaAddress(concatBytes(hex(s2['V3-03']!.given.spending_pk), hex(s2['V3-03']!.given.viewing_pk_ec_compact_0x05), meta.subarray(66))), '0x05 viewing key', InvalidMetaAddressError),
    'V3-04': () => {
      const { esk, viewing_pk_ec } = s2['V3-04']!.given;
      equal(bytesToHex(ecdhX(BigInt(`0x${esk}`), Point.fromBytes(hex(viewing_pk_ec)))), s2['V3-04']!.expect.ss_ec, 'ss_ec');
    },
    'V3-05': () => {
      const { domain_separator, ikm } = s2['V3-05']!.given;
      equal(bytesToHex(sha3_256(concatBytes(new TextEncoder().encode(domain_separator), hex(ikm)))), s2['V3-05']!.expect.ss, 'ss');
    },
    'V3-06': () => equal(combine(), s2['V3-06']!.expect.ss, 'ss'),
    'V3-06a': () => equal(combine({ ct: s2['V3-06a']!.given.ct_b }), s2['V3-06a']!.expect.ss_b, 'ss with ct_b'),
    'V3-06b': () => equal(combine({ viewing_pk_ec: s2['V3-06b']!.given.viewing_pk_ec_b }), s2['V3-06b']!.expect.ss_b, 'ss with viewing_pk_ec_b'),
    'V3-07': () => equal(combine({ epk: s2['V3-07']!.given.epk_parity_flipped }), s2['V3-07']!.expect.ss_b, 'ss with the flipped epk'),
    'V3-08': () => {
      const { epk, ct, view_tag } = s2['V3-08']!.given;
      const announced = hex(s2['V3-08']!.expect.ephemeralPubKey);
      equal(bytesToHex(concatBytes(hex(epk), hex(ct))), s2['V3-08']!.expect.ephemeralPubKey, 'epk || ct');
      equal(announced.length, 1121, 'length');
      const split = splitErc8441EphemeralKey(announced);
      equal(bytesToHex(split.epk), epk, 'epk');
      equal(bytesToHex(split.ciphertext), ct, 'ct');
      equal(s2['V3-08']!.expect.metadata, view_tag, 'metadata');
    },
    'V3-08a': () => {
      const keys = erc8441KeysFromSeed(seed);
      const scanner = createErc8441Scanner({ trackingKey: keys.trackingKey, metaAddress: keys.metaAddress });
      const payment = createErc8441Payment(keys.metaAddress);
      for (const metadata of [Uint8Array.of(payment.viewTag), concatBytes(Uint8Array.of(payment.viewTag), new Uint8Array(56).fill(0xee))]) {
        const found = scanner.check({ ephemeralPubKey: payment.ephemeralPubKey, metadata, stealthAddress: payment.stealthAddress });
        truthy(found.match && found.viewTag === payment.viewTag, `metadata of ${metadata.length} bytes not matched`);
      }
    },
    'V3-09': () => {
      const keys = erc8441KeysFromSeed(seed);
      const want = s2['V3-09']!.expect;
      equal(bytesToHex(keys.metaAddress), want.meta_address, 'meta-address');
      equal(bytesToHex(keys.spendingPublicKey), want.spending_pk, 'spending_pk');
      equal(bytesToHex(keys.viewingPublicKeyEc), want.viewing_pk_ec, 'viewing_pk_ec');
      equal(bytesToHex(keys.trackingKey), want.tracking, 'tracking key');
      equal(bytesToHex(keys.spendingSecretKey), want.master, 'master');
    },
    'V3-10': () => {
      const variants = s2['V3-10']!.given.seeds_128_B_differing_only_in_the_first_or_second_32;
      const withSpending = (value: string) => concatBytes(hex(value), seed.subarray(32));
      refuses(() => erc8441KeysFromSeed(withSpending(variants.spending_seed_0)), 'spending 0', InvalidKeyError);
      refuses(() => erc8441KeysFromSeed(withSpending(variants.spending_seed_n)), 'spending n', InvalidKeyError);
      erc8441KeysFromSeed(withSpending(variants.spending_seed_n_minus_1));
      refuses(() => erc8441KeysFromSeed(concatBytes(seed.subarray(0, 32), hex(variants.viewing_ec_seed_0), seed.subarray(64))), 'viewing 0', InvalidKeyError);
    },
    'V3-11': () => {
      refuses(() => decodeErc8441MetaAddress(meta.subarray(0, 1249)), '1249 bytes', InvalidMetaAddressError);
      equal(decodeErc8441MetaAddress(meta).bytes.length, 1250, '1250 bytes');
      refuses(() => decodeErc8441MetaAddress(concatBytes(meta, Uint8Array.of(0))), '1251 bytes', InvalidMetaAddressError);
    },
    'V3-12': () => {
      const withViewing = (key: string) => concatBytes(meta.subarray(0, 33), hex(key), meta.subarray(66));
      refuses(() => decodeErc8441MetaAddress(withViewing(s2['V3-12']!.given.viewing_pk_ec_nonpoint)), 'x = 5', InvalidMetaAddressError, /not a point/);
      decodeErc8441MetaAddress(withViewing(s2['V3-12']!.given.viewing_pk_ec_valid));
    },
    'V3-13': () => {
      const point = Point.fromBytes(hex(s2['V3-13']!.given.stealth_pk_compressed));
      equal(bytesToHex(point.toBytes(false)), s2['V3-13']!.given.stealth_pk_uncompressed, 'uncompressed');
      equal(evmAddressOf(point), s2['V3-13']!.expect.eip55, 'address');
    },
    'V3-14': () => {
      const { ek, announcement } = s2['V3-14']!.given;
      equal(acvpTcId88Dk.slice(2304, 2304 + 2368), ek, 'ek inside the ACVP dk');
      const ssPq = decapsulate(hex(announcement.ct), hex(acvpTcId88Dk));
      equal(bytesToHex(ssPq), s2['V3-14']!.expect.ss_pq, 'ss_pq');
      const ss = hybridCombine({ ssEc: hex(parts.ss_ec), ssPq, epk: hex(announcement.ephemeralPubKey), ciphertext: hex(announcement.ct), viewingPublicKeyEc: hex(parts.viewing_pk_ec), encapsulationKey: hex(ek) });
      equal(bytesToHex(ss), s2['V3-14']!.expect.ss, 'ss');
      equal(erc8441ViewTag(ss).toString(16), s2['V3-14']!.expect.derived_view_tag, 'derived view tag');
      truthy(erc8441ViewTag(ss) !== Number.parseInt(announcement.view_tag, 16), 'the derived tag equals the announced one');
    },
    'V3-15': () => {
      const keys = erc8441KeysFromSeed(seed);
      const scanner = createErc8441Scanner({ trackingKey: keys.trackingKey, metaAddress: keys.metaAddress });
      const payment = createErc8441Payment(keys.metaAddress);
      const { ephemeralPubKey_lengths, metadata_lengths } = s2['V3-15']!.given as { ephemeralPubKey_lengths: number[]; metadata_lengths: number[] };
      for (const keyLength of ephemeralPubKey_lengths) {
        for (const metadataLength of metadata_lengths) {
          const ephemeralPubKey = new Uint8Array(keyLength);
          ephemeralPubKey.set(payment.ephemeralPubKey.subarray(0, Math.min(keyLength, 1121)));
          const metadata = concatBytes(Uint8Array.of(payment.viewTag), new Uint8Array(56)).subarray(0, metadataLength);
          const result = scanner.check({ ephemeralPubKey, metadata, stealthAddress: payment.stealthAddress });
          const wanted = keyLength === 1121 && metadataLength > 0;
          truthy(wanted ? result.match : !result.match && result.reason === 'malformed', `${keyLength}/${metadataLength}: ${JSON.stringify(result.match ? 'match' : result.reason)}`);
        }
      }
    },
  };

  const ids = [...Object.keys(s1), ...Object.keys(s2)];
  const results = ids.map((id): VectorResult => {
    const check = checks[id];
    if (check === undefined) return { id, ok: false, detail: 'no check for this row' };
    try {
      check();
      return { id, ok: true, detail: '' };
    } catch (error) {
      return { id, ok: false, detail: error instanceof Mismatch ? error.message : `threw ${(error as Error)?.name}: ${(error as Error)?.message}` };
    }
  });
  for (const id of Object.keys(checks)) if (!ids.includes(id)) results.push({ id, ok: false, detail: 'checked, but not in the vector files' });
  return results;
}
