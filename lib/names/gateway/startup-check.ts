/**
 * The start-up check of the ENS gateway against the ENS chain (`ETH_RPC_URL`): a gateway whose
 * answers the resolver would refuse, or that no name reaches, is reported when the server starts
 * (API.md "Configuration"), not discovered by a payer whose wallet finds no address.
 *
 * - `ENS_GATEWAY_RESOLVER` without code on the ENS chain: refused.
 * - The signing key's address not in the resolver's `signers` (OffchainResolver 0.2.1,
 *   `mapping(address => bool) public signers`): every answer would fail the resolver's signature
 *   check; refused. A resolver that does not answer `signers(address)` is not an OffchainResolver:
 *   refused too.
 * - The parent name's resolver in the ENS registry (`ENS_REGISTRY`) is not `ENS_GATEWAY_RESOLVER`:
 *   no wallet's lookup of a label would reach this gateway; refused.
 * - The ENS chain does not answer within the time given: a warning (it may come up later), as
 *   for a gasless bundler (lib/server/gasless-check.ts); lookups of coin type 60 answer "no
 *   address" until its id is known (ens-chain.ts).
 *
 * Messages name the setting and, for the signer, its public address; never the key, the secret
 * or the RPC URL (it may carry an API key).
 */
import { createPublicClient, http, parseAbi, type Address } from 'viem';
import { namehash } from 'viem/ens';
import { chainErrorSummary, withinTimeout } from '../../chain/rpc.ts';
import type { EnsGatewayConfig } from './config.ts';

const resolverAbi = parseAbi(['function signers(address) view returns (bool)']);
const registryAbi = parseAbi(['function resolver(bytes32 node) view returns (address)']);

export type GatewayCheck = {
  /** The gateway cannot work: the server stops at start-up. */
  refusals: string[];
  /** The ENS chain did not answer; it may later. */
  warnings: string[];
  /** The ENS chain's EIP-155 id, when it answered. */
  chainId: number | undefined;
};

/**
 * Check the gateway's resolver, signer and parent name on the ENS chain at `ethRpcUrl`, each read
 * within `timeoutMs`.
 * @example
 * const { refusals, warnings } = await checkGateway(config.ensGateway, config.ethRpcUrl, 5_000);
 */
export async function checkGateway(gateway: EnsGatewayConfig, ethRpcUrl: string, timeoutMs: number): Promise<GatewayCheck> {
  const client = createPublicClient({ transport: http(ethRpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
  const read = <T>(call: () => Promise<T>) => withinTimeout(call, timeoutMs);
  let chainId: number;
  let code: string | undefined;
  try {
    [chainId, code] = await Promise.all([read(() => client.getChainId()), read(() => client.getCode({ address: gateway.resolver }))]);
  } catch (error) {
    return {
      refusals: [],
      warnings: [`ENS_GATEWAY_RESOLVER: not checked, the ENS chain (ETH_RPC_URL) did not answer (${chainErrorSummary(error)}); lookups answer no address for coin type 60 until it does`],
      chainId: undefined,
    };
  }
  const result: GatewayCheck = { refusals: [], warnings: [], chainId };
  if (code === undefined || code === '0x') {
    result.refusals.push(`ENS_GATEWAY_RESOLVER has no code on the ENS chain (chain id ${chainId}, ETH_RPC_URL): not deployed there?`);
    return result;
  }
  const [signer, parentResolver] = await Promise.allSettled([
    read(() => client.readContract({ address: gateway.resolver, abi: resolverAbi, functionName: 'signers', args: [gateway.signerAddress] })),
    read(() => client.readContract({ address: gateway.ensRegistry, abi: registryAbi, functionName: 'resolver', args: [namehash(gateway.parent)] })),
  ]);
  if (signer.status === 'rejected') {
    result.refusals.push(`ENS_GATEWAY_RESOLVER does not answer signers(address) on chain ${chainId}: not an OffchainResolver (${chainErrorSummary(signer.reason)})`);
  } else if (!signer.value) {
    result.refusals.push(`ENS_GATEWAY_SIGNING_KEY: its address ${gateway.signerAddress} is not a signer of ENS_GATEWAY_RESOLVER on chain ${chainId}, so the resolver would refuse every answer`);
  }
  if (parentResolver.status === 'rejected') {
    result.refusals.push(`ENS_REGISTRY: the resolver of ENS_GATEWAY_PARENT could not be read from it on chain ${chainId} (${chainErrorSummary(parentResolver.reason)}): not the ENS registry?`);
  } else if (parentResolver.value.toLowerCase() !== gateway.resolver) {
    result.refusals.push(
      `ENS_GATEWAY_PARENT: its resolver in the ENS registry on chain ${chainId} is ${(parentResolver.value as Address).toLowerCase()}, not ENS_GATEWAY_RESOLVER, so no lookup of its labels reaches this gateway`,
    );
  }
  return result;
}
