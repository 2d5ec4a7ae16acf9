/**
 * The process's gateway store, in the registry's database (`REGISTRY_URL`): memory for
 * `memory:`, the SQLite/libSQL tables for `file:` and `libsql:` (config.ts refuses the gateway
 * beside a PostgreSQL registry for now).
 */
import { getConfig } from '../../server/config.ts';
import { onShutdown } from '../../server/shutdown.ts';
import { processSingleton } from '../../server/singleton.ts';
import { createMemoryNameStore } from './memory-store.ts';
import { createSqliteNameStore } from './sqlite-store.ts';
import type { NameStore } from './store.ts';

export function getNameStore(): Promise<NameStore> {
  return processSingleton('ensGatewayStore', () => {
    const url = getConfig().registryUrl.trim();
    const opened = url.startsWith('memory:') ? Promise.resolve(createMemoryNameStore()) : createSqliteNameStore(url);
    void opened.then((store) => onShutdown('ensGatewayStore', () => store.close()), () => undefined);
    return opened;
  });
}
