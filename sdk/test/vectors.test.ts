import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { shake256 } from '@noble/hashes/sha3.js';
import {
  announcementMetadata,
  openNote,
  bytesToHex,
  computeViewTag,
  createStealthPayment,
  domainHash,
  decodeMetaAddress,
  deriveStealthKeys,
  deriveStealthTweak,
  generateKeys,
  hexToBytes,
  scanAnnouncements,
  toChecksumAddress,
} from '../src/index.ts';

type VectorCase = {
  name: string;
  input: { spending_secret: string; viewing_seed: string; encapsulation_message: string };
  keys: { spending_pk: string; viewing_pk: string; viewing_sk_sha256?: string; viewing_sk?: string; meta_address: string; base_view_tag: number };
  payment: {
    ephemeral_ciphertext: string;
    shared_secret: string;
    view_tag: number;
    tweak: string;
    stealth_address: string;
    stealth_sui_address: string;
  };
  spend: { stealth_sk: string };
};

type HashCase = { domain: string; input: string; length: number; output: string };

function load(path: URL): VectorCase[] {
  return (JSON.parse(readFileSync(path, 'utf8')) as { cases: VectorCase[] }).cases;
}
const projectHashCases = (
  JSON.parse(readFileSync(new URL('./vectors.json', import.meta.url), 'utf8')) as { domain_hash: HashCase[] }
).domain_hash;

describe('domain-separated hash H (PROTOCOL.md section 1)', () => {
  it.each(projectHashCases.map((c) => [c.domain || '(empty domain)', c.length, c] as const))(
    'matches an independent SHAKE256 for domain %s, %i bytes',
    (_d, _l, c) => {
      const input = c.input.length ? hexToBytes(c.input) : new Uint8Array(0);
      expect(bytesToHex(domainHash(c.domain, c.length, input))).toBe(c.output);
    },
  );

  it('prefixes the domain with its 4-byte little-endian length (a plain SHAKE256(domain || x) differs)', () => {
    const x = Uint8Array.from({ length: 32 }, (_, i) => i);
    const unprefixed = shake256(new Uint8Array([...new TextEncoder().encode('SPECTER_VIEW_TAG_V1'), ...x]), { dkLen: 32 });
    expect(bytesToHex(domainHash('SPECTER_VIEW_TAG_V1', 32, x))).not.toBe(bytesToHex(unprefixed));
    const viewTagOfEmpty = projectHashCases.find((c) => c.domain === 'SPECTER_VIEW_TAG_V1' && c.length === 1)!;
    expect(computeViewTag(new Uint8Array(0))).toBe(parseInt(viewTagOfEmpty.output, 16));
  });
});

// A verbatim copy of ../shared/vectors.json (so a fresh clone tests without the shared folder).
const sharedCopy = new URL('./vectors.shared.json', import.meta.url);
const sharedOriginal = new URL('../../../shared/vectors.json', import.meta.url);

const suites: [string, VectorCase[]][] = [
  ['shared/vectors.json (independent implementation)', load(sharedCopy)],
  ['sdk/test/vectors.json (project vectors)', load(new URL('./vectors.json', import.meta.url))],
];

it.skipIf(!existsSync(sharedOriginal))('the copy of the independent vectors equals ../shared/vectors.json', () => {
  expect(readFileSync(sharedCopy, 'utf8')).toBe(readFileSync(sharedOriginal, 'utf8'));
});

