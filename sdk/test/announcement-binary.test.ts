import fc from 'fast-check';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeAnnouncementPageReference } from '../src/announcement-binary-reference.ts';
import {
  ANNOUNCEMENT_PAGE_VERSION,
  bytesToHex,
  createStealthPayment,
  decodeAnnouncementPage,
  encodeAnnouncementPage,
  generateKeys,
  InvalidAnnouncementError,
  scanAnnouncements,
  sealNote,
  toChecksumAddress,
  UnsupportedPageVersionError,
  type RegistryAnnouncement,
} from '../src/index.ts';

const keys = generateKeys();
const payment = createStealthPayment(keys.metaAddress);
const stranger = createStealthPayment(generateKeys().metaAddress);
const none = { stealthAddress: null, metadata: null, blockNumber: null, logIndex: null, chainId: null };
const rows: RegistryAnnouncement[] = [
  { id: 1, timestamp: 1_700_000_000, ephemeralKey: crypto.getRandomValues(new Uint8Array(1088)), viewTag: 0, channelId: null, txHash: '0xabc', amount: null, chain: null, ...none, schemeId: 1000 },
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
    chainId: 8453,
    schemeId: 1000,
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
    chainId: Number.MAX_SAFE_INTEGER,
    schemeId: 1000,
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
    const { stealthAddress: _a, metadata: _b, blockNumber: _c, logIndex: _d, chainId: _e, schemeId: _f, ...old } = rows[1]!;
    const page = encodeAnnouncementPage([old, { ...old, id: 3, ...none }]);
    expect(page.length).toBe(2 * encodeAnnouncementPage([old]).length - 8);
    for (const decoded of decodeAnnouncementPage(page)) expect(decoded).toMatchObject(none);
  });

  it('spend exactly 4 + length bytes on metadata, 20 on the stealth address, 12 on block and log index and 8 on the chain id', () => {
    const base = encodeAnnouncementPage([rows[0]!]).length;
    const size = (extra: Partial<RegistryAnnouncement>) => encodeAnnouncementPage([{ ...rows[0]!, ...extra }]).length - base;
    expect(size({ metadata: new Uint8Array(92) })).toBe(96);
    expect(size({ metadata: new Uint8Array(0) })).toBe(4);
    expect(size({ metadata: new Uint8Array(70_000) })).toBe(70_004);
    expect(size({ stealthAddress: payment.stealthAddress })).toBe(20);
    expect(size({ blockNumber: 0, logIndex: 0 })).toBe(12);
    expect(size({ chainId: 1 })).toBe(8);
    expect(size({ schemeId: 3, ephemeralKey: new Uint8Array(1121).fill(1) })).toBe(33);
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
    expect(one('0xabc').length).toBe(8 + 25 + 1088 + 2 + 5);
    expect(one('é✓😀').length).toBe(8 + 25 + 1088 + 2 + 2 + 3 + 4);
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
    ['a chain id of 0', { chainId: 0 }, 'chainId'],
    ['a negative chain id', { chainId: -1 }, 'chainId'],
    ['a fractional chain id', { chainId: 1.5 }, 'chainId'],
    ['a chain id beyond 2^53', { chainId: 2 ** 53 }, 'chainId'],
    ['a scheme other than 1000 or 3', { schemeId: 1 }, 'schemeId'],
    ['a scheme-3 row with a 1088-byte key', { schemeId: 3 }, 'ephemeralKey'],
    ['a scheme-1000 row with a 1121-byte key', { ephemeralKey: new Uint8Array(1121) }, 'ephemeralKey'],
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
      new Uint8Array([0x57, 0x52, 0x41, 0x33, ...page.subarray(4)]),
      new Uint8Array([0x57, 0x52, 0x42, 0x32, ...page.subarray(4)]),
      (() => {
        const p = page.slice();
        p[8 + 18]! |= 0x01; // flag 256: not defined in version 2
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
    // The metadata's u32 length sits before the note, stealth address, position and chain id.
    const at = page.length - 8 - 12 - 20 - 92 - 4;
    const view = new DataView(page.buffer, page.byteOffset);
    expect(view.getUint32(at, true)).toBe(92);
    const longer = page.slice();
    new DataView(longer.buffer).setUint32(at, 93, true);
    expect(() => decodeAnnouncementPage(longer)).toThrow(InvalidAnnouncementError);
    new DataView(longer.buffer).setUint32(at, 0xffffffff, true);
    expect(() => decodeAnnouncementPage(longer)).toThrow('truncated');
    const shorter = page.slice();
    new DataView(shorter.buffer).setUint32(at, 91, true);
    expect(() => decodeAnnouncementPage(shorter)).toThrow(InvalidAnnouncementError);
  });

  it('a page whose flags say the chain fields are there decodes them, and one whose flags do not leaves them out', () => {
    const page = encodeAnnouncementPage([rows[1]!]);
    const flags = page[8 + 17]!;
    expect(flags & 0x70).toBe(0x70);
    const without = page.slice(0, page.length - 12 - 8);
    without[8 + 17] = flags & ~0x40 & ~0x80;
    expect(decodeAnnouncementPage(without)[0]).toMatchObject({ blockNumber: null, logIndex: null, chainId: null, stealthAddress: payment.stealthAddress });
  });
});

