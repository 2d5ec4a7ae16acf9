import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  createStealthPayment,
  decodeAnnouncementPage,
  encodeAnnouncementPage,
  generateKeys,
  InvalidAnnouncementError,
  scanAnnouncements,
  type RegistryAnnouncement,
} from '../src/index.ts';

const keys = generateKeys();
const payment = createStealthPayment(keys.metaAddress);
const rows: RegistryAnnouncement[] = [
  { id: 1, timestamp: 1_700_000_000, ephemeralKey: crypto.getRandomValues(new Uint8Array(1088)), viewTag: 0, channelId: null, txHash: '0xabc', amount: null, chain: null },
  { id: 2, timestamp: 1_700_000_001, ephemeralKey: payment.ephemeralCiphertext, viewTag: payment.viewTag, channelId: crypto.getRandomValues(new Uint8Array(32)), txHash: 'channel:é✓', amount: '1.5', chain: 'yellow' },
  { id: 2 ** 40, timestamp: 0, ephemeralKey: new Uint8Array(1088).fill(0xff), viewTag: 255, channelId: null, txHash: null, amount: '', chain: 'sui' },
];
const hex = (r: RegistryAnnouncement) => ({ ...r, ephemeralKey: bytesToHex(r.ephemeralKey), channelId: r.channelId && bytesToHex(r.channelId) });

describe('binary announcement pages', () => {
  it('round-trip every field, including optional and non-ASCII ones', () => {
    const page = encodeAnnouncementPage(rows);
    expect(decodeAnnouncementPage(page).map(hex)).toEqual(rows.map(hex));
  });

  it('are about half the size of the hex JSON rows', () => {
    const json = JSON.stringify(rows.map((r) => ({ ...hex(r), ephemeral_key: bytesToHex(r.ephemeralKey) })));
    expect(encodeAnnouncementPage(rows).length).toBeLessThan(json.length / 2);
  });

  it('decode into rows the scanner accepts directly', () => {
    const { discoveries } = scanAnnouncements(keys, decodeAnnouncementPage(encodeAnnouncementPage(rows)));
    expect(discoveries.map((d) => [d.announcement.id, d.stealthAddress])).toEqual([[2, payment.stealthAddress]]);
  });

  it('hold exactly the bytes of their records: a text field takes its UTF-8 length, not a worst-case reservation', () => {
    const one = (txHash: string) => encodeAnnouncementPage([{ ...rows[0]!, txHash }]);
    expect(one('0xabc').length).toBe(8 + 18 + 1088 + 2 + 5);
    expect(one('é✓😀').length).toBe(8 + 18 + 1088 + 2 + 2 + 3 + 4);
    expect(decodeAnnouncementPage(one('é✓😀'))[0]!.txHash).toBe('é✓😀');
  });

  it('cut a text over 65,535 UTF-8 bytes at the last whole character, so the page still decodes', () => {
    const long = 'a' + '✓'.repeat(30_000); // 90,001 bytes; 21,844 whole ✓ fit after the 'a'
    const [decoded] = decodeAnnouncementPage(encodeAnnouncementPage([{ ...rows[0]!, amount: long }]));
    expect(decoded!.amount).toBe('a' + '✓'.repeat(21_844));
  });

  it('refuse an id or timestamp that is not a non-negative safe integer with a typed error', () => {
    for (const bad of [{ id: -1 }, { id: 1.5 }, { id: 2 ** 53 }, { timestamp: Number.NaN }]) {
      expect(() => encodeAnnouncementPage([{ ...rows[0]!, ...bad }])).toThrow(InvalidAnnouncementError);
    }
  });

  it('an empty page is 8 bytes and decodes to no rows', () => {
    expect(encodeAnnouncementPage([]).length).toBe(8);
    expect(decodeAnnouncementPage(encodeAnnouncementPage([]))).toEqual([]);
  });

  it('refuses every truncation, trailing byte, bad magic and bad flag with a typed error', () => {
    const page = encodeAnnouncementPage(rows);
    const bad = [
      page.subarray(0, 4),
      ...[9, 1000, page.length - 1].map((n) => page.subarray(0, n)),
      new Uint8Array([...page, 0]),
      new Uint8Array([0x57, 0x52, 0x41, 0x32, ...page.subarray(4)]),
      (() => {
        const p = page.slice();
        p[8 + 17] = 0x10;
        return p;
      })(),
      (() => {
        const p = page.slice();
        new DataView(p.buffer).setUint32(4, 0xffffffff, true);
        return p;
      })(),
    ];
    for (const bytes of bad) expect(() => decodeAnnouncementPage(bytes)).toThrow(InvalidAnnouncementError);
  });
});
