import { describe, expect, it } from 'vitest';
import { gcm } from '@noble/ciphers/aes.js';
import { shake256 } from '@noble/hashes/sha3.js';
import {
  ANNOUNCEMENT_METADATA_BYTES,
  announcementMetadata,
  bytesToHex,
  createStealthPayment,
  encodeNote,
  generateKeys,
  hexToBytes,
  openNote,
  sealNote,
  SEALED_NOTE_BYTES,
  SEALED_NOTE_V1_BYTES,
  ANNOUNCEMENT_METADATA_V1_BYTES,
  WraithError,
  type PaymentNote,
  type PaymentNoteInput,
} from '../src/index.ts';

const recipient = generateKeys();
const payment = createStealthPayment(recipient.metaAddress);
const K = payment.sharedSecret;
const txHash = `0x${'ab'.repeat(32)}` as const;

/** PROTOCOL.md section 8 written out again with the primitives: key and nonce without a length prefix. */
function independentCipher(sharedSecret: Uint8Array) {
  const ascii = (s: string) => new TextEncoder().encode(s);
  const key = shake256(new Uint8Array([...ascii('SPECTER_META_ENC_KEY_V1'), ...sharedSecret]), { dkLen: 32 });
  const nonce = shake256(new Uint8Array([...ascii('SPECTER_META_ENC_NONCE_V1'), ...sharedSecret]), { dkLen: 12 });
  return gcm(key, nonce);
}

const thrownBy = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
};
const expectCode = (run: () => unknown, code: string) => {
  const thrown = thrownBy(run);
  expect(thrown).toBeInstanceOf(WraithError);
  expect((thrown as WraithError).code).toBe(code);
};

