/**
 * The chain as a page source for `scanRegistry`: a recipient scans the ERC-5564 Announcer
 * straight from any RPC provider, with no Wraith server (PROTOCOL.md section 7). Pages hold
 * the announcements of `pageBlocks` blocks in (block, log index) order; the cursor of a batch
 * is `chainCursor(block, logIndex)` of its last announcement, so a saved cursor resumes at the
 * block it stopped in, after the log it stopped at.
 *
 * Several chains in one scan (`chains`): each chain has its own RPC, block range and cursor.
 * Each round reads the next `pageBlocks` blocks of every chain not yet done, at once, and yields
 * their pages; every announcement carries its chain's EIP-155 id (`chainId`, read from the RPC
 * with `eth_chainId`). Ids grow only within a chain, so the source says `cursorPerChain` and
 * `scanRegistry` keeps the cursors of every chain (`batch.cursors`, resumed with `fromCursors`).
 * @module
 */
import { hexToBigInt, type Address } from 'viem';
import { InvalidArgumentError } from '../errors.ts';
import type { ChainCursors, RegistryPageSource } from '../scan-registry.ts';
import { cursorPosition } from './cursor.ts';
import type { ChainAnnouncement } from './decode-logs.ts';
import { DEFAULT_MAX_BLOCK_RANGE, fetchAnnouncements } from './fetch-announcements.ts';
import { rpcRequest, type ChainRetryOptions, type ChainRpcClient } from './rpc-request.ts';

/** One chain of a scan: its RPC, block range and Announcer. */
export type ChainPageSourceChain = {
  /** A viem client or an EIP-1193 provider (a browser wallet works). */
  client: ChainRpcClient;
  /**
   * The chain's EIP-155 id. With `chains`, read from the RPC (`eth_chainId`) and checked against
   * this when given; alone, the announcements are tagged with it when given (no extra call).
   */
  chainId?: number;
  /** First block to scan (default 0). Start at the Announcer's deployment block (or the recipient's key creation) to save calls. */
  fromBlock?: bigint;
  /** Last block to scan (default `'latest'`, read once when the scan starts). */
  toBlock?: bigint | 'latest';
  announcer?: Address;
  /** Largest block range of one `eth_getLogs` call (default 10,000). */
  maxBlockRange?: bigint;
  /** The `chain` label of the announcements (e.g. `base`); default null. */
  chain?: string | null;
  retry?: ChainRetryOptions;
};

/** What every chain of a scan shares. */
type ChainPageSourceShared = {
  /** Scheme id(s) to read (default 1000 and 3: both schemes one identity receives under). */
  schemeId?: bigint | readonly bigint[];
  /** Blocks per page (default 10,000): one page is what the scanner gets at a time, per chain. */
  pageBlocks?: bigint;
  /** Retry policy of every chain without its own. */
  retry?: ChainRetryOptions;
};

export type ChainAnnouncementPagesParameters =
  | (ChainPageSourceChain & ChainPageSourceShared)
  | (ChainPageSourceShared & {
      /** Several chains in one scan, each with its own RPC and cursor (at least one, ids distinct). */
      chains: readonly ChainPageSourceChain[];
    });

/** A chain being scanned: where it goes next and where it ends. */
type ChainProgress = { chain: ChainPageSourceChain; chainId: number | undefined; next: bigint; end: bigint; after: number };

