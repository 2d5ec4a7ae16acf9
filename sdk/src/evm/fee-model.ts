/**
 * How an EVM chain charges a transaction, read from the chain itself (never from a list of chain
 * ids, so a new OP Stack or Arbitrum Orbit chain is priced right the day it launches):
 *
 * - **OP Stack** (OP Mainnet, Base, ...: the GasPriceOracle predeploy `0x4200…000F` answers):
 *   gas × price, plus the L1 data fee and (Isthmus and later) the operator fee, both charged
 *   outside the gas. The L1 fee is the oracle's: `getL1FeeUpperBound(unsigned size)` from Fjord
 *   on, `getL1Fee(unsigned transaction)` before; this module never computes it itself.
 * - **Arbitrum** (One, Nova, Orbit chains: the ArbSys precompile `0x…64` answers `arbChainID()`):
 *   the L1 component is inside the gas, so `eth_estimateGas` is the gas limit; tips are not paid,
 *   a transaction pays gas used × the base fee when it is included, never less than the chain's
 *   minimum gas price (ArbGasInfo `0x…6C`, `getMinimumGasPrice()`).
 * - **standard**: gas × price is the whole fee.
 * @module
 */
import {
  hexToBytes,
  serializeTransaction,
  type Address,
  type PublicClient,
  type TransactionReceipt,
  type TransactionSerializable,
} from 'viem';
import { isNotAnswered } from './viem-errors.ts';

/** How a chain charges a transaction (see the module documentation). */
export type ChainFeeModel = 'op-stack' | 'arbitrum' | 'standard';

/** What pricing needs to know about the chain, besides its model. */
export type FeeModelInfo =
  | { model: 'op-stack'; /** The oracle has `getL1FeeUpperBound` (Fjord and later). */ fjord: boolean }
  | { model: 'arbitrum'; /** The least base fee a transaction can be charged, wei per gas. */ minimumGasPrice: bigint }
  | { model: 'standard' };

const GAS_PRICE_ORACLE: Address = '0x420000000000000000000000000000000000000F';
const ARB_SYS: Address = '0x0000000000000000000000000000000000000064';
const ARB_GAS_INFO: Address = '0x000000000000000000000000000000000000006C';