describe.each(suites)('%s', (_name, cases) => {
  it('has cases', () => expect(cases.length).toBeGreaterThanOrEqual(3));

  describe.each(cases.map((c) => [c.name, c] as const))('case %s', (_caseName, v) => {
    const keys = generateKeys({ spendingSecret: v.input.spending_secret, viewingSeed: v.input.viewing_seed });

    it('derives the key bundle from the spending scalar and the ML-KEM seed', () => {
      expect(bytesToHex(keys.spendingPublicKey)).toBe(v.keys.spending_pk);
      expect(bytesToHex(keys.viewingPublicKey)).toBe(v.keys.viewing_pk);
      if (v.keys.viewing_sk_sha256) expect(bytesToHex(sha256(keys.viewingSecretKey))).toBe(v.keys.viewing_sk_sha256);
      if (v.keys.viewing_sk) expect(bytesToHex(keys.viewingSecretKey)).toBe(v.keys.viewing_sk);
      expect(bytesToHex(keys.metaAddress)).toBe(v.keys.meta_address);
      expect(keys.baseViewTag).toBe(v.keys.base_view_tag);
    });

    it('creates the payment from the encapsulation message', () => {
      const payment = createStealthPayment(v.keys.meta_address, { message: v.input.encapsulation_message });
      expect(bytesToHex(payment.ephemeralCiphertext)).toBe(v.payment.ephemeral_ciphertext);
      expect(bytesToHex(payment.sharedSecret)).toBe(v.payment.shared_secret);
      expect(payment.viewTag).toBe(v.payment.view_tag);
      expect(deriveStealthTweak(payment.sharedSecret).toString(16).padStart(64, '0')).toBe(v.payment.tweak);
      expect(payment.stealthAddress).toBe(v.payment.stealth_address);
      expect(payment.stealthSuiAddress).toBe(v.payment.stealth_sui_address);
    });

    it('derives the one-time secret key from the spending secret', () => {
      const spend = deriveStealthKeys({
        spendingSecretKey: v.input.spending_secret,
        spendingPublicKey: v.keys.spending_pk,
        sharedSecret: v.payment.shared_secret,
      });
      expect(bytesToHex(spend.stealthSecretKey)).toBe(v.spend.stealth_sk);
      expect(spend.stealthAddress).toBe(v.payment.stealth_address);
      expect(spend.stealthSuiAddress).toBe(v.payment.stealth_sui_address);
    });

    it('scanning the announced ciphertext discovers it with the same key', () => {
      const { discoveries, stats } = scanAnnouncements(keys, [
        { id: 1, ephemeral_key: v.payment.ephemeral_ciphertext, view_tag: v.payment.view_tag },
      ]);
      expect(stats).toMatchObject({ totalScanned: 1, viewTagMatches: 1, discoveries: 1 });
      expect(discoveries[0]!.stealthAddress).toBe(v.payment.stealth_address);
      expect(bytesToHex(discoveries[0]!.stealthSecretKey!)).toBe(v.spend.stealth_sk);
    });

    it('decodes its meta-address back into the two public keys', () => {
      const meta = decodeMetaAddress(hexToBytes(v.keys.meta_address));
      expect(bytesToHex(meta.spendingPublicKey)).toBe(v.keys.spending_pk);
      expect(bytesToHex(meta.viewingPublicKey)).toBe(v.keys.viewing_pk);
    });
  });
});

describe('sealed notes (PROTOCOL.md section 8) reproduce the shared vectors', () => {
  type NoteCase = { input: { tx_hash: string; amount: string; chain_id: string }; metadata: string; empty_metadata: string };
  const cases = (JSON.parse(readFileSync(new URL('./vectors.shared.json', import.meta.url), 'utf8')) as {
    cases: (VectorCase & { note: NoteCase })[];
  }).cases;

  it('has a note in every case', () => {
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) expect(c.note.metadata).toHaveLength(186);
  });

  it.each(cases.map((c) => [c.name, c] as const))('case %s: metadata and empty metadata byte for byte, and they open back', (_name, c) => {
    const payment = { viewTag: c.payment.view_tag, sharedSecret: hexToBytes(c.payment.shared_secret) };
    const note = { txHash: c.note.input.tx_hash, amount: BigInt(c.note.input.amount), chainId: BigInt(c.note.input.chain_id) };
    expect(bytesToHex(announcementMetadata(payment, note))).toBe(c.note.metadata);
    expect(bytesToHex(announcementMetadata(payment, {}))).toBe(c.note.empty_metadata);
    const absentIfZero = (hex: string) => (/^0+$/.test(hex) ? null : `0x${hex}`);
    const bigOrNull = (decimal: string) => (BigInt(decimal) === 0n ? null : BigInt(decimal));
    expect(openNote(payment.sharedSecret, hexToBytes(c.note.metadata).subarray(1))).toEqual({
      txHash: absentIfZero(c.note.input.tx_hash),
      amount: bigOrNull(c.note.input.amount),
      chainId: bigOrNull(c.note.input.chain_id),
      token: null,
    });
    expect(openNote(payment.sharedSecret, hexToBytes(c.note.empty_metadata).subarray(1))).toEqual({ txHash: null, amount: null, chainId: null, token: null });
  });

  it.each(cases.map((c) => [c.name, c] as const))('case %s: a scan of the announcement with its metadata opens the note', (_name, c) => {
    const keys = generateKeys({ spendingSecret: c.input.spending_secret, viewingSeed: c.input.viewing_seed });
    const announcement = {
      id: 1,
      ephemeral_key: c.payment.ephemeral_ciphertext,
      view_tag: c.payment.view_tag,
      stealth_address: c.payment.stealth_address,
      // Registry rows hold the note without the on-chain view-tag byte (PROTOCOL.md section 6).
      metadata: c.note.metadata.slice(2),
    };
    const [found] = scanAnnouncements(keys, [announcement]).discoveries;
    const bigOrNull = (decimal: string) => (BigInt(decimal) === 0n ? null : BigInt(decimal));
    expect(found).toMatchObject({
      stealthAddress: c.payment.stealth_address,
      noteStatus: 'opened',
      note: {
        txHash: /^0+$/.test(c.note.input.tx_hash) ? null : `0x${c.note.input.tx_hash}`,
        amount: bigOrNull(c.note.input.amount),
        chainId: bigOrNull(c.note.input.chain_id),
      },
      stealthAddressMismatch: false,
    });
  });
});

