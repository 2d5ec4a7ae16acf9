/**
 * ENS lookups for GET /api/v1/ens/resolve/:name (INTERFACE.md 4.4 rule 1).
 *
 * Names are normalised with ENSIP-15 (viem's `normalize`) and must end in `.eth`. Records are
 * read through the ENS Universal Resolver (`ENS_UNIVERSAL_RESOLVER`, `resolveWithGateways`),
 * so ENSIP-10 wildcard resolvers and EIP-3668 offchain resolvers answer like onchain ones:
 * first the text record `ENS_TEXT_KEY` (viem `getEnsText`), then, when it is empty, the
 * EIP-1577 content hash (`contenthash(bytes32)` through the same call).
 *
 * Universal Resolver outcomes (ens-contracts AbstractUniversalResolver, viem's ABI):
 * - `ResolverNotFound`: no resolver for the name (unregistered, or registered without one)
 *   → 404 NAME_NOT_FOUND;
 * - `ResolverNotContract`: its resolver is not a contract → 404 NO_STEALTH_RECORD;
 * - `UnsupportedResolverProfile` / `ResolverError`: the resolver does not answer this record
 *   → treated as an empty record, as viem does;
 * - `HttpError` (an offchain gateway failed) and RPC failures → 502 UPSTREAM_ERROR; a
 *   timeout (`UPSTREAM_TIMEOUT_MS`, no retries) → 504 UPSTREAM_TIMEOUT.
 * Lookups are never cached (rule 4).
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  TimeoutError,
  createPublicClient,
  decodeFunctionResult,
  encodeFunctionData,
  hexToBytes,
  http,
  parseAbi,
  toHex,
  type Address,
  type PublicClient,
} from 'viem';
import { getEnsAddress, getEnsText, namehash, normalize, packetToBytes } from 'viem/ens';
import type { Config } from '../config.ts';
import { HttpError } from '../http/errors.ts';
import { errorName, upstreamError, upstreamTimeout } from '../ipfs/upstream.ts';
import { getConfig } from '../server/config.ts';

const SERVICE = 'Ethereum RPC';
/** ENS names are at most 255 bytes in DNS wire form; anything longer is refused before parsing. */
const MAX_NAME_LENGTH = 255;
/** viem's `localBatchGatewayUrl`: CCIP-Read batches are answered by the client itself (ENSIP-21). */
const LOCAL_BATCH_GATEWAY = 'x-batch-gateway:true';

const universalResolverAbi = parseAbi([
  'function resolveWithGateways(bytes name, bytes data, string[] gateways) view returns (bytes, address)',
  'error ResolverNotFound(bytes name)',
  'error ResolverNotContract(bytes name, address resolver)',
  'error ResolverError(bytes errorData)',
  'error UnsupportedResolverProfile(bytes4 selector)',
  'error HttpError(uint16 status, string message)',
]);
const contenthashAbi = parseAbi(['function contenthash(bytes32 node) view returns (bytes)']);

/** What a name publishes: its text record, else its content hash. */
export type EnsStealthRecord = { kind: 'text'; key: string; value: string } | { kind: 'contenthash'; contenthash: Uint8Array };

/**
 * The ENSIP-15 normalised form of a `.eth` name.
 * @throws {HttpError} 400 INVALID_NAME.
 */
export function normalizeEnsName(input: string): string {
  const invalid = (issue: string) =>
    new HttpError(400, 'INVALID_NAME', 'The name is not a valid ENS name ending in .eth (ENSIP-15).', { details: [{ path: 'name', issue }] });
  const text = input.trim();
  if (text.length === 0 || text.length > MAX_NAME_LENGTH) throw invalid(`must be 1 to ${MAX_NAME_LENGTH} characters`);
  let name: string;
  try {
    name = normalize(text);
  } catch {
    throw invalid('is not normalisable under ENSIP-15');
  }
  if (!name.endsWith('.eth') || name.split('.').some((label) => label === '')) throw invalid('must be <label>.eth (labels not empty)');
  return name;
}

/**
 * Read the stealth record of a normalised name: text record first, content hash as fallback.
 * @throws {HttpError} 404 NAME_NOT_FOUND / NO_STEALTH_RECORD, 502 UPSTREAM_ERROR, 504 UPSTREAM_TIMEOUT.
 */
