/**
 * Answering one CCIP-Read lookup (EIP-3668 "Gateway Interface"): GET
 * `/api/v1/ccip/{sender}/{data}.json` or POST `{sender, data}`, answered `{ "data": "0x…" }`.
 *
 * - `sender` must be this gateway's resolver (`ENS_GATEWAY_RESOLVER`): an answer signed for
 *   another contract would be refused by it anyway, and a gateway that signs for any sender is an
 *   oracle for whoever deploys a resolver with the same signer (400 `WRONG_SENDER`).
 * - `addr` of a served name answers a one-time address only for a coin type of a chain this server
 *   follows (`CHAINS` / `CHAIN_RPC_URL`), because a payment is published only when the watcher
 *   (watcher.ts) sees it on a followed chain; an address on any other chain would strand the money
 *   ({@link servesCoinType}). The answer is the requester's address of the last
 *   `ENS_GATEWAY_SAME_REQUESTER_S` seconds, or a new one (store.ts `issue`). Past the cap of
 *   unpaid addresses the newest is handed out again, so a flood costs no rows; past a requester's
 *   hourly budget it gets its last address back, or 429 when it has none.
 * - An unknown name, a coin type of a chain not followed, `text` and `contenthash` answer a signed
 *   empty record ("no address": the zero address for `addr(bytes32)`, empty bytes otherwise).
 * Every answer is signed for `ENS_GATEWAY_ANSWER_TTL_S` seconds; responses are never cached
 * (lib/http/route.ts sets `Cache-Control: no-store`).
 */
import { isHex, type Hex } from 'viem';
import { HttpError } from '../../http/errors.ts';
import { log } from '../../http/log.ts';
import { followedChainById } from '../../server/chain.ts';
import { getConfig } from '../../server/config.ts';
import { ensChainId } from './ens-chain.ts';
import type { EnsGatewayConfig } from './config.ts';
import { chainOfEvmCoinType, decodeLookup, ETH_COIN_TYPE, encodeRecord, signAnswer, type GatewayLookup } from './answer.ts';
import { gatewayPayment, requesterKey } from './one-time-address.ts';
import type { NameStore } from './store.ts';
import { requesterBudget } from './requester-budget.ts';

/** Largest `data` accepted (a resolve call of a 255-byte name is well under 1 KiB). */
const MAX_CALL_DATA_HEX = 4_096;

export type LookupRequest = { sender: string; data: string; clientIp: string; now: number };

/**
 * The signed answer to one lookup.
 * @throws {HttpError} 400 VALIDATION_ERROR / WRONG_SENDER, 429 RATE_LIMITED.
 */
export async function answerLookup(config: EnsGatewayConfig, store: NameStore, request: LookupRequest): Promise<{ data: Hex }> {
  const sender = request.sender.trim().toLowerCase();
  if (!/^0x[0-9a-f]{40}$/.test(sender)) {
    throw new HttpError(400, 'VALIDATION_ERROR', 'sender must be a 0x-prefixed 20-byte address.', { details: [{ path: 'sender', issue: 'must be an address' }] });
  }
  if (sender !== config.resolver) {
    throw new HttpError(400, 'WRONG_SENDER', 'This gateway answers only for its own resolver (ENS_GATEWAY_RESOLVER); the lookup names another contract.', {
      details: [{ path: 'sender', issue: 'is not this gateway\'s resolver' }],
    });
  }
  const callData = request.data.trim().toLowerCase();
  if (!isHex(callData) || callData.length % 2 !== 0 || callData.length > MAX_CALL_DATA_HEX) {
    throw new HttpError(400, 'VALIDATION_ERROR', 'data must be 0x-prefixed hex of an ABI-encoded call.', { details: [{ path: 'data', issue: 'must be even-length hex, at most 2 KiB' }] });
  }
  const lookup = decodeLookup(callData);
  const address = await addressFor(config, store, lookup, request);
  const result = encodeRecord(lookup, address);
  return { data: await signAnswer(config, callData, result, request.now + config.answerTtlSeconds) };
}

/** The address to answer, or null for "no address". */
async function addressFor(config: EnsGatewayConfig, store: NameStore, lookup: GatewayLookup, request: LookupRequest): Promise<string | null> {
  if (lookup.name === null || lookup.query.record !== 'addr' || !(await servesCoinType(lookup.query.coinType))) return null;
  const name = lookup.name;
  const budget = requesterBudget(config.newAddressesPerIpPerHour);
  const outcome = await store.issue({
    name,
    requester: requesterKey(config.secret, request.clientIp),
    now: request.now,
    sameRequesterSeconds: config.sameRequesterSeconds,
    addressTtlSeconds: config.addressTtlSeconds,
    maxUnpaid: config.maxUnpaidPerName,
    mayIssueNew: budget.available(request.clientIp, request.now),
    derive: (counter, metaAddress) => gatewayPayment(config.secret, name, counter, metaAddress).stealthAddress,
  });
  if (outcome.address === null) {
    if (outcome.reason === 'unknown-name') return null;
    throw new HttpError(429, 'RATE_LIMITED', 'Too many new addresses for this client; try again later.', { headers: { 'Retry-After': '3600' } });
  }
  if (outcome.fresh) {
    budget.take(request.clientIp, request.now);
    log('debug', 'ens gateway issued an address', { counter: outcome.address.counter });
  }
  return outcome.address.address;
}

/**
 * Whether `coinType` is answered: only coin types whose payments a followed chain's watcher sees.
 * - 60 (`addr(bytes32)`, and `addr(bytes32,60)`): ENSIP-9's Ethereum coin, i.e. the native coin
 *   of the ENS chain (`ETH_RPC_URL`, where the resolver is deployed). An ordinary wallet, and
 *   viem's `getEnsAddress` without `coinType`, asks this and pays on the chain it resolved on:
 *   answered when the ENS chain is followed (on mainnet ENS: when chain id 1 is followed; on a
 *   testnet or a local anvil ENS, that chain), "no address" otherwise, and while the ENS chain's id
 *   is not known yet (its RPC did not answer).
 * - `0x80000000 | c` (ENSIP-11): answered when chain `c` is followed.
 * - `0x80000000` alone (ENSIP-19's default "any EVM chain"): never. A client falls back to it for
 *   a chain that has no address of its own, i.e. exactly the chains this server does not follow.
 * - Anything else (another coin family): never.
 */
async function servesCoinType(coinType: bigint): Promise<boolean> {
  if (coinType === ETH_COIN_TYPE) {
    const config = getConfig();
    const ensChain = await ensChainId(config.ethRpcUrl, config.upstreamTimeoutMs);
    return ensChain !== undefined && followedChainById(ensChain) !== undefined;
  }
  const chainId = chainOfEvmCoinType(coinType);
  return chainId !== null && chainId !== 0 && followedChainById(chainId) !== undefined;
}
