/**
 * EIP-2612 permits signed with a one-time key. WraithTokenPaymaster takes its fee in validation,
 * before the withdrawal's calls run, through the permit the sender signed for exactly the fee
 * (gasless.ts): a one-time address that holds no coin cannot send an `approve` first.
 *
 * The token's EIP-712 domain is read from the token (EIP-5267 `eip712Domain()`, else `name()`
 * and `version()`, "1" when it has none) and accepted only when it hashes to the token's own
 * `DOMAIN_SEPARATOR()`: a signature over a wrong domain would be refused on chain after the user
 * confirmed.
 * @module
 */
import { domainSeparator, hashTypedData, hexToBytes, type Address, type Hex, type PublicClient } from 'viem';
import type { OneTimeAccount } from './one-time-account.ts';
import type { PermitSignature } from './gasless-contracts.ts';

/** The EIP-712 domain a token's permit is signed in. */
export type PermitDomain = { name: string; version: string; chainId: number; verifyingContract: Address };

const permitReadAbi = [
  { type: 'function', name: 'DOMAIN_SEPARATOR', stateMutability: 'view', inputs: [], outputs: [{ type: 'bytes32' }] },
  { type: 'function', name: 'nonces', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ type: 'uint256' }] },
  { type: 'function', name: 'name', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
  { type: 'function', name: 'version', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
  {
    type: 'function',
    name: 'eip712Domain',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: 'fields', type: 'bytes1' },
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
      { name: 'salt', type: 'bytes32' },
      { name: 'extensions', type: 'uint256[]' },
    ],
  },
] as const;

const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

/** The deadline the paymaster passes: none (validation may not read the time, ERC-7562). */
export const PERMIT_NO_DEADLINE = 2n ** 256n - 1n;

/** What signing a permit for `owner` needs: the token's domain and the owner's permit nonce; undefined when the token has no EIP-2612 permit. */
export type PermitContext = { domain: PermitDomain; nonce: bigint };

/** Read the token's permit domain (checked against its DOMAIN_SEPARATOR) and `owner`'s nonce; undefined without a permit. */
export async function permitContextOf(client: PublicClient, token: Address, owner: Address, chainId: number): Promise<PermitContext | undefined> {
  const read = <T>(functionName: 'DOMAIN_SEPARATOR' | 'name' | 'version' | 'eip712Domain', fallback: T) =>
    client.readContract({ address: token, abi: permitReadAbi, functionName } as never).then((value) => value as T, () => fallback);
  const [separator, eip5267, name, version, nonce] = await Promise.all([
    read<Hex | undefined>('DOMAIN_SEPARATOR', undefined),
    read<readonly [Hex, string, string, bigint, Address, Hex, readonly bigint[]] | undefined>('eip712Domain', undefined),
    read<string | undefined>('name', undefined),
    read<string | undefined>('version', undefined),
    client.readContract({ address: token, abi: permitReadAbi, functionName: 'nonces', args: [owner] }).catch(() => undefined),
  ]);
  if (separator === undefined || nonce === undefined) return undefined;
  const candidates: PermitDomain[] = [];
  if (eip5267 !== undefined) candidates.push({ name: eip5267[1], version: eip5267[2], chainId: Number(eip5267[3]), verifyingContract: eip5267[4] });
  if (name !== undefined) {
    for (const v of new Set([version ?? '1', '1'])) candidates.push({ name, version: v, chainId, verifyingContract: token });
  }
  const domain = candidates.find((candidate) => domainSeparator({ domain: candidate }).toLowerCase() === separator.toLowerCase());
  return domain === undefined ? undefined : { domain, nonce };
}

/** `owner`'s permit for `spender` to take exactly `value`, with no deadline, signed with the one-time key. */
export function signPermit(account: OneTimeAccount, context: PermitContext, spender: Address, value: bigint): PermitSignature {
  const digest = hashTypedData({
    domain: context.domain,
    types: PERMIT_TYPES,
    primaryType: 'Permit',
    message: { owner: account.address, spender, value, nonce: context.nonce, deadline: PERMIT_NO_DEADLINE },
  });
  const { r, s, yParity } = account.signDigest(hexToBytes(digest));
  return { r, s, v: 27 + yParity };
}