describe('sealed notes (PROTOCOL.md section 8)', () => {
  const notes: [string, PaymentNoteInput, PaymentNote][] = [
    ['every field', { txHash, amount: 1_500_000_000_000_000_000n, chainId: 1n }, { txHash, amount: 1_500_000_000_000_000_000n, chainId: 1n, token: null }],
    ['the amount alone, as a decimal string', { amount: '250000000' }, { txHash: null, amount: 250_000_000n, chainId: null, token: null }],
    ['the largest amount and chain id, as numbers where they fit', { amount: 2n ** 256n - 1n, chainId: 2n ** 64n - 1n }, { txHash: null, amount: 2n ** 256n - 1n, chainId: 2n ** 64n - 1n, token: null }],
    ['a transaction hash as bytes and a chain id as a number', { txHash: new Uint8Array(32).fill(0x5d), chainId: 8453 }, { txHash: `0x${'5d'.repeat(32)}`, amount: null, chainId: 8453n, token: null }],
    ['an upper-case 0X hash and a number amount', { txHash: `0X${'AB'.repeat(32)}`, amount: 42 }, { txHash, amount: 42n, chainId: null, token: null }],
    ['zero fields, which read back as absent', { txHash: new Uint8Array(32), amount: 0n, chainId: 0 }, { txHash: null, amount: null, chainId: null, token: null }],
  ];

  it.each(notes)('without a token, seals %s into a 92-byte version-0 note that opens back to the same note', (_name, input, expected) => {
    const sealed = sealNote(K, input);
    expect(sealed).toHaveLength(SEALED_NOTE_BYTES);
    expect(openNote(K, sealed)).toEqual(expected);
  });

  it('is AES-256-GCM of the 76-byte plaintext under the key and nonce derived from K', () => {
    const input = { txHash, amount: 10n ** 18n, chainId: 1n };
    const plaintext = encodeNote(input);
    expect(bytesToHex(plaintext)).toBe('ab'.repeat(32) + (10n ** 18n).toString(16).padStart(64, '0') + '0000000000000001' + '00000000');
    expect(bytesToHex(sealNote(K, input))).toBe(bytesToHex(independentCipher(K).encrypt(plaintext)));
  });

  it('an empty note opens with every field absent, and sealing is deterministic for one payment', () => {
    expect(openNote(K, sealNote(K))).toEqual({ txHash: null, amount: null, chainId: null, token: null });
    expect(bytesToHex(sealNote(K, {}))).toBe(bytesToHex(sealNote(K)));
    expect(bytesToHex(sealNote(K, { amount: 1n }))).toBe(bytesToHex(sealNote(K, { amount: 1n })));
  });

  it('another payment seals the same note to different bytes, which its secret alone opens', () => {
    const other = createStealthPayment(recipient.metaAddress);
    const mine = sealNote(K, { amount: 7n });
    const theirs = sealNote(other.sharedSecret, { amount: 7n });
    expect(bytesToHex(theirs)).not.toBe(bytesToHex(mine));
    expect(openNote(K, theirs)).toBeNull();
    expect(openNote(other.sharedSecret, mine)).toBeNull();
  });

  it('a change to any byte of a sealed note makes it unreadable (null), never a different note', () => {
    const sealed = sealNote(K, { txHash, amount: 5n, chainId: 10n });
    for (let i = 0; i < sealed.length; i++) {
      const tampered = sealed.slice();
      tampered[i]! ^= 1 << (i % 8);
      expect(openNote(K, tampered)).toBeNull();
    }
  });

  it('a note of the wrong length is unreadable (null): empty, short, long, or the 93-byte metadata with its view tag', () => {
    const sealed = sealNote(K, { amount: 5n });
    for (const bytes of [new Uint8Array(0), sealed.subarray(0, 91), new Uint8Array([...sealed, 0]), announcementMetadata(payment, { amount: 5n })]) {
      expect(openNote(K, bytes)).toBeNull();
    }
  });

  it('a note whose 4 reserved bytes are not zero is unreadable even though it authenticates', () => {
    const plaintext = encodeNote({ amount: 5n });
    plaintext[75] = 1;
    expect(openNote(K, independentCipher(K).encrypt(plaintext))).toBeNull();
  });

  it.each([
    ['a negative amount', { amount: -1n }],
    ['an amount of 2^256', { amount: 2n ** 256n }],
    ['a fractional amount', { amount: 1.5 }],
    ['an unsafe number amount', { amount: 2 ** 60 }],
    ['an amount in exponent notation', { amount: '1e18' }],
    ['a negative decimal amount', { amount: '-1' }],
    ['a chain id of 2^64', { chainId: 2n ** 64n }],
    ['a negative chain id', { chainId: -1 }],
    ['a 31-byte transaction hash', { txHash: new Uint8Array(31) }],
    ['a 33-byte hex transaction hash', { txHash: '00'.repeat(33) }],
    ['a transaction hash that is not hex', { txHash: 'zz'.repeat(32) }],
  ] as [string, PaymentNoteInput][])('refuses %s with INVALID_ARGUMENT, naming the field', (_name, input) => {
    expectCode(() => sealNote(K, input), 'INVALID_ARGUMENT');
    const field = Object.keys(input)[0]!;
    expect(() => sealNote(K, input)).toThrow(`note.${field}`);
  });

  it('refuses a note that is not an object, and a shared secret that is not 32 bytes, with typed errors', () => {
    expectCode(() => sealNote(K, 'amount=5' as unknown as PaymentNoteInput), 'INVALID_ARGUMENT');
    expectCode(() => sealNote(K.subarray(0, 31), {}), 'INVALID_HEX');
    expectCode(() => openNote(K.subarray(0, 31), sealNote(K)), 'INVALID_HEX');
  });

  it('an error message never repeats the secret or the value it refused', () => {
    const error = thrownBy(() => sealNote(K, { amount: 2n ** 256n + 123456789n }));
    expect(error).toBeInstanceOf(WraithError);
    expect(String(error)).not.toContain('123456789');
    const secretError = thrownBy(() => sealNote(bytesToHex(K).slice(2) as unknown as Uint8Array, {}));
    expect(secretError).toBeInstanceOf(WraithError);
    expect(String(secretError)).not.toContain(bytesToHex(K).slice(2, 20));
  });
});

