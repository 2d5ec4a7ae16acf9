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
import { EMPTY_HISTORY, type History } from './history';
import type { UnlockedKeys } from './unlocked-keys';

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
    const nonce = crypto.getRandomValues(new Uint8Array(12));
    const ciphertext = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce }, open.key, new TextEncoder().encode(JSON.stringify(next))));
    if (open.history !== next) return; // a later write carries this one
    const sealed: Sealed = { kind: 'wraith-history', version: 1, nonce: bytesToHex(nonce), ciphertext: bytesToHex(ciphertext) };
    try {
      window.localStorage.setItem(STORAGE_PREFIX + open.keyId, JSON.stringify(sealed));
    } catch {
      // storage full or disabled: the history stays in this tab only
    }
  });
  return writes;
}

/** Forget the open history in this tab (when the keys are locked). */
export function closeHistory(): void {
  current = null;
  notify();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const snapshot = () => current?.history ?? null;

/** The open history, re-rendering when it changes; null until it is open. */
export function useHistory(): History | null {
  return useSyncExternalStore(subscribe, snapshot, () => null);
}
