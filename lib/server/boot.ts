/**
 * Start-up checks, run by instrumentation.ts before the server takes requests.
 *
 * A configuration error stops the process with a message naming each bad variable (API.md
 * "Configuration"): better no server than one running with a silently weakened setting. The
 * registry is opened eagerly so the first request does not pay for it; a registry that cannot
 * be opened does not stop the server (it may be a database that comes up later): /health
 * reports `degraded` and requests that need it answer 503 until it opens. With `CHAINS` or
 * `CHAIN_RPC_URL` set, each chain's id is read and its indexer started here (lib/server/chain.ts):
 * two chains answering one id, or an id contradicting the entry's `chain_id`, stop the process
 * like a configuration error; an RPC that does not answer does not. With the ENS gateway on, its
 * resolver, signer and parent name are checked on the ENS chain the same way
 * (lib/names/gateway/startup-check.ts).
 */
import { ConfigError } from '../config.ts';
import { log } from '../http/log.ts';
import { getConfig } from './config.ts';
import { ChainIdentityError, startChains } from './chain.ts';
import { getRegistry } from './registry.ts';
import { checkGatewayAtStartup, startGatewayWatcher } from '../names/gateway/start.ts';
import { processSingleton } from './singleton.ts';

/**
 * Set once start-up checks passed. server.mjs waits for it before listening: in production
 * Next.js runs `register()` in the background, so without it the port would open before a bad
 * configuration is caught.
 */
export const BOOTED_SLOT = 'booted';

export async function boot(): Promise<void> {
  try {
    getConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`wraith: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // Started before the registry opens, so that on shutdown the indexers stop (and free their
  // leases) before the registry closes: shutdown hooks run in the order they were registered.
  const chains = startChains().then(
    () => undefined,
    (error: unknown) => error,
  );
  const gateway = checkGatewayAtStartup().catch((error: unknown) => {
    log('warn', 'ens gateway not checked', { error: error instanceof Error ? error.name : String(error) });
    return [];
  });
  try {
    const store = await getRegistry();
    log('info', 'registry open', { kind: store.kind });
  } catch (error) {
    log('error', 'registry unavailable at start-up', { error: error instanceof Error ? error.message : String(error) });
  }
  const refused = await chains;
  if (refused instanceof ChainIdentityError) {
    process.stderr.write(`wraith: ${refused.message}\n`);
    process.exit(1);
  }
  if (refused !== undefined) throw refused;
  const gatewayRefusals = await gateway;
  if (gatewayRefusals.length > 0) {
    process.stderr.write(`wraith: Invalid ENS gateway (ENS_GATEWAY_*):\n${gatewayRefusals.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  startGatewayWatcher();
  processSingleton(BOOTED_SLOT, () => true);
}
