import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  createScanner,
  createStealthPayment,
  decodeMetaAddress,
  deriveStealthAddress,
  deriveStealthKeys,
  encodeMetaAddress,
  formatMetaAddressUri,
  generateKeys,
  hexToBytes,
  scanAnnouncements,
  type Announcement,
  type ScanKernelFactory,
  typescriptKernel,
} from '../src/index.ts';

const alice = generateKeys();

describe('keys', () => {
  it('generates a fresh identity each call', () => {
    const other = generateKeys();
    expect(bytesToHex(other.spendingSecretKey)).not.toBe(bytesToHex(alice.spendingSecretKey));
    expect(bytesToHex(other.viewingSecretKey)).not.toBe(bytesToHex(alice.viewingSecretKey));
  });

  it('regenerates the same keys from the spending secret and the viewing seed (backup/restore)', () => {
    const restored = generateKeys({ spendingSecret: alice.spendingSecretKey, viewingSeed: alice.viewingSeed });
    expect(bytesToHex(restored.metaAddress)).toBe(bytesToHex(alice.metaAddress));
    expect(bytesToHex(restored.viewingSecretKey)).toBe(bytesToHex(alice.viewingSecretKey));
  });

  it('has the sizes of PROTOCOL.md section 2', () => {
    expect(alice.spendingPublicKey.length).toBe(33);
    expect(alice.spendingSecretKey.length).toBe(32);
    expect(alice.viewingPublicKey.length).toBe(1184);
    expect(alice.viewingSecretKey.length).toBe(2400);
    expect(alice.metaAddress.length).toBe(1218);
    expect(Number.isInteger(alice.baseViewTag) && alice.baseViewTag >= 0 && alice.baseViewTag <= 255).toBe(true);
  });
});

describe('meta-address', () => {
  const hex = bytesToHex(alice.metaAddress);

  it.each([
    ['bytes', alice.metaAddress],
    ['hex', hex],
    ['0x hex', '0x' + hex],
    ['0X upper-case hex with whitespace', '  0X' + hex.toUpperCase() + '\n'],
    ['st:eth URI', 'st:eth:0x' + hex],
    ['st:sui URI', 'st:sui:0x' + hex],
  ] as const)('decodes from %s to the same keys', (_form, input) => {
    const meta = decodeMetaAddress(input);
    expect(bytesToHex(meta.bytes)).toBe(hex);
    expect(bytesToHex(meta.spendingPublicKey)).toBe(bytesToHex(alice.spendingPublicKey));
    expect(bytesToHex(meta.viewingPublicKey)).toBe(bytesToHex(alice.viewingPublicKey));
  });

  it('keeps the chain of an st: URI and formats it back', () => {
    const uri = formatMetaAddressUri(alice.metaAddress, 'sui');
    expect(uri).toBe('st:sui:0x' + hex);
    expect(decodeMetaAddress(uri).chain).toBe('sui');
  });

  it('encodes the two public keys to the same bytes generateKeys published', () => {
    const encoded = encodeMetaAddress({ spendingPublicKey: alice.spendingPublicKey, viewingPublicKey: bytesToHex(alice.viewingPublicKey) });
    expect(bytesToHex(encoded)).toBe(hex);
  });
});

