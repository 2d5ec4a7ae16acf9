/**
 * Start the gateway's payment watcher (watcher.ts) at boot when the gateway is on and the server
 * follows a chain; stopped on shutdown.
 */
import { getConfig } from '../../server/config.ts';
import { followedChains } from '../../server/chain.ts';
import { getRegistry } from '../../server/registry.ts';
import { onShutdown } from '../../server/shutdown.ts';
import { processSingleton } from '../../server/singleton.ts';
import { getNameStore } from './open.ts';
import { runWatcher } from './watcher.ts';

export function startGatewayWatcher(): void {
  const config = getConfig();
  const gateway = config.ensGateway;
  if (gateway === undefined || config.chains.length === 0) return;
  processSingleton('ensGatewayWatcher', () => {
    const stop = new AbortController();
    const pollMs = Math.min(...config.chains.map((chain) => chain.pollMs));
    const running = runWatcher(followedChains, async () => ({ config: gateway, names: await getNameStore(), registry: await getRegistry() }), pollMs, stop.signal);
    onShutdown('ensGatewayWatcher', async () => {
      stop.abort();
      await running;
    });
    return running;
  });
}
