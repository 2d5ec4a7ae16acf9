/**
 * The one pricing rule of every withdrawal (`estimateWithdrawal`, `withdrawNative`,
 * `withdrawToken`, and through them the CLI and the web app), and of the gas top-up a sender
 * adds to a token payment. Each chain is priced by its own fee model (./fee-model.ts):
 *
 * - a native sweep sends the balance minus the fee bound (gas limit × price, plus on the OP Stack
 *   the L1 data fee bound and the operator fee). What stays behind is the bound minus what the
 *   chain actually charges, and at most {@link WithdrawalPrice.maxRemainder}, known before signing;
 *   on a standard chain, to an account without code, it is exactly 0 wei (a transfer uses exactly
 *   21,000 gas and the tip equals the cap, so the fee is exact);
 * - a token withdrawal sends the whole token balance and needs its native balance to cover the
 *   fee bound, L1 fee included; {@link InsufficientGasError} states that full price.
 * @module
 */
import { encodeFunctionData, erc20Abi, type Address, type Hex, type PublicClient, type TransactionSerializable } from 'viem';
import { InvalidArgumentError, WraithError } from '../errors.ts';
import { parseAddress } from './announcer.ts';
import { detectFeeModel, gasPriceOf, l1FeeBound, operatorFee, paymentGasPriceOf, type ChainFeeModel, type FeeModelInfo, type GasPrice } from './fee-model.ts';

/** Gas of a plain value transfer to an account without code: always exactly this much. */
export const TRANSFER_GAS = 21_000n;

/**
 * Whether a withdrawal signed at its price is charged exactly its `fee`, or at most that. Exact
 * only once signed: see {@link PricedAt}.
 */
export type FeeKind = 'exact' | 'maximum';

/**
 * When a withdrawal's `fee` was fixed. `signing`: the fee the transaction was signed with
 * (`withdrawNative` / `withdrawToken`), which the chain charges exactly (`feeKind: 'exact'`) or at
 * most. `today`: an estimate at today's prices ({@link estimateWithdrawal}); the withdrawal prices
 * again when it signs, so its fee moves with the base fee in between. A leg priced before an earlier
 * leg of the same address is mined (the coin left after a token withdrawal) is such an estimate:
 * show its fee as "at today's prices", never "exactly".
 */
export type PricedAt = 'signing' | 'today';

/** A withdrawal's price, known before signing. Amounts in wei unless said otherwise. */
export type WithdrawalPrice = {
  /** What reaches the destination (wei, or token base units). */
  amount: bigint;
  /**
   * The fee bound, paid from the stealth address's native coin: gas limit × price, plus the L1
   * data fee bound and the operator fee on the OP Stack. The chain charges at most this.
   */
  fee: bigint;
  /**
   * `exact`: signed at this price, the chain charges exactly `fee`; `maximum`: at most `fee`, the
   * rest stays at the stealth address. Exact for what was signed (`pricedAt: 'signing'`); an
   * estimate's fee holds only while prices do.
   */
  feeKind: FeeKind;
  /** `signing`: the fee this withdrawal was signed with; `today`: an estimate at today's prices, which the withdrawal prices again (see {@link PricedAt}). */
  pricedAt: PricedAt;
  /** Of `fee`, the L1 data fee bound (OP Stack); 0 elsewhere (on Arbitrum the L1 part is inside `gas`). */
  l1Fee: bigint;
  /**
   * The most native coin a native sweep can leave behind: `fee` minus the least the chain can
   * charge (0 when `feeKind` is `exact`). Always 0 for a token withdrawal, which moves the whole
   * token balance (its unused gas money stays for a native sweep).
   */
  maxRemainder: bigint;
  /** The gas limit. */
  gas: bigint;
  /** The price per gas the fee is bounded at (max fee per gas, or the legacy gas price). */
  maxFeePerGas: bigint;
  /** How the chain charges: `op-stack`, `arbitrum` or `standard`. */
  feeModel: ChainFeeModel;
};

/** A withdrawal priced and ready to sign: every field of the transaction but the signature. */
export type WithdrawalPlan = Omit<WithdrawalPrice, 'pricedAt'> & { transaction: TransactionSerializable };

/**
 * A withdrawal that cannot pay its gas: the stealth address holds less native coin than the
 * transaction's fee bound (L1 data fee included). Nothing was sent. `required` and `available`
 * are in wei.
 *
 * @example
 * try {
 *   await withdrawToken({ client, stealthSecretKey, token, to });
 * } catch (error) {
 *   if (error instanceof InsufficientGasError) console.log(`send ${error.required - error.available} wei to ${error.address} first`);
 * }
 */
