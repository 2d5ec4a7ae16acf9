/**
 * The process's announcement registry, opened once from `REGISTRY_URL` (API.md "Configuration").
 *
 * Opening is lazy and shared: concurrent first requests wait for the same open. A failed open
 * is not cached, so a registry that was unreachable at boot is retried by the next request,
 * and the request that failed gets 503 SERVICE_UNAVAILABLE (lib/http/errors.ts).
 */
import { log } from '../http/log.ts';
import { openRegistryStore } from '../registry/open.ts';
import { StoreUnavailableError, type RegistryStore, type StoreHealth } from '../registry/store.ts';
import { storeUrlScheme } from '../registry/store-url.ts';
import { getConfig } from './config.ts';
import { offShutdown, onShutdown } from './shutdown.ts';
import { isStoreUnavailable } from './store-errors.ts';
import { clearProcessSingleton, peekProcessSingleton, processSingleton } from './singleton.ts';

const SLOT = 'registry';

/**
 * The registry store.
 * @throws {StoreUnavailableError} when it cannot be opened (also for an unsupported URL, so the
 * caller answers 503 rather than 500).
 */
export function getRegistry(): Promise<RegistryStore> {
  return processSingleton(SLOT, () => {
    const config = getConfig();
    const opening = openRegistryStore(config.registryUrl, {
      poolSize: config.registryPoolSize,
      timeoutMs: config.registryTimeoutMs,
      onConnectionError: (code) => log('warn', 'registry connection lost', { code }),
    }).then(
      (store) => {
        onShutdown(SLOT, async () => {
          await store.close();
          log('info', 'registry closed', { kind: store.kind });
        });
        return store;
      },
      (error: unknown) => {
        clearProcessSingleton(SLOT);
        if (isStoreUnavailable(error)) throw error;
        throw new StoreUnavailableError(error instanceof Error ? error.message : 'The registry cannot be opened.', { cause: error });
      },
    );
    return opening;
  });
}

/** Close and forget the registry (tests; server.mjs uses the shutdown hook instead). */
export async function closeRegistry(): Promise<void> {
  const opening = peekProcessSingleton<Promise<RegistryStore>>(SLOT);
  clearProcessSingleton(SLOT);
  offShutdown(SLOT);
  if (opening === undefined) return;
  try {
    await (await opening).close();
  } catch {
    // It never opened: nothing to close.
  }
}

/** The store kind a registry URL selects, for health reports when the store cannot be opened. */
export function registryKindOf(url: string): StoreHealth['kind'] {
  switch (storeUrlScheme(url)) {
    case 'memory':
      return 'memory';
    case 'libsql':
      return 'libsql';
    case 'postgres':
    case 'postgresql':
      return 'postgres';
    default:
      return 'sqlite';
  }
}
