/**
 * The ERC-6538 stealth meta-address registry: a recipient registers a meta-address under a
 * scheme id, directly (`registerKeys`) or by an EIP-712 signature someone else submits and pays
 * the gas for (`registerKeysOnBehalf`); a sender reads it with `stealthMetaAddressOf`.
 *
 * Wraith registers ERC-8441's 1250-byte form under scheme 3 and its own 1218-byte form under
 * scheme 1000 (PROTOCOL.md section 10). A sender that finds scheme 3 uses it (ERC-8441 Section
 * 2.3, {@link resolveRegisteredMetaAddress}); an empty value clears a scheme and reads as
 * unregistered. The registry stores the bytes on chain: a first 1250-byte registration costs
 * about 0.96 M gas, so show the price first ({@link estimateRegistration}).
 *
 * Privacy: reading the registry through the user's own wallet provider or RPC tells no Wraith
 * server which address the user is about to pay.
 * @module
 */
import { encodeFunctionData, getAddress, hexToBytes, isAddress, type Account, type Address, type Chain, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem';
import { bytesToHex as toHex } from '../bytes.ts';
import { InvalidArgumentError } from '../errors.ts';
import { decodeAnyMetaAddress, ERC8441_META_ADDRESS_BYTES, ERC8441_SCHEME_ID, WRAITH_SCHEME_ID_1000, type AnyMetaAddress } from '../erc8441-meta-address.ts';
import { META_ADDRESS_BYTES } from '../meta-address.ts';
import { estimateTransactionFees } from './withdrawal-plan.ts';

/** The canonical ERC-6538 registry: the same address on every chain it is deployed to. */
export const ERC6538_REGISTRY_ADDRESS: Address = '0x6538E6bf4B0eBd30A8Ea093027Ac2422ce5d6538';

/** The part of the registry's ABI Wraith uses. */
export const erc6538Abi = [
  { type: 'function', name: 'registerKeys', stateMutability: 'nonpayable', inputs: [{ name: 'schemeId', type: 'uint256' }, { name: 'stealthMetaAddress', type: 'bytes' }], outputs: [] },
  {
    type: 'function',
    name: 'registerKeysOnBehalf',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'registrant', type: 'address' },
      { name: 'schemeId', type: 'uint256' },
      { name: 'signature', type: 'bytes' },
      { name: 'stealthMetaAddress', type: 'bytes' },
    ],
    outputs: [],
  },
  { type: 'function', name: 'stealthMetaAddressOf', stateMutability: 'view', inputs: [{ name: 'registrant', type: 'address' }, { name: 'schemeId', type: 'uint256' }], outputs: [{ type: 'bytes' }] },
  { type: 'function', name: 'nonceOf', stateMutability: 'view', inputs: [{ name: 'registrant', type: 'address' }], outputs: [{ type: 'uint256' }] },
  { type: 'function', name: 'incrementNonce', stateMutability: 'nonpayable', inputs: [], outputs: [] },
  { type: 'error', name: 'ERC6538Registry__InvalidSignature', inputs: [] },
  {
    type: 'event',
    name: 'StealthMetaAddressSet',
    inputs: [
      { name: 'registrant', type: 'address', indexed: true },
      { name: 'schemeId', type: 'uint256', indexed: true },
      { name: 'stealthMetaAddress', type: 'bytes', indexed: false },
    ],
  },
] as const;

/** The scheme a meta-address is registered under, by its form (1250 bytes: 3; 1218: 1000). */
export function schemeIdOfMetaAddress(metaAddress: Uint8Array): 3 | 1000 {
  if (metaAddress.length === ERC8441_META_ADDRESS_BYTES) return ERC8441_SCHEME_ID;
  if (metaAddress.length === META_ADDRESS_BYTES) return WRAITH_SCHEME_ID_1000;
  throw new InvalidArgumentError('metaAddress', `must be ${ERC8441_META_ADDRESS_BYTES} bytes (ERC-8441) or ${META_ADDRESS_BYTES} (Wraith)`);
}

export type RegisterKeysParameters = {
  /** The meta-address to register (validated by its form's decoder first), or `null` to clear `schemeId`. */
  metaAddress: Uint8Array | string | null;
  /** Default: the meta-address's own scheme (3 for 1250 bytes, 1000 for 1218); required to clear. */
  schemeId?: number;
  registry?: Address;
};

/** The call `registerKeys(schemeId, metaAddress)`: for viem's `writeContract`, or its `data` for any wallet. */
export type RegisterKeysCall = { address: Address; abi: typeof erc6538Abi; functionName: 'registerKeys'; args: readonly [bigint, Hex]; data: Hex; schemeId: number };