export class InsufficientGasError extends WraithError {
  override name = 'InsufficientGasError';
  readonly address: Address;
  readonly required: bigint;
  readonly available: bigint;

  constructor(address: Address, required: bigint, available: bigint, what: string) {
    super('INSUFFICIENT_GAS', `The stealth address ${address} holds ${available} wei, and ${what} needs ${required} wei of gas. Nothing was sent.`, {
      hint: `Send at least ${required - available} wei of the chain's native coin to ${address} (from any account; it links that account to this payment), then withdraw again.`,
      details: [{ path: 'stealthSecretKey', issue: 'not enough native coin for gas' }],
    });
    this.address = address;
    this.required = required;
    this.available = available;
  }
}

/** Everything the pricing reads about the chain and the stealth address, at once. */
type ChainState = { info: FeeModelInfo; price: GasPrice; chainId: number; nonce: number };

/** `pricing`: a withdrawal's exact price (`gasPriceOf`), or the price a payer signs with (`paymentGasPriceOf`). */
async function chainState(client: PublicClient, from: Address, pricing: 'withdrawal' | 'payment' = 'withdrawal'): Promise<ChainState> {
  const [info, chainId, nonce] = await Promise.all([detectFeeModel(client), client.getChainId(), client.getTransactionCount({ address: from, blockTag: 'pending' })]);
  return { info, price: await (pricing === 'payment' ? paymentGasPriceOf : gasPriceOf)(client, info), chainId, nonce };
}

/** The fee bound of an unsigned transaction on its chain: gas × price, plus the OP Stack's L1 and operator fees. */
async function feeBound(client: PublicClient, state: ChainState, transaction: TransactionSerializable & { gas: bigint }): Promise<{ fee: bigint; l1Fee: bigint; operatorFee: bigint }> {
  if (state.info.model !== 'op-stack') return { fee: transaction.gas * state.price.price, l1Fee: 0n, operatorFee: 0n };
  const [l1Fee, opFee] = await Promise.all([l1FeeBound(client, state.info.fjord, transaction), operatorFee(client, transaction.gas)]);
  return { fee: transaction.gas * state.price.price + l1Fee + opFee, l1Fee, operatorFee: opFee };
}

function unsigned(state: ChainState, fields: { to: Address; value: bigint; data?: Hex; gas: bigint }): TransactionSerializable & { gas: bigint } {
  const common = { chainId: state.chainId, nonce: state.nonce, ...fields };
  return 'gasPrice' in state.price.fields ? { ...common, type: 'legacy', ...state.price.fields } : { ...common, type: 'eip1559', ...state.price.fields };
}

/**
 * Price a withdrawal from `from` to `to`: the whole balance of `token`, or without it the whole
 * native balance. Throws {@link InsufficientGasError} when the native balance cannot pay the fee.
 */
