/**
 * Recognising the registry's errors (lib/registry/store.ts) by name.
 *
 * Duck-typed on purpose: Next.js may load a module once per route chunk, so the error class a
 * handler imports can be another copy of the one the process-wide store throws, and
 * `instanceof` would miss it (see singleton.ts).
 */

/** A publish whose normalised tx_hash is already stored. */
export function isDuplicateAnnouncement(error: unknown): boolean {
  return error instanceof Error && error.name === 'DuplicateAnnouncementError';
}

/** The store cannot be reached or failed. */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof Error && error.name === 'StoreUnavailableError';
}
