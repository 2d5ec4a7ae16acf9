/**
 * Where the history (history.ts) lives: this browser's localStorage, encrypted, never sent
 * anywhere. It is kept with the keystore and opens with it: the AES-256-GCM key is derived by
 * HKDF-SHA256 (RFC 5869) from the unlocked keys' secrets, so whoever can open the keystore can
 * read the history and nobody else can, without asking for the password a second time. A fresh
 * 96-bit nonce is drawn for every write; the storage key names the spending public key only.
 *
 * One store per tab (a module-level value, as unlocked-keys.ts): the Scan page's panels read it
 * and record into it, and writes are applied in order.
 * @module
 */
import { bytesToHex, hexToBytes } from '@wraith-pq/sdk';
import { useSyncExternalStore } from 'react';
import { EMPTY_HISTORY, HistoryFileError, mergeHistory, parseHistoryRecords, type History, type MergeOutcome } from './history';
import { getUnlockedKeys, subscribeUnlockedKeys, type UnlockedKeys } from './unlocked-keys';

const STORAGE_PREFIX = 'wraith.history.v1.';
const HKDF_INFO = new TextEncoder().encode('wraith web history v1'); // domain separation from every other use of the keys

type Sealed = { kind: 'wraith-history'; version: 1; nonce: string; ciphertext: string };

async function historyKey(keys: UnlockedKeys): Promise<CryptoKey> {
  const material = new Uint8Array(keys.spendingSecretKey.length + keys.viewingSecretKey.length);
  material.set(keys.spendingSecretKey);
  material.set(keys.viewingSecretKey, keys.spendingSecretKey.length);
  const ikm = await crypto.subtle.importKey('raw', material, 'HKDF', false, ['deriveKey']);
  material.fill(0);
  return crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info: HKDF_INFO }, ikm, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

let current: { keyId: string; key: CryptoKey; history: History } | null = null;
let writes: Promise<void> = Promise.resolve();
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());

/** Open (or start) the history of `keys` in this tab. A history that does not open (other keys, damaged) is not overwritten until something is recorded. */
export async function openHistory(keys: UnlockedKeys): Promise<void> {
  const keyId = bytesToHex(keys.spendingPublicKey);
  if (current?.keyId === keyId) return;
  const key = await historyKey(keys);
  let history = EMPTY_HISTORY;
  try {
    const text = window.localStorage.getItem(STORAGE_PREFIX + keyId);
    if (text) {
      const sealed = JSON.parse(text) as Sealed;
      const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: new Uint8Array(hexToBytes(sealed.nonce)) }, key, new Uint8Array(hexToBytes(sealed.ciphertext)));
      const opened = JSON.parse(new TextDecoder().decode(plain)) as History;
      if (opened.version === 1 && Array.isArray(opened.payments) && Array.isArray(opened.withdrawals)) history = { ...EMPTY_HISTORY, ...opened };
    }
  } catch {
    // storage disabled, or a history these keys do not open: start empty
  }
  current = { keyId, key, history };
  notify();
}

/** Apply `change` to the open history and save it, encrypted (writes in order). */
export function recordHistory(change: (history: History) => History): Promise<void> {
  const open = current;
  if (!open) return Promise.resolve();
  const next = change(open.history);
  if (next === open.history) return writes;
  open.history = next;
  notify();
  writes = writes.then(async () => {
    const sealed: Sealed = { kind: 'wraith-history', version: 1, ...(await seal(open.key, next)) };
    if (open.history !== next) return; // a later write carries this one
    try {
      window.localStorage.setItem(STORAGE_PREFIX + open.keyId, JSON.stringify(sealed));
    } catch {
      // storage full or disabled: the history stays in this tab only
    }
  });
  return writes;
}

const BACKUP_KIND = 'wraith-history-backup';
/** The largest history file a restore reads (a history of thousands of payments is far smaller). */
export const HISTORY_FILE_LIMIT = 8 * 1024 * 1024;

async function seal(key: CryptoKey, history: History): Promise<Pick<Sealed, 'nonce' | 'ciphertext'>> {
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce }, key, new TextEncoder().encode(JSON.stringify(history))));
  return { nonce: bytesToHex(nonce), ciphertext: bytesToHex(ciphertext) };
}

/**
 * The open history as a backup file: sealed as in storage (only these keys open it), with the
 * spending public key it belongs to. Restored on another browser once the same keys are unlocked.
 */
export async function historyBackup(): Promise<string> {
  const open = current;
  if (!open) throw new HistoryFileError('Unlock your keys first: the history opens with them.');
  const sealed = await seal(open.key, open.history);
  return `${JSON.stringify({ kind: BACKUP_KIND, version: 1, spending_public_key: open.keyId, ...sealed }, null, 2)}\n`;
}

/**
 * Merge a history file into the open history and save it: a backup (`historyBackup`, opened with
 * these keys) or a JSON export (`historyJson`). Nothing is changed unless the whole file reads.
 */
export async function restoreHistory(text: string): Promise<MergeOutcome> {
  const open = current;
  if (!open) throw new HistoryFileError('Unlock your keys first: the history opens with them.');
  if (text.length > HISTORY_FILE_LIMIT) throw new HistoryFileError('This file is too large to be a Wraith history.');
  let file: Record<string, unknown>;
  try {
    file = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new HistoryFileError('This file is not a Wraith history: it is not JSON.');
  }
  let plain: unknown = file;
  if (file?.kind === BACKUP_KIND) {
    if (file.spending_public_key !== open.keyId) throw new HistoryFileError('This backup belongs to other keys: unlock the keys it was made with to restore it.');
    try {
      const bytes = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: new Uint8Array(hexToBytes(String(file.nonce))) }, open.key, new Uint8Array(hexToBytes(String(file.ciphertext))));
      plain = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new HistoryFileError('This backup does not open with these keys: it is damaged. Nothing was restored.');
    }
  } else if (file?.kind !== 'wraith-history') {
    throw new HistoryFileError('This file is not a Wraith history backup or export.');
  }
  const restored = parseHistoryRecords(plain);
  if (current !== open) throw new HistoryFileError('The keys were locked during the restore: nothing was restored.');
  let outcome!: MergeOutcome;
  await recordHistory((history) => (outcome = mergeHistory(history, restored)).history);
  return outcome;
}

/** Forget the open history in this tab (done by itself when the keys are locked or replaced, on any page). */
export function closeHistory(): void {
  current = null;
  notify();
}

subscribeUnlockedKeys(() => {
  const keys = getUnlockedKeys();
  if (current && (keys === null || bytesToHex(keys.spendingPublicKey) !== current.keyId)) closeHistory();
});

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const snapshot = () => current?.history ?? null;

/** The open history, re-rendering when it changes; null until it is open. */
export function useHistory(): History | null {
  return useSyncExternalStore(subscribe, snapshot, () => null);
}