export async function planWithdrawal(client: PublicClient, from: Address, to: Address, tokenInput: string | undefined, allowRemainder: boolean): Promise<WithdrawalPlan> {
  if (to === from) throw new InvalidArgumentError('to', 'is the stealth address itself');
  if (tokenInput !== undefined) {
    const token = parseAddress(tokenInput, 'token');
    const amount = await client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [from] });
    if (amount === 0n) throw new InvalidArgumentError('token', `the stealth address ${from} holds none of this token`);
    const [native, state, gas] = await Promise.all([
      client.getBalance({ address: from }),
      chainState(client, from),
      // On Arbitrum the estimate includes the L1 component.
      client.estimateContractGas({ account: from, address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
    ]);
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
    const transaction = unsigned(state, { to: token, value: 0n, data, gas });
    const { fee, l1Fee } = await feeBound(client, state, transaction);
    if (native < fee) throw new InsufficientGasError(from, fee, native, 'a token withdrawal');
    return { amount, fee, feeKind: 'maximum', l1Fee, maxRemainder: 0n, gas, maxFeePerGas: state.price.price, feeModel: state.info.model, transaction };
  }
  const [code, balance, state] = await Promise.all([client.getCode({ address: to }), client.getBalance({ address: from }), chainState(client, from)]);
  const hasCode = code !== undefined && code !== '0x';
  if (hasCode && !allowRemainder) {
    throw new InvalidArgumentError('to', 'is a contract: the gas it uses is not known in advance, so the stealth address could not be left at 0 wei (pass allowRemainder: true to accept a remainder)');
  }
  let gas = TRANSFER_GAS;
  if (state.info.model === 'arbitrum') {
    // The L1 component grows with the transaction's size: estimated with the largest value it can carry.
    gas = await client.estimateGas({ account: from, to, value: balance });
  } else if (hasCode) {
    gas = await client.estimateGas({ account: from, to, value: 1n });
  }
  // Sized with the whole balance as its value: the real value is smaller, and so is its encoding.
  const { fee, l1Fee, operatorFee: opFee } = await feeBound(client, state, unsigned(state, { to, value: balance, gas }));
  // Something must be left to send once the fee is paid: one wei more than the fee at least.
  if (balance <= fee) throw new InsufficientGasError(from, fee + 1n, balance, 'a withdrawal of its native balance');
  // The least the chain can charge: 21,000 gas at the least price, the operator fee of that gas,
  // no L1 fee (L1 prices can fall).
  const leastOperatorFee = opFee === 0n || gas === TRANSFER_GAS ? opFee : await operatorFee(client, TRANSFER_GAS);
  const maxRemainder = fee - (TRANSFER_GAS * state.price.minimumPrice + leastOperatorFee);
  const transaction = unsigned(state, { to, value: balance - fee, gas });
  return { amount: balance - fee, fee, feeKind: maxRemainder === 0n ? 'exact' : 'maximum', l1Fee, maxRemainder, gas, maxFeePerGas: state.price.price, feeModel: state.info.model, transaction };
}

export type EstimateGasTopUpParameters = {
  /** Reads the chain the payment goes out on. */
  client: PublicClient;
  /** The ERC-20 token being paid. */
  token: string;
  /** The token amount being paid, in base units. */
  amount: bigint;
  /**
   * The payer, holding `amount` of the token now. The stealth address holds none yet, so the
   * withdrawal's gas is measured on the payer's transfer of the same amount.
   */
  from: string;
  /** The stealth address being paid (default: a placeholder). */
  to?: string;
  /** Room for prices rising before the recipient withdraws, in percent of today's fee (default 100: twice today's fee). */
  marginPercent?: number;
};

export type EstimateGasTopUpReturnType = {
  /** Native coin to send along with the token payment, in wei: `fee` plus the margin. */
  topUp: bigint;
  /** Today's fee bound of withdrawing the token from the stealth address (L1 data fee included). */
  fee: bigint;
  /** Of `fee`, the L1 data fee bound (OP Stack); 0 elsewhere. */
  l1Fee: bigint;
  gas: bigint;
  feeModel: ChainFeeModel;
};

/** Default {@link EstimateGasTopUpParameters.marginPercent}. */
const DEFAULT_TOP_UP_MARGIN_PERCENT = 100;
/** A placeholder stealth address with no zero byte: the costliest calldata before Fjord. */
const PLACEHOLDER_RECIPIENT: Address = '0xffffffffffffffffffffffffffffffffffffffff';

/**
 * The native coin a sender should add to an ERC-20 payment so the recipient can withdraw the
 * token from the stealth address without a relayer: the fee bound of that token withdrawal at
 * the chain's current prices (gas of the transfer, the L1 data fee on the OP Stack, the L1
 * component on Arbitrum), plus a margin for prices rising before the recipient withdraws.
 * `payStealth` sends it by default with a token payment.
 *
 * @example
 * import { estimateGasTopUp } from '@wraith-pq/sdk/evm';
 * const { topUp, fee } = await estimateGasTopUp({ client, token: USDC, amount: 100_000_000n, from: wallet.account.address });
 */
export async function estimateGasTopUp(parameters: EstimateGasTopUpParameters): Promise<EstimateGasTopUpReturnType> {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  const { client, amount, marginPercent = DEFAULT_TOP_UP_MARGIN_PERCENT } = parameters;
  const token = parseAddress(parameters.token, 'token');
  const from = parseAddress(parameters.from, 'from');
  const to = parameters.to === undefined ? PLACEHOLDER_RECIPIENT : parseAddress(parameters.to, 'to');
  if (typeof amount !== 'bigint' || amount <= 0n) throw new InvalidArgumentError('amount', 'must be a positive bigint (base units)');
  if (!Number.isInteger(marginPercent) || marginPercent < 0) throw new InvalidArgumentError('marginPercent', 'must be a whole number of percent, 0 or more');
  const [info, chainId, gas] = await Promise.all([
    detectFeeModel(client),
    client.getChainId(),
    client.estimateContractGas({ account: from, address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
  ]);
  // The stealth address's first transaction: nonce 0. The calldata sent to a placeholder destination
  // without zero bytes, the most a real destination can cost.
  const state: ChainState = { info, price: await gasPriceOf(client, info), chainId, nonce: 0 };
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [PLACEHOLDER_RECIPIENT, amount] });
  const { fee, l1Fee } = await feeBound(client, state, unsigned(state, { to: token, value: 0n, data, gas }));
  const topUp = (fee * BigInt(100 + marginPercent) + 99n) / 100n;
  return { topUp, fee, l1Fee, gas, feeModel: info.model };
}