/**
 * Build `registerKeys`: the recipient's own wallet sends it.
 * @example
 * const call = registerKeysParameters({ metaAddress: keys3.metaAddress });
 * await wallet.writeContract({ ...call, account, chain });
 * @throws {InvalidMetaAddressError} for a meta-address its form's decoder refuses.
 */
export function registerKeysParameters(parameters: RegisterKeysParameters): RegisterKeysCall {
  const { schemeId, bytes } = registrationValue(parameters);
  const args = [BigInt(schemeId), bytes] as const;
  const address = registryAddress(parameters.registry);
  return { address, abi: erc6538Abi, functionName: 'registerKeys', args, data: encodeFunctionData({ abi: erc6538Abi, functionName: 'registerKeys', args }), schemeId };
}

/** The EIP-712 typed data a registrant signs so that someone else can register for them. */
export function registrationTypedData(parameters: RegisterKeysParameters & { chainId: number; nonce: bigint }) {
  const { schemeId, bytes } = registrationValue(parameters);
  return {
    domain: { name: 'ERC6538Registry', version: '1.0', chainId: parameters.chainId, verifyingContract: registryAddress(parameters.registry) },
    types: { Erc6538RegistryEntry: [{ name: 'schemeId', type: 'uint256' }, { name: 'stealthMetaAddress', type: 'bytes' }, { name: 'nonce', type: 'uint256' }] },
    primaryType: 'Erc6538RegistryEntry',
    message: { schemeId: BigInt(schemeId), stealthMetaAddress: bytes, nonce: parameters.nonce },
  } as const;
}

export type SignRegistrationParameters = RegisterKeysParameters & {
  /** The registrant's wallet: it signs (`eth_signTypedData_v4`), sends nothing. */
  wallet: WalletClient<Transport, Chain | undefined, Account>;
  /** Reads the registrant's nonce and the chain id. */
  client: PublicClient;
};

/**
 * The registrant's signature for {@link registerKeysOnBehalfParameters}: typed data over the
 * scheme, the bytes and the registrant's current nonce (read from the registry), signed by their
 * wallet (`eth_signTypedData_v4`). The signature is spent by one registration; `incrementNonce`
 * revokes it before it is used.
 */
export async function signRegistration(parameters: SignRegistrationParameters): Promise<{ signature: Hex; nonce: bigint; schemeId: number }> {
  const registrant = parameters.wallet.account.address;
  const [nonce, chainId] = await Promise.all([
    parameters.client.readContract({ address: registryAddress(parameters.registry), abi: erc6538Abi, functionName: 'nonceOf', args: [registrant] }),
    parameters.client.getChainId(),
  ]);
  const typed = registrationTypedData({ ...parameters, chainId, nonce });
  const signature = await parameters.wallet.signTypedData({ account: parameters.wallet.account, ...typed });
  return { signature, nonce, schemeId: Number(typed.message.schemeId) };
}

export type RegisterKeysOnBehalfParameters = RegisterKeysParameters & {
  /** Whose registration it is: the address that signed. */
  registrant: string;
  /** From {@link signRegistration}. */
  signature: Hex;
};

/** Build `registerKeysOnBehalf`: anyone sends it with the registrant's signature and pays its gas. */
export function registerKeysOnBehalfParameters(parameters: RegisterKeysOnBehalfParameters) {
  if (!isAddress(parameters.registrant, { strict: false })) throw new InvalidArgumentError('registrant', 'must be an EVM address');
  const { schemeId, bytes } = registrationValue(parameters);
  const args = [getAddress(parameters.registrant), BigInt(schemeId), parameters.signature, bytes] as const;
  return {
    address: registryAddress(parameters.registry),
    abi: erc6538Abi,
    functionName: 'registerKeysOnBehalf' as const,
    args,
    data: encodeFunctionData({ abi: erc6538Abi, functionName: 'registerKeysOnBehalf', args }),
    schemeId,
  };
}

export type EstimateRegistrationParameters = RegisterKeysParameters & {
  client: PublicClient;
  /** Who will send the registration. */
  from: Address;
};

/**
 * What a registration will cost before the wallet is asked: gas from `eth_estimateGas` for the
 * sender `from`, and the fee bound at the chain's current price (a maximum: the fee cap), priced
 * by {@link estimateTransactionFees}: on the OP Stack that includes the L1 data fee of the
 * kilobyte of calldata, charged outside the gas.
 */
