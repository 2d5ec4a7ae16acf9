/**
 * The flags that point at the ERC-6538 registry and ENS when they are not at their canonical
 * addresses (a test chain, a fork): `--registry <address>` (default
 * 0x6538E6bf4B0eBd30A8Ea093027Ac2422ce5d6538, the same on every chain it is deployed to) and
 * `--ens-resolver <address>` (ENS's Universal Resolver; default mainnet's on chain 1).
 * @module
 */
import type { Address } from 'viem';
import { connectChain } from './chain.js';
import type { RegistryReader } from './recipient.js';
import { addressFlag } from './typed-address.js';

export const REGISTRY_OPTIONS = {
  registry: { type: 'string' },
  'ens-resolver': { type: 'string' },
} as const;

export type RegistryFlags = { registry?: Address; ensUniversalResolver?: Address };

function optionalAddressFlag(value: string | undefined, flag: string, usage: string): Address | undefined {
  return value === undefined ? undefined : addressFlag(value, flag, usage);
}

export function registryFlags(values: { registry?: string | undefined; 'ens-resolver'?: string | undefined }, usage: string): RegistryFlags {
  const registry = optionalAddressFlag(values.registry, 'registry', usage);
  const ensUniversalResolver = optionalAddressFlag(values['ens-resolver'], 'ens-resolver', usage);
  return { ...(registry === undefined ? {} : { registry }), ...(ensUniversalResolver === undefined ? {} : { ensUniversalResolver }) };
}

/** The registry read through `rpcUrl`. */
export async function registryReader(rpcUrl: string, flags: RegistryFlags): Promise<RegistryReader> {
  const { client } = await connectChain(rpcUrl);
  return { client, ...(flags.registry === undefined ? {} : { registry: flags.registry }) };
}
