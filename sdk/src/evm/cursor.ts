/**
 * Where a chain announcement sits, as one number: the id and resume cursor of chain
 * announcements (PROTOCOL.md section 6: `block_number`, `log_index`). Ids grow with
 * (block, log index), so `scanRegistry`'s "resume after this id" works unchanged on chain data.
 * @module
 */
import { InvalidArgumentError } from '../errors.ts';

/** Log indexes get 20 bits (over a million logs per block); blocks the remaining 33 of a safe integer. */
const LOG_INDEX_BITS = 20;
const LOG_INDEX_LIMIT = 2 ** LOG_INDEX_BITS;
/** 2^33 blocks: more than a thousand years of 4-second blocks. */
const BLOCK_LIMIT = 2 ** (53 - LOG_INDEX_BITS);

/**
 * The cursor (and id) of the announcement at (`blockNumber`, `logIndex`): `blockNumber * 2^20 + logIndex`.
 *
 * @example
 * import { chainCursor, cursorPosition } from '@wraith-pq/sdk/evm';
 * const cursor = chainCursor(19_000_000n, 42); // 19922944000042
 * cursorPosition(cursor); // { blockNumber: 19000000, logIndex: 42 }
 */
export function chainCursor(blockNumber: number | bigint, logIndex: number): number {
  const block = typeof blockNumber === 'bigint' ? Number(blockNumber) : blockNumber;
  if (!Number.isSafeInteger(block) || block < 0 || block >= BLOCK_LIMIT) throw new InvalidArgumentError('blockNumber', `must be an integer in 0..2^${53 - LOG_INDEX_BITS}`);
  if (!Number.isSafeInteger(logIndex) || logIndex < 0 || logIndex >= LOG_INDEX_LIMIT) throw new InvalidArgumentError('logIndex', `must be an integer in 0..2^${LOG_INDEX_BITS}`);
  return block * LOG_INDEX_LIMIT + logIndex;
}

/**
 * The block and log index a cursor from {@link chainCursor} stands for.
 *
 * @example
 * import { cursorPosition } from '@wraith-pq/sdk/evm';
 * const { blockNumber } = cursorPosition(savedCursor); // resume the chain scan at this block
 */
export function cursorPosition(cursor: number): { blockNumber: number; logIndex: number } {
  if (!Number.isSafeInteger(cursor) || cursor < 0) throw new InvalidArgumentError('cursor', 'must be a non-negative safe integer');
  return { blockNumber: Math.floor(cursor / LOG_INDEX_LIMIT), logIndex: cursor % LOG_INDEX_LIMIT };
}

/** Whether (blockNumber, logIndex) fits a cursor. */
export function isCursorPosition(blockNumber: number, logIndex: number): boolean {
  return Number.isSafeInteger(blockNumber) && blockNumber >= 0 && blockNumber < BLOCK_LIMIT && Number.isSafeInteger(logIndex) && logIndex >= 0 && logIndex < LOG_INDEX_LIMIT;
}
