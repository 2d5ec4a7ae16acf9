import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha3_256, sha3_512 } from '@noble/hashes/sha3.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import {
  bytesToHex,
  createScanner,
  createStealthPayment,
  CURVE_ORDER,
  decodeMetaAddress,
  deriveStealthKeys,
  encodeMetaAddress,
  generateKeys,
  hexToBytes,
  InvalidHexError,
  InvalidKeyError,
  InvalidMetaAddressError,
  KeyMismatchError,
  LegacyMetaAddressError,
  WraithError,
  type WraithErrorCode,
} from '../src/index.ts';

const keys = generateKeys();
const metaHex = bytesToHex(keys.metaAddress);
const FIELD_P = secp256k1.Point.Fp.ORDER;
const hex32 = (x: bigint) => x.toString(16).padStart(64, '0');

/** Smallest x whose point 02||x is valid (`on`) or invalid (`off`) on secp256k1. */
function smallX(on: boolean): bigint {
  for (let x = 1n; ; x++) {
    let valid = true;
    try {
      secp256k1.Point.fromBytes(hexToBytes('02' + hex32(x)));
    } catch {
      valid = false;
    }
    if (valid === on) return x;
  }
}

function withSpendingKey(spendingKeyHex: string): string {
  return '02' + spendingKeyHex + metaHex.slice(2 + 66);
}

/** ek whose first 12-bit coefficient is `value` (the rest as in a real key). */
function withFirstCoefficient(value: number): string {
  const ek = keys.viewingPublicKey.slice();
  ek[0] = value & 0xff;
  ek[1] = (ek[1]! & 0xf0) | (value >> 8);
  return bytesToHex(ek);
}

/** The real key's ek with t_hat zeroed and rho kept: passes the FIPS 203 modulus check. */
const zeroTHat = keys.viewingPublicKey.slice();
zeroTHat.fill(0, 0, 1152);
const zeroTHatHex = bytesToHex(zeroTHat);

function expectError(call: () => unknown, type: new (...args: never[]) => WraithError, code: WraithErrorCode, secret?: string) {
  let caught: unknown;
  try {
    call();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(type);
  const error = caught as WraithError;
  expect(error.code).toBe(code);
  expect(error.message.length).toBeGreaterThan(10);
  if (secret) {
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error.details)).not.toContain(secret);
  }
}

