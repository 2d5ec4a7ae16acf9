/**
 * The ERC-6538 registry read through the user's wallet provider (chain-clients.ts), never through
 * the Wraith server: the server must not learn whom a sender is about to pay, nor which address a
 * recipient's identity belongs to.
 *
 * Send: the meta-address a plain address registered, scheme 3 preferred (ERC-8441 Section 2.3);
 * an empty value is a cleared scheme and reads as unregistered. Receive: whether the identity's
 * 1250-byte meta-address is the one the wallet's account has registered.
 * @module
 */
import { bytesToHex, type AnyMetaAddress } from '@wraith-pq/sdk';
import { resolveRegisteredMetaAddress, stealthMetaAddressOf } from '@wraith-pq/sdk/evm';
import type { PublicClient } from 'viem';

/** What the registry on the wallet's chain holds for an address. */
export type RegistryLookup =
  | { status: 'registered'; schemeId: 3 | 1000; metaAddress: AnyMetaAddress }
  | { status: 'invalid'; schemeId: 3 | 1000; reason: string }
  | { status: 'unregistered' }
  /** No contract at the registry's address on this chain. */
  | { status: 'no-registry' };

/**
 * True when a read failed because nothing is deployed at the registry's address (`eth_call`
 * answered no data). By the error's name along its causes: the SDK's evm entry may carry its own
 * copy of viem, whose error classes `instanceof` would not recognise.
 */
function isNoRegistry(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) if (e.name === 'ContractFunctionZeroDataError') return true;
  return false;
}

/** The meta-address a sender pays `address` with, read from the registry on the wallet's chain. */
export async function lookupRegisteredMetaAddress(client: PublicClient, address: string): Promise<RegistryLookup> {
  try {
    return await resolveRegisteredMetaAddress({ client, registrant: address });
  } catch (error) {
    if (isNoRegistry(error)) return { status: 'no-registry' };
    throw error;
  }
}

/** How the account's scheme-3 registration compares with the identity's 1250-byte meta-address. */
export type OwnRegistration = 'registered' | 'differs' | 'not-registered' | 'no-registry';

export async function ownRegistration(client: PublicClient, account: string, metaAddress: Uint8Array): Promise<OwnRegistration> {
  let stored: Uint8Array | null;
  try {
    stored = await stealthMetaAddressOf({ client, registrant: account, schemeId: 3 });
  } catch (error) {
    if (isNoRegistry(error)) return 'no-registry';
    throw error;
  }
  if (stored === null) return 'not-registered';
  return bytesToHex(stored) === bytesToHex(metaAddress) ? 'registered' : 'differs';
}