export async function readEnsStealthRecord(name: string): Promise<EnsStealthRecord> {
  const config = getConfig();
  const client = ensClient(config);
  const text = await lookup(() =>
    getEnsText(client, { name, key: config.ensTextKey, universalResolverAddress: config.ensUniversalResolver, strict: true }),
    config,
  );
  if (text !== null && text !== undefined && text.trim() !== '') return { kind: 'text', key: config.ensTextKey, value: text };
  const contenthash = await lookup(() => readContenthash(client, name, config.ensUniversalResolver), config);
  if (contenthash !== null && contenthash !== undefined && contenthash.length > 0) return { kind: 'contenthash', contenthash };
  throw new HttpError(404, 'NO_STEALTH_RECORD', `The name has no ${config.ensTextKey} text record and no content hash; its owner must publish a meta-address (POST /api/v1/ipfs/upload, then set the record).`);
}

/**
 * The Ethereum address a normalised name resolves to (ENSIP-1 `addr`, read through the Universal
 * Resolver): where a sender looks the name's ERC-6538 registration up. Null when the name sets none.
 * @throws {HttpError} 404 NAME_NOT_FOUND, 502 UPSTREAM_ERROR, 504 UPSTREAM_TIMEOUT.
 */
export async function readEnsAddress(name: string): Promise<Address | null> {
  const config = getConfig();
  const address = await lookup(() => getEnsAddress(ensClient(config), { name, universalResolverAddress: config.ensUniversalResolver, strict: true }), config);
  return address ?? null;
}

function ensClient(config: Config): PublicClient {
  // No retries: UPSTREAM_TIMEOUT_MS bounds each call, and a retry loop would multiply it.
  return createPublicClient({ transport: http(config.ethRpcUrl, { timeout: config.upstreamTimeoutMs, retryCount: 0 }) });
}

/** `contenthash(namehash(name))` through the Universal Resolver, as getEnsText does for text. */
async function readContenthash(client: PublicClient, name: string, universalResolver: `0x${string}`): Promise<Uint8Array | null> {
  const [data] = await client.readContract({
    address: universalResolver,
    abi: universalResolverAbi,
    functionName: 'resolveWithGateways',
    args: [
      toHex(packetToBytes(name)),
      encodeFunctionData({ abi: contenthashAbi, functionName: 'contenthash', args: [namehash(name)] }),
      [LOCAL_BATCH_GATEWAY],
    ],
  });
  if (data === '0x') return null;
  return hexToBytes(decodeFunctionResult({ abi: contenthashAbi, functionName: 'contenthash', data }));
}

/** Run one Universal Resolver call; `null` when the resolver has no such record. */
async function lookup<T>(call: () => Promise<T>, config: Config): Promise<T | null> {
  try {
    return await call();
  } catch (error) {
    const outcome = classify(error, config);
    if (outcome === 'absent') return null;
    throw outcome;
  }
}

function classify(error: unknown, config: Config): HttpError | 'absent' {
  if (!(error instanceof BaseError)) return upstreamError(SERVICE, 'failed', errorName(error));
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (revert instanceof ContractFunctionRevertedError) {
    switch (revert.data?.errorName) {
      case 'ResolverNotFound':
        return new HttpError(404, 'NAME_NOT_FOUND', 'The name is not registered in ENS (it has no resolver).');
      case 'ResolverNotContract':
        return new HttpError(404, 'NO_STEALTH_RECORD', 'The name\'s resolver is not a contract, so it has no records; its owner must set a resolver.');
      case 'UnsupportedResolverProfile':
      case 'ResolverError':
        return 'absent';
      case 'HttpError':
        return upstreamError(SERVICE, 'could not reach the name\'s offchain resolver gateway', 'ENS offchain gateway HttpError');
      default:
        return upstreamError(SERVICE, 'universal resolver reverted', `revert ${revert.data?.errorName ?? 'without data'}`);
    }
  }
  if (error.walk((e) => e instanceof TimeoutError) !== null) return upstreamTimeout(SERVICE, config.upstreamTimeoutMs);
  if (error.walk((e) => e instanceof ContractFunctionZeroDataError) !== null) {
    return upstreamError(SERVICE, 'has no ENS universal resolver at ENS_UNIVERSAL_RESOLVER on this chain', 'universal resolver returned no data');
  }
  return upstreamError(SERVICE, 'failed', error.name);
}