/**
 * A `scanRegistry` page source reading the Announcer's events from RPC providers: one chain, or
 * several (`chains`) in one scan with a cursor per chain.
 *
 * Pages with no announcement are not yielded, so a batch's cursor always names an announcement;
 * a scan interrupted in a long empty stretch restarts from its last announcement.
 *
 * @throws {InvalidArgumentError} for a malformed parameter, an empty or duplicated `chains`, or
 * (when the scan starts) an RPC answering another chain id than its entry names.
 * {@link ChainRpcError} from the scan when a provider keeps failing: every chain's cursor is
 * still where it was, so the scan resumes from the last batch's `cursors`.
 * @example
 * import { createPublicClient, http } from 'viem';
 * import { mainnet } from 'viem/chains';
 * import { scanRegistry } from '@wraith-pq/sdk';
 * import { chainAnnouncementPages } from '@wraith-pq/sdk/evm';
 *
 * const client = createPublicClient({ chain: mainnet, transport: http('https://eth.example/rpc') });
 * const source = chainAnnouncementPages({ client, fromBlock: 20_000_000n, chain: 'ethereum' });
 * for await (const batch of scanRegistry(source, keys, { fromCursor: savedCursor })) {
 *   for (const found of batch.discoveries) console.log(found.stealthAddress, found.note);
 *   savedCursor = batch.cursor;
 * }
 * @example
 * // Base and OP Mainnet in one scan, resumable: save batch.cursors (one cursor per chain)
 * const source = chainAnnouncementPages({
 *   chains: [
 *     { client: baseClient, chainId: 8453, fromBlock: 12_000_000n, chain: 'base' },
 *     { client: opClient, chainId: 10, fromBlock: 110_000_000n, chain: 'optimism' },
 *   ],
 * });
 * for await (const batch of scanRegistry(source, keys, { fromCursors: saved })) {
 *   for (const found of batch.discoveries) console.log(found.announcement.chainId, found.stealthAddress);
 *   saved = batch.cursors; // e.g. { 8453: 13003431526432, 10: 115867456160768 }
 * }
 */
export function chainAnnouncementPages(parameters: ChainAnnouncementPagesParameters): RegistryPageSource<ChainAnnouncement> {
  const { pageBlocks = DEFAULT_MAX_BLOCK_RANGE, schemeId, retry } = parameters;
  if (typeof pageBlocks !== 'bigint' || pageBlocks < 1n) throw new InvalidArgumentError('pageBlocks', 'must be a positive bigint');
  const several = 'chains' in parameters;
  const chains = several ? parameters.chains : [parameters];
  if (several && (!Array.isArray(chains) || chains.length === 0)) throw new InvalidArgumentError('chains', 'must list at least one chain');
  chains.forEach((chain, i) => checkChain(chain, several ? `chains[${i}].` : ''));
  const withRetry = (chain: ChainPageSourceChain): ChainPageSourceChain => (chain.retry === undefined && retry !== undefined ? { ...chain, retry } : chain);

  const pages = async function* ({ afterId, afterIds, signal }: { afterId: number; afterIds?: ChainCursors; signal?: AbortSignal }) {
    // Ids grow only within a chain: a consumer with one cursor (a wrapper that dropped
    // `cursorPerChain`) would skip the rows of every chain behind the one it saw last.
    if (several && afterIds === undefined) {
      throw new InvalidArgumentError('afterIds', 'must be given: this source keeps a cursor per chain (pass it to scanRegistry as it is, or copy its cursorPerChain)');
    }
    const progress = await Promise.all(
      chains.map(async (given, i): Promise<ChainProgress> => {
        const chain = withRetry(given);
        const chainId = several ? await readChainId(chain, `chains[${i}].chainId`, signal) : chain.chainId;
        // Resume in the block of the cursor: its later logs are still due.
        const after = several ? (afterIds![chainId!] ?? 0) : afterId;
        const resumeBlock = after > 0 ? BigInt(cursorPosition(after).blockNumber) : 0n;
        const fromBlock = chain.fromBlock ?? 0n;
        const end = chain.toBlock === undefined || chain.toBlock === 'latest' ? await readHead(chain, signal) : chain.toBlock;
        return { chain, chainId, next: resumeBlock > fromBlock ? resumeBlock : fromBlock, end, after };
      }),
    );
    if (several) {
      const seen = new Set<number>();
      for (const { chainId } of progress) {
        if (seen.has(chainId!)) throw new InvalidArgumentError('chains', `lists chain ${chainId} twice`);
        seen.add(chainId!);
      }
    }
    for (;;) {
      const due = progress.filter((p) => p.next <= p.end);
      if (due.length === 0) return;
      // One range of every chain at once: a slow provider delays the round, not the others' reads.
      const round = await Promise.all(due.map((p) => nextPage(p, pageBlocks, schemeId, signal)));
      for (const page of round) if (page.length > 0) yield page;
    }
  };
  return several ? Object.assign(pages, { cursorPerChain: true }) : pages;
}

