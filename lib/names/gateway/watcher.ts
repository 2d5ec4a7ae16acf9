/**
 * Publish on payment (issue 33): on every followed chain, watch the one-time addresses the
 * gateway issued that are unpaid and not expired for longer than the grace period
 * (`ENS_GATEWAY_GRACE_S`, default 7 days: a payer who resolved, waited past the address's
 * `ENS_GATEWAY_ADDRESS_TTL_S` and paid then is still published); on the first funds seen at one, rebuild its
 * payment (one-time-address.ts, from the name, counter and gateway secret) and store its
 * announcement in the registry with the paying transaction's hash and chain, so the recipient's
 * ordinary scan finds it. The registry grows with payments, never with lookups.
 *
 * Each tick per chain, over the blocks since its cursor (kept in the gateway store, so a restart
 * resumes where it stopped; the first run looks back {@link FIRST_LOOKBACK} blocks):
 * - ERC-20 `Transfer` logs whose `to` is a watched address (one `eth_getLogs` per
 *   {@link ADDRESSES_PER_QUERY} addresses): the log's transaction paid it;
 * - the coin balance of each watched address at the range's end: a balance with no transfer
 *   seen is a coin payment, whose transaction is looked for among the range's blocks (a plain
 *   transfer names the address as `to`; a payment from a contract wallet does not, and is then
 *   published under a stand-in hash `gateway:<chain id>:<address>`).
 * Cost per tick: one balance read per watched address, sent as JSON-RPC batches of
 * {@link ADDRESSES_PER_QUERY} (one HTTP request each), and one log query per as many addresses,
 * whatever the number of lookups. Watched addresses per name: at most `ENS_GATEWAY_MAX_UNPAID`
 * unexpired ones, plus those issued within the grace period before, i.e. at most
 * `MAX_UNPAID × (1 + GRACE_S / ADDRESS_TTL_S)` (800 rows with the defaults).
 *
 * Recovery past the grace period: a row is never deleted, and the balance is read at the head, so
 * raising `ENS_GATEWAY_GRACE_S` and restarting publishes a coin payment still sitting at an
 * address paid too late (a token payment is found only through its `Transfer` log, i.e. while it
 * lies within the blocks read since the address was last watched).
 */
import { announcementMetadata, type StealthPayment } from '@wraith-pq/sdk';
import { createPublicClient, getAddress, http, parseAbiItem, type Address, type Hash, type PublicClient } from 'viem';
import { log } from '../../http/log.ts';
import { DuplicateAnnouncementError, type RegistryStore } from '../../registry/store.ts';
import { chainErrorSummary } from '../../chain/rpc.ts';
import type { FollowedChain } from '../../server/chain.ts';
import { getConfig } from '../../server/config.ts';
import type { EnsGatewayConfig } from './config.ts';
import { gatewayPayment } from './one-time-address.ts';
import type { IssuedAddress, NameStore } from './store.ts';

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
/** Blocks read back on a chain's first run (payments to addresses issued before the watcher ran). */
const FIRST_LOOKBACK = 1_000;
/** Blocks whose transactions are searched for a coin payment's hash. */
const MAX_TX_SEARCH_BLOCKS = 200;
const ADDRESSES_PER_QUERY = 100;

/** The first funds seen at an issued address: the asset is what the note names (PROTOCOL.md 8.1). */
type SeenPayment = { issued: IssuedAddress; txHash: string; amount: bigint; token: Address | 'coin' };

export type WatchDependencies = { config: EnsGatewayConfig; names: NameStore; registry: RegistryStore };

/**
 * One tick for one chain: read the blocks since the cursor and publish every first payment seen.
 * @returns how many announcements were published.
 */
export async function watchChainOnce(chain: FollowedChain, deps: WatchDependencies, now = Math.floor(Date.now() / 1000)): Promise<number> {
  const chainId = chain.chainId;
  if (chainId === undefined || !chain.identified) return 0;
  const client = chain.clients.reads;
  const head = Number(await chain.clients.blockNumber());
  const cursor = await deps.names.watchCursor(chainId);
  const from = cursor ?? Math.max(0, head - FIRST_LOOKBACK);
  if (from > head) return 0;
  const to = Math.min(head, from + chain.config.maxBlockRange - 1);
  const watched = await deps.names.watched(now - deps.config.graceSeconds);
  const seen = new Map<number, SeenPayment>();

  for (let i = 0; i < watched.length; i += ADDRESSES_PER_QUERY) {
    const group = watched.slice(i, i + ADDRESSES_PER_QUERY);
    const logs = await client.getLogs({ event: transferEvent, args: { to: group.map((row) => row.address as Address) }, fromBlock: BigInt(from), toBlock: BigInt(to) });
    for (const entry of logs) {
      const issued = group.find((row) => row.address.toLowerCase() === entry.args.to?.toLowerCase());
      if (issued !== undefined && !seen.has(issued.id) && entry.transactionHash !== null) {
        seen.set(issued.id, { issued, txHash: entry.transactionHash, amount: entry.args.value ?? 0n, token: getAddress(entry.address) });
      }
    }
  }
  const unfunded = watched.filter((row) => !seen.has(row.id));
  const balances = await balancesAt(chain, unfunded.map((row) => row.address as Address), BigInt(to));
  const coinPaid = unfunded.filter((_, i) => balances[i]! > 0n);
  if (coinPaid.length > 0) {
    const hashes = await coinPaymentHashes(chain, coinPaid.map((row) => row.address), from, to);
    coinPaid.forEach((row) => {
      seen.set(row.id, { issued: row, txHash: hashes.get(row.address.toLowerCase()) ?? `gateway:${chainId}:${row.address.toLowerCase()}`, amount: balances[unfunded.indexOf(row)]!, token: 'coin' });
    });
  }
  let published = 0;
  for (const payment of seen.values()) {
    if (await publishPayment(chain, chainId, payment, deps)) published++;
  }
  await deps.names.setWatchCursor(chainId, to + 1);
  return published;
}

