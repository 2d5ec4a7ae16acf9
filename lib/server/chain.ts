/**
 * The process's chain features, present only when `CHAIN_RPC_URL` is set (API.md
 * "Configuration"): the RPC clients, and the indexer started at boot (lib/chain/indexer.ts) and
 * stopped, releasing its lease, on shutdown.
 */
import { startIndexer, type Indexer } from '../chain/indexer.ts';
import { createChainClients, type ChainClients } from '../chain/rpc.ts';
import { log } from '../http/log.ts';
import { getConfig } from './config.ts';
import { getRegistry } from './registry.ts';
import { onShutdown } from './shutdown.ts';
import { peekProcessSingleton, processSingleton } from './singleton.ts';

const INDEXER_SLOT = 'indexer';

/** The RPC clients of `CHAIN_RPC_URL`, or undefined when it is unset. */
export function getChainClients(): ChainClients | undefined {
  const config = getConfig();
  if (config.chain === undefined) return undefined;
  const { rpcUrl } = config.chain;
  return processSingleton('chainClients', () => createChainClients(rpcUrl, config.upstreamTimeoutMs));
}

/**
 * Start the indexer once per process (boot). A registry that cannot be opened now is retried
 * every few seconds: the indexer starts when it opens.
 */
export function startChainIndexer(): void {
  const config = getConfig();
  const chain = config.chain;
  const clients = getChainClients();
  if (chain === undefined || clients === undefined) return;
  processSingleton(INDEXER_SLOT, () => {
    const holder: { indexer?: Indexer; stopped: boolean } = { stopped: false };
    const attempt = async (): Promise<void> => {
      if (holder.stopped) return;
      try {
        const store = await getRegistry();
        holder.indexer = startIndexer({ store, config: chain, clients, timeoutMs: config.upstreamTimeoutMs });
        log('info', 'chain indexer started', { chain: chain.name, start_block: chain.startBlock, confirmations: chain.confirmations });
      } catch {
        setTimeout(() => void attempt(), 5_000).unref();
      }
    };
    void attempt();
    onShutdown(INDEXER_SLOT, async () => {
      holder.stopped = true;
      await holder.indexer?.stop();
    });
    return holder;
  });
}

/** This process's indexer, when it runs. */
export function runningIndexer(): Indexer | undefined {
  return peekProcessSingleton<{ indexer?: Indexer }>(INDEXER_SLOT)?.indexer;
}