/** A version-1 page ("WRA1": u8 flags, fixed 1088-byte key, u8 metadata length, no scheme or chain id), as servers before issue 24 wrote it. */
function encodeVersion1Page(announcements: RegistryAnnouncement[]): Uint8Array {
  const parts: number[] = [0x57, 0x52, 0x41, 0x31, ...u32(announcements.length)];
  const text = (t: string) => {
    const bytes = new TextEncoder().encode(t);
    parts.push(bytes.length & 0xff, bytes.length >> 8, ...bytes);
  };
  for (const a of announcements) {
    const flags = (a.channelId ? 1 : 0) | (a.txHash != null ? 2 : 0) | (a.amount != null ? 4 : 0) | (a.chain != null ? 8 : 0) | (a.metadata ? 16 : 0) | (a.stealthAddress ? 32 : 0) | (a.blockNumber != null ? 64 : 0);
    parts.push(...u64(a.id), ...u64(a.timestamp), a.viewTag, flags, ...a.ephemeralKey);
    if (a.channelId) parts.push(...a.channelId);
    if (a.txHash != null) text(a.txHash);
    if (a.amount != null) text(a.amount);
    if (a.chain != null) text(a.chain);
    if (a.metadata) parts.push(a.metadata.length, ...a.metadata);
    if (a.stealthAddress) parts.push(...Buffer.from(a.stealthAddress.slice(2), 'hex'));
    if (a.blockNumber != null) parts.push(...u64(a.blockNumber), ...u32(a.logIndex!));
  }
  return Uint8Array.from(parts);
}
function u32(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];
}
function u64(n: number): number[] {
  return [...u32(n >>> 0), ...u32(Math.floor(n / 2 ** 32))];
}

