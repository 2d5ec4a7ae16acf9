/**
 * Pick the channel table for a registry URL: it lives where the announcements live
 * (lib/channels/store.ts). `memory:` → process memory; `file:` / `libsql:` → the same database.
 * Other schemes (the PostgreSQL registry, not built yet) fall back to memory: channels then work
 * but are forgotten on restart, which `/health` does not report; a PostgreSQL table can be
 * added here beside the PostgreSQL registry.
 */
import { storeUrlScheme } from '../registry/store-url.ts';
import { createMemoryChannelStore } from './memory.ts';
import { createSqliteChannelStore } from './sqlite.ts';
import type { ChannelStore } from './store.ts';

export async function openChannelStore(registryUrl: string): Promise<ChannelStore> {
  const scheme = storeUrlScheme(registryUrl);
  if (scheme === 'file' || scheme === 'libsql') return createSqliteChannelStore(registryUrl);
  return createMemoryChannelStore();
}
