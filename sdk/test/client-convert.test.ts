import { describe, expect, it } from 'vitest';
import {
  announcementForPayment,
  announcementFromJson,
  announcementMetadata,
  bytesToHex,
  createStealthPayment,
  erc8441KeysFromSeed,
  generateKeys,
  scanAnnouncements,
  sealNote,
  type AnnouncementJson,
} from '../src/index.ts';

const keys = generateKeys();
const payment = createStealthPayment(keys.metaAddress);
const note = { amount: 5n * 10n ** 17n, chainId: 1n };

describe('announcementForPayment with a sealed note', () => {
  it('publishes the 93-byte metadata or the 92-byte note as metadata hex, and nothing without one', () => {
    const withMetadata = announcementForPayment(payment, { txHash: '0x01', metadata: announcementMetadata(payment, note) });
    expect(withMetadata.metadata).toBe(bytesToHex(announcementMetadata(payment, note)));
    const withNote = announcementForPayment(payment, { txHash: '0x01', metadata: sealNote(payment.sharedSecret, note) });
    expect(withNote.metadata).toBe(bytesToHex(sealNote(payment.sharedSecret, note)));
    expect('metadata' in announcementForPayment(payment, { txHash: '0x01' })).toBe(false);
  });

  it('publishes the note that names its asset (PROTOCOL.md 8.1) as the 113-byte metadata or the 112-byte note, and a scan of the row reads its token', () => {
    const named = { ...note, token: 'coin' as const };
    const withMetadata = announcementForPayment(payment, { txHash: '0x01', metadata: announcementMetadata(payment, named) });
    expect(withMetadata.metadata).toHaveLength(226);
    const withNote = announcementForPayment(payment, { txHash: '0x01', metadata: sealNote(payment.sharedSecret, named) });
    expect(withNote.metadata).toHaveLength(224);
    // The registry keeps what follows the view tag (PROTOCOL.md section 6): the 112-byte note.
    const row = { id: 1, ephemeral_key: withNote.ephemeral_key as string, view_tag: withNote.view_tag, metadata: withNote.metadata as string };
    expect(scanAnnouncements(keys, [row]).discoveries[0]!.note).toEqual({ txHash: null, ...note, token: 'coin' });
  });

  it('refuses metadata of another length or with another payment\'s view tag, with INVALID_ARGUMENT', () => {
    const metadata = announcementMetadata(payment, note);
    const named = announcementMetadata(payment, { ...note, token: 'coin' });
    for (const bad of [metadata.subarray(0, 91), new Uint8Array([...metadata, 0]), announcementMetadata(payment), new Uint8Array([...named, 0]), named.subarray(0, 111)]) {
      expect(() => announcementForPayment(payment, { txHash: '0x01', metadata: bad })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
    const otherTag = metadata.slice();
    otherTag[0] = (payment.viewTag + 1) % 256;
    expect(() => announcementForPayment(payment, { txHash: '0x01', metadata: otherTag })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('announcementForPayment without a schemeId', () => {
  const erc8441Keys = erc8441KeysFromSeed(Uint8Array.from({ length: 128 }, (_, i) => i + 1));
  const erc8441Payment = createStealthPayment(erc8441Keys.metaAddress);

  it('announces a 1121-byte key (epk || ct) as scheme 3, as with schemeId 3', () => {
    expect(erc8441Payment.schemeId).toBe(3);
    expect(erc8441Payment.ephemeralCiphertext).toHaveLength(1121);
    const { schemeId: _schemeId, ...withoutScheme } = erc8441Payment;
    const metadata = announcementMetadata(erc8441Payment, note);
    const expected = announcementForPayment(erc8441Payment, { txHash: '0x01', metadata });
    expect(expected).toMatchObject({ scheme_id: 3, stealth_address: erc8441Payment.stealthAddress, metadata: bytesToHex(metadata.subarray(1)) });
    expect(announcementForPayment(withoutScheme, { txHash: '0x01', metadata })).toEqual(expected);
    const { stealthAddress: _address, ...withoutAddress } = withoutScheme;
    expect(() => announcementForPayment(withoutAddress, { txHash: '0x01' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('announces a 1088-byte key as scheme 1000 (no scheme_id, no stealth_address)', () => {
    const { schemeId: _schemeId, ...withoutScheme } = payment;
    const announced = announcementForPayment(withoutScheme, { txHash: '0x01' });
    expect('scheme_id' in announced || 'stealth_address' in announced).toBe(false);
    expect(announced).toEqual(announcementForPayment(payment, { txHash: '0x01' }));
  });
});

describe('announcementFromJson', () => {
  const json = {
    id: 9,
    ephemeral_key: bytesToHex(payment.ephemeralCiphertext),
    view_tag: payment.viewTag,
    timestamp: 1_700_000_000,
    channel_id: null,
    tx_hash: '0xabc',
    amount: null,
    chain: 'ethereum',
    stealth_address: payment.stealthAddress,
    metadata: bytesToHex(sealNote(payment.sharedSecret, note)),
    block_number: 123,
    log_index: 4,
    chain_id: 8453,
    scheme_id: 1000 as const,
  };

  it('maps the chain fields into byte form, where the scanner opens the note', () => {
    const row = announcementFromJson(json);
    expect(row).toMatchObject({ stealthAddress: payment.stealthAddress, blockNumber: 123, logIndex: 4, chainId: 8453, schemeId: 1000 });
    expect(bytesToHex(row.metadata!)).toBe(json.metadata);
    const [found] = scanAnnouncements(keys, [row]).discoveries;
    expect(found).toMatchObject({ noteStatus: 'opened', note: { txHash: null, ...note }, stealthAddressMismatch: false });
  });

  it('reads the rows of an older server (no chain fields) and an empty metadata as absent', () => {
    const { stealth_address: _a, metadata: _b, block_number: _c, log_index: _d, chain_id: _e, ...old } = json;
    // Older servers answer without the five fields the current type requires.
    expect(announcementFromJson(old as AnnouncementJson)).toMatchObject({ stealthAddress: null, metadata: null, blockNumber: null, logIndex: null, chainId: null, schemeId: 1000 });
    expect(announcementFromJson({ ...json, metadata: '' }).metadata).toBeNull();
  });
});
