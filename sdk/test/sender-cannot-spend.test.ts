/**
 * The security property that motivates wire format v2 (PROTOCOL.md section 2): the sender knows
 * the meta-address, the ciphertext and the shared secret, yet cannot obtain the one-time secret
 * `p`; the recipient's `p` really controls the stealth addresses.
 */
import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import {
  bytesToHex,
  computeViewTag,
  createStealthPayment,
  decodeMetaAddress,
  deriveStealthAddress,
  deriveStealthKeys,
  deriveStealthTweak,
  generateKeys,
  hexToBytes,
  InvalidKeyError,
  KeyMismatchError,
  scanAnnouncements,
  type StealthKeys,
} from '../src/index.ts';

/** Independent EVM address of a secret key: keccak256 of the uncompressed point, last 20 bytes. */
function evmAddressOfSecret(secret: Uint8Array): string {
  const uncompressed = secp256k1.getPublicKey(secret, false);
  return '0x' + bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12));
}
function suiAddressOfSecret(secret: Uint8Array): string {
  return '0x' + bytesToHex(blake2b(Uint8Array.of(1, ...secp256k1.getPublicKey(secret, true)), { dkLen: 32 }));
}
const scalarBytes = (x: bigint) => hexToBytes(x.toString(16).padStart(64, '0'));

const recipient = generateKeys();
const sender = generateKeys(); // the sender's own keys: the only spending secret it holds
const payment = createStealthPayment(recipient.metaAddress);
const spend: StealthKeys = deriveStealthKeys({
  spendingSecretKey: recipient.spendingSecretKey,
  spendingPublicKey: recipient.spendingPublicKey,
  sharedSecret: payment.sharedSecret,
});
const p = bytesToHex(spend.stealthSecretKey);

describe('the sender cannot spend', () => {
  it('the recipient\'s p controls both stealth addresses (checked with independent hashing)', () => {
    expect(evmAddressOfSecret(spend.stealthSecretKey)).toBe(payment.stealthAddress.toLowerCase());
    expect(suiAddressOfSecret(spend.stealthSecretKey)).toBe(payment.stealthSuiAddress);
  });

  it('a signature made with p recovers to the stealth address', () => {
    const digest = keccak_256(new TextEncoder().encode('withdraw'));
    const signature = secp256k1.sign(digest, spend.stealthSecretKey, { prehash: false, format: 'recovered' });
    const signer = secp256k1.recoverPublicKey(signature, digest, { prehash: false });
    expect('0x' + bytesToHex(keccak_256(secp256k1.Point.fromBytes(signer).toBytes(false).subarray(1)).subarray(12))).toBe(
      payment.stealthAddress.toLowerCase(),
    );
  });

  it('deriveStealthKeys refuses to run without the spending secret', () => {
    const call = () =>
      deriveStealthKeys({ sharedSecret: payment.sharedSecret, spendingPublicKey: recipient.spendingPublicKey } as never);
    expect(call).toThrow(InvalidKeyError);
  });

  it('deriveStealthKeys refuses the sender\'s own spending secret for the recipient\'s public key', () => {
    expect(() =>
      deriveStealthKeys({
        spendingSecretKey: sender.spendingSecretKey,
        spendingPublicKey: recipient.spendingPublicKey,
        sharedSecret: payment.sharedSecret,
      }),
    ).toThrow(KeyMismatchError);
  });

  it('with any spending secret but b, the derived key does not control the stealth address', () => {
    const wrong = deriveStealthKeys({ spendingSecretKey: sender.spendingSecretKey, sharedSecret: payment.sharedSecret });
    expect(wrong.stealthAddress).not.toBe(payment.stealthAddress);
    expect(evmAddressOfSecret(wrong.stealthSecretKey)).not.toBe(payment.stealthAddress.toLowerCase());
  });

  it('no value the SDK derives from the sender\'s knowledge equals p or controls the address', () => {
    // Everything the sender has: meta-address, ciphertext, shared secret (and the public outputs).
    const meta = decodeMetaAddress(recipient.metaAddress);
    const tweak = deriveStealthTweak(payment.sharedSecret);
    const publicOnly = deriveStealthAddress({ spendingPublicKey: meta.spendingPublicKey, sharedSecret: payment.sharedSecret });
    const candidates: Uint8Array[] = [
      payment.sharedSecret,
      payment.ephemeralCiphertext,
      payment.stealthPublicKey,
      publicOnly.stealthPublicKey,
      meta.spendingPublicKey,
      meta.viewingPublicKey,
      meta.bytes,
      scalarBytes(tweak),
      Uint8Array.of(computeViewTag(payment.sharedSecret)),
    ];
    for (const value of candidates) {
      expect(bytesToHex(value)).not.toContain(p);
      if (value.length === 32 && secp256k1.utils.isValidSecretKey(value)) {
        expect(evmAddressOfSecret(value)).not.toBe(payment.stealthAddress.toLowerCase());
      }
    }
    expect(Object.keys(publicOnly)).not.toContain('stealthSecretKey');
    expect(Object.keys(payment)).not.toContain('stealthSecretKey');
    // t alone (the sender's best guess) is not the key: p = b + t.
    expect(evmAddressOfSecret(scalarBytes(tweak))).not.toBe(payment.stealthAddress.toLowerCase());
  });

  it('a view-only scan (viewing key, no spending secret) finds the payment but yields no spend key', () => {
    const { discoveries } = scanAnnouncements(
      { viewingSecretKey: recipient.viewingSecretKey, spendingPublicKey: recipient.spendingPublicKey },
      [{ id: 1, ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag }],
    );
    expect(discoveries).toHaveLength(1);
    expect(discoveries[0]!.stealthSecretKey).toBeUndefined();
    expect(JSON.stringify(discoveries[0], (_k, v) => (v instanceof Uint8Array ? bytesToHex(v) : v))).not.toContain(p);
  });

  it('scanning with a spending secret that does not match the spending public key is an error, not a wrong key', () => {
    expect(() =>
      scanAnnouncements(
        { viewingSecretKey: recipient.viewingSecretKey, spendingPublicKey: recipient.spendingPublicKey, spendingSecretKey: sender.spendingSecretKey },
        [],
      ),
    ).toThrow(KeyMismatchError);
  });
});
