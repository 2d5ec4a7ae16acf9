/**
 * The keys unlocked in this tab, held in memory only (a module-level store, so moving between
 * pages keeps them until the tab closes or the user locks). Nothing here is persisted.
 * @module
 */
import { useSyncExternalStore } from 'react';
import type { RecipientKeys } from '@wraith-pq/sdk';

/** Keys as `openKeys` returns them: the viewing seed may be absent. */
export type UnlockedKeys = Omit<RecipientKeys, 'viewingSeed'> & { viewingSeed?: Uint8Array };

let current: UnlockedKeys | null = null;
const listeners = new Set<() => void>();

export function setUnlockedKeys(keys: UnlockedKeys | null): void {
  if (current && current !== keys) {
    // Best effort: overwrite the secrets we drop (copies elsewhere are up to the GC).
    current.spendingSecretKey.fill(0);
    current.viewingSecretKey.fill(0);
    current.viewingSeed?.fill(0);
  }
  current = keys;
  listeners.forEach((listener) => listener());
}

export function getUnlockedKeys(): UnlockedKeys | null {
  return current;
}

/** Call `listener` whenever the keys are unlocked, replaced or locked; returns the unsubscribe. */
export function subscribeUnlockedKeys(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The unlocked keys, re-rendering when they change. */
export function useUnlockedKeys(): UnlockedKeys | null {
  return useSyncExternalStore(subscribeUnlockedKeys, getUnlockedKeys, () => null);
}
