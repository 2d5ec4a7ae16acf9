/**
 * PROTOCOL.md section 5 correctness bar: a scan returns exactly the announcements created for the
 * key, whatever else the registry holds. ML-KEM decapsulation never fails, so foreign and forged
 * ciphertexts yield the implicit-rejection key, whose view tag an attacker can make match; only
 * the re-encryption confirmation keeps them out.
 */
import { describe, expect, it } from 'vitest';
import { shake256 } from '@noble/hashes/sha3.js';
import {
  bytesToHex,
  computeViewTag,
  createStealthPayment,
  generateKeys,
  referenceKernel,
  scanAnnouncements,
  type AnnouncementRecord,
} from '../src/index.ts';
import { typescriptKernel } from '../src/scan-kernel-typescript.ts';
import { parseViewingSecretKey } from '../src/viewing-key.ts';

const recipient = generateKeys();
const others = Array.from({ length: 5 }, () => generateKeys());
const foreignPayments = Array.from({ length: 5000 }, (_, i) => createStealthPayment(others[i % others.length]!.metaAddress));
const z = recipient.viewingSecretKey.subarray(2368, 2400);

function record(id: number, ciphertext: Uint8Array, viewTag: number): AnnouncementRecord {
  return { id, ephemeral_key: bytesToHex(ciphertext), view_tag: viewTag };
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

describe.each([
  ['reference kernel', referenceKernel],
  ['TypeScript kernel', typescriptKernel],
] as const)('no false discoveries (%s)', (_name, kernel) => {
  it('finds exactly the honest untampered payments among foreign, crafted and tampered announcements', () => {
    let id = 0;
    const registry: AnnouncementRecord[] = [];

    // 5,000 announcements of payments to other recipients.
    for (const p of foreignPayments) registry.push(record(++id, p.ephemeralCiphertext, p.viewTag));

    // 200 ciphertexts crafted so that the implicit-rejection key's view tag equals the announced
    // tag: the worst case of an attacker who could predict Kbar = SHAKE256(z || c).
    const crafted = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const c = crypto.getRandomValues(new Uint8Array(1088));
      const kbar = shake256.create({ dkLen: 32 }).update(z).update(c).digest();
      registry.push(record(++id, c, computeViewTag(kbar)));
      crafted.add(id);
    }

    // 200 ciphertexts crafted against the fast path: random bytes announced with the view tag of
    // their K-PKE candidate K' = SHA3-512(Decrypt(c) || H(ek)) (what an attacker gets by
    // encrypting a chosen m with the wrong randomness). They fail re-encryption.
    const fastPath = typescriptKernel(parseViewingSecretKey(recipient.viewingSecretKey));
    const scratch = new Uint8Array(32);
    for (let i = 0; i < 200; i++) {
      const c = crypto.getRandomValues(new Uint8Array(1088));
      registry.push(record(++id, c, fastPath.candidate(c, scratch)));
      crafted.add(id);
    }

    // 50 honest payments to the recipient with one flipped bit, announced with the honest tag.
    // Most flips leave K-PKE decryption unchanged (compression noise), so a scanner that skipped
    // the re-encryption check would accept them.
    for (let i = 0; i < 50; i++) {
      const p = createStealthPayment(recipient.metaAddress);
      const c = p.ephemeralCiphertext.slice();
      const bit = Math.floor(Math.random() * 1088 * 8);
      c[bit >> 3]! ^= 1 << (bit & 7);
      registry.push(record(++id, c, p.viewTag));
    }

    // 20 honest, untampered payments: the only ones that may be discovered.
    const honest = new Map<number, string>();
    for (let i = 0; i < 20; i++) {
      const p = createStealthPayment(recipient.metaAddress);
      registry.push(record(++id, p.ephemeralCiphertext, p.viewTag));
      honest.set(id, p.stealthAddress);
    }

    const { discoveries, stats } = scanAnnouncements(recipient, shuffle(registry), { kernel });

    expect(stats.totalScanned).toBe(5470);
    expect(stats.malformed).toBe(0);
    expect(stats.viewTagMatches).toBeGreaterThanOrEqual(200 + 20); // every crafted tag matched...
    expect(discoveries.length).toBe(20); // ...and none of them was accepted
    expect(new Map(discoveries.map((d) => [d.announcement.id, d.stealthAddress]))).toEqual(honest);
    for (const d of discoveries) expect(crafted.has(d.announcement.id)).toBe(false);

    // The attack set has teeth: without the confirmation, this kernel accepts the 200 crafted
    // against it, the tampered payments that still decrypt, and the honest ones.
    const attacks = registry.filter((r) => r.id > 5000);
    const careless = scanAnnouncements(recipient, attacks, {
      kernel: (key) => ({ ...kernel(key), confirm: () => true }),
    });
    expect(careless.discoveries.length).toBeGreaterThanOrEqual(200 + 20);
  });
});
