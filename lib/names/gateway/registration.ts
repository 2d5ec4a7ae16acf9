/**
 * Registering, changing and releasing the names the gateway serves (issue 33).
 *
 * Two kinds of name:
 * - a label under the deployment's parent (`alice.<ENS_GATEWAY_PARENT>`, one label): proved by
 *   a signature of the meta-address's spending key (to register: the new meta-address's; to
 *   change or release: the registered one's);
 * - an own ENS name whose resolver (in the ENS registry, `ENS_REGISTRY` on `ETH_RPC_URL`) is this
 *   deployment's resolver: proved by a signature of the name's owner in that registry (an EOA, or
 *   a contract through ERC-1271, as viem's `verifyMessage` checks).
 * The signed text (SDK `nameRegistrationMessage`) names the action, the name, the meta-address, the
 * name's nonce and the resolver: each accepted change advances the nonce, so a signature is good
 * once. A wrong signature is 401 `BAD_NAME_SIGNATURE`; a stale nonce 409 `STALE_NAME_SIGNATURE`.
 */
import { decodeAnyMetaAddress, nameRegistrationMessage, spendingAccountOf, type GatewayNameJson, type NameAction } from '@wraith-pq/sdk';
import { createPublicClient, http, parseAbi, verifyMessage, zeroAddress, type Address, type Hex } from 'viem';
import { namehash } from 'viem/ens';
import { HttpError } from '../../http/errors.ts';
import { errorName, upstreamError } from '../../ipfs/upstream.ts';
import { getConfig } from '../../server/config.ts';
import { normalizeEnsName } from '../ens.ts';
import { gatewayConfig } from './http.ts';
import { getNameStore } from './open.ts';
import { NameNonceError, type NameRecord } from './store.ts';

const registryAbi = parseAbi(['function owner(bytes32 node) view returns (address)', 'function resolver(bytes32 node) view returns (address)']);

export type NameRequest = { action: NameAction; name: string; meta_address?: string | undefined; nonce: number; signature: string };

/** The wire shape clients read (the SDK's `GatewayNameJson`, one definition for both sides). */
export type NameJson = GatewayNameJson;

/** GET /api/v1/names: whether the gateway runs (200 either way, so a page can ask without an error). */
export function gatewayStatus(): { enabled: boolean; parent: string | null; resolver: string | null } {
  const config = getConfig().ensGateway;
  return { enabled: config !== undefined, parent: config?.parent ?? null, resolver: config?.resolver ?? null };
}

/** GET /api/v1/names/:name. */
export async function showName(rawName: string): Promise<NameJson> {
  const config = gatewayConfig();
  const name = normalizeEnsName(rawName);
  const store = await getNameStore();
  return nameJson(name, await store.getName(name), await store.nonceOf(name), config);
}

/** POST /api/v1/names. */
export async function changeName(request: NameRequest): Promise<NameJson> {
  const config = gatewayConfig();
  const name = normalizeEnsName(request.name);
  const store = await getNameStore();
  const current = await store.getName(name);
  const isLabel = name.endsWith(`.${config.parent}`) && name.split('.').length === config.parent.split('.').length + 1;
  let meta: Uint8Array | undefined;
  if (request.action !== 'release') {
    if (request.meta_address === undefined) throw validation('meta_address', 'is required to register or change a name');
    try {
      meta = decodeAnyMetaAddress(request.meta_address).bytes;
    } catch (error) {
      throw new HttpError(400, 'INVALID_META_ADDRESS', 'meta_address is not a valid meta-address of either form (PROTOCOL.md sections 3 and 10).', { cause: error });
    }
  }
  if (request.action === 'register' && current !== null) throw new HttpError(409, 'NAME_TAKEN', 'The name is registered already; its holder can change or release it.');
  if (request.action !== 'register' && current === null) throw new HttpError(404, 'NAME_NOT_FOUND', 'The name is not registered at this gateway.');
  if (!isLabel && name.endsWith(`.${config.parent}`)) throw validation('name', `names under ${config.parent} are single labels (alice.${config.parent})`);
  if (!isLabel && name === config.parent) throw validation('name', 'is the parent name itself');

  // A signature over another nonce is stale (replayed, or raced by another change): 409 before any RPC.
  if (request.nonce !== (await store.nonceOf(name))) throw staleSignature();
  const message = nameRegistrationMessage({ action: request.action, name, ...(meta === undefined ? {} : { metaAddress: meta }), nonce: request.nonce, resolver: config.resolver });
  const signer = isLabel
    ? spendingAccountOf(request.action === 'register' ? meta! : current!.metaAddress)
    : await ownName(name, config.resolver, request.action !== 'release', config.ensRegistry);
  if (!(await signatureValid(signer as Address, message, request.signature, !isLabel))) {
    throw new HttpError(401, 'BAD_NAME_SIGNATURE', isLabel
      ? 'The signature is not the meta-address spending key\'s over this request (SDK nameRegistrationMessage, with the name\'s current nonce).'
      : 'The signature is not the ENS owner\'s of this name over this request (SDK nameRegistrationMessage, with the name\'s current nonce).');
  }
  try {
    const change = request.action === 'release' ? null : { kind: isLabel ? ('label' as const) : ('own' as const), metaAddress: meta!, owner: isLabel ? null : signer.toLowerCase() };
    const next = await store.setName(name, request.nonce, change, Math.floor(Date.now() / 1000));
    return nameJson(name, next, request.nonce + 1, config);
  } catch (error) {
    if (error instanceof NameNonceError || (error as { code?: unknown }).code === 'STALE_NAME_SIGNATURE') throw staleSignature();
    throw error;
  }
}

