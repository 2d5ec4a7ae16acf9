/**
 * Why a gasless quote holds on an OP Stack chain (issue 31).
 *
 * An OP Stack bundler (alto `--chain-type op-stack`) folds the L1 data fee of its bundle into the
 * operation's `preVerificationGas`: the GasPriceOracle's `getL1Fee` of a `handleOps` transaction
 * it builds for the estimate, divided by its L2 price. It fills that transaction's gas fields and
 * signature with random bytes, so two estimates at the same prices differ by the L1 fee of a few
 * compressed bytes (measured on Hardhat's OP node: up to 6,451 gas of 363,386 over 30 draws,
 * with the L1 fee half the cost). A withdrawal re-estimates
 * before signing and refused its own quote as bound (`FeeAboveMaxError`) whenever the second draw
 * came out higher.
 *
 * So the quote carries room for that noise: `preVerificationGas` plus the worst-case L1 fee of the
 * bytes the bundler randomises, at the L2 price; and the withdrawal may spend that room, never
 * more, to stay within the caller's `maxFee`. The operation still carries at least the bundler's
 * own fresh figure, so the bundler is paid back its L1 fee. Off the OP Stack the room is 0.
 * @module
 */
import type { Address, PublicClient } from 'viem';
import { FeeAboveMaxError } from './gasless-errors.ts';
import { isNotAnswered } from './viem-errors.ts';

const GAS_PRICE_ORACLE: Address = '0x420000000000000000000000000000000000000F';
const upperBoundAbi = [
  { type: 'function', name: 'getL1FeeUpperBound', stateMutability: 'view', inputs: [{ name: '_unsignedTxSize', type: 'uint256' }], outputs: [{ type: 'uint256' }] },
] as const;

/**
 * Bytes of room: alto draws a 65-byte signature and five gas fields (up to 3 bytes each) per
 * estimate; what moves is how well the rest compresses around them. Over 30 draws on Hardhat's OP
 * node the spread was the bound's price of 12 bytes; 64 leaves five times that.
 */
const RANDOMISED_BYTES = 64n;
/** A size well above the OP Stack minimum-size rule, where the bound grows linearly with the size. */
const LINEAR_SIZE = 1_000n;

/**
 * Gas of `preVerificationGas` that covers the L1 fee of {@link RANDOMISED_BYTES} uncompressible
 * bytes at `l2Price` wei per gas: 0 where the chain has no GasPriceOracle answering
 * `getL1FeeUpperBound` (not the OP Stack, or before Fjord). A transport failure is thrown.
 */
export async function bundlerNoiseGas(client: PublicClient, l2Price: bigint): Promise<bigint> {
  if (l2Price <= 0n) return 0n;
  const bound = (size: bigint) => client.readContract({ address: GAS_PRICE_ORACLE, abi: upperBoundAbi, functionName: 'getL1FeeUpperBound', args: [size] });
  let wei: bigint;
  try {
    const [low, high] = await Promise.all([bound(LINEAR_SIZE), bound(LINEAR_SIZE + RANDOMISED_BYTES)]);
    wei = high - low;
  } catch (error) {
    if (isNotAnswered(error)) return 0n;
    throw error;
  }
  return wei <= 0n ? 0n : (wei + l2Price - 1n) / l2Price;
}

/** What of a gasless quote the fee is priced from (gasless.ts). */
type Priced = {
  gas: { callGasLimit: bigint; verificationGasLimit: bigint; preVerificationGas: bigint; paymasterVerificationGasLimit: bigint; paymasterPostOpGasLimit: bigint; maxFeePerGas: bigint };
  tokenPerEth: bigint;
  balance: bigint;
  fee: bigint;
  amount: bigint;
  maxCost: bigint;
};

/**
 * `quote` as signed within `maxFee`: unchanged when its fee fits; else with `preVerificationGas`
 * lowered to the most that fits, by at most `room` (so never below the bundler's own figure), and
 * the fee, amount and `maxCost` that follow. The fee of `maxCost` wei is
 * `ceil(maxCost * tokenPerEth / 1e18)`, so it fits when `maxCost <= floor(maxFee * 1e18 / tokenPerEth)`.
 * @throws {FeeAboveMaxError} even the bundler's own figure puts the fee above `maxFee`.
 */
export function quoteWithin<Q extends Priced>(quote: Q, room: bigint, maxFee: bigint): Q {
  if (quote.fee <= maxFee) return quote;
  const { gas, tokenPerEth } = quote;
  const others = gas.callGasLimit + gas.verificationGasLimit + gas.paymasterVerificationGasLimit + gas.paymasterPostOpGasLimit;
  const preVerificationGas = (maxFee * 10n ** 18n) / tokenPerEth / gas.maxFeePerGas - others;
  if (preVerificationGas < gas.preVerificationGas - room) throw new FeeAboveMaxError(quote.fee, maxFee);
  const maxCost = (others + preVerificationGas) * gas.maxFeePerGas;
  const fee = (maxCost * tokenPerEth + 10n ** 18n - 1n) / 10n ** 18n;
  return { ...quote, gas: { ...gas, preVerificationGas }, maxCost, fee, amount: quote.balance - fee };
}
