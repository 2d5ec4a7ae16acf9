/**
 * The contracts of a gasless withdrawal: EntryPoint v0.8 and Simple7702Account
 * (eth-infinitism/account-abstraction v0.8.0, at their canonical CREATE2 addresses), the project's
 * WraithTokenPaymaster (contracts/src), and the call batch the paymaster accepts.
 * @module
 */
import { concat, encodeFunctionData, erc20Abi, numberToHex, pad, type Address, type Hex } from 'viem';

/** EntryPoint v0.8 (ERC-4337), the same address on every chain. */
export const ENTRY_POINT_V08: Address = '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108';
/** Simple7702Account v0.8: the implementation a one-time address delegates to (EIP-7702). */
export const SIMPLE_7702_ACCOUNT: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B';

/** The parts of contracts/build/WraithTokenPaymaster.json the SDK reads, and its errors (a refusal's reason). */
export const wraithPaymasterAbi = [
  {
    type: 'function',
    name: 'prices',
    stateMutability: 'view',
    inputs: [{ name: 'token', type: 'address' }],
    outputs: [
      { name: 'tokenPerEth', type: 'uint192' },
      { name: 'validUntil', type: 'uint48' },
      { name: 'maxMoveBps', type: 'uint16' },
    ],
  },
  { type: 'function', name: 'feeAccount', stateMutability: 'view', inputs: [], outputs: [{ type: 'address' }] },
  { type: 'error', name: 'MalformedPaymasterData', inputs: [{ name: 'length', type: 'uint256' }] },
  { type: 'error', name: 'UnlistedToken', inputs: [{ name: 'token', type: 'address' }] },
  { type: 'error', name: 'FeeTooLow', inputs: [{ name: 'fee', type: 'uint256' }, { name: 'required', type: 'uint256' }] },
] as const;

const executeBatchAbi = [
  {
    type: 'function',
    name: 'executeBatch',
    stateMutability: 'nonpayable',
    inputs: [
      {
        name: 'calls',
        type: 'tuple[]',
        components: [
          { name: 'target', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'data', type: 'bytes' },
        ],
      },
    ],
    outputs: [],
  },
] as const;

const getNonceAbi = [
  { type: 'function', name: 'getNonce', stateMutability: 'view', inputs: [{ name: 'sender', type: 'address' }, { name: 'key', type: 'uint192' }], outputs: [{ type: 'uint256' }] },
] as const;
export { getNonceAbi as entryPointNonceAbi };

/** One call of a Simple7702Account batch. */
export type BatchCall = { target: Address; value: bigint; data: Hex };

export type WithdrawalBatch = {
  token: Address;
  to: Address;
  /** Token base units for `to`: the balance minus the fee (the paymaster took the fee in validation). */
  amount: bigint;
  /** Wei the address holds, sent to `to` as well (none: no second call). */
  coin: bigint;
};

/** The withdrawal's calls: the tokens left after the fee to `to`, then any coin. */
export function withdrawalCalls({ token, to, amount, coin }: WithdrawalBatch): BatchCall[] {
  const calls: BatchCall[] = [{ target: token, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) }];
  if (coin > 0n) calls.push({ target: to, value: coin, data: '0x' });
  return calls;
}

/** The EIP-2612 permit signature the paymaster applies in validation: r || s || v (65 bytes). */
export type PermitSignature = { r: Hex; s: Hex; v: number };

/**
 * WraithTokenPaymaster's `paymasterData`: token || fee (uint256) || the permit's r || s || v when
 * given. It is inside the user operation hash, so the sender's signature fixes the fee.
 */
export function paymasterData(token: Address, fee: bigint, permit?: PermitSignature): Hex {
  const parts: Hex[] = [token, pad(numberToHex(fee), { size: 32 })];
  if (permit !== undefined) parts.push(permit.r, permit.s, numberToHex(permit.v, { size: 1 }));
  return concat(parts);
}

/** Simple7702Account.executeBatch(calls). */
export function executeBatchData(calls: readonly BatchCall[]): Hex {
  return encodeFunctionData({ abi: executeBatchAbi, functionName: 'executeBatch', args: [calls] });
}

/** The code an address delegating to `implementation` carries (EIP-7702 delegation designator). */
export function delegationDesignator(implementation: Address): Hex {
  return `0xef0100${implementation.slice(2).toLowerCase()}`;
}
