/**
 * SuiNS lookups for GET /api/v1/suins/resolve/:name (INTERFACE.md 4.4 rule 1): the name
 * record's content hash (`content_hash` in its data), read with the official clients:
 * `SuinsClient.getNameRecord` from @mysten/suins over `SuiJsonRpcClient` (@mysten/sui/jsonRpc)
 * at `SUI_RPC_URL` (default: the public full node of `SUI_NETWORK`).
 *
 * Under the hood that is one `sui_multiGetObjects` call for the registry's dynamic field of
 * the name; a name without that object (`notExists`) is not registered. Expired names are
 * treated as unregistered, as SuiNS itself resolves them to nothing (leaf subnames carry
 * expiration 0 and inherit their parent's; they are not checked here). Each RPC call is bounded
 * by `UPSTREAM_TIMEOUT_MS`.
 */
import { ObjectError } from '@mysten/sui/client';
import { JsonRpcHTTPTransport, SuiJsonRpcClient, getJsonRpcFullnodeUrl } from '@mysten/sui/jsonRpc';
import { isValidSuiNSName, normalizeSuiNSName } from '@mysten/sui/utils';
import { SuinsClient } from '@mysten/suins';
import type { Config } from '../config.ts';
import { HttpError } from '../http/errors.ts';
import { errorName, isTimeout, upstreamError, upstreamTimeout } from '../ipfs/upstream.ts';
import { getConfig } from '../server/config.ts';

const SERVICE = 'Sui RPC';
/** Networks the SuiNS SDK ships package ids for. */
const SUINS_NETWORKS = new Set(['mainnet', 'testnet']);

/**
 * The lower-case `<label>.sui` form of a SuiNS name.
 * @throws {HttpError} 400 INVALID_NAME.
 */
export function normalizeSuiName(input: string): string {
  const name = input.trim().toLowerCase();
  if (!name.endsWith('.sui') || !isValidSuiNSName(name)) {
    throw new HttpError(400, 'INVALID_NAME', 'The name is not a valid SuiNS name ending in .sui.', {
      details: [{ path: 'name', issue: 'must be <label>.sui: letters, digits and inner hyphens, labels of 1 to 63 characters' }],
    });
  }
  return normalizeSuiNSName(name, 'dot');
}

/**
 * The content hash a registered, unexpired name publishes.
 * @throws {HttpError} 404 NAME_NOT_FOUND / NO_STEALTH_RECORD, 502 UPSTREAM_ERROR, 504 UPSTREAM_TIMEOUT.
 */
export async function readSuinsContentHash(name: string): Promise<string> {
  const config = getConfig();
  if (!SUINS_NETWORKS.has(config.suiNetwork)) {
    throw upstreamError(SERVICE, `network "${config.suiNetwork}" has no SuiNS deployment (set SUI_NETWORK to mainnet or testnet)`, 'SuiNS unsupported network');
  }
  const suins = new SuinsClient({ client: suiClient(config), network: config.suiNetwork });
  let record: Awaited<ReturnType<SuinsClient['getNameRecord']>>;
  try {
    record = await suins.getNameRecord(name);
  } catch (error) {
    throw classify(error, config);
  }
  if (record === null || (record.expirationTimestampMs !== 0 && record.expirationTimestampMs < Date.now())) {
    throw notFound();
  }
  const contentHash = record.contentHash?.trim();
  if (contentHash === undefined || contentHash === '') {
    throw new HttpError(404, 'NO_STEALTH_RECORD', 'The name has no content hash; its owner must publish a meta-address (POST /api/v1/ipfs/upload, then set the content hash).');
  }
  return contentHash;
}

function suiClient(config: Config): SuiJsonRpcClient {
  const timeoutMs = config.upstreamTimeoutMs;
  const transport = new JsonRpcHTTPTransport({
    url: config.suiRpcUrl ?? getJsonRpcFullnodeUrl(config.suiNetwork as 'mainnet' | 'testnet'),
    // The global fetch, looked up per call, bounded by the upstream timeout.
    fetch: (input, init) => {
      const timeout = AbortSignal.timeout(timeoutMs);
      return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout });
    },
  });
  return new SuiJsonRpcClient({ network: config.suiNetwork, transport });
}

function notFound(): HttpError {
  return new HttpError(404, 'NAME_NOT_FOUND', 'The name is not registered in SuiNS (or has expired).');
}

function classify(error: unknown, config: Config): HttpError {
  if (error instanceof ObjectError && error.reason === 'notFound') return notFound();
  if (isTimeout(error)) return upstreamTimeout(SERVICE, config.upstreamTimeoutMs);
  const name = errorName(error);
  if (name === 'JsonRpcError' || name === 'SuiHTTPStatusError') return upstreamError(SERVICE, 'answered with an error', name);
  if (name === 'TypeError') return upstreamError(SERVICE, 'could not be reached', name);
  return upstreamError(SERVICE, 'returned a name record this server cannot read', name);
}
