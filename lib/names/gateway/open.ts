/**
 * The process's gateway store, in the registry's database (`REGISTRY_URL`): memory for
 * `memory:`, the PostgreSQL tables for `postgres:` / `postgresql:`, the SQLite/libSQL tables for
 * `file:` and `libsql:`.
 */
import { getConfig } from '../../server/config.ts';
import { onShutdown } from '../../server/shutdown.ts';
import { processSingleton } from '../../server/singleton.ts';
import { createMemoryNameStore } from './memory-store.ts';
import { createPostgresNameStore } from './postgres-store.ts';
import { createSqliteNameStore } from './sqlite-store.ts';
import type { NameStore } from './store.ts';

export function getNameStore(): Promise<NameStore> {
  return processSingleton('ensGatewayStore', () => {
    const config = getConfig();
    const url = config.registryUrl.trim();
    const opened = url.startsWith('memory:')
      ? Promise.resolve(createMemoryNameStore())
      : /^postgres(ql)?:/i.test(url)
        ? createPostgresNameStore(url, { timeoutMs: config.registryTimeoutMs })
        : createSqliteNameStore(url);
    void opened.then((store) => onShutdown('ensGatewayStore', () => store.close()), () => undefined);
    return opened;
  });
}
