/**
 * GET /api/v1/erc6538/:address: read the ERC-6538 stealth meta-address registry on a chain this
 * server follows, through that chain's RPC (`CHAINS` / `CHAIN_RPC_URL`), with the SDK's
 * `stealthMetaAddressOf` (sdk/src/evm/erc6538.ts).
 *
 * The registry stores whatever bytes a registrant sent. A sender pays scheme 3 when it is
 * registered, else scheme 1000 (ERC-8441 Section 2.3); an empty value clears a scheme and reads
 * as unregistered (404 NO_STEALTH_RECORD). A value its form's decoder refuses is answered as
 * 400 INVALID_META_ADDRESS naming the scheme, as GET /ens/resolve answers a bad record: a sender
 * must never pay it. RPC failures are 502 UPSTREAM_ERROR / 504 UPSTREAM_TIMEOUT, never quoting
 * the RPC's URL (it may carry an API key).
 */
import { bytesToHex, checksumProblem, decodeAnyMetaAddress, ERC8441_SCHEME_ID, WRAITH_SCHEME_ID_1000 } from '@wraith-pq/sdk';
import { ERC6538_REGISTRY_ADDRESS, stealthMetaAddressOf } from '@wraith-pq/sdk/evm';
import { getAddress, type Address } from 'viem';
import { withinTimeout } from '../chain/rpc.ts';
import { HttpError, validationError } from '../http/errors.ts';
import { upstreamError, upstreamTimeout } from '../ipfs/upstream.ts';
import type { Erc6538Query, Erc6538Response } from '../schemas/erc6538.ts';
import { chainNamedBy, type ChainPurpose, type FollowedChain } from '../server/chain.ts';
import { getConfig } from '../server/config.ts';

const SERVICE = 'chain RPC';
const FORM_NAMES = { 3: 'ERC-8441 (1250 bytes)', 1000: 'Wraith (1218 bytes)' } as const;

/**
 * The meta-address `address` registered on the chain `query.chain_id` names.
 * @throws {HttpError} 400 VALIDATION_ERROR / INVALID_META_ADDRESS, 404 NO_STEALTH_RECORD,
 * 422 CHAIN_NOT_FOLLOWED, 502 UPSTREAM_ERROR, 504 UPSTREAM_TIMEOUT.
 */
export async function registeredMetaAddress(address: string, query: Erc6538Query): Promise<Erc6538Response> {
  const registrant = parseRegistrant(address);
  const chain = chainNamedBy(query.chain_id, READ_CHAIN);
  if (chain.chainId === undefined) throw upstreamError(SERVICE, 'has not answered yet', 'chain id unknown');
  const chainId = chain.chainId;
  const schemes: readonly (3 | 1000)[] = query.scheme_id === undefined ? [ERC8441_SCHEME_ID, WRAITH_SCHEME_ID_1000] : [query.scheme_id as 3 | 1000];
  const timeoutMs = getConfig().upstreamTimeoutMs;
  for (const schemeId of schemes) {
    const bytes = await readRegistry(chain, registrant, schemeId, timeoutMs);
    if (bytes === null) continue;
    let decoded;
    try {
      decoded = decodeAnyMetaAddress(bytes);
    } catch (cause) {
      throw junk(schemeId, bytes.length, cause);
    }
    if (decoded.schemeId !== schemeId) throw junk(schemeId, bytes.length);
    return { registrant, chain_id: chainId, scheme_id: schemeId, meta_address: bytesToHex(decoded.bytes) };
  }
  const which = schemes.length === 1 ? `under scheme ${schemes[0]}` : 'under scheme 3 or 1000';
  throw new HttpError(404, 'NO_STEALTH_RECORD', `The address has no meta-address registered ${which} in the ERC-6538 registry on chain ${chainId} (or cleared it); it must register one before it can be paid this way.`);
}

function parseRegistrant(address: string): Address {
  const text = address.trim();
  // Mixed case must carry a valid EIP-55 checksum (a typo would otherwise read someone else's entry).
  if (checksumProblem(text) !== null) {
    throw validationError([{ path: 'address', issue: 'must be an EVM address: 0x and 40 hex digits, all one case or with a valid EIP-55 checksum' }]);
  }
  return getAddress(`0x${text.slice(2).toLowerCase()}`);
}

/** The followed chain to read: the one `chain_id` names, or the only one (lib/server/chain.ts). */
const READ_CHAIN: ChainPurpose = {
  notFollowed: (followed) => `This server does not follow the chain chain_id names, so it cannot read its registry (it follows ${followed}). Read the registry through your own RPC instead.`,
  noChain: 'This server follows no chain (CHAINS / CHAIN_RPC_URL unset), so it cannot read an ERC-6538 registry. Read the registry through your own RPC instead.',
  several: 'is required: this server follows several chains; name the one whose registry to read',
};

async function readRegistry(chain: FollowedChain, registrant: Address, schemeId: number, timeoutMs: number): Promise<Uint8Array | null> {
  try {
    return await withinTimeout(() => stealthMetaAddressOf({ client: chain.clients.reads, registrant, schemeId }), timeoutMs);
  } catch (error) {
    if (causedBy(error, 'ContractFunctionZeroDataError')) {
      // No code at the canonical address: the registry is not deployed there, so nothing is registered.
      throw new HttpError(404, 'NO_STEALTH_RECORD', `The ERC-6538 registry (${ERC6538_REGISTRY_ADDRESS}) is not deployed on chain ${chain.chainId}, so no address has a meta-address registered there.`);
    }
    if (causedBy(error, 'TimeoutError')) throw upstreamTimeout(SERVICE, timeoutMs);
    throw upstreamError(SERVICE, 'failed', error instanceof Error ? error.name : typeof error);
  }
}

/**
 * Whether viem error `name` is in the cause chain of `error`. By name, not `instanceof`: the SDK's
 * evm entry may be bundled with its own copy of viem, whose error classes are other objects.
 */
function causedBy(error: unknown, name: string): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) if (e.name === name) return true;
  return false;
}

function junk(schemeId: 3 | 1000, length: number, cause?: unknown): HttpError {
  return new HttpError(
    400,
    'INVALID_META_ADDRESS',
    `The value registered under scheme ${schemeId} (${length} bytes) is not a valid ${FORM_NAMES[schemeId]} meta-address: do not pay it; its owner must register a valid one.`,
    { details: [{ path: 'address', issue: `its scheme-${schemeId} registration does not decode as a meta-address` }], ...(cause === undefined ? {} : { cause }) },
  );
}
