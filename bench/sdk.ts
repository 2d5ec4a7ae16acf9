/**
 * SDK protocol core (issue 2): key generation, payment creation and the reference scanner,
 * against @noble/post-quantum's ML-KEM-768 decapsulation measured in the same run.
 */
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import {
  bytesToHex,
  createScanner,
  createStealthPayment,
  generateKeys,
  referenceKernel,
  typescriptKernel,
  type AnnouncementRecord,
} from '../sdk/src/index.ts';
import { measureInterleaved, printTable, type Measurement } from './harness.ts';

export function benchSdk(): Measurement[] {
  const keys = generateKeys();
  const payments = Array.from({ length: 64 }, () => createStealthPayment(generateKeys().metaAddress));
  const batch: AnnouncementRecord[] = payments.map((p, i) => ({ id: i + 1, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag }));

  let i = 0;
  const reference = createScanner(keys, { kernel: referenceKernel });
  const fast = createScanner(keys, { kernel: typescriptKernel });
  const bytesBatch = payments.map((p, j) => ({ id: j + 1, ephemeralKey: p.ephemeralCiphertext, viewTag: p.viewTag }));
  const perAnnouncement = { opsPerCall: batch.length, unit: 'ann/s' };
  const rows = measureInterleaved([
    { name: 'generateKeys', fn: () => generateKeys() },
    { name: 'createStealthPayment', fn: () => createStealthPayment(keys.metaAddress) },
    { name: 'reference scan (JSON rows)', fn: () => reference.scan(batch), ...perAnnouncement },
    { name: 'TypeScript kernel scan (JSON rows)', fn: () => fast.scan(batch), ...perAnnouncement },
    { name: 'TypeScript kernel scan (byte rows)', fn: () => fast.scan(bytesBatch), ...perAnnouncement },
    { name: 'noble ML-KEM-768 decapsulate (baseline)', fn: () => ml_kem768.decapsulate(payments[i++ & 63]!.ephemeralCiphertext, keys.viewingSecretKey) },
  ]);
  const decaps = rows.at(-1)!;
  printTable('SDK protocol core (one thread)', rows, decaps);
  return rows;
}
