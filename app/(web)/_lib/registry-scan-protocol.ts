/**
 * Messages between the Scan page and its registry scan worker (registry-scan-worker.ts).
 *
 * The page fetches the registry's binary pages and transfers them in order (registry-source.ts);
 * the worker decodes and scans them with the SDK's kernel, as `scanRegistry` does in Node. The
 * page also starts, cancels, shows progress and keeps the cursor. Nothing here leaves the device:
 * the keys go to a worker of this page, as they would to the SDK's scan pool.
 * @module
 */
import type { EffectiveKernel } from '@wraith-pq/sdk';
import type { PageMessage } from './registry-source';
import type { SavedDiscovery } from './scan-state';
import type { UnlockedKeys } from './unlocked-keys';

export type RegistryScanRequest =
  | { type: 'start'; keys: Pick<UnlockedKeys, 'viewingSecretKey' | 'spendingPublicKey' | 'spendingSecretKey' | 'viewingSeed'>; fromCursor: number }
  | { type: 'cancel' }
  /** The registry's pages, in cursor order (the page fetches them; the worker decodes and scans). */
  | PageMessage;

export type RegistryScanEvent =
  | { type: 'ready'; kernel: EffectiveKernel }
  | {
      type: 'batch';
      /** Resume after this announcement id. */
      cursor: number;
      /** Announcements scanned in this batch. */
      scanned: number;
      /** Since the start of this run. */
      progress: { scanned: number; rate: number };
      discoveries: SavedDiscovery[];
      /** Spending keys of the discoveries, by announcement id (memory only, never saved). */
      secrets: [number, Uint8Array][];
    }
  /** The worker took a page off its queue (the page then sends another). */
  | { type: 'consumed' }
  | { type: 'done' }
  | { type: 'cancelled' }
  | { type: 'failed'; message: string };