/** Batching clients per followed chain (viem's http transport sends the calls of one tick as one JSON-RPC batch). */
const batchClients = new WeakMap<FollowedChain, PublicClient>();

/** The coin balances of `addresses` at block `at`: one JSON-RPC batch request per {@link ADDRESSES_PER_QUERY} addresses. */
async function balancesAt(chain: FollowedChain, addresses: Address[], at: bigint): Promise<bigint[]> {
  const client = batchClients.get(chain) ?? createPublicClient({ transport: http(chain.config.rpcUrl, { batch: { batchSize: ADDRESSES_PER_QUERY, wait: 0 }, timeout: getConfig().upstreamTimeoutMs }) });
  batchClients.set(chain, client);
  const balances: bigint[] = [];
  for (let i = 0; i < addresses.length; i += ADDRESSES_PER_QUERY) {
    const group = addresses.slice(i, i + ADDRESSES_PER_QUERY);
    balances.push(...(await Promise.all(group.map((address) => client.getBalance({ address, blockNumber: at })))));
  }
  return balances;
}

/** The transactions among blocks [from, to] (newest first, at most {@link MAX_TX_SEARCH_BLOCKS}) that sent coin straight to one of `addresses`. */
async function coinPaymentHashes(chain: FollowedChain, addresses: string[], from: number, to: number): Promise<Map<string, Hash>> {
  const wanted = new Set(addresses.map((a) => a.toLowerCase()));
  const found = new Map<string, Hash>();
  for (let block = to; block >= Math.max(from, to - MAX_TX_SEARCH_BLOCKS + 1) && found.size < wanted.size; block--) {
    const { transactions } = await chain.clients.reads.getBlock({ blockNumber: BigInt(block), includeTransactions: true });
    // Oldest first inside the block, so the first payment of an address wins.
    for (const tx of transactions) {
      const to = tx.to?.toLowerCase();
      if (to !== undefined && wanted.has(to) && tx.value > 0n) found.set(to, tx.hash);
    }
  }
  return found;
}

/** Rebuild the payment of `seen` and publish its announcement; true when a row was stored. */
async function publishPayment(chain: FollowedChain, chainId: number, seen: SeenPayment, deps: WatchDependencies): Promise<boolean> {
  const { issued } = seen;
  const meta = await deps.names.metaAddressOf(issued.metaId);
  if (meta === null) return false;
  const payment: StealthPayment = gatewayPayment(deps.config.secret, issued.name, issued.counter, meta);
  if (getAddress(payment.stealthAddress) !== getAddress(issued.address)) {
    // The secret changed since the address was issued: its announcement cannot be rebuilt.
    log('error', 'ens gateway could not rebuild an issued address (was ENS_GATEWAY_SECRET changed?)', { chain: chain.config.name, id: issued.id });
    return false;
  }
  const isHash = /^0x[0-9a-f]{64}$/i.test(seen.txHash);
  // The note names its asset (PROTOCOL.md 8.1): without it a token's amount would read as the coin's.
  const metadata = announcementMetadata(payment, { ...(isHash ? { txHash: seen.txHash } : {}), amount: seen.amount, token: seen.token, chainId }).subarray(1);
  const publish = (txHash: string) =>
    deps.registry.publish({
      schemeId: payment.schemeId,
      ephemeralKey: payment.ephemeralCiphertext,
      viewTag: payment.viewTag,
      txHash,
      amount: null,
      chain: chain.config.name,
      chainId,
      channelId: null,
      metadata,
      stealthAddress: payment.schemeId === 3 ? payment.stealthAddress : null,
    });
  let announcementId: number | null = null;
  // Registry rows are unique by tx_hash: a transaction paying two issued addresses stores the
  // second under `<hash>#<address>`. A duplicate of both is this payment stored already (a crash
  // between publishing and marking paid): mark it now.
  for (const txHash of [seen.txHash, `${seen.txHash}#${issued.address.toLowerCase()}`]) {
    try {
      announcementId = (await publish(txHash)).id;
      break;
    } catch (error) {
      if (!(error instanceof DuplicateAnnouncementError)) throw error;
    }
  }
  await deps.names.markPaid(issued.id, { chainId, txHash: seen.txHash, announcementId });
  log('info', 'ens gateway published a payment', { chain: chain.config.name, announcement_id: announcementId });
  return announcementId !== null;
}

/** Run {@link watchChainOnce} for every chain every `pollMs` until `signal` aborts. */
export async function runWatcher(chains: () => readonly FollowedChain[], deps: () => Promise<WatchDependencies>, pollMs: number, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      const ready = await deps();
      for (const chain of chains()) {
        try {
          await watchChainOnce(chain, ready);
        } catch (error) {
          log('warn', 'ens gateway watcher failed a tick', { chain: chain.config.name, error: chainErrorSummary(error) });
        }
      }
    } catch (error) {
      log('warn', 'ens gateway watcher could not open its stores', { error: chainErrorSummary(error) });
    }
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve(undefined);
      }, { once: true });
    });
  }
}
