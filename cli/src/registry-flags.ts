/**
 * The flags that point at the ERC-6538 registry and ENS when they are not at their canonical
 * addresses (a test chain, a fork): `--registry <address>` (default
 * 0x6538E6bf4B0eBd30A8Ea093027Ac2422ce5d6538, the same on every chain it is deployed to) and
 * `--ens-resolver <address>` (ENS's Universal Resolver; default mainnet's on chain 1).
 * @module
 */
import { getAddress, isAddress, type Address } from 'viem';
import { connectChain } from './chain.js';
import { UsageError } from './errors.js';
import type { RegistryReader } from './recipient.js';

export const REGISTRY_OPTIONS = {
  registry: { type: 'string' },
  'ens-resolver': { type: 'string' },
} as const;

export type RegistryFlags = { registry?: Address; ensUniversalResolver?: Address };

function addressFlag(value: string | undefined, flag: string, usage: string): Address | undefined {
  if (value === undefined) return undefined;
  if (!isAddress(value, { strict: false })) throw new UsageError(`--${flag} must be an EVM address (0x + 40 hex)`, `usage: ${usage}`);
  return getAddress(value);
}

export function registryFlags(values: { registry?: string | undefined; 'ens-resolver'?: string | undefined }, usage: string): RegistryFlags {
  const registry = addressFlag(values.registry, 'registry', usage);
  const ensUniversalResolver = addressFlag(values['ens-resolver'], 'ens-resolver', usage);
  return { ...(registry === undefined ? {} : { registry }), ...(ensUniversalResolver === undefined ? {} : { ensUniversalResolver }) };
}

/** The registry read through `rpcUrl`. */
export async function registryReader(rpcUrl: string, flags: RegistryFlags): Promise<RegistryReader> {
  const { client } = await connectChain(rpcUrl);
  return { client, ...(flags.registry === undefined ? {} : { registry: flags.registry }) };
}