describe('the note that names its asset (PROTOCOL.md 8.1) reproduces the shared vectors', () => {
  type NoteV2 = { input: { tx_hash: string; amount: string; chain_id: string; token: string }; metadata: string; scheme3_metadata: string };
  const cases = (JSON.parse(readFileSync(sharedCopy, 'utf8')) as { cases: (VectorCase & { note_v2: NoteV2; scheme3: { ss: string; view_tag: number } })[] }).cases;
  const zero = (hex: string) => /^0+$/.test(hex);
  const bigOrNull = (decimal: string) => (BigInt(decimal) === 0n ? null : BigInt(decimal));
  const sealedInput = (v: NoteV2) => ({ txHash: v.input.tx_hash, amount: BigInt(v.input.amount), chainId: BigInt(v.input.chain_id), token: v.input.token });
  const opened = (v: NoteV2) => ({
    txHash: zero(v.input.tx_hash) ? null : `0x${v.input.tx_hash}`,
    amount: bigOrNull(v.input.amount),
    chainId: bigOrNull(v.input.chain_id),
    token: zero(v.input.token) ? 'coin' : toChecksumAddress(v.input.token),
  });

  it('has a 113-byte note naming its asset, under both schemes, in every case, the coin among them', () => {
    expect(cases.length).toBeGreaterThanOrEqual(3);
    for (const c of cases) {
      expect(c.note_v2.metadata).toHaveLength(226);
      expect(c.note_v2.scheme3_metadata).toHaveLength(226);
    }
    expect(cases.some((c) => zero(c.note_v2.input.token))).toBe(true);
    expect(cases.some((c) => !zero(c.note_v2.input.token))).toBe(true);
  });

  it.each(cases.map((c) => [c.name, c] as const))('case %s: scheme 1000 seals it under K byte for byte, and it opens back naming its token', (_name, c) => {
    const payment = { viewTag: c.payment.view_tag, sharedSecret: hexToBytes(c.payment.shared_secret) };
    expect(bytesToHex(announcementMetadata(payment, sealedInput(c.note_v2)))).toBe(c.note_v2.metadata);
    // The coin may be named as 'coin' as well as by the zero address: the same bytes.
    if (zero(c.note_v2.input.token)) expect(bytesToHex(announcementMetadata(payment, { ...sealedInput(c.note_v2), token: 'coin' }))).toBe(c.note_v2.metadata);
    expect(openNote(payment.sharedSecret, hexToBytes(c.note_v2.metadata).subarray(1))).toEqual(opened(c.note_v2));
  });

  it.each(cases.map((c) => [c.name, c] as const))('case %s: scheme 3 seals it under ss byte for byte', (_name, c) => {
    const payment = { viewTag: c.scheme3.view_tag, sharedSecret: hexToBytes(c.scheme3.ss) };
    expect(bytesToHex(announcementMetadata(payment, sealedInput(c.note_v2)))).toBe(c.note_v2.scheme3_metadata);
    expect(openNote(payment.sharedSecret, hexToBytes(c.note_v2.scheme3_metadata).subarray(1))).toEqual(opened(c.note_v2));
  });

  it.each(cases.map((c) => [c.name, c] as const))('case %s: a scan of the registry row that carries it shows the token with the amount', (_name, c) => {
    const keys = generateKeys({ spendingSecret: c.input.spending_secret, viewingSeed: c.input.viewing_seed });
    const row = { id: 1, ephemeral_key: c.payment.ephemeral_ciphertext, view_tag: c.payment.view_tag, metadata: c.note_v2.metadata.slice(2) };
    expect(scanAnnouncements(keys, [row]).discoveries[0]).toMatchObject({ stealthAddress: c.payment.stealth_address, noteStatus: 'opened', note: opened(c.note_v2) });
  });
});