/** One transaction a payer is about to sign: where it goes, the coin it carries, its calldata and its gas limit. */
export type TransactionToPrice = { to: string; value?: bigint; data?: Hex; gas: bigint };

export type EstimateTransactionFeesParameters = {
  /** Reads the chain the transactions go out on. */
  client: PublicClient;
  /** The account that signs them, in this order (their nonces follow its next one). */
  from: string;
  transactions: readonly TransactionToPrice[];
};

export type EstimateTransactionFeesReturnType = {
  /** Each transaction's fee bound (gas × `maxFeePerGas`, plus the L1 data fee and operator fee on the OP Stack), in order. */
  fees: { fee: bigint; l1Fee: bigint; operatorFee: bigint }[];
  /** The sum of the fee bounds, wei. */
  total: bigint;
  /** Of `total`, the L1 data fees (OP Stack); 0 elsewhere. */
  l1Fee: bigint;
  maxFeePerGas: bigint;
  feeModel: ChainFeeModel;
};

/**
 * The most a run of transactions can cost their signer, by the same rule withdrawals are priced
 * with (gas × `maxFeePerGas`, the tip equal to the cap, plus on the OP Stack the L1 data fee and
 * operator fee charged outside the gas). It holds for a signer that signs at that cap and those gas
 * limits; a wallet that chooses its own may ask for more. For a payment, use
 * {@link estimatePayment}, which also returns the price and gas limits to sign with.
 *
 * @example
 * import { estimateTransactionFees } from '@wraith-pq/sdk/evm';
 * const { total } = await estimateTransactionFees({ client, from: payer, transactions: [{ to: stealth, value, gas: 21_000n }] });
 */
export async function estimateTransactionFees(parameters: EstimateTransactionFeesParameters): Promise<EstimateTransactionFeesReturnType> {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  const { client, transactions } = parameters;
  const from = parseAddress(parameters.from, 'from');
  // Every input is checked before the first RPC call.
  if (!Array.isArray(transactions)) throw new InvalidArgumentError('transactions', 'must be an array');
  const checked = transactions.map((t: TransactionToPrice, i) => {
    if (typeof t !== 'object' || t === null) throw new InvalidArgumentError(`transactions[${i}]`, 'must be an object');
    if (typeof t.gas !== 'bigint' || t.gas <= 0n) throw new InvalidArgumentError(`transactions[${i}].gas`, 'must be a positive bigint');
    return { to: parseAddress(t.to, `transactions[${i}].to`), value: t.value ?? 0n, gas: t.gas, ...(t.data === undefined ? {} : { data: t.data }) };
  });
  const { price: _fields, ...priced } = await priceTransactions(client, from, checked, 'withdrawal');
  return priced;
}

/**
 * {@link estimateTransactionFees} of checked transactions, priced as `pricing` says, with the
 * price fields the bound assumes: a signer that signs with them cannot be asked for more.
 * @internal
 */
export async function priceTransactions(
  client: PublicClient,
  from: Address,
  transactions: readonly { to: Address; value: bigint; data?: Hex; gas: bigint }[],
  pricing: 'withdrawal' | 'payment',
): Promise<EstimateTransactionFeesReturnType & { price: GasPrice['fields'] }> {
  const state = await chainState(client, from, pricing);
  const fees = await Promise.all(
    transactions.map((t, i) => {
      const own = { ...state, nonce: state.nonce + i };
      return feeBound(client, own, unsigned(own, t));
    }),
  );
  return {
    fees,
    total: fees.reduce((sum, f) => sum + f.fee, 0n),
    l1Fee: fees.reduce((sum, f) => sum + f.l1Fee, 0n),
    maxFeePerGas: state.price.price,
    feeModel: state.info.model,
    price: state.price.fields,
  };
}
