import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  createStealthPayment,
  decodeAnnouncementPage,
  encodeAnnouncementPage,
  generateKeys,
  InvalidAnnouncementError,
  scanAnnouncements,
  sealNote,
  toChecksumAddress,
  type RegistryAnnouncement,
} from '../src/index.ts';

const keys = generateKeys();
const payment = createStealthPayment(keys.metaAddress);
const stranger = createStealthPayment(generateKeys().metaAddress);
const none = { stealthAddress: null, metadata: null, blockNumber: null, logIndex: null };
const rows: RegistryAnnouncement[] = [
  { id: 1, timestamp: 1_700_000_000, ephemeralKey: crypto.getRandomValues(new Uint8Array(1088)), viewTag: 0, channelId: null, txHash: '0xabc', amount: null, chain: null, ...none },
  {
    id: 2,
    timestamp: 1_700_000_001,
    ephemeralKey: payment.ephemeralCiphertext,
    viewTag: payment.viewTag,
    channelId: crypto.getRandomValues(new Uint8Array(32)),
    txHash: 'channel:é✓',
    amount: '1.5',
    chain: 'yellow',
    stealthAddress: payment.stealthAddress,
    metadata: sealNote(payment.sharedSecret, { amount: 15n * 10n ** 17n, chainId: 1n }),
    blockNumber: 19_000_000,
    logIndex: 3,
  },
  {
    id: 2 ** 40,
    timestamp: 0,
    ephemeralKey: new Uint8Array(1088).fill(0xff),
    viewTag: 255,
    channelId: null,
    txHash: null,
    amount: '',
    chain: 'sui',
    // The largest values each field holds.
    stealthAddress: stranger.stealthAddress,
    metadata: new Uint8Array(255).fill(7),
    blockNumber: Number.MAX_SAFE_INTEGER,
    logIndex: 0xffffffff,
  },
];
const hex = (r: RegistryAnnouncement) => ({
  ...r,
  ephemeralKey: bytesToHex(r.ephemeralKey),
  channelId: r.channelId && bytesToHex(r.channelId),
  metadata: r.metadata && bytesToHex(r.metadata),
});