describe('the note that names its asset (PROTOCOL.md 8.1, version 1)', () => {
  const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

  it.each([
    ['a token by its EIP-55 address', { amount: 100_000_000n, chainId: 8453n, token: usdc }, usdc],
    ['a token in lower case without 0x', { amount: 1n, token: usdc.slice(2).toLowerCase() }, usdc],
    ['a token as 20 bytes', { amount: 1n, token: hexToBytes(usdc) }, usdc],
    ["the coin as 'coin'", { txHash, amount: 5n * 10n ** 17n, chainId: 1n, token: 'coin' }, 'coin'],
    ['the coin as the zero address', { amount: 5n, token: `0x${'00'.repeat(20)}` }, 'coin'],
  ] as [string, PaymentNoteInput, string][])('seals %s into 112 bytes that open back naming it', (_name, input, token) => {
    const sealed = sealNote(K, input);
    expect(sealed).toHaveLength(SEALED_NOTE_V1_BYTES);
    const opened = openNote(K, sealed)!;
    expect(opened.token).toBe(token);
    expect(opened.amount).toBe(BigInt(input.amount as bigint));
  });

  it('is AES-256-GCM of the 96-byte plaintext: version 0x00000001 then the token, zero for the coin', () => {
    const input = { txHash, amount: 10n ** 18n, chainId: 1n, token: usdc };
    const plaintext = encodeNote(input);
    expect(bytesToHex(plaintext)).toBe('ab'.repeat(32) + (10n ** 18n).toString(16).padStart(64, '0') + '0000000000000001' + '00000001' + usdc.slice(2).toLowerCase());
    expect(bytesToHex(sealNote(K, input))).toBe(bytesToHex(independentCipher(K).encrypt(plaintext)));
    expect(bytesToHex(encodeNote({ token: 'coin' }).subarray(72))).toBe('00000001' + '00'.repeat(20));
  });

  it('announcementMetadata with a token is 113 bytes: the view tag, then the version-1 note', () => {
    const metadata = announcementMetadata(payment, { amount: 3n, chainId: 1n, token: 'coin' });
    expect(metadata).toHaveLength(ANNOUNCEMENT_METADATA_V1_BYTES);
    expect(metadata[0]).toBe(payment.viewTag);
    expect(openNote(K, metadata.subarray(1))).toEqual({ txHash: null, amount: 3n, chainId: 1n, token: 'coin' });
    expect(announcementMetadata(payment, { amount: 3n, token: null })).toHaveLength(93);
  });

  it.each([
    ['a 96-byte plaintext whose version field says 0', 96, 0],
    ['a 96-byte plaintext whose version field says 2', 96, 2],
    ['a 76-byte plaintext whose version field says 1', 76, 1],
  ])('rejects %s: the version must match the length, even though it authenticates', (_name, length, version) => {
    const plaintext = new Uint8Array(length);
    plaintext[63] = 7; // amount 7
    plaintext[75] = version;
    expect(openNote(K, independentCipher(K).encrypt(plaintext))).toBeNull();
  });

  it('a version-1 note of the wrong length, or changed in any byte, is unreadable', () => {
    const sealed = sealNote(K, { amount: 5n, token: usdc });
    for (const bytes of [sealed.subarray(0, 111), new Uint8Array([...sealed, 0]), announcementMetadata(payment, { amount: 5n, token: usdc })]) expect(openNote(K, bytes)).toBeNull();
    for (let i = 0; i < sealed.length; i += 7) {
      const tampered = sealed.slice();
      tampered[i]! ^= 0x80;
      expect(openNote(K, tampered)).toBeNull();
    }
  });

  it.each([
    ['a 19-byte token', { token: `0x${'11'.repeat(19)}` }],
    ['a 32-byte token', { token: new Uint8Array(32) }],
    ['a token that is not hex', { token: 'USDC' }],
    ['a token spelled as another word for the coin', { token: 'eth' }],
  ] as [string, PaymentNoteInput][])('refuses %s with INVALID_ARGUMENT on note.token', (_name, input) => {
    expectCode(() => sealNote(K, input), 'INVALID_ARGUMENT');
    expect(() => sealNote(K, input)).toThrow('note.token');
  });
});

describe('announcementMetadata (PROTOCOL.md section 7)', () => {
  it('is the view tag alone without a note, and view tag + sealed note (93 bytes) with one', () => {
    expect([...announcementMetadata(payment)]).toEqual([payment.viewTag]);
    expect([...announcementMetadata(payment, null)]).toEqual([payment.viewTag]);
    const metadata = announcementMetadata(payment, { amount: 3n, chainId: 1n });
    expect(metadata).toHaveLength(ANNOUNCEMENT_METADATA_BYTES);
    expect(metadata[0]).toBe(payment.viewTag);
    expect(openNote(K, metadata.subarray(1))).toEqual({ txHash: null, amount: 3n, chainId: 1n, token: null });
    expect(announcementMetadata(payment, {})).toHaveLength(93);
  });

  it('refuses a view tag outside 0..255 and a payment that is not an object', () => {
    expectCode(() => announcementMetadata({ viewTag: 256, sharedSecret: K }), 'INVALID_ARGUMENT');
    expectCode(() => announcementMetadata({ viewTag: 1.5, sharedSecret: K }, {}), 'INVALID_ARGUMENT');
    expectCode(() => announcementMetadata(null as unknown as typeof payment), 'INVALID_ARGUMENT');
  });
});
