/**
 * The server's JSON-RPC access to one followed chain (an entry of `CHAINS`, or `CHAIN_RPC_URL`;
 * API.md "Configuration"), for its indexer and verified publishing.
 *
 * Two viem clients over one URL. Block and receipt reads retry transient faults themselves
 * (viem's http transport: timeouts, connection errors, 408/429/5xx, honouring Retry-After, with
 * exponential delays). `eth_getLogs` goes through a client that does not retry, because the SDK's
 * `fetchAnnouncements` retries with its own rules: a provider that refuses a range must see a
 * smaller range next, not the same one again.
 *
 * Messages built here never quote the URL (RPC URLs often carry an API key).
 */
import { createPublicClient, http, type Hash, type PublicClient, type TransactionReceipt } from 'viem';

/**
 * Retries of a block or receipt read (delays 100, 200 and 400 ms). Short on purpose: the
 * indexer's tick retries as a whole with its own backoff, and a publish should fail fast.
 */
const READ_RETRIES = 3;
const READ_RETRY_DELAY_MS = 100;

export type ChainClients = {
  /** For `fetchAnnouncements` (no transport retries). */
  logs: PublicClient;
  /** For contract reads (the ERC-6538 registry), retrying transient faults like block reads. */
  reads: PublicClient;
  /** The EIP-155 id the node answers (`eth_chainId`). */
  chainId(): Promise<number>;
  blockNumber(): Promise<bigint>;
  /** Hash of block `number` of the chain the node follows now. */
  blockHash(number: number): Promise<string>;
  /** Unix seconds of block `number`. */
  blockTimestamp(number: bigint): Promise<number>;
  /** The receipt, or null when the node knows no mined transaction with this hash. */
  receipt(hash: Hash): Promise<TransactionReceipt | null>;
};

export function createChainClients(rpcUrl: string, timeoutMs: number): ChainClients {
  const reads = createPublicClient({
    transport: http(rpcUrl, { timeout: timeoutMs, retryCount: READ_RETRIES, retryDelay: READ_RETRY_DELAY_MS }),
  });
  const logs = createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
  return {
    logs,
    reads,
    chainId: () => reads.getChainId(),
    blockNumber: () => reads.getBlockNumber({ cacheTime: 0 }),
    async blockHash(number) {
      const block = await reads.getBlock({ blockNumber: BigInt(number) });
      if (block.hash === null) throw new Error(`block ${number} has no hash yet`);
      return block.hash;
    },
    async blockTimestamp(number) {
      const block = await reads.getBlock({ blockNumber: number });
      return Number(block.timestamp);
    },
    async receipt(hash) {
      try {
        return await reads.getTransactionReceipt({ hash });
      } catch (error) {
        if (error instanceof Error && error.name === 'TransactionReceiptNotFoundError') return null;
        throw error;
      }
    },
  };
}

/**
 * A read a request waits on, answered within `timeoutMs` in all: for the ERC-6538 read and
 * verified publishing, the transport's retries of transient faults run inside that one budget
 * instead of stretching UPSTREAM_TIMEOUT_MS to four times itself; /health bounds its store and
 * chain reads with it. Past it, rejects with a `TimeoutError` (a DOMException, as an aborted
 * fetch's) and lets the read end on its own.
 */
export async function withinTimeout<T>(read: () => Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  });
  try {
    return await Promise.race([read(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A one-line account of an RPC or store failure for logs and /health: error name and viem's short message, no URL. */
export function chainErrorSummary(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const short = (error as { shortMessage?: unknown }).shortMessage;
  return typeof short === 'string' && short !== '' ? `${error.name}: ${short}` : error.name;
}