describe('binary page versions', () => {
  it('version 2 carries each row’s chain id and scheme, including an ERC-8441 row with its 1121-byte key', () => {
    const erc8441 = { ...rows[0]!, id: 9, schemeId: 3, ephemeralKey: new Uint8Array(1121).fill(3), chainId: 10, stealthAddress: payment.stealthAddress, metadata: new Uint8Array(300).fill(1) };
    const page = encodeAnnouncementPage([...rows, erc8441]);
    expect(String.fromCharCode(...page.subarray(0, 4))).toBe('WRA2');
    expect(ANNOUNCEMENT_PAGE_VERSION).toBe(2);
    const decoded = decodeAnnouncementPage(page);
    expect(decoded.map((a) => [a.id, a.chainId, a.schemeId, a.ephemeralKey.length])).toEqual([
      [1, null, 1000, 1088],
      [2, 8453, 1000, 1088],
      [2 ** 40, Number.MAX_SAFE_INTEGER, 1000, 1088],
      [9, 10, 3, 1121],
    ]);
    expect(decoded[3]!.metadata).toEqual(erc8441.metadata);
  });

  it('a row given without chainId or schemeId is written as no chain and scheme 1000', () => {
    const { chainId: _c, schemeId: _s, ...bare } = rows[1]!;
    expect(decodeAnnouncementPage(encodeAnnouncementPage([bare]))[0]).toMatchObject({ chainId: null, schemeId: 1000 });
  });

  it('version-1 pages (cached before the server wrote version 2) still decode, as scheme 1000 without a chain id', () => {
    const v1 = encodeVersion1Page(rows);
    const decoded = decodeAnnouncementPage(v1);
    expect(decoded.map(hex)).toEqual(rows.map((r) => hex({ ...r, chainId: null, schemeId: 1000 })));
    expect(decodeAnnouncementPageReference(v1).map(hex)).toEqual(decoded.map(hex));
    // Version 1 has no flag 128: a chain-id flag there is corruption.
    const flagged = v1.slice();
    flagged[8 + 17]! |= 0x80;
    expect(() => decodeAnnouncementPage(flagged)).toThrow('unknown field flags');
  });

  it('a later version is refused with a typed error that names it and says how to read the registry', () => {
    const later = encodeAnnouncementPage(rows);
    later[3] = 0x33; // "WRA3"
    const error = (() => {
      try {
        decodeAnnouncementPage(later);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UnsupportedPageVersionError);
    expect(error).toBeInstanceOf(InvalidAnnouncementError);
    expect(error).toMatchObject({ version: 3, code: 'INVALID_ANNOUNCEMENT' });
    expect((error as Error).message).toContain('version 3');
    expect((error as Error).message).toContain('JSON');
    expect(() => decodeAnnouncementPage(new TextEncoder().encode('{"announcements":[]}'))).toThrow(UnsupportedPageVersionError);
  });
});

describe('the fast page decoder', () => {
  const row = fc.record({
    id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    timestamp: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    viewTag: fc.integer({ min: 0, max: 255 }),
    schemeId: fc.constantFrom(1000, 3),
    channelId: fc.option(fc.uint8Array({ minLength: 32, maxLength: 32 })),
    txHash: fc.option(fc.oneof(fc.string(), fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${bytesToHex(b)}`), fc.string({ unit: 'binary', maxLength: 300 }))),
    amount: fc.option(fc.string()),
    chain: fc.option(fc.constantFrom('ethereum', 'base', 'eip155:10', 'ünïcode')),
    metadata: fc.option(fc.uint8Array({ maxLength: 120 })),
    stealthAddress: fc.option(fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${bytesToHex(b)}`)),
    position: fc.option(fc.tuple(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 0xffffffff }))),
    chainId: fc.option(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
  });
  const toAnnouncement = ({ position, schemeId, ...r }: typeof row extends fc.Arbitrary<infer T> ? T : never): RegistryAnnouncement => ({
    ...r,
    schemeId,
    ephemeralKey: new Uint8Array(schemeId === 3 ? 1121 : 1088).fill(r.viewTag),
    blockNumber: position?.[0] ?? null,
    logIndex: position?.[1] ?? null,
  });

  it('decodes every page to what the plain reference decoder gives, EIP-55 addresses included', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 8 }), (drawn) => {
        const page = encodeAnnouncementPage(drawn.map(toAnnouncement));
        const fast = decodeAnnouncementPage(page);
        const reference = decodeAnnouncementPageReference(page);
        expect(fast).toEqual(reference);
        // Read through the getter, and checked against viem's EIP-55.
        for (const [i, a] of fast.entries()) expect(a.stealthAddress).toBe(drawn[i]!.stealthAddress == null ? null : getAddress(drawn[i]!.stealthAddress!));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses exactly the pages the reference refuses: every cut, and random byte flips', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 3 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (drawn, where, xor) => {
        const page = encodeAnnouncementPage(drawn.map(toAnnouncement));
        const outcome = (decode: (b: Uint8Array) => unknown, bytes: Uint8Array) => {
          try {
            decode(bytes);
            return 'ok';
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidAnnouncementError);
            return 'refused';
          }
        };
        const cut = page.subarray(0, where % page.length);
        expect(outcome(decodeAnnouncementPage, cut)).toBe('refused');
        expect(outcome(decodeAnnouncementPageReference, cut)).toBe('refused');
        const flipped = page.slice();
        flipped[where % page.length]! ^= xor;
        const fast = outcome(decodeAnnouncementPage, flipped);
        expect(fast).toBe(outcome(decodeAnnouncementPageReference, flipped));
        if (fast === 'ok') expect(decodeAnnouncementPage(flipped)).toEqual(decodeAnnouncementPageReference(flipped));
      }),
      { numRuns: 300 },
    );
  });

  it('renders the stealth address and tx hash only when read, and spreading, JSON and assignment see them as plain fields', () => {
    const [decoded] = decodeAnnouncementPage(encodeAnnouncementPage([{ ...rows[1]!, stealthAddress: payment.stealthAddress.toLowerCase() }]));
    expect(Object.keys(decoded!)).toContain('stealthAddress');
    expect({ ...decoded! }.stealthAddress).toBe(payment.stealthAddress);
    expect(JSON.parse(JSON.stringify(decoded)).stealthAddress).toBe(payment.stealthAddress);
    // What a worker's postMessage does with a row.
    expect(structuredClone(decoded!)).toMatchObject({ stealthAddress: payment.stealthAddress, txHash: rows[1]!.txHash, chainId: 8453 });
    expect({ ...decoded! }.txHash).toBe(rows[1]!.txHash);
    expect(JSON.parse(JSON.stringify(decoded)).txHash).toBe(rows[1]!.txHash);
    decoded!.txHash = '0x1';
    expect({ ...decoded! }.txHash).toBe('0x1');
    decoded!.stealthAddress = null;
    expect(decoded!.stealthAddress).toBeNull();
    expect({ ...decoded! }.stealthAddress).toBeNull();
  });
});