describe('payments and scanning', () => {
  it('two payments to one recipient share no address, ciphertext, tag pattern or secret', () => {
    const a = createStealthPayment(alice.metaAddress);
    const b = createStealthPayment(alice.metaAddress);
    expect(a.stealthAddress).not.toBe(b.stealthAddress);
    expect(a.stealthSuiAddress).not.toBe(b.stealthSuiAddress);
    expect(bytesToHex(a.ephemeralCiphertext)).not.toBe(bytesToHex(b.ephemeralCiphertext));
    expect(bytesToHex(a.sharedSecret)).not.toBe(bytesToHex(b.sharedSecret));
    // Neither address is the recipient's own spending-key address.
    const own = deriveStealthAddress({ spendingPublicKey: alice.spendingPublicKey, sharedSecret: new Uint8Array(32) });
    expect([a.stealthAddress, b.stealthAddress]).not.toContain(own.stealthAddress);
  });

  it('is deterministic with an encapsulation message and random without one', () => {
    const m = new Uint8Array(32).fill(7);
    const a = createStealthPayment(alice.metaAddress, { message: m });
    const b = createStealthPayment(bytesToHex(alice.metaAddress), { message: bytesToHex(m) });
    expect(a.stealthAddress).toBe(b.stealthAddress);
    expect(createStealthPayment(alice.metaAddress).stealthAddress).not.toBe(a.stealthAddress);
  });

  it('finds each payment in both announcement forms, with the address the sender paid and a key that matches it', () => {
    const payments = [createStealthPayment(alice.metaAddress), createStealthPayment(alice.metaAddress)];
    const bob = generateKeys();
    const foreign = createStealthPayment(bob.metaAddress);
    const records = [
      { id: 1, ephemeral_key: bytesToHex(payments[0]!.ephemeralCiphertext), view_tag: payments[0]!.viewTag, tx_hash: '0x01' },
      { id: 2, ephemeral_key: '0x' + bytesToHex(foreign.ephemeralCiphertext), view_tag: foreign.viewTag },
    ];
    const bytesForm: Announcement[] = [{ id: 3, ephemeralKey: payments[1]!.ephemeralCiphertext, viewTag: payments[1]!.viewTag }];
    const scanner = createScanner(alice);
    const first = scanner.scan(records);
    const second = scanner.scan(bytesForm);
    expect(first.discoveries.map((d) => d.announcement.id)).toEqual([1]);
    expect(first.discoveries[0]!.announcement.tx_hash).toBe('0x01');
    expect(first.discoveries[0]!.stealthAddress).toBe(payments[0]!.stealthAddress);
    expect(second.discoveries.map((d) => d.stealthSuiAddress)).toEqual([payments[1]!.stealthSuiAddress]);
    const found = [first.discoveries[0]!, second.discoveries[0]!];
    found.forEach((d, i) => {
      const expected = deriveStealthKeys({ spendingSecretKey: alice.spendingSecretKey, sharedSecret: payments[i]!.sharedSecret });
      expect(bytesToHex(d.stealthSecretKey!)).toBe(bytesToHex(expected.stealthSecretKey));
    });
    expect(first.stats).toMatchObject({ totalScanned: 2, discoveries: 1, malformed: 0 });
    expect(first.stats.viewTagMatches).toBeGreaterThanOrEqual(1);
  });

  it('a view-only scan reveals addresses and the shared secret but no spending key', () => {
    const payment = createStealthPayment(alice.metaAddress);
    const { discoveries } = scanAnnouncements(
      { viewingSecretKey: bytesToHex(alice.viewingSecretKey), spendingPublicKey: '0x' + bytesToHex(alice.spendingPublicKey) },
      [{ id: 9, ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag }],
    );
    expect(discoveries).toHaveLength(1);
    expect(discoveries[0]!.stealthSecretKey).toBeUndefined();
    expect(bytesToHex(discoveries[0]!.sharedSecret!)).toBe(bytesToHex(payment.sharedSecret));
    expect(discoveries[0]!.stealthAddress).toBe(payment.stealthAddress);
  });

  it('skips malformed registry rows and counts them instead of failing the scan', () => {
    const payment = createStealthPayment(alice.metaAddress);
    const rows = [
      { id: 1, ephemeral_key: 'zz', view_tag: 1 },
      { id: 2, ephemeral_key: '00'.repeat(1088), view_tag: 1 },
      { id: 3, ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: 256 },
      { id: 4, ephemeral_key: bytesToHex(payment.ephemeralCiphertext).slice(2), view_tag: payment.viewTag },
      { id: 5, ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag },
    ];
    const { discoveries, stats } = scanAnnouncements(alice, rows);
    expect(discoveries.map((d) => d.announcement.id)).toEqual([5]);
    expect(stats).toMatchObject({ totalScanned: 5, malformed: 4, discoveries: 1 });
  });

  it("mode 'constant' finds the same payments with the same stats, and an unknown mode is refused", () => {
    const mine = createStealthPayment(alice.metaAddress);
    const other = createStealthPayment(generateKeys().metaAddress);
    const rows = [mine, other, mine].map((p, i) => ({ id: i + 1, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag }));
    const fast = scanAnnouncements(alice, rows);
    const constant = scanAnnouncements(alice, rows, { mode: 'constant' });
    expect(constant.discoveries.map((d) => [d.index, d.stealthAddress])).toEqual(fast.discoveries.map((d) => [d.index, d.stealthAddress]));
    expect(constant.discoveries).toHaveLength(2);
    expect(constant.stats.viewTagMatches).toBe(fast.stats.viewTagMatches);
    expect(() => scanAnnouncements(alice, rows, { mode: 'quick' as never })).toThrow(/mode/);
  });

  it("mode 'constant' runs the re-encryption check on every well-formed announcement, 'fast' only on tag matches", () => {
    const rows = Array.from({ length: 300 }, (_, i) => {
      const p = createStealthPayment((i % 100 === 0 ? alice : generateKeys()).metaAddress);
      return i === 7 ? { id: i, ephemeral_key: 'zz', view_tag: 0 } : { id: i, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag };
    });
    const counting = (calls: { n: number }): ScanKernelFactory => (key) => {
      const inner = typescriptKernel(key);
      return { candidate: (c, out) => inner.candidate(c, out), confirm: (c, k) => (calls.n++, inner.confirm(c, k)) };
    };
    const fastCalls = { n: 0 };
    const constantCalls = { n: 0 };
    const fast = createScanner(alice, { kernel: counting(fastCalls) }).scan(rows);
    const constant = createScanner(alice, { kernel: counting(constantCalls), mode: 'constant' }).scan(rows);
    expect(constantCalls.n).toBe(299); // every row but the malformed one
    expect(fastCalls.n).toBe(fast.stats.viewTagMatches);
    expect(fastCalls.n).toBeLessThan(20);
    expect(constant.discoveries.map((d) => d.index)).toEqual([0, 100, 200]);
    expect(fast.discoveries.map((d) => d.index)).toEqual([0, 100, 200]);
  });

  it('a batch kernel sees every well-formed announcement once, in order, across chunk boundaries', () => {
    const mine = new Set([3, 64, 65, 127, 149]);
    const rows = Array.from({ length: 150 }, (_, i) => {
      const p = createStealthPayment(mine.has(i) ? alice.metaAddress : generateKeys().metaAddress);
      return i === 100 ? { id: i, ephemeral_key: 'zz', view_tag: 0 } : { id: i, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag };
    });
    const seen: string[] = [];
    const batched: ScanKernelFactory = (key) => {
      const single = typescriptKernel(key);
      return {
        ...single,
        candidate: () => {
          throw new Error('the scanner must use the batch method');
        },
        candidates(ciphertexts, count, candidates, tags) {
          for (let k = 0; k < count; k++) {
            const c = ciphertexts.subarray(k * 1088, (k + 1) * 1088);
            seen.push(bytesToHex(c.subarray(0, 8)));
            tags[k] = single.candidate(c, candidates.subarray(k * 32, (k + 1) * 32));
          }
        },
      };
    };
    const { discoveries, stats } = scanAnnouncements(alice, rows, { kernel: batched });
    expect(discoveries.map((d) => d.announcement.id)).toEqual([...mine]);
    expect(stats).toMatchObject({ totalScanned: 150, malformed: 1, discoveries: 5 });
    expect(seen).toEqual(rows.filter((r) => r.id !== 100).map((r) => r.ephemeral_key.slice(0, 16)));
  });

  it('hexToBytes and bytesToHex round-trip', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(hexToBytes(bytesToHex(bytes))).toEqual(bytes);
  });
});
