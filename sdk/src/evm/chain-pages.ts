/**
 * The chain as a page source for `scanRegistry`: a recipient scans the ERC-5564 Announcer
 * straight from any RPC provider, with no Wraith server (PROTOCOL.md section 7). Pages hold
 * the announcements of `pageBlocks` blocks in (block, log index) order; the cursor of a batch
 * is `chainCursor(block, logIndex)` of its last announcement, so a saved cursor resumes at the
 * block it stopped in, after the log it stopped at.
 * @module
 */
import { hexToBigInt, type Address } from 'viem';
import { InvalidArgumentError } from '../errors.ts';
import type { RegistryPageSource } from '../scan-registry.ts';
import { cursorPosition } from './cursor.ts';
import type { ChainAnnouncement } from './decode-logs.ts';
import { DEFAULT_MAX_BLOCK_RANGE, fetchAnnouncements } from './fetch-announcements.ts';
import { rpcRequest, type ChainRetryOptions, type ChainRpcClient } from './rpc-request.ts';

export type ChainAnnouncementPagesParameters = {
  /** A viem client or an EIP-1193 provider (a browser wallet works). */
  client: ChainRpcClient;
  /** First block to scan (default 0). Start at the Announcer's deployment block (or the recipient's key creation) to save calls. */
  fromBlock?: bigint;
  /** Last block to scan (default `'latest'`, read once when the scan starts). */
  toBlock?: bigint | 'latest';
  schemeId?: bigint;
  announcer?: Address;
  /** Blocks per page (default 10,000): one page is what the scanner gets at a time. */
  pageBlocks?: bigint;
  /** Largest block range of one `eth_getLogs` call (default 10,000). */
  maxBlockRange?: bigint;
  retry?: ChainRetryOptions;
  /** The `chain` label of the announcements (e.g. `ethereum`); default null. */
  chain?: string | null;
};

/**
 * A `scanRegistry` page source reading the Announcer's events from an RPC provider.
 *
 * Pages with no announcement are not yielded, so a batch's cursor always names an announcement;
 * a scan interrupted in a long empty stretch restarts from its last announcement.
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
 */
export function chainAnnouncementPages(parameters: ChainAnnouncementPagesParameters): RegistryPageSource<ChainAnnouncement> {
  const { client, fromBlock = 0n, toBlock = 'latest', pageBlocks = DEFAULT_MAX_BLOCK_RANGE, retry, ...filter } = parameters;
  if (typeof client?.request !== 'function') throw new InvalidArgumentError('client', 'must have an EIP-1193 request({ method, params }) function');
  if (typeof fromBlock !== 'bigint' || fromBlock < 0n) throw new InvalidArgumentError('fromBlock', 'must be a non-negative bigint');
  if (toBlock !== 'latest' && (typeof toBlock !== 'bigint' || toBlock < 0n)) throw new InvalidArgumentError('toBlock', "must be a non-negative bigint or 'latest'");
  if (typeof pageBlocks !== 'bigint' || pageBlocks < 1n) throw new InvalidArgumentError('pageBlocks', 'must be a positive bigint');

  return async function* ({ afterId, signal }) {
    // Resume in the block of the cursor: its later logs are still due.
    const resumeBlock = afterId > 0 ? BigInt(cursorPosition(afterId).blockNumber) : 0n;
    const start = resumeBlock > fromBlock ? resumeBlock : fromBlock;
    const end =
      toBlock === 'latest'
        ? hexToBigInt(
            await rpcRequest<`0x${string}`>({
              client,
              method: 'eth_blockNumber',
              params: [],
              ...(retry ? { retry } : {}),
              ...(signal ? { signal } : {}),
              accept: (result) => typeof result === 'string' && /^0x[0-9a-f]+$/i.test(result),
            }),
          )
        : toBlock;
    for (let from = start; from <= end; from += pageBlocks) {
      const to = from + pageBlocks - 1n < end ? from + pageBlocks - 1n : end;
      const { announcements } = await fetchAnnouncements({
        client,
        fromBlock: from,
        toBlock: to,
        ...filter,
        ...(retry ? { retry } : {}),
        ...(signal ? { signal } : {}),
      });
      const page = announcements.filter((a) => a.id > afterId);
      if (page.length > 0) yield page;
    }
  };
}
