/**
 * Regenerates sdk/test/vectors.json: `npx tsx sdk/test/make-vectors.ts`.
 *
 * Cases chosen for what ../shared/vectors.json does not cover: a spending key with prefix 02,
 * the extreme scalars 1 and n-1, all-zero and all-0xff ML-KEM seeds and messages. The
 * `domain_hash` section is computed by Python's hashlib (an independent SHAKE256) so the
 * length-prefixed domain separation is checked against a second implementation.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  bytesToHex,
  createStealthPayment,
  CURVE_ORDER,
  deriveStealthKeys,
  deriveStealthTweak,
  generateKeys,
} from '../src/index.ts';

const hex = (n: number, byte: number) => bytesToHex(new Uint8Array(n).fill(byte));
const inputs = [
  { name: 'scalar-one', spending_secret: '00'.repeat(31) + '01', viewing_seed: hex(64, 0), encapsulation_message: hex(32, 0) },
  { name: 'scalar-n-minus-1', spending_secret: (CURVE_ORDER - 1n).toString(16), viewing_seed: hex(64, 0xff), encapsulation_message: hex(32, 0xff) },
  { name: 'prefix-02', spending_secret: '0000000000000000000000000000000000000000000000000000000000000003', viewing_seed: bytesToHex(Uint8Array.from({ length: 64 }, (_, i) => i)), encapsulation_message: bytesToHex(Uint8Array.from({ length: 32 }, (_, i) => 255 - i)) },
];

const cases = inputs.map(({ name, ...input }) => {
  const keys = generateKeys({ spendingSecret: input.spending_secret, viewingSeed: input.viewing_seed });
  const payment = createStealthPayment(keys.metaAddress, { message: input.encapsulation_message });
  const spend = deriveStealthKeys({ spendingSecretKey: keys.spendingSecretKey, sharedSecret: payment.sharedSecret });
  return {
    name,
    input,
    keys: {
      spending_pk: bytesToHex(keys.spendingPublicKey),
      viewing_pk: bytesToHex(keys.viewingPublicKey),
      viewing_sk_sha256: bytesToHex(sha256(keys.viewingSecretKey)),
      meta_address: bytesToHex(keys.metaAddress),
      base_view_tag: keys.baseViewTag,
    },
    payment: {
      ephemeral_ciphertext: bytesToHex(payment.ephemeralCiphertext),
      shared_secret: bytesToHex(payment.sharedSecret),
      view_tag: payment.viewTag,
      tweak: deriveStealthTweak(payment.sharedSecret).toString(16).padStart(64, '0'),
      stealth_address: payment.stealthAddress,
      stealth_sui_address: payment.stealthSuiAddress,
    },
    spend: { stealth_sk: bytesToHex(spend.stealthSecretKey) },
  };
});

const python = `
import hashlib, json, struct
out = []
for domain, data, n in [("SPECTER_VIEW_TAG_V1", b"", 1), ("SPECTER_VIEW_TAG_V1", bytes(range(32)), 32),
                        ("SPECTER_STEALTH_TWEAK_V2", bytes(32) + b"\\x00", 32), ("SPECTER_STEALTH_TWEAK_V2", bytes([0xff]*32) + b"\\x07", 64),
                        ("", b"abc", 16)]:
    d = domain.encode()
    out.append({"domain": domain, "input": data.hex(), "length": n,
                "output": hashlib.shake_256(struct.pack("<I", len(d)) + d + data).digest(n).hex()})
print(json.dumps(out))`;
const domainHash = JSON.parse(execFileSync('python3', ['-c', python], { encoding: 'utf8' }));

const about =
  'Project vectors for PROTOCOL.md beside ../shared/vectors.json (same layout). Keys, payments and spend keys come from this SDK (regression); domain_hash comes from Python hashlib (independent SHAKE256). Regenerate: npx tsx sdk/test/make-vectors.ts';
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify({ about, cases, domain_hash: domainHash }, null, 1) + '\n');
console.log(`wrote ${cases.length} cases, ${domainHash.length} hash vectors`);
