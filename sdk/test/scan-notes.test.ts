import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  createScanner,
  createStealthPayment,
  deriveStealthKeys,
  scanAnnouncements,
  sealNote,
} from '../src/index.ts';
import { noteBatch, noteFieldsOf } from './note-announcements.ts';

const { keys, rows, expected } = noteBatch();
const viewOnly = { viewingSecretKey: keys.viewingSecretKey, spendingPublicKey: keys.spendingPublicKey };

describe('discoveries carry the sealed note and the announced address check (PROTOCOL.md sections 7-8)', () => {
  it('opens each note, reports unreadable and absent ones, and flags announced addresses that differ, in both announcement forms', () => {
    const { discoveries, stats } = createScanner(keys).scan(rows);
    expect(stats).toMatchObject({ totalScanned: rows.length, discoveries: expected.size, malformed: 0 });
    expect(noteFieldsOf(discoveries)).toEqual(expected);
  });

  it('an unreadable note or a wrong announced address never hides the payment: the keys still spend the derived address', () => {
    const { discoveries } = createScanner(keys).scan(rows);
    const doubtful = discoveries.filter((d) => d.noteStatus === 'unreadable' || d.stealthAddressMismatch);
    expect(doubtful.length).toBeGreaterThanOrEqual(5);
    for (const d of doubtful) {
      expect(d.stealthAddress).toBe(expected.get(d.index)!.stealthAddress);
      expect(d.stealthSecretKey).toHaveLength(32);
    }
  });

  it('discoveries with the spending key do not carry the shared secret', () => {
    const { discoveries } = createScanner(keys).scan(rows);
    expect(discoveries.length).toBe(expected.size);
    for (const d of discoveries) expect('sharedSecret' in d).toBe(false);
  });

  it('a view-only scan opens the same notes and hands over the shared secret, from which the key holder spends', () => {
    const { discoveries } = scanAnnouncements(viewOnly, rows);
    expect(noteFieldsOf(discoveries)).toEqual(expected);
    for (const d of discoveries) {
      expect(d.stealthSecretKey).toBeUndefined();
      const spend = deriveStealthKeys({ spendingSecretKey: keys.spendingSecretKey, spendingPublicKey: keys.spendingPublicKey, sharedSecret: d.sharedSecret! });
      expect(spend.stealthAddress).toBe(d.stealthAddress);
    }
  });

  it('every kernel gives the same note fields', () => {
    for (const kernel of ['reference', 'typescript', 'wasm'] as const) {
      expect(noteFieldsOf(createScanner(keys, { kernel }).scan(rows).discoveries)).toEqual(expected);
    }
  });

  it('a foreign payment with a note is not a discovery, and malformed rows with notes are skipped and counted', () => {
    const foreign = createStealthPayment(noteBatch(0).keys.metaAddress);
    const junk = [
      { id: 1, ephemeral_key: bytesToHex(foreign.ephemeralCiphertext), view_tag: foreign.viewTag, metadata: bytesToHex(sealNote(foreign.sharedSecret, { amount: 1n })) },
      { id: 2, ephemeral_key: 'zz', view_tag: 1, metadata: bytesToHex(sealNote(foreign.sharedSecret)) },
    ];
    const { discoveries, stats } = createScanner(keys).scan(junk);
    expect(discoveries).toEqual([]);
    expect(stats).toMatchObject({ totalScanned: 2, malformed: 1, discoveries: 0 });
  });
});
