/**
 * Reading the announcements of a block range from any JSON-RPC provider (PROTOCOL.md section 7),
 * the way public providers need it: `eth_getLogs` filtered by Announcer address, `Announcement`
 * topic and scheme id, in ranges the provider accepts. A refused range ("block range too large",
 * "more than 10000 results", HTTP 413, -32005, ...) is halved until it passes, and the range
 * grows back after successes; transient faults are retried (see `rpc-request.ts`). Blocks are
 * read in order and none is skipped: the result covers exactly [fromBlock, toBlock], or the call
 * throws a ChainRpcError that says from which block to resume.
 *
 * Used by the SDK's chain page source and by the server's indexer.
 * @module
 */
import { numberToHex, type Address } from 'viem';
import { InvalidArgumentError } from '../errors.ts';
import { ANNOUNCEMENT_EVENT_TOPIC, ANNOUNCER_ADDRESS, parseAddress, schemeIdTopic } from './announcer.ts';
import { decodeAnnouncementLogs, emptySkipCounts, quantity, schemeIdList, type ChainAnnouncement, type DecodeAnnouncementLogsReturnType, type RpcLogLike } from './decode-logs.ts';
import { RangeRefused, rpcRequest, type ChainRetryOptions, type ChainRpcClient } from './rpc-request.ts';

/** Blocks per `eth_getLogs` call to start with: what most public providers accept for a sparse event. */
export const DEFAULT_MAX_BLOCK_RANGE = 10_000n;
/** After this many successful calls a refused size is forgotten, so the range can grow past it again (event density changes). */
const FORGET_REFUSAL_AFTER = 16;
/** Parallel `eth_getBlockByHash` calls when logs come without `blockTimestamp`. */
const TIMESTAMP_CONCURRENCY = 4;

export type FetchAnnouncementsParameters = {
  /** A viem client or an EIP-1193 provider. */
  client: ChainRpcClient;
  /** First block to read (inclusive). */
  fromBlock: bigint;
  /** Last block to read (inclusive). */
  toBlock: bigint;
  /** Scheme id(s) to read, one `eth_getLogs` filter for all (default 1000, this format, and 3, ERC-8441). */
  schemeId?: bigint | readonly bigint[];
  /** Default {@link ANNOUNCER_ADDRESS}. */
  announcer?: Address;
  /** Largest block range of one `eth_getLogs` call (default 10,000); smaller ranges are used when the provider refuses it. */
  maxBlockRange?: bigint;
  retry?: ChainRetryOptions;
  /** Stops the fetch; it then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The `chain` label of the announcements (e.g. `ethereum`); default null. */
  chain?: string | null;
  /** The EIP-155 id to tag the announcements with (`chainId`); default: left out. */
  chainId?: number;
  /** Called after each range is read: progress, or the indexer's checkpoint. */
  onRange?: (range: { fromBlock: bigint; toBlock: bigint; logs: number }) => void;
};

export type FetchAnnouncementsReturnType = DecodeAnnouncementLogsReturnType;

/**
 * Fetch and decode the announcements of blocks [fromBlock, toBlock], sorted by (block, log index).
 *
 * @throws {ChainRpcError} (`CHAIN_RPC_FAILED`) when the provider keeps failing; its `fromBlock`
 * is the first block not read. The signal's reason when aborted.
 * @example
 * import { createPublicClient, http } from 'viem';
 * import { mainnet } from 'viem/chains';
 * import { fetchAnnouncements } from '@wraith-pq/sdk/evm';
 *
 * const client = createPublicClient({ chain: mainnet, transport: http('https://eth.example/rpc') });
 * const head = await client.getBlockNumber();
 * const { announcements, skippedBy } = await fetchAnnouncements({ client, fromBlock: head - 50_000n, toBlock: head, chain: 'ethereum' });
 */