describe('meta-address decoding refuses every malformed input with a typed error', () => {
  const offCurveX = smallX(false);
  const onCurveX = smallX(true);
  const cases: [string, string | Uint8Array][] = [
    ['empty string', ''],
    ['only 0x', '0x'],
    ['odd number of hex digits', metaHex.slice(1)],
    ['a non-hex character', metaHex.slice(0, -1) + 'g'],
    ['a non-ASCII character whose low byte is a digit (U+0130)', metaHex.slice(0, -1) + '\u0130'],
    ['one byte short', metaHex.slice(0, -2)],
    ['one trailing byte', metaHex + '00'],
    ['unknown version 0x03', '03' + metaHex.slice(2)],
    ['version 0x00', '00' + metaHex.slice(2)],
    ['all-zero bytes', new Uint8Array(1218)],
    ['an uncompressed-point prefix 04', withSpendingKey('04' + hex32(onCurveX))],
    ['a spending key not on the curve', withSpendingKey('02' + hex32(offCurveX))],
    ['a non-canonical spending key (x >= p)', withSpendingKey('02' + hex32(onCurveX + FIELD_P))],
    ['an all-zero spending key', withSpendingKey('00'.repeat(33))],
    ['an ML-KEM coefficient equal to 3329', metaHex.slice(0, 68) + withFirstCoefficient(3329)],
    ['an ML-KEM coefficient of 4095', metaHex.slice(0, 68) + withFirstCoefficient(4095)],
    ['an all-zero ML-KEM key (t_hat = 0, rho kept)', metaHex.slice(0, 68) + zeroTHatHex],
    ['an st: URI with bad hex', 'st:eth:0xzz'],
    ['an st: URI with no chain', 'st::0x' + metaHex],
  ];

  it.each(cases)('%s', (_name, input) => {
    expectError(() => decodeMetaAddress(input), InvalidMetaAddressError, 'INVALID_META_ADDRESS');
    expectError(() => createStealthPayment(input), InvalidMetaAddressError, 'INVALID_META_ADDRESS');
  });

  it('refuses t_hat = 0 because anyone could read the shared secret of a payment to it', () => {
    // Why it matters: with t_hat = 0, v = Compress_4(e2 + Decompress_1(m)) carries m in the
    // clear, so an observer recovers K = SHA3-512(m || H(ek))[0..32] from the ciphertext alone.
    const { cipherText, sharedSecret } = ml_kem768.encapsulate(zeroTHat);
    const m = new Uint8Array(32);
    for (let i = 0; i < 256; i++) {
      const nibble = (cipherText[960 + (i >> 1)]! >> ((i & 1) * 4)) & 0x0f;
      const v = Math.round((nibble * 3329) / 16);
      if (v > 832 && v < 2497) m[i >> 3]! |= 1 << (i & 7);
    }
    const recovered = sha3_512(new Uint8Array([...m, ...sha3_256(zeroTHat)])).slice(0, 32);
    expect(bytesToHex(recovered)).toBe(bytesToHex(sharedSecret));
    expectError(() => createStealthPayment(metaHex.slice(0, 68) + zeroTHatHex), InvalidMetaAddressError, 'INVALID_META_ADDRESS');
    expectError(
      () => encodeMetaAddress({ spendingPublicKey: keys.spendingPublicKey, viewingPublicKey: zeroTHat }),
      InvalidKeyError,
      'INVALID_KEY',
    );
  });

  it('accepts the boundary coefficient 3328', () => {
    expect(() => decodeMetaAddress(metaHex.slice(0, 68) + withFirstCoefficient(3328))).not.toThrow();
  });

  it('refuses a legacy version-1 meta-address, saying why and what to do', () => {
    const legacy = '01' + bytesToHex(keys.viewingPublicKey) + bytesToHex(generateKeys().viewingPublicKey);
    expect(legacy.length).toBe(2369 * 2);
    expectError(() => decodeMetaAddress(legacy), LegacyMetaAddressError, 'LEGACY_META_ADDRESS');
    expectError(() => createStealthPayment('st:eth:0x' + legacy), LegacyMetaAddressError, 'LEGACY_META_ADDRESS');
    const message = (() => {
      try {
        decodeMetaAddress(legacy);
      } catch (error) {
        return (error as Error).message;
      }
    })()!;
    expect(message).toMatch(/sender/i);
    expect(message).toMatch(/generate new keys/i);
  });

  it('encodeMetaAddress validates the keys it is given', () => {
    expectError(
      () => encodeMetaAddress({ spendingPublicKey: keys.spendingSecretKey, viewingPublicKey: keys.viewingPublicKey }),
      InvalidHexError,
      'INVALID_HEX',
    );
    expectError(
      () => encodeMetaAddress({ spendingPublicKey: keys.spendingPublicKey, viewingPublicKey: withFirstCoefficient(4000) }),
      InvalidKeyError,
      'INVALID_KEY',
    );
  });
});

describe('key inputs are checked and never echoed', () => {
  const secretHex = bytesToHex(keys.spendingSecretKey);

  it.each([
    ['a zero scalar', '00'.repeat(32), InvalidKeyError, 'INVALID_KEY'],
    ['the group order n', hex32(CURVE_ORDER), InvalidKeyError, 'INVALID_KEY'],
    ['n + 1', hex32(CURVE_ORDER + 1n), InvalidKeyError, 'INVALID_KEY'],
    ['all 0xff', 'ff'.repeat(32), InvalidKeyError, 'INVALID_KEY'],
    ['31 bytes', secretHex.slice(2), InvalidHexError, 'INVALID_HEX'],
    ['33 bytes', secretHex + '01', InvalidHexError, 'INVALID_HEX'],
    ['odd hex', secretHex.slice(1), InvalidHexError, 'INVALID_HEX'],
  ] as const)('generateKeys refuses a spending secret of %s', (_n, spendingSecret, type, code) => {
    expectError(() => generateKeys({ spendingSecret }), type, code, spendingSecret.length > 20 ? spendingSecret.slice(4, 40) : undefined);
  });

  it('generateKeys refuses a viewing seed that is not 64 bytes', () => {
    expectError(() => generateKeys({ viewingSeed: new Uint8Array(32) }), InvalidHexError, 'INVALID_HEX');
  });

  it('createStealthPayment refuses an encapsulation message that is not 32 bytes', () => {
    expectError(() => createStealthPayment(keys.metaAddress, { message: new Uint8Array(31) }), InvalidHexError, 'INVALID_HEX');
  });

  it('deriveStealthKeys refuses a shared secret that is not 32 bytes', () => {
    expectError(
      () => deriveStealthKeys({ spendingSecretKey: keys.spendingSecretKey, sharedSecret: new Uint8Array(33) }),
      InvalidHexError,
      'INVALID_HEX',
    );
  });

  const viewingHex = bytesToHex(keys.viewingSecretKey);
  const corrupted = keys.viewingSecretKey.slice();
  corrupted[1500]! ^= 1; // inside the embedded ek: its hash no longer matches
  const weak = keys.viewingSecretKey.slice(); // embedded ek with t_hat = 0 and a matching H(ek)
  weak.set(zeroTHat, 1152);
  weak.set(sha3_256(zeroTHat), 2336);

  it.each([
    ['a viewing secret key one byte short', { ...keys, viewingSecretKey: viewingHex.slice(2) }, InvalidHexError, 'INVALID_HEX'],
    ['an all-zero viewing secret key', { ...keys, viewingSecretKey: new Uint8Array(2400) }, InvalidKeyError, 'INVALID_KEY'],
    ['a corrupted viewing secret key', { ...keys, viewingSecretKey: corrupted }, InvalidKeyError, 'INVALID_KEY'],
    ['a viewing secret key whose ek has t_hat = 0', { viewingSecretKey: weak, spendingPublicKey: keys.spendingPublicKey }, InvalidKeyError, 'INVALID_KEY'],
    ['an all-zero spending public key', { ...keys, spendingPublicKey: new Uint8Array(33) }, InvalidKeyError, 'INVALID_KEY'],
    ['a spending secret of another identity', { ...keys, spendingSecretKey: generateKeys().spendingSecretKey }, KeyMismatchError, 'KEY_MISMATCH'],
    ['a viewing public key of another identity', { ...keys, viewingPublicKey: generateKeys().viewingPublicKey }, KeyMismatchError, 'KEY_MISMATCH'],
    ['viewing secret key hex with a bad character', { ...keys, viewingSecretKey: viewingHex.slice(0, -1) + 'x' }, InvalidHexError, 'INVALID_HEX'],
  ] as const)('createScanner refuses %s', (_n, scanKeys, type, code) => {
    expectError(() => createScanner(scanKeys), type, code, viewingHex.slice(100, 160));
  });
});