/** Check one chain's parameters; `path` prefixes the field names (`chains[1].`). */
function checkChain(chain: ChainPageSourceChain, path: string): void {
  if (typeof chain?.client?.request !== 'function') throw new InvalidArgumentError(`${path}client`, 'must have an EIP-1193 request({ method, params }) function');
  const { fromBlock = 0n, toBlock = 'latest', chainId } = chain;
  if (typeof fromBlock !== 'bigint' || fromBlock < 0n) throw new InvalidArgumentError(`${path}fromBlock`, 'must be a non-negative bigint');
  if (toBlock !== 'latest' && (typeof toBlock !== 'bigint' || toBlock < 0n)) throw new InvalidArgumentError(`${path}toBlock`, "must be a non-negative bigint or 'latest'");
  if (chainId !== undefined && (!Number.isSafeInteger(chainId) || chainId < 1)) throw new InvalidArgumentError(`${path}chainId`, 'must be a positive integer (EIP-155 chain id)');
}

/** The next `pageBlocks` blocks of one chain, past its cursor; advances it. */
async function nextPage(progress: ChainProgress, pageBlocks: bigint, schemeId: bigint | readonly bigint[] | undefined, signal: AbortSignal | undefined): Promise<ChainAnnouncement[]> {
  const { chain, chainId, next, end, after } = progress;
  const to = next + pageBlocks - 1n < end ? next + pageBlocks - 1n : end;
  const { announcements } = await fetchAnnouncements({
    client: chain.client,
    fromBlock: next,
    toBlock: to,
    ...(schemeId === undefined ? {} : { schemeId }),
    ...(chain.announcer === undefined ? {} : { announcer: chain.announcer }),
    ...(chain.maxBlockRange === undefined ? {} : { maxBlockRange: chain.maxBlockRange }),
    ...(chain.chain === undefined ? {} : { chain: chain.chain }),
    ...(chainId === undefined ? {} : { chainId }),
    ...(chain.retry ? { retry: chain.retry } : {}),
    ...(signal ? { signal } : {}),
  });
  progress.next = to + 1n;
  return announcements.filter((a) => a.id > after);
}

/** The chain's head block, read once when the scan starts. */
async function readHead(chain: ChainPageSourceChain, signal: AbortSignal | undefined): Promise<bigint> {
  return hexToBigInt(await readQuantity(chain, 'eth_blockNumber', signal));
}

/** The RPC's EIP-155 id, checked against the one the entry names. */
async function readChainId(chain: ChainPageSourceChain, path: string, signal: AbortSignal | undefined): Promise<number> {
  const id = Number(hexToBigInt(await readQuantity(chain, 'eth_chainId', signal)));
  if (chain.chainId !== undefined && chain.chainId !== id) throw new InvalidArgumentError(path, `is ${chain.chainId}, but its RPC answers chain ${id}`);
  return id;
}

function readQuantity(chain: ChainPageSourceChain, method: 'eth_blockNumber' | 'eth_chainId', signal: AbortSignal | undefined): Promise<`0x${string}`> {
  return rpcRequest<`0x${string}`>({
    client: chain.client,
    method,
    params: [],
    ...(chain.retry ? { retry: chain.retry } : {}),
    ...(signal ? { signal } : {}),
    accept: (result) => typeof result === 'string' && /^0x[0-9a-f]+$/i.test(result),
  });
}
