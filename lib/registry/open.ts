/**
 * Pick the registry store named by `REGISTRY_URL` (API.md "Configuration").
 *
 * `memory:` is process-local and lost on restart; `file:` is embedded SQLite (the default,
 * `file:./data/registry.db`); `libsql:` is a remote libSQL server through the same module;
 * `postgres:` / `postgresql:` are reserved for the shared PostgreSQL store, which a later
 * issue adds. Messages quote the URL only in redacted form (store-url.ts), since it may
 * carry a password or token.
 */
import { createMemoryStore } from './memory.ts';
import { createSqliteStore } from './sqlite.ts';
import type { RegistryStore } from './store.ts';
import { redactStoreUrl, storeUrlScheme } from './store-url.ts';

/** Schemes `openRegistryStore` recognises, for messages. */
export const REGISTRY_URL_SCHEMES = ['memory:', 'file:', 'postgres://', 'postgresql://', 'libsql://'] as const;

/**
 * Open the store for a registry URL.
 * @throws {StoreUnavailableError} when a database cannot be opened or prepared.
 * @throws {Error} for a PostgreSQL URL (not available yet) or an unknown scheme.
 * @example
 * const store = await openRegistryStore(process.env.REGISTRY_URL ?? 'file:./data/registry.db');
 */
export async function openRegistryStore(url: string): Promise<RegistryStore> {
  switch (storeUrlScheme(url)) {
    case 'memory':
      return createMemoryStore();
    case 'file':
    case 'libsql':
      return createSqliteStore(url.trim());
    case 'postgres':
    case 'postgresql':
      throw new Error('PostgreSQL registry is not available yet: use a file: or memory: REGISTRY_URL for now.');
    default:
      throw new Error(
        `Unsupported REGISTRY_URL "${redactStoreUrl(url)}": expected one of ${REGISTRY_URL_SCHEMES.join(', ')}.`,
      );
  }
}
