/**
 * One-time addresses made on Send and not yet announced, kept in this browser's localStorage so
 * that a reload, a closed tab or a crash does not lose them: money paid to such an address can
 * only be found by its recipient once the payment is announced, and announcing it needs the
 * ephemeral key and view tag made with the address (INTERFACE.md 4.3). The record is written
 * BEFORE the address is shown (as `wraith pay --save` writes its file before printing it, issue
 * 32), and removed once the announcement is published. A wallet payment made as separate
 * transactions (a chain without WraithPay, where the announcement is a second transaction) is kept
 * the same way from before the wallet is asked until it is announced, with the transfer's hash
 * once the wallet returned it: a payment sent and then lost to an error or a reload is still
 * offered for announcing.
 *
 * A record holds only what the announcement publishes anyway (the one-time address, the
 * ephemeral key, the view tag, the scheme) and whom it pays as the page named them, never the
 * shared secret or any key that spends.
 * @module
 */
import { bytesToHex, type StealthPayment } from '@wraith-pq/sdk';
import type { Recipient } from './recipient';

const STORAGE_KEY = 'wraith.unannounced-payments.v1';

export type KeptPayment = {
  schemeId: 1000 | 3;
  stealthAddress: string;
  stealthSuiAddress: string;
  /** The ephemeral key (hex) the announcement publishes. */
  ephemeralKey: string;
  viewTag: number;
  /** Whom it pays, as Send named them, and their fingerprint. */
  recipient: string;
  fingerprint: string;
  /** When it was made (ms since the epoch). */
  createdAt: number;
  /** The transfer that paid it and its chain, once known (a wallet payment). */
  txHash?: string;
  chainId?: number;
};

/** This browser could not keep the record (storage disabled or full). */
export class PaymentNotKeptError extends Error {
  override name = 'PaymentNotKeptError';
}

const isKept = (value: unknown): value is KeptPayment => {
  const v = value as Partial<KeptPayment> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    (v.schemeId === 1000 || v.schemeId === 3) &&
    typeof v.stealthAddress === 'string' &&
    typeof v.stealthSuiAddress === 'string' &&
    typeof v.ephemeralKey === 'string' &&
    Number.isInteger(v.viewTag) &&
    typeof v.recipient === 'string' &&
    typeof v.fingerprint === 'string' &&
    typeof v.createdAt === 'number' &&
    (v.txHash === undefined || typeof v.txHash === 'string') &&
    (v.chainId === undefined || Number.isSafeInteger(v.chainId))
  );
};

/** The kept records, oldest first; none when storage is disabled or holds nothing readable. */
export function keptPayments(): KeptPayment[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isKept) : [];
  } catch {
    return [];
  }
}

function store(records: readonly KeptPayment[]): void {
  if (records.length === 0) window.localStorage.removeItem(STORAGE_KEY);
  else window.localStorage.setItem(STORAGE_KEY, JSON.stringify(records));
}

/**
 * Keep `payment` (to `recipient`) until it is announced, and read it back to be sure it is kept.
 * @throws {PaymentNotKeptError} when this browser did not keep it.
 */
export function keepPayment(payment: StealthPayment, recipient: Recipient): KeptPayment {
  const record: KeptPayment = {
    schemeId: payment.schemeId,
    stealthAddress: payment.stealthAddress,
    stealthSuiAddress: payment.stealthSuiAddress,
    ephemeralKey: bytesToHex(payment.ephemeralCiphertext),
    viewTag: payment.viewTag,
    recipient: recipient.source,
    fingerprint: recipient.fingerprint,
    createdAt: Date.now(),
  };
  try {
    store([...keptPayments(), record]);
  } catch {
    // Below: the read-back says it.
  }
  if (!keptPayments().some((k) => k.stealthAddress === record.stealthAddress)) {
    throw new PaymentNotKeptError(
      'This browser could not keep the one-time address (its storage is off or full), and a payment to it would be lost if the page closed before it is announced: nothing was sent. Allow this site to store data and try again.',
    );
  }
  return record;
}

/** Note on the record of `stealthAddress` the transfer the wallet sent to it, on chain `chainId`. */
export function noteTransfer(stealthAddress: string, txHash: string, chainId: number): void {
  try {
    store(keptPayments().map((k) => (k.stealthAddress === stealthAddress ? { ...k, txHash, chainId } : k)));
  } catch {
    // Storage off: keepPayment already refused the payment.
  }
}

/** Forget the record of `stealthAddress` (announced, or discarded by its payer). */
export function forgetPayment(stealthAddress: string): void {
  try {
    store(keptPayments().filter((k) => k.stealthAddress !== stealthAddress));
  } catch {
    // Storage off: nothing was kept.
  }
}