/** The owner of an own name, after checking that its resolver is this deployment's (when `needResolver`). */
async function ownName(name: string, resolver: string, needResolver: boolean, registry: Address): Promise<string> {
  const config = getConfig();
  const client = createPublicClient({ transport: http(config.ethRpcUrl, { timeout: config.upstreamTimeoutMs, retryCount: 0 }) });
  const node = namehash(name);
  let owner: Address;
  let nameResolver: Address;
  try {
    [owner, nameResolver] = await Promise.all([
      client.readContract({ address: registry, abi: registryAbi, functionName: 'owner', args: [node] }),
      client.readContract({ address: registry, abi: registryAbi, functionName: 'resolver', args: [node] }),
    ]);
  } catch (error) {
    // The raw viem error names the RPC URL, which may carry an API key: log its class only.
    throw upstreamError('Ethereum RPC', "could not read the name's owner from the ENS registry (ETH_RPC_URL, ENS_REGISTRY)", errorName(error));
  }
  if (owner === zeroAddress) throw new HttpError(404, 'NAME_NOT_FOUND', 'The name has no owner in the ENS registry.');
  if (needResolver && nameResolver.toLowerCase() !== resolver) {
    throw new HttpError(422, 'RESOLVER_NOT_SET', `Set the name's resolver to this deployment's (${resolver}) in the ENS registry first, then register it here.`);
  }
  return owner;
}

/** A spending key signs as a plain account; an ENS owner may be a contract (`onChain`). */
async function signatureValid(address: Address, message: string, signature: string, onChain: boolean): Promise<boolean> {
  if (!/^0x[0-9a-fA-F]+$/.test(signature.trim())) return false;
  const signed = { address, message, signature: signature.trim() as Hex };
  try {
    if (!onChain) return await verifyMessage(signed);
    const config = getConfig();
    // A public client's verifyMessage checks EOAs and contract accounts (ERC-1271 / ERC-6492) alike.
    const client = createPublicClient({ transport: http(config.ethRpcUrl, { timeout: config.upstreamTimeoutMs, retryCount: 0 }) });
    return await client.verifyMessage(signed);
  } catch {
    return false;
  }
}

function nameJson(name: string, record: NameRecord | null, nonce: number, config: { resolver: string; parent: string }): NameJson {
  return {
    name,
    registered: record !== null,
    kind: record?.kind ?? null,
    meta_address: record === null ? null : Buffer.from(record.metaAddress).toString('hex'),
    nonce,
    resolver: config.resolver,
    parent: config.parent,
  };
}

function staleSignature(): HttpError {
  const stale = new NameNonceError();
  return new HttpError(409, stale.code, stale.message);
}

function validation(path: string, issue: string): HttpError {
  return new HttpError(400, 'VALIDATION_ERROR', `Invalid request: ${path} ${issue}.`, { details: [{ path, issue }] });
}