describe('hexToBytes', () => {
  // A straightforward decoder: the oracle for the table-driven one.
  const oracle = (text: string) => {
    const s = text.trim().replace(/^0x/i, '');
    if (s.length === 0 || s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) return 'INVALID_HEX';
    return Array.from({ length: s.length / 2 }, (_, i) => parseInt(s.slice(2 * i, 2 * i + 2), 16));
  };
  const decode = (text: string) => {
    try {
      return Array.from(hexToBytes(text));
    } catch (error) {
      return (error as WraithError).code;
    }
  };
  const random = crypto.getRandomValues(new Uint8Array(12_000)); // 24,000 digits: past the reused buffer
  const long = bytesToHex(random);

  it.each([
    ['lowercase', 'a0ff'],
    ['uppercase with 0X and whitespace', ' \n0XA0FF\t'],
    ['mixed case with 0x', '0xa0Ff'],
    ['a long text', long],
    ['a long text in uppercase', long.toUpperCase()],
  ])('decodes %s', (_name, text) => {
    expect(decode(text)).toEqual(oracle(text));
  });

  const bad = ['g', 'G', ' ', '\0', '\x7f', 'é', 'ā', '😀'.slice(0, 1), '😀'.slice(1)];
  it.each(bad.flatMap((c) => [0, 1, 5].map((at) => [JSON.stringify(c), at] as const)))(
    'refuses %s at position %i, in short and long texts',
    (char, at) => {
      const c = JSON.parse(char) as string;
      for (const base of ['00112233', long]) {
        const text = base.slice(0, at) + c + base.slice(at + c.length);
        expect(text.length).toBe(base.length);
        expect(decode(text)).toBe('INVALID_HEX');
      }
      expect(decode('00112233' + c + '4')).toBe('INVALID_HEX'); // the last position
    },
  );

  it('refuses a pair of emoji (a 4-byte UTF-8 character in an even-length text) and decodes correctly afterwards', () => {
    expect(decode('00😀11')).toBe('INVALID_HEX');
    expect(decode('😀'.repeat(4000))).toBe('INVALID_HEX');
    expect(decode('0a1b')).toEqual([0x0a, 0x1b]);
  });

  it('equals a straightforward decoder on random texts of hex digits and other characters', () => {
    const alphabet = '0123456789abcdefABCDEFgxz é';
    for (let round = 0; round < 500; round++) {
      const length = 2 * (1 + Math.floor(Math.random() * 20));
      const text = Array.from({ length }, () => alphabet[Math.floor(Math.random() * (Math.random() < 0.9 ? 22 : alphabet.length))]).join('');
      expect(decode(text)).toEqual(oracle(text));
    }
  });
});
