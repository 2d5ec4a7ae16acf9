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
import { measure, printTable, type Measurement } from './harness.ts';

export function benchSdk(): Measurement[] {
  const keys = generateKeys();
  const payments = Array.from({ length: 64 }, () => createStealthPayment(generateKeys().metaAddress));
  const batch: AnnouncementRecord[] = payments.map((p, i) => ({ id: i + 1, ephemeral_key: bytesToHex(p.ephemeralCiphertext), view_tag: p.viewTag }));

  let i = 0;
  const decaps = measure('noble ML-KEM-768 decapsulate (baseline)', () =>
    ml_kem768.decapsulate(payments[i++ & 63]!.ephemeralCiphertext, keys.viewingSecretKey),
  );
  const reference = createScanner(keys, { kernel: referenceKernel });
  const fast = createScanner(keys, { kernel: typescriptKernel });
  const bytesBatch = payments.map((p, i) => ({ id: i + 1, ephemeralKey: p.ephemeralCiphertext, viewTag: p.viewTag }));
  const rows = [
    measure('generateKeys', () => generateKeys()),
    measure('createStealthPayment', () => createStealthPayment(keys.metaAddress)),
    measure('reference scan (JSON rows)', () => reference.scan(batch), { opsPerCall: batch.length, unit: 'ann/s' }),
    measure('TypeScript kernel scan (JSON rows)', () => fast.scan(batch), { opsPerCall: batch.length, unit: 'ann/s' }),
    measure('TypeScript kernel scan (byte rows)', () => fast.scan(bytesBatch), { opsPerCall: batch.length, unit: 'ann/s' }),
    decaps,
  ];
  printTable('SDK protocol core (one thread)', rows, decaps);
  return rows;
}