export async function estimateRegistration(parameters: EstimateRegistrationParameters): Promise<{ gas: bigint; maxFee: bigint; l1Fee: bigint; maxFeePerGas: bigint; schemeId: number }> {
  const call = registerKeysParameters(parameters);
  const gas = await parameters.client.estimateGas({ account: parameters.from, to: call.address, data: call.data });
  const price = await estimateTransactionFees({ client: parameters.client, from: parameters.from, transactions: [{ to: call.address, data: call.data, gas }] });
  return { gas, maxFee: price.total, l1Fee: price.l1Fee, maxFeePerGas: price.maxFeePerGas, schemeId: call.schemeId };
}

export type StealthMetaAddressOfParameters = {
  /** The reader: the user's wallet provider or their own RPC. */
  client: PublicClient;
  registrant: string;
  schemeId: number;
  registry?: Address;
};

/**
 * The meta-address `registrant` registered under `schemeId`, or null when none is (an empty
 * value, a cleared scheme, reads as none).
 * @example
 * const meta = await stealthMetaAddressOf({ client, registrant: '0xAbc…', schemeId: 3 });
 */
export async function stealthMetaAddressOf(parameters: StealthMetaAddressOfParameters): Promise<Uint8Array | null> {
  if (!isAddress(parameters.registrant, { strict: false })) throw new InvalidArgumentError('registrant', 'must be an EVM address');
  const value = await parameters.client.readContract({
    address: registryAddress(parameters.registry),
    abi: erc6538Abi,
    functionName: 'stealthMetaAddressOf',
    args: [getAddress(parameters.registrant), BigInt(parameters.schemeId)],
  });
  return value === '0x' ? null : hexToBytes(value);
}

/** What {@link resolveRegisteredMetaAddress} found. */
export type ResolvedMetaAddress =
  | { status: 'registered'; schemeId: 3 | 1000; metaAddress: AnyMetaAddress }
  | { status: 'invalid'; schemeId: 3 | 1000; reason: string }
  | { status: 'unregistered' };

/**
 * The meta-address a sender pays `registrant` with (ERC-8441 Section 2.3): scheme 3 when it is
 * registered, else scheme 1000, else null. A registered value that its form's decoder refuses is
 * reported as `invalid` with the reason rather than paid or thrown.
 */
export async function resolveRegisteredMetaAddress(parameters: Omit<StealthMetaAddressOfParameters, 'schemeId'>): Promise<ResolvedMetaAddress> {
  for (const schemeId of [ERC8441_SCHEME_ID, WRAITH_SCHEME_ID_1000] as const) {
    const bytes = await stealthMetaAddressOf({ ...parameters, schemeId });
    if (bytes === null) continue;
    try {
      const metaAddress = decodeAnyMetaAddress(bytes);
      if (metaAddress.schemeId !== schemeId) return { status: 'invalid', schemeId, reason: `a ${bytes.length}-byte value is not a scheme-${schemeId} meta-address` };
      return { status: 'registered', schemeId, metaAddress };
    } catch (error) {
      return { status: 'invalid', schemeId, reason: error instanceof Error ? error.message : 'undecodable' };
    }
  }
  return { status: 'unregistered' };
}

function registrationValue(parameters: RegisterKeysParameters): { schemeId: number; bytes: Hex } {
  if (parameters.metaAddress === null) {
    if (parameters.schemeId === undefined) throw new InvalidArgumentError('schemeId', 'is required to clear a registration');
    return { schemeId: checkedSchemeId(parameters.schemeId), bytes: '0x' };
  }
  const decoded = decodeAnyMetaAddress(parameters.metaAddress);
  const schemeId = parameters.schemeId === undefined ? decoded.schemeId : checkedSchemeId(parameters.schemeId);
  if (schemeId !== decoded.schemeId && (schemeId === ERC8441_SCHEME_ID || schemeId === WRAITH_SCHEME_ID_1000)) {
    throw new InvalidArgumentError('schemeId', `a ${decoded.bytes.length}-byte meta-address is registered under scheme ${decoded.schemeId}`);
  }
  return { schemeId, bytes: `0x${toHex(decoded.bytes)}` };
}

function checkedSchemeId(schemeId: number): number {
  if (!Number.isSafeInteger(schemeId) || schemeId < 0) throw new InvalidArgumentError('schemeId', 'must be a non-negative integer');
  return schemeId;
}

function registryAddress(registry: Address | undefined): Address {
  if (registry === undefined) return ERC6538_REGISTRY_ADDRESS;
  if (!isAddress(registry, { strict: false })) throw new InvalidArgumentError('registry', 'must be an EVM address');
  return getAddress(registry);
}