describe('binary announcement pages', () => {
  it('round-trip every field, including optional and non-ASCII ones', () => {
    const page = encodeAnnouncementPage(rows);
    expect(decodeAnnouncementPage(page).map(hex)).toEqual(rows.map(hex));
  });

  it('render the stealth address EIP-55 whatever case it was stored in', () => {
    const lower = { ...rows[2]!, stealthAddress: stranger.stealthAddress.toLowerCase() };
    const [decoded] = decodeAnnouncementPage(encodeAnnouncementPage([lower]));
    expect(decoded!.stealthAddress).toBe(stranger.stealthAddress);
    expect(decoded!.stealthAddress).toBe(toChecksumAddress(stranger.stealthAddress.toLowerCase()));
  });

  it('take rows without the chain fields (undefined or null) and give them back as null', () => {
    const { stealthAddress: _a, metadata: _b, blockNumber: _c, logIndex: _d, ...old } = rows[1]!;
    const page = encodeAnnouncementPage([old, { ...old, id: 3, ...none }]);
    expect(page.length).toBe(2 * encodeAnnouncementPage([old]).length - 8);
    for (const decoded of decodeAnnouncementPage(page)) expect(decoded).toMatchObject(none);
  });

  it('spend exactly 1 + length bytes on metadata, 20 on the stealth address and 12 on block and log index', () => {
    const base = encodeAnnouncementPage([rows[0]!]).length;
    const size = (extra: Partial<RegistryAnnouncement>) => encodeAnnouncementPage([{ ...rows[0]!, ...extra }]).length - base;
    expect(size({ metadata: new Uint8Array(92) })).toBe(93);
    expect(size({ metadata: new Uint8Array(0) })).toBe(1);
    expect(size({ stealthAddress: payment.stealthAddress })).toBe(20);
    expect(size({ blockNumber: 0, logIndex: 0 })).toBe(12);
  });

  it('are about half the size of the hex JSON rows', () => {
    const json = JSON.stringify(rows.map((r) => ({ ...hex(r), ephemeral_key: bytesToHex(r.ephemeralKey) })));
    expect(encodeAnnouncementPage(rows).length).toBeLessThan(json.length / 2);
  });

  it('decode into rows the scanner accepts directly, and it opens their sealed notes', () => {
    const { discoveries } = scanAnnouncements(keys, decodeAnnouncementPage(encodeAnnouncementPage(rows)));
    expect(discoveries.map((d) => [d.announcement.id, d.stealthAddress])).toEqual([[2, payment.stealthAddress]]);
    expect(discoveries[0]).toMatchObject({
      noteStatus: 'opened',
      note: { txHash: null, amount: 15n * 10n ** 17n, chainId: 1n },
      stealthAddressMismatch: false,
    });
    expect(discoveries[0]!.announcement).toMatchObject({ blockNumber: 19_000_000, logIndex: 3 });
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

  it.each([
    ['metadata over 255 bytes', { metadata: new Uint8Array(256) }, 'metadata'],
    ['metadata given as hex', { metadata: 'ab'.repeat(92) as unknown as Uint8Array }, 'metadata'],
    ['a stealth address without 0x', { stealthAddress: payment.stealthAddress.slice(2) }, 'stealthAddress'],
    ['a 19-byte stealth address', { stealthAddress: payment.stealthAddress.slice(0, -2) }, 'stealthAddress'],
    ['a stealth address that is not hex', { stealthAddress: `0x${'g'.repeat(40)}` }, 'stealthAddress'],
    ['a block number without a log index', { blockNumber: 1 }, 'logIndex'],
    ['a log index beyond u32', { blockNumber: 1, logIndex: 2 ** 32 }, 'logIndex'],
    ['a negative log index', { blockNumber: 1, logIndex: -1 }, 'logIndex'],
    ['a negative block number', { blockNumber: -1, logIndex: 0 }, 'blockNumber'],
    ['a block number beyond 2^53', { blockNumber: 2 ** 53, logIndex: 0 }, 'blockNumber'],
    ['a log index without a block number', { logIndex: 0 }, 'blockNumber'],
  ] as [string, Partial<RegistryAnnouncement>, string][])('refuse %s with a typed error naming the field', (_name, bad, field) => {
    expect(() => encodeAnnouncementPage([rows[0]!, { ...rows[0]!, ...bad }])).toThrow(InvalidAnnouncementError);
    expect(() => encodeAnnouncementPage([rows[0]!, { ...rows[0]!, ...bad }])).toThrow(`announcements[1].${field}`);
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
        p[8 + 17]! |= 0x80;
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

  it('read text fields of any length and script, and refuse one that is not UTF-8 or an id beyond 2^53', () => {
    const texts = ['', '0x' + 'ab'.repeat(32), 'eip155:1', 'a'.repeat(256), 'a'.repeat(257), 'a'.repeat(255) + 'é', '\u007f\u0000x', '😀'.repeat(100)];
    const page = encodeAnnouncementPage(texts.map((chain, i) => ({ ...rows[0]!, id: i + 1, chain })));
    expect(decodeAnnouncementPage(page).map((a) => a.chain)).toEqual(texts);

    const one = encodeAnnouncementPage([{ ...rows[0]!, txHash: '0xé' }]); // bytes 30 78 c3 a9
    const at = one.findIndex((_, i) => one[i] === 0x30 && one[i + 1] === 0x78 && one[i + 2] === 0xc3 && one[i + 3] === 0xa9) + 2;
    expect(at).toBeGreaterThan(8 + 18 + 1088);
    for (const broken of [[0xc3, 0x28], [0xff, 0xa9], [0x80, 0xa9]]) {
      const bytes = one.slice();
      bytes.set(broken, at);
      expect(() => decodeAnnouncementPage(bytes), String(broken)).toThrow('not UTF-8');
    }
    const beyond = encodeAnnouncementPage([rows[0]!]);
    new DataView(beyond.buffer).setUint32(8 + 4, 2 ** 21, true); // id = 2^53 + the low word
    expect(() => decodeAnnouncementPage(beyond)).toThrow('beyond 2^53');
  });

  it('refuse a page cut anywhere inside a record with every field, and a metadata length running past the end', () => {
    const page = encodeAnnouncementPage([rows[1]!]);
    for (let n = 0; n < page.length; n++) expect(() => decodeAnnouncementPage(page.subarray(0, n))).toThrow(InvalidAnnouncementError);
    // The metadata length byte sits after the fixed part, channel id and three texts.
    const at = page.length - 12 - 20 - 93;
    expect(page[at]).toBe(92);
    const longer = page.slice();
    longer[at] = 93;
    expect(() => decodeAnnouncementPage(longer)).toThrow('truncated');
    const shorter = page.slice();
    shorter[at] = 91;
    expect(() => decodeAnnouncementPage(shorter)).toThrow(InvalidAnnouncementError);
  });

  it('a page whose flags say the chain fields are there decodes them, and one whose flags do not leaves them out', () => {
    const page = encodeAnnouncementPage([rows[1]!]);
    const flags = page[8 + 17]!;
    expect(flags & 0x70).toBe(0x70);
    const without = page.slice(0, page.length - 12);
    without[8 + 17] = flags & ~0x40;
    expect(decodeAnnouncementPage(without)[0]).toMatchObject({ blockNumber: null, logIndex: null, stealthAddress: payment.stealthAddress });
  });
});