export async function fetchAnnouncements(parameters: FetchAnnouncementsParameters): Promise<FetchAnnouncementsReturnType> {
  const { client, fromBlock, toBlock, retry, signal, onRange, chainId } = parameters;
  if (typeof client?.request !== 'function') throw new InvalidArgumentError('client', 'must have an EIP-1193 request({ method, params }) function');
  if (typeof fromBlock !== 'bigint' || fromBlock < 0n) throw new InvalidArgumentError('fromBlock', 'must be a non-negative bigint');
  if (typeof toBlock !== 'bigint' || toBlock < 0n) throw new InvalidArgumentError('toBlock', 'must be a non-negative bigint');
  if (chainId !== undefined && (!Number.isSafeInteger(chainId) || chainId < 1)) throw new InvalidArgumentError('chainId', 'must be a positive integer (EIP-155 chain id)');
  const maxRange = parameters.maxBlockRange ?? DEFAULT_MAX_BLOCK_RANGE;
  if (typeof maxRange !== 'bigint' || maxRange < 1n) throw new InvalidArgumentError('maxBlockRange', 'must be a positive bigint');
  const schemeIds = schemeIdList(parameters.schemeId);
  const announcer = parseAddress(parameters.announcer ?? ANNOUNCER_ADDRESS, 'announcer');
  const decodeOptions = { schemeId: schemeIds, announcer, chain: parameters.chain ?? null };
  // topic1 is the scheme id: a list matches any of them (eth_getLogs topic OR).
  const topics = [ANNOUNCEMENT_EVENT_TOPIC, schemeIds.length === 1 ? schemeIdTopic(schemeIds[0]!) : schemeIds.map(schemeIdTopic)];

  const announcements: ChainAnnouncement[] = [];
  const skippedBy = emptySkipCounts();
  let skipped = 0;
  let range = maxRange;
  /** Largest range not known to be refused. */
  let ceiling = maxRange;
  let successes = 0;
  for (let from = fromBlock; from <= toBlock; ) {
    signal?.throwIfAborted();
    const to = from + range - 1n < toBlock ? from + range - 1n : toBlock;
    let logs: RpcLogLike[];
    try {
      logs = await rpcRequest<RpcLogLike[]>({
        client,
        method: 'eth_getLogs',
        params: [{ address: announcer, topics, fromBlock: numberToHex(from), toBlock: numberToHex(to) }],
        ...(retry ? { retry } : {}),
        ...(signal ? { signal } : {}),
        fromBlock: from,
        toBlock: to,
        // A single block cannot be split: a refusal of it is then a failure like any other.
        splittable: to > from,
        accept: Array.isArray,
      });
    } catch (error) {
      if (!(error instanceof RangeRefused)) throw error;
      const size = to - from + 1n;
      ceiling = size - 1n;
      range = size / 2n;
      successes = 0;
      continue;
    }
    // A provider answering outside the range asked must not make blocks appear twice.
    const inRange = logs.filter((log) => {
      const block = quantity(log?.blockNumber);
      return block !== undefined && BigInt(block) >= from && BigInt(block) <= to;
    });
    const decoded = decodeAnnouncementLogs(inRange, decodeOptions);
    if (chainId !== undefined) for (const a of decoded.announcements) a.chainId = chainId;
    await fillTimestamps(decoded.announcements, { client, retry, signal, fromBlock: from, toBlock: to });
    announcements.push(...decoded.announcements);
    skipped += decoded.skipped;
    for (const reason of Object.keys(skippedBy) as (keyof typeof skippedBy)[]) skippedBy[reason] += decoded.skippedBy[reason];
    onRange?.({ fromBlock: from, toBlock: to, logs: logs.length });
    from = to + 1n;
    if (++successes >= FORGET_REFUSAL_AFTER) ceiling = maxRange;
    // Grow back gradually: double, but not past a size the provider refused lately.
    range = range * 2n < ceiling ? range * 2n : ceiling;
  }
  return { announcements, skipped, skippedBy };
}

/** Set `timestamp` from the blocks (by hash, so a reorg cannot give another block's time) where the logs had none. */
async function fillTimestamps(
  announcements: ChainAnnouncement[],
  context: { client: ChainRpcClient; retry: ChainRetryOptions | undefined; signal: AbortSignal | undefined; fromBlock: bigint; toBlock: bigint },
): Promise<void> {
  const missing = [...new Set(announcements.filter((a) => a.timestamp === 0).map((a) => a.blockHash))];
  if (missing.length === 0) return;
  const times = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < missing.length) {
      const hash = missing[next++]!;
      const block = await rpcRequest<{ timestamp?: string } | null>({
        client: context.client,
        method: 'eth_getBlockByHash',
        params: [hash, false],
        ...(context.retry ? { retry: context.retry } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
        fromBlock: context.fromBlock,
        toBlock: context.toBlock,
        accept: (result) => result === null || typeof result === 'object',
      });
      // null: the block was reorged away since the logs were read; the timestamp stays 0.
      const time = quantity(block?.timestamp);
      if (time !== undefined) times.set(hash, time);
    }
  };
  await Promise.all(Array.from({ length: Math.min(TIMESTAMP_CONCURRENCY, missing.length) }, worker));
  for (const a of announcements) if (a.timestamp === 0) a.timestamp = times.get(a.blockHash) ?? 0;
}
