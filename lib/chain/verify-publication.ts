/**
 * `REGISTRY_PUBLISH=verified` (API.md): an HTTP publish is stored only when its `tx_hash` is a
 * mined, successful transaction on `CHAIN_RPC_URL` that emitted, from the configured Announcer and
 * scheme, an announcement of exactly this `ephemeral_key` and `view_tag` (PROTOCOL.md section 7).
 * Junk then costs a real transaction, and the publish becomes a fast path to the indexer: the
 * row is stored as the chain event it proved (block, log index, announced stealth address, the
 * sealed note from the chain, the block's timestamp), so the indexer finds it already there.
 *
 * Every refusal is 422 TX_NOT_VERIFIED with a message saying which check failed; a provider
 * that fails or times out is 502 UPSTREAM_ERROR / 504 UPSTREAM_TIMEOUT (nothing stored, the
 * publisher may retry). Messages never quote request values.
 */
import { decodeAnnouncementLogs } from '@wraith-pq/sdk/evm';
import { BaseError, TimeoutError, type Hash } from 'viem';
import type { ChainConfig } from '../config.ts';
import { HttpError } from '../http/errors.ts';
import { isTimeout, upstreamError, upstreamTimeout } from '../ipfs/upstream.ts';
import type { ChainEvent } from '../registry/store.ts';
import type { PublishAnnouncementRequest } from '../schemas/registry.ts';
import { toChainEvent } from './indexer.ts';
import { withinTimeout, type ChainClients } from './rpc.ts';

const SERVICE = 'chain RPC';
const TX_HASH = /^(?:0[xX])?([0-9a-fA-F]{64})$/;

export type VerifiedPublication = ChainEvent & { amount: string | null; channelId: Uint8Array | null };

function notVerified(reason: string): HttpError {
  return new HttpError(422, 'TX_NOT_VERIFIED', `Not stored: ${reason}. With REGISTRY_PUBLISH=verified a publish must reference the transaction that announced it.`, {
    details: [{ path: 'tx_hash', issue: reason }],
  });
}

/**
 * Prove a publish request on the chain.
 * @throws {HttpError} 422 TX_NOT_VERIFIED, 502 UPSTREAM_ERROR, 504 UPSTREAM_TIMEOUT.
 */
export async function verifyPublication(
  request: PublishAnnouncementRequest,
  { clients, config, chainId, timeoutMs }: { clients: ChainClients; config: ChainConfig; chainId: number; timeoutMs: number },
): Promise<VerifiedPublication> {
  const hex = TX_HASH.exec(request.tx_hash.trim())?.[1];
  if (hex === undefined) throw notVerified('tx_hash is not a transaction hash (0x and 64 hex digits)');
  const hash = `0x${hex.toLowerCase()}` as Hash;
  // One budget for both reads: the request waits UPSTREAM_TIMEOUT_MS on the chain at most.
  const deadline = Date.now() + timeoutMs;
  const upstream = <T>(call: () => Promise<T>) => read(call, Math.max(1, deadline - Date.now()), timeoutMs);
  const receipt = await upstream(() => clients.receipt(hash));
  if (receipt === null) throw notVerified('the chain has no mined transaction with this hash (if it is pending, publish again once it is mined)');
  if (receipt.status !== 'success') throw notVerified('the transaction failed (reverted) on the chain');
  const { announcements } = decodeAnnouncementLogs(receipt.logs, { schemeId: config.schemeIds, announcer: config.announcer, chain: config.name });
  if (announcements.length === 0) throw notVerified(`the transaction emitted no announcement of scheme ${config.schemeIds.join(' or ')} on the Announcer`);
  // A scheme-3 publish must also name the address the chain announced (the scanner decides on it).
  const match = announcements.find(
    (a) =>
      a.viewTag === request.view_tag &&
      Buffer.compare(a.ephemeralKey, request.ephemeral_key) === 0 &&
      (a.schemeId !== 3 || a.stealthAddress.toLowerCase() === request.stealth_address?.toLowerCase()),
  );
  if (match === undefined) throw notVerified('the transaction announces another ephemeral_key or view_tag (or, for scheme 3, another stealth_address)');
  const timestamp = match.timestamp > 0 ? match.timestamp : await upstream(() => clients.blockTimestamp(receipt.blockNumber));
  return { ...toChainEvent({ ...match, timestamp }, chainId), amount: request.amount ?? null, channelId: request.channel_id ?? null };
}

/** `call` within `remainingMs`; a timeout names the whole budget, `timeoutMs`. */
async function read<T>(call: () => Promise<T>, remainingMs: number, timeoutMs: number): Promise<T> {
  try {
    return await withinTimeout(call, remainingMs);
  } catch (error) {
    if (isTimeout(error) || (error instanceof BaseError && error.walk((e) => e instanceof TimeoutError) !== null)) throw upstreamTimeout(SERVICE, timeoutMs);
    throw upstreamError(SERVICE, 'failed', error instanceof Error ? error.name : typeof error);
  }
}
