/**
 * The gateway at boot: its start-up check on the ENS chain (startup-check.ts), and its payment
 * watcher (watcher.ts) when the gateway is on and the server follows a chain, stopped on shutdown.
 */
import { log } from '../../http/log.ts';
import { getConfig } from '../../server/config.ts';
import { followedChainById, followedChains, startChains, STARTUP_ID_WAIT_MS } from '../../server/chain.ts';
import { getRegistry } from '../../server/registry.ts';
import { onShutdown } from '../../server/shutdown.ts';
import { processSingleton } from '../../server/singleton.ts';
import { rememberEnsChainId } from './ens-chain.ts';
import { getNameStore } from './open.ts';
import { checkGateway } from './startup-check.ts';
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

/**
 * Check the gateway on the ENS chain (nothing when it is off): the refusals, for boot to stop on.
 * Warnings (the chain did not answer) are logged; the chain id read is kept for lookups.
 */
export async function checkGatewayAtStartup(): Promise<string[]> {
  const config = getConfig();
  if (config.ensGateway === undefined) return [];
  const check = await checkGateway(config.ensGateway, config.ethRpcUrl, STARTUP_ID_WAIT_MS);
  for (const warning of check.warnings) log('warn', 'ens gateway not checked', { error: warning });
  if (check.chainId !== undefined && check.refusals.length === 0) {
    rememberEnsChainId(config.ethRpcUrl, check.chainId);
    // Said once, so an operator following only other chains is not surprised that wallets asking
    // addr(bytes32) (coin type 60: most of them on mainnet) get no address (lookup.ts).
    await startChains().catch(() => undefined);
    if (followedChainById(check.chainId) === undefined) {
      log('warn', 'ens gateway answers no address to addr(bytes32) (coin type 60): the ENS chain is not followed; wallets asking a followed chain\'s ENSIP-11 coin type get addresses', { chain_id: check.chainId });
    }
  }
  return check.refusals;
}
