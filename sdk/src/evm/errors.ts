/**
 * The error of the chain entry: a JSON-RPC provider kept failing. PROTOCOL.md section 7.
 * @module
 */
import { WraithError } from '../errors.ts';

/** What failed, without the provider's text (an RPC URL may carry an API key). */
export type ChainRpcFailure = {
  /** The JSON-RPC method that failed. */
  method: string;
  /** The block range being read when it failed (inclusive), if any. */
  fromBlock?: bigint;
  toBlock?: bigint;
  /** Calls made for it. */
  attempts: number;
  /** Short reason: `HTTP 503`, `timeout`, `JSON-RPC error -32603`, `connection failed`, ... */
  reason: string;
};

/**
 * A JSON-RPC provider failed after the retries (or with an error retrying cannot fix). Every block
 * before `fromBlock` was read: a scan can resume from its last cursor. The provider's own error
 * is the `cause`.
 *
 * @example
 * import { ChainRpcError, fetchAnnouncements } from '@wraith-pq/sdk/evm';
 * try {
 *   await fetchAnnouncements({ client, fromBlock, toBlock });
 * } catch (error) {
 *   if (error instanceof ChainRpcError) console.warn(`provider failed (${error.reason}); retry later from block ${error.fromBlock}`);
 *   else throw error;
 * }
 */
export class ChainRpcError extends WraithError {
  override name = 'ChainRpcError';
  readonly method: string;
  readonly fromBlock: bigint | undefined;
  readonly toBlock: bigint | undefined;
  readonly attempts: number;
  readonly reason: string;

  constructor(failure: ChainRpcFailure, cause?: unknown) {
    const range = failure.fromBlock === undefined ? '' : ` for blocks ${failure.fromBlock}..${failure.toBlock ?? failure.fromBlock}`;
    const tries = failure.attempts === 1 ? '1 attempt' : `${failure.attempts} attempts`;
    super('CHAIN_RPC_FAILED', `${failure.method}${range} failed after ${tries}: ${failure.reason}.`, {
      cause,
      hint:
        failure.fromBlock === undefined
          ? 'Check the RPC provider and try again.'
          : `Nothing was skipped: the blocks before ${failure.fromBlock} are done, so the scan can resume from its last cursor.`,
      details: [{ path: failure.method, issue: failure.reason }],
    });
    this.method = failure.method;
    this.fromBlock = failure.fromBlock;
    this.toBlock = failure.toBlock;
    this.attempts = failure.attempts;
    this.reason = failure.reason;
  }
}