/** The oracle functions used here (OP Stack specs, "GasPriceOracle"); viem's ABI lacks `getL1FeeUpperBound` and `isFjord`. */
const gasPriceOracleAbi = [
  { type: 'function', name: 'l1BaseFee', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint256' }] },
  { type: 'function', name: 'isFjord', stateMutability: 'view', inputs: [], outputs: [{ type: 'bool' }] },
  { type: 'function', name: 'getL1FeeUpperBound', stateMutability: 'view', inputs: [{ name: '_unsignedTxSize', type: 'uint256' }], outputs: [{ type: 'uint256' }] },
  { type: 'function', name: 'getL1Fee', stateMutability: 'view', inputs: [{ name: '_data', type: 'bytes' }], outputs: [{ type: 'uint256' }] },
  { type: 'function', name: 'getOperatorFee', stateMutability: 'view', inputs: [{ name: '_gasUsed', type: 'uint256' }], outputs: [{ type: 'uint256' }] },
] as const;
const arbSysAbi = [{ type: 'function', name: 'arbChainID', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint256' }] }] as const;
const arbGasInfoAbi = [{ type: 'function', name: 'getMinimumGasPrice', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint256' }] }] as const;

/**
 * The L1 prices in L1Block move once per L1 block (12 s), at most 12.5 % up each time (EIP-1559
 * base fee; the blob base fee rises no faster). A withdrawal is signed and sent right after it is
 * priced, but the sequencer may move to a new L1 origin before including it: the bound allows
 * two such steps, (9/8)^2 = 81/64, so a rise never makes the chain refuse it for lack of funds.
 */
const L1_PRICE_STEPS = { numerator: 81n, denominator: 64n };

/** Which fee model the chain follows: three `eth_call`s at once (four on Arbitrum). RPC failures are thrown, not taken for "no". */
export async function detectFeeModel(client: PublicClient): Promise<FeeModelInfo> {
  const [l1BaseFee, isFjord, arbChainId] = await Promise.all([
    answer(client.readContract({ address: GAS_PRICE_ORACLE, abi: gasPriceOracleAbi, functionName: 'l1BaseFee' })),
    answer(client.readContract({ address: GAS_PRICE_ORACLE, abi: gasPriceOracleAbi, functionName: 'isFjord' })),
    answer(client.readContract({ address: ARB_SYS, abi: arbSysAbi, functionName: 'arbChainID' })),
  ]);
  if (l1BaseFee !== undefined) return { model: 'op-stack', fjord: isFjord === true };
  if (arbChainId !== undefined) {
    const minimumGasPrice = await answer(client.readContract({ address: ARB_GAS_INFO, abi: arbGasInfoAbi, functionName: 'getMinimumGasPrice' }));
    return { model: 'arbitrum', minimumGasPrice: minimumGasPrice ?? 0n };
  }
  return { model: 'standard' };
}

/**
 * The most the L1 data fee of `transaction` (unsigned, with every field as it will be signed but
 * `value`, which may only be smaller) can be when it is included: the oracle's figure at today's
 * L1 prices, raised by {@link L1_PRICE_STEPS}.
 */
export async function l1FeeBound(client: PublicClient, fjord: boolean, transaction: TransactionSerializable): Promise<bigint> {
  let fee: bigint;
  if (fjord) {
    // The bound of a size: a smaller value only shortens the encoding.
    const size = hexToBytes(serializeTransaction(transaction)).length;
    fee = await client.readContract({ address: GAS_PRICE_ORACLE, abi: gasPriceOracleAbi, functionName: 'getL1FeeUpperBound', args: [BigInt(size)] });
  } else {
    // Before Fjord the fee counts zero bytes cheaper than others: price the value as all non-zero
    // bytes of its longest length, which no smaller value outprices.
    const value = transaction.value ?? 0n;
    const worst = value === 0n ? 0n : (1n << BigInt(8 * byteLength(value))) - 1n;
    fee = await client.readContract({ address: GAS_PRICE_ORACLE, abi: gasPriceOracleAbi, functionName: 'getL1Fee', args: [serializeTransaction({ ...transaction, value: worst })] });
  }
  return ceilDiv(fee * L1_PRICE_STEPS.numerator, L1_PRICE_STEPS.denominator);
}

/** The operator fee (OP Stack Isthmus and later) of `gas` gas; 0 where the oracle has none. */
export async function operatorFee(client: PublicClient, gas: bigint): Promise<bigint> {
  return (await answer(client.readContract({ address: GAS_PRICE_ORACLE, abi: gasPriceOracleAbi, functionName: 'getOperatorFee', args: [gas] }))) ?? 0n;
}

export type FeePaidOfParameters = {
  /** Reads the chain (the OP Stack operator fee only): the user's wallet provider or their own RPC. */
  client: PublicClient;
  /** The mined transaction's receipt, as `waitForTransactionReceipt` gives it. */
  receipt: Pick<TransactionReceipt, 'gasUsed' | 'effectiveGasPrice' | 'blockNumber'>;
};

/**
 * What a mined transaction cost its sender, from its receipt: gas used × effective price, plus,
 * on the OP Stack, the L1 data fee the receipt states (`l1Fee`) and the operator fee of the gas
 * used, read from the GasPriceOracle at the receipt's block (so whichever formula the chain runs
 * at that block; 0 before Isthmus). Elsewhere no read is made.
 * @example
 * const receipt = await client.waitForTransactionReceipt({ hash });
 * const paid = await feePaidOf({ client, receipt }); // wei
 */
export async function feePaidOf({ client, receipt }: FeePaidOfParameters): Promise<bigint> {
  const gas = receipt.gasUsed * receipt.effectiveGasPrice;
  // Without a chain's formatters a receipt's extra fields stay hex.
  const stated = (receipt as { l1Fee?: unknown }).l1Fee;
  const l1Fee = typeof stated === 'bigint' ? stated : typeof stated === 'string' && /^0x[0-9a-f]+$/i.test(stated) ? BigInt(stated) : null;
  if (l1Fee === null) return gas;
  const operator = await answer(client.readContract({ address: GAS_PRICE_ORACLE, abi: gasPriceOracleAbi, functionName: 'getOperatorFee', args: [receipt.gasUsed], blockNumber: receipt.blockNumber }));
  return gas + l1Fee + (operator ?? 0n);
}

/** What a transaction bids per gas, and the least it can be charged per gas. */
export type GasPrice = {
  /** The cap: the price the fee bound is computed at. */
  price: bigint;
  /** The least price the chain can charge it (equal to `price` where the price is exact). */
  minimumPrice: bigint;
  fields: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { gasPrice: bigint };
};

/**
 * One price per gas. EIP-1559 chains: the tip equal to the cap, so the effective price is the cap
 * whatever the base fee turns out to be and the gas part of the fee is exact (the price of
 * exactness: the margin above the base fee goes to the block's proposer). Arbitrum pays no tips
 * and charges the base fee of the block: the cap bounds it, the chain's minimum gas price is the
 * least. Chains without a base fee: legacy `gasPrice`.
 */
export async function gasPriceOf(client: PublicClient, info: FeeModelInfo): Promise<GasPrice> {
  const block = await client.getBlock({ blockTag: 'latest' });
  if (block.baseFeePerGas === null || block.baseFeePerGas === undefined) {
    const gasPrice = await client.getGasPrice();
    return { price: gasPrice, minimumPrice: info.model === 'arbitrum' ? info.minimumGasPrice : gasPrice, fields: { gasPrice } };
  }
  const { maxFeePerGas } = await client.estimateFeesPerGas({ type: 'eip1559', chain: client.chain ?? null });
  if (info.model === 'arbitrum') return { price: maxFeePerGas, minimumPrice: info.minimumGasPrice, fields: { maxFeePerGas, maxPriorityFeePerGas: 0n } };
  return { price: maxFeePerGas, minimumPrice: maxFeePerGas, fields: { maxFeePerGas, maxPriorityFeePerGas: maxFeePerGas } };
}

/**
 * The price a payer's transactions are signed with ({@link estimatePayment}, `payStealth`'s
 * `signWith`). EIP-1559 chains: the node's suggested tip (none on Arbitrum), capped at twice the base
 * fee plus the tip, so the cap still holds after the base fee rose over several full blocks (a
 * payment's transactions go out one after another, each once the previous one is mined); the
 * chain charges the base fee plus the tip, never more. Chains without a base fee: legacy `gasPrice`.
 */
export async function paymentGasPriceOf(client: PublicClient, info: FeeModelInfo): Promise<GasPrice> {
  const block = await client.getBlock({ blockTag: 'latest' });
  const baseFee = block.baseFeePerGas;
  if (baseFee === null || baseFee === undefined) {
    const gasPrice = await client.getGasPrice();
    return { price: gasPrice, minimumPrice: info.model === 'arbitrum' ? info.minimumGasPrice : gasPrice, fields: { gasPrice } };
  }
  const tip = info.model === 'arbitrum' ? 0n : await client.estimateMaxPriorityFeePerGas({ chain: client.chain ?? null });
  const cap = 2n * baseFee + tip;
  return { price: cap, minimumPrice: info.model === 'arbitrum' ? info.minimumGasPrice : baseFee, fields: { maxFeePerGas: cap, maxPriorityFeePerGas: tip } };
}

/**
 * The call's result, or undefined when the contract does not answer it (no code at the address,
 * or it reverts: not this chain's contract, or not this version's function). Any other failure
 * (transport, RPC error) is thrown: a flaky provider must not make an OP chain look standard.
 */
async function answer<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    // By name and code, not instanceof: the client's viem may not be this module's (viem-errors.ts).
    if (isNotAnswered(error)) return undefined;
    throw error;
  }
}

function byteLength(value: bigint): number {
  return Math.max(1, Math.ceil(value.toString(16).length / 2));
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
