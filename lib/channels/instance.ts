/**
 * The process's channel table, bound to the process's registry (lib/server/registry.ts).
 *
 * It is opened on first use for the registry currently open and replaced when that registry is
 * (tests reset the registry between cases; a registry that failed to open is retried), so the
 * channel table never outlives or mixes with the announcements it describes. Like the registry,
 * it lives in a process-wide slot (lib/server/singleton.ts) and a failed open is not cached.
 */
import type { RegistryStore } from '../registry/store.ts';
import { getConfig } from '../server/config.ts';
import { getRegistry } from '../server/registry.ts';
import { offShutdown, onShutdown } from '../server/shutdown.ts';
import { clearProcessSingleton, peekProcessSingleton, processSingleton } from '../server/singleton.ts';
import { openChannelStore } from './open.ts';
import type { ChannelStore } from './store.ts';

const SLOT = 'channelStore';

type Slot = { registry: RegistryStore; store: Promise<ChannelStore> };

/**
 * The registry and its channel table.
 * @throws {StoreUnavailableError} when either cannot be opened (answered 503).
 */
export async function getChannelStores(): Promise<{ registry: RegistryStore; channels: ChannelStore }> {
  const registry = await getRegistry();
  const current = peekProcessSingleton<Slot>(SLOT);
  if (current !== undefined && current.registry === registry) return { registry, channels: await current.store };
  if (current !== undefined) {
    clearProcessSingleton(SLOT);
    current.store.then((stale) => stale.close()).catch(() => undefined); // its registry was replaced
  }
  const slot = processSingleton<Slot>(SLOT, () => ({
    registry,
    store: openChannelStore(getConfig().registryUrl).then(
      (store) => {
        onShutdown(SLOT, () => store.close());
        return store;
      },
      (error: unknown) => {
        if (peekProcessSingleton<Slot>(SLOT) === slot) clearProcessSingleton(SLOT);
        throw error;
      },
    ),
  }));
  return { registry, channels: await slot.store };
}

/** Close and forget the channel table (tests; server.mjs uses the shutdown hook instead). */
export async function closeChannelStore(): Promise<void> {
  const current = peekProcessSingleton<Slot>(SLOT);
  clearProcessSingleton(SLOT);
  offShutdown(SLOT);
  if (current === undefined) return;
  try {
    await (await current.store).close();
  } catch {
    // It never opened: nothing to close.
  }
}
