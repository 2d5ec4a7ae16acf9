/**
 * Where this browser keeps the recipient's keys: the encrypted keystore envelope of the SDK
 * (`sealKeys`: PBKDF2-SHA256 + AES-256-GCM) in localStorage, never the keys themselves.
 * @module
 */
import type { KeystoreEnvelope } from '@wraith-pq/sdk';

const KEYSTORE_KEY = 'wraith.keystore.v1';

/** The stored keystore (JSON text), or null when this browser holds none. */
export function loadKeystore(): string | null {
  try {
    return window.localStorage.getItem(KEYSTORE_KEY);
  } catch {
    return null; // storage disabled (private mode, policy)
  }
}

export function saveKeystore(envelope: string): void {
  window.localStorage.setItem(KEYSTORE_KEY, envelope);
}

export function forgetKeystore(): void {
  window.localStorage.removeItem(KEYSTORE_KEY);
}

const BACKUP_KEY = 'wraith.keystore.backed-up.v1';

/** Whether a backup of the keys with spending key `label` was exported (or opened from a file) in this browser. */
export function isBackedUp(label: string): boolean {
  try {
    return window.localStorage.getItem(BACKUP_KEY) === label;
  } catch {
    return false;
  }
}

/** Remember that the keys with spending key `label` have a backup (or that their owner chose to go on without one). */
export function markBackedUp(label: string): void {
  try {
    window.localStorage.setItem(BACKUP_KEY, label);
  } catch {
    // storage disabled: the backup step is offered again next time, which is harmless
  }
}

/** The public part of a stored keystore, for display ("keys 02ab…cd"), without a password. */
export function keystoreLabel(envelope: string): string | null {
  try {
    const parsed = JSON.parse(envelope) as Partial<KeystoreEnvelope>;
    return typeof parsed.spendingPublicKey === 'string' ? parsed.spendingPublicKey : null;
  } catch {
    return null;
  }
}

/** Offer the encrypted keystore as a file download (a backup: useless without the password). */
export function downloadKeystore(envelope: string): void {
  const label = keystoreLabel(envelope)?.slice(0, 12) ?? 'keys';
  const url = URL.createObjectURL(new Blob([envelope], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `wraith-keystore-${label}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
