/**
 * Pick the registry store named by `REGISTRY_URL` (API.md "Configuration").
 *
 * `memory:` is process-local and lost on restart; `file:` is embedded SQLite (the default,
 * `file:./data/registry.db`); `libsql:` is a remote libSQL server through the same module;
 * `postgres:` / `postgresql:` is the PostgreSQL store several instances share (postgres.ts).
 * Messages quote the URL only in redacted form (store-url.ts), since it may carry a password
 * or token.
 */
import { createMemoryStore } from './memory.ts';
import { createPostgresStore, type PostgresStoreOptions } from './postgres.ts';
import { createSqliteStore } from './sqlite.ts';
import type { RegistryStore } from './store.ts';
import { redactStoreUrl, storeUrlScheme } from './store-url.ts';

/** Schemes `openRegistryStore` recognises, for messages. */
export const REGISTRY_URL_SCHEMES = ['memory:', 'file:', 'postgres://', 'postgresql://', 'libsql://'] as const;

/**
 * Open the store for a registry URL.
 * `options` tune the PostgreSQL pool (the other stores ignore them).
 * @throws {StoreUnavailableError} when a database cannot be opened or prepared.
 * @throws {Error} for an unknown scheme.
 * @example
 * const store = await openRegistryStore(process.env.REGISTRY_URL ?? 'file:./data/registry.db');
 */
export async function openRegistryStore(url: string, options: PostgresStoreOptions = {}): Promise<RegistryStore> {
  switch (storeUrlScheme(url)) {
    case 'memory':
      return createMemoryStore();
    case 'file':
    case 'libsql':
      return createSqliteStore(url.trim());
    case 'postgres':
    case 'postgresql':
      return createPostgresStore(url.trim(), options);
    default:
      throw new Error(
        `Unsupported REGISTRY_URL "${redactStoreUrl(url)}": expected one of ${REGISTRY_URL_SCHEMES.join(', ')}.`,
      );
  }
}
