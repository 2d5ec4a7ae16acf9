import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import {
  bytesToHex,
  CURVE_ORDER,
  deriveKeysFromSignature,
  generateKeys,
  hexToBytes,
  InvalidKeystoreError,
  KeystoreTamperedError,
  openKeys,
  PBKDF2_ITERATIONS,
  sealKeys,
  WrongPasswordError,
  type KeystoreEnvelope,
} from '../src/index.ts';
import { launchChromium, skipBrowser } from '../../tests/helpers/chromium.ts';

const keys = generateKeys();
const FAST = { iterations: 100_000 }; // the minimum; the default 600,000 is tested once below
const same = (a: { metaAddress: Uint8Array; spendingSecretKey: Uint8Array; viewingSecretKey: Uint8Array }) => ({
  meta: bytesToHex(a.metaAddress),
  b: bytesToHex(a.spendingSecretKey),
  dk: bytesToHex(a.viewingSecretKey),
});

function flipBase64(text: string, at: number): string {
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  bytes[at]! ^= 1;
  return btoa(String.fromCharCode(...bytes));
}

describe('encrypted keystore', () => {
  it('round-trips generated keys with the default 600,000 PBKDF2 iterations, storing the 64-byte seed', async () => {
    const blob = await sealKeys(keys, 'correct horse battery staple');
    const envelope = JSON.parse(blob) as KeystoreEnvelope;
    expect(envelope).toMatchObject({ kind: 'wraith-keystore', version: 1, contents: 'seed', kdf: { name: 'pbkdf2-sha256', iterations: PBKDF2_ITERATIONS } });
    expect(atob(envelope.ciphertext).length).toBe(32 + 64 + 16); // b || seed || GCM tag
    expect(same(await openKeys(blob, 'correct horse battery staple'))).toEqual(same(keys));
  });

  it('never contains a secret in the clear', async () => {
    const blob = await sealKeys(keys, 'pw', FAST);
    for (const secret of [keys.spendingSecretKey, keys.viewingSeed, keys.viewingSecretKey.subarray(0, 32)]) {
      expect(blob).not.toContain(bytesToHex(secret));
      expect(blob).not.toContain(btoa(String.fromCharCode(...secret)).slice(0, 20));
    }
  });

  it('round-trips keys without a seed by storing the viewing secret key', async () => {
    const { viewingSeed: _omit, ...withoutSeed } = keys;
    const blob = await sealKeys(withoutSeed, 'pw', FAST);
    expect((JSON.parse(blob) as KeystoreEnvelope).contents).toBe('viewing-key');
    expect(same(await openKeys(blob, 'pw'))).toEqual(same(keys));
  });

  it('round-trips with scrypt', async () => {
    const blob = await sealKeys(keys, 'pw', { kdf: 'scrypt' });
    expect((JSON.parse(blob) as KeystoreEnvelope).kdf).toMatchObject({ name: 'scrypt', N: 131072, r: 8, p: 1 });
    expect(same(await openKeys(blob, 'pw'))).toEqual(same(keys));
  });

  it('uses a fresh salt and nonce each time', async () => {
    const [a, b] = [JSON.parse(await sealKeys(keys, 'pw', FAST)), JSON.parse(await sealKeys(keys, 'pw', FAST))] as KeystoreEnvelope[];
    expect(a!.kdf.salt).not.toBe(b!.kdf.salt);
    expect(a!.cipher.nonce).not.toBe(b!.cipher.nonce);
    expect(a!.ciphertext).not.toBe(b!.ciphertext);
  });

  it('a wrong password is a WrongPasswordError', async () => {
    const blob = await sealKeys(keys, 'right', FAST);
    await expect(openKeys(blob, 'wrong')).rejects.toBeInstanceOf(WrongPasswordError);
    await expect(openKeys(blob, 'Right')).rejects.toMatchObject({ code: 'WRONG_PASSWORD' });
  });

  it('a modified ciphertext, nonce or header with the right password is a KeystoreTamperedError', async () => {
    const envelope = JSON.parse(await sealKeys(keys, 'pw', FAST)) as KeystoreEnvelope;
    const tampered: KeystoreEnvelope[] = [
      { ...envelope, ciphertext: flipBase64(envelope.ciphertext, 5) },
      { ...envelope, ciphertext: flipBase64(envelope.ciphertext, 100) }, // inside the GCM tag
      { ...envelope, cipher: { ...envelope.cipher, nonce: flipBase64(envelope.cipher.nonce, 0) } },
      { ...envelope, contents: 'viewing-key' },
      { ...envelope, spendingPublicKey: bytesToHex(generateKeys().spendingPublicKey) },
    ];
    for (const blob of tampered) await expect(openKeys(JSON.stringify(blob), 'pw')).rejects.toBeInstanceOf(KeystoreTamperedError);
  });

  it('garbage is an InvalidKeystoreError, not a crash', async () => {
    const envelope = JSON.parse(await sealKeys(keys, 'pw', FAST)) as KeystoreEnvelope;
    const bad = ['not json', '{}', JSON.stringify({ ...envelope, version: 2 }), JSON.stringify({ ...envelope, kdf: { ...envelope.kdf, iterations: -1 } }), JSON.stringify({ ...envelope, ciphertext: '@@' })];
    for (const blob of bad) await expect(openKeys(blob, 'pw')).rejects.toBeInstanceOf(InvalidKeystoreError);
  });

  it('refuses an empty password and weak iteration counts', async () => {
    await expect(sealKeys(keys, '')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(sealKeys(keys, 'pw', { iterations: 1000 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it.skipIf(skipBrowser)('a keystore sealed in Node opens in Chromium, and a wrong password fails there too', async () => {
    const blob = await sealKeys(keys, 'cross-env pw', FAST);
    const bundle = await build({
      entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'Wraith',
      write: false,
      logLevel: 'silent',
    });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      // WebCrypto needs a secure context: serve an empty page on an https origin by interception.
      await page.route('https://wallet.test/', (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>wallet</title>' }));
      await page.goto('https://wallet.test/');
      await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
      const out = await page.evaluate(async (sealed) => {
        const W = (globalThis as any).Wraith;
        const opened = await W.openKeys(sealed, 'cross-env pw');
        let wrong = '';
        try {
          await W.openKeys(sealed, 'nope');
        } catch (e: any) {
          wrong = e.code;
        }
        const resealed = await W.sealKeys(opened, 'browser pw', { iterations: 100000 });
        return { meta: W.bytesToHex(opened.metaAddress), wrong, resealed };
      }, blob);
      expect(out.meta).toBe(bytesToHex(keys.metaAddress));
      expect(out.wrong).toBe('WRONG_PASSWORD');
      expect(bytesToHex((await openKeys(out.resealed, 'browser pw')).metaAddress)).toBe(bytesToHex(keys.metaAddress)); // and back
    } finally {
      await browser.close();
    }
  });
});

describe('deriveKeysFromSignature', () => {
  const wallet = secp256k1.utils.randomSecretKey();
  const digest = keccak_256(new TextEncoder().encode('Wraith stealth keys v1'));
  const sig = secp256k1.sign(digest, wallet, { prehash: false, format: 'recovered' }); // v || r || s
  const rs = sig.subarray(1);
  const rsv = new Uint8Array([...rs, 27 + sig[0]!]);

  it('gives the same keys for the same signature, in 65-byte and 64-byte form', () => {
    const a = deriveKeysFromSignature(rsv);
    const b = deriveKeysFromSignature('0x' + bytesToHex(rs));
    expect(bytesToHex(a.metaAddress)).toBe(bytesToHex(b.metaAddress));
  });

  it('reads a 64-byte signature as EIP-2098 compact, whose top bit is yParity, for either parity', () => {
    const withParity = rs.slice();
    withParity[32]! |= 0x80; // yParity = 1
    expect(bytesToHex(deriveKeysFromSignature(withParity).metaAddress)).toBe(bytesToHex(deriveKeysFromSignature(rsv).metaAddress));
    expect(bytesToHex(deriveKeysFromSignature(rs).metaAddress)).toBe(bytesToHex(deriveKeysFromSignature(rsv).metaAddress));
  });

  it('gives the same keys for the malleable twin (r, n - s)', () => {
    const s = BigInt('0x' + bytesToHex(rs.subarray(32)));
    const twin = new Uint8Array([...rs.subarray(0, 32), ...hexToBytes((CURVE_ORDER - s).toString(16).padStart(64, '0')), 27]);
    expect(bytesToHex(deriveKeysFromSignature(twin).metaAddress)).toBe(bytesToHex(deriveKeysFromSignature(rsv).metaAddress));
  });

  it('gives different keys for a different signature', () => {
    const other = secp256k1.sign(keccak_256(new TextEncoder().encode('other')), wallet, { prehash: false });
    expect(bytesToHex(deriveKeysFromSignature(other).metaAddress)).not.toBe(bytesToHex(deriveKeysFromSignature(rsv).metaAddress));
  });

  it('refuses wrong lengths and out-of-range r or s', () => {
    expect(() => deriveKeysFromSignature(new Uint8Array(63))).toThrow(/64 or 65 bytes/);
    expect(() => deriveKeysFromSignature(new Uint8Array(65))).toThrow(/out of range/);
  });
});
