/**
 * Money through stealth addresses on an EVM chain: paying one (native coin or ERC-20 and the
 * ERC-5564 announcement with a sealed note, in one transaction through WraithPay where it is
 * deployed, else as separate transactions), reading what discovered addresses hold, and
 * withdrawing it signed with the one-time key `p` alone, with no relayer.
 *
 * Privacy: read balances and send withdrawals through the recipient's own wallet provider or an
 * RPC of their choice, never through a Wraith server (which would learn which stealth addresses
 * belong together). Withdrawing several stealth addresses to one destination links them on
 * chain for anyone who looks: use a fresh destination per payment where that matters.
 * @module
 */
import {
  encodeFunctionData,
  erc20Abi,
  type Account,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { InvalidArgumentError, WraithError } from '../errors.ts';
import type { PaymentNoteInput } from '../note.ts';
import type { StealthPayment } from '../payment.ts';
import { announceParameters, parseAddress, ANNOUNCER_ADDRESS, WRAITH_SCHEME_ID } from './announcer.ts';
import { payNativeCall, payTokenCall, wraithPayDeployed } from './wraith-pay.ts';
import { coinRefused, contractNativeSteps, contractTokenSteps, payThroughContract, refusalOrThrow, withMargin, type PaymentRoute, type PaymentStep } from './wraith-pay-route.ts';
import type { ChainFeeModel } from './fee-model.ts';
import { oneTimeAccountOf, type OneTimeAccount } from './one-time-account.ts';
import { estimateGasTopUp, planWithdrawal, priceTransactions, TRANSFER_GAS, type WithdrawalPlan, type WithdrawalPrice } from './withdrawal-plan.ts';
import { isRevert } from './viem-errors.ts';

export { estimateGasTopUp, InsufficientGasError, type EstimateGasTopUpParameters, type EstimateGasTopUpReturnType, type FeeKind, type PricedAt, type WithdrawalPrice } from './withdrawal-plan.ts';
export type { ChainFeeModel } from './fee-model.ts';
export type { PaymentRoute } from './wraith-pay-route.ts';

/** What a payment sends: the chain's native coin, or an ERC-20 token (amounts in base units). */
export type PaymentAsset =
  | { type: 'native'; value: bigint }
  | {
      type: 'erc20';
      token: Address;
      amount: bigint;
      /**
       * Native coin sent along so the recipient can pay the gas of withdrawing the token. Default:
       * {@link estimateGasTopUp} at the chain's current prices (twice today's fee of that
       * withdrawal, L1 data fee included); `0n` sends none.
       */
      gasTopUp?: bigint;
    };

export type PayStealthParameters = {
  /** The sender's wallet (viem `WalletClient` with an account and a chain: an injected EIP-1193 wallet, a local account ...). */
  wallet: WalletClient<Transport, Chain, Account>;
  /** Reads receipts (any `PublicClient` of the same chain). */
  client: PublicClient;
  /** From `createStealthPayment(recipientMetaAddress)`. */
  payment: Pick<StealthPayment, 'stealthAddress' | 'ephemeralCiphertext' | 'viewTag' | 'sharedSecret'> & { schemeId?: StealthPayment['schemeId'] };
  asset: PaymentAsset;
  /**
   * Sealed into the announcement for the recipient alone. Default: the note that names its asset
   * (PROTOCOL.md 8.1): the amount, the asset (`'coin'` or the token) and the chain id, and with
   * separate transactions the transfer's hash (through WraithPay the payment is the announcing
   * transaction itself, which the note then leaves out: PROTOCOL.md section 8).
   */
  note?: PaymentNoteInput;
  announcer?: Address;
  /** Default: the payment's scheme (`announceParameters`). */
  schemeId?: bigint;
  /**
   * The route, price and gas limits to sign with: {@link estimatePayment}'s `signWith`, so a payer it found
   * covered is not asked for more. Default: the wallet chooses. Should the chain's price have risen
   * above the pinned cap by the time a transaction is signed (a slow confirmation, a busy chain),
   * that one is signed at the wallet's price instead: a cap under the base fee would never be mined.
   */
  signWith?: PaymentSigning;
};

/** The price a payment's transactions are signed with: EIP-1559 fields, or a legacy gas price. */
export type PaymentFees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; gasPrice?: never } | { gasPrice: bigint; maxFeePerGas?: never; maxPriorityFeePerGas?: never };

/** What {@link payStealth} signs a payment's transactions with: the route, one price, and each one's gas limit. */
export type PaymentSigning = {
  fees: PaymentFees;
  /** `contract`: through WraithPay; `transactions`: separate transfer, top-up and announcement. Default `transactions`. */
  via?: PaymentRoute;
  /**
   * Gas limits. Separate transactions: the transfer, the top-up (null when none is sent), the
   * announcement. Through WraithPay: `payment` is the one that pays and announces (`topUp` and
   * `announcement` null), `approval` the token approval before it (null when none is needed), and
   * `approvalReset` the `approve` of 0 before that, for a token that will not move a leftover
   * non-zero allowance to another non-zero value (USDT; null when none is needed).
   */
  gas: { payment: bigint; topUp: bigint | null; announcement: bigint | null; approval?: bigint | null; approvalReset?: bigint | null };
};

export type PayStealthReturnType = {
  /** The transaction that moved the money (native value, ERC-20 `transfer`, or WraithPay's call). */
  paymentHash: Hash;
  /** The native top-up of a token payment sent on its own (null for a native payment, a token payment with `gasTopUp: 0n`, or through WraithPay, which forwards it with the payment). */
  topUpHash: Hash | null;
  /** The transaction that announced it: through WraithPay, the same as `paymentHash`. */
  announcementHash: Hash;
  /** The token approval to WraithPay, when the allowance was short (in a wallet's atomic batch, the batch's transaction); else null. A reset of a leftover allowance to 0 before it is in `hashes`. */
  approvalHash: Hash | null;
  via: PaymentRoute;
  /** Every distinct transaction the payer signed, in order: sum their fees, not the three fields above. */
  hashes: Hash[];
};

/**
 * Pay a stealth address and announce it, with a note sealed for the recipient (amount, chain id).
 * A token payment carries a native gas top-up for the recipient's withdrawal (by default priced
 * from the chain by {@link estimateGasTopUp} before anything is sent).
 *
 * Where WraithPay is deployed ({@link WRAITH_PAY_ADDRESS}, the same on every chain) and the
 * announcer is the canonical one, the payment and its announcement are one transaction: a coin
 * payment is ONE wallet confirmation; a token payment one, or two when the payer's allowance to
 * WraithPay is short (`approve` of exactly the amount, then the payment), three when a short
 * allowance is left over and the token only moves it through 0 (USDT: `approve` of 0 first), and one again when the
 * wallet offers atomic batches (EIP-5792 `wallet_sendCalls`, which the wallet then prices).
 * Elsewhere: the transfer, mined, then the announcement (two confirmations; a token payment's
 * top-up a third). Each transaction is awaited until mined; a reverted one throws.
 *
 * @example
 * import { createPublicClient, createWalletClient, custom, http, parseEther } from 'viem';
 * import { mainnet } from 'viem/chains';
 * import { createStealthPayment } from '@wraith-pq/sdk';
 * import { payStealth } from '@wraith-pq/sdk/evm';
 *
 * const [account] = await window.ethereum.request({ method: 'eth_requestAccounts' });
 * const wallet = createWalletClient({ account, chain: mainnet, transport: custom(window.ethereum) });
 * const client = createPublicClient({ chain: mainnet, transport: custom(window.ethereum) });
 * const payment = createStealthPayment(recipientMetaAddress);
 * const { paymentHash, announcementHash } = await payStealth({ wallet, client, payment, asset: { type: 'native', value: parseEther('0.5') } });
 */
export async function payStealth(parameters: PayStealthParameters): Promise<PayStealthReturnType> {
  const { wallet, client, payment, asset, schemeId } = parameters;
  if (wallet?.account === undefined) throw new InvalidArgumentError('wallet', 'must be a viem WalletClient with an account');
  const announcer = parseAddress(parameters.announcer ?? ANNOUNCER_ADDRESS, 'announcer');
  const signWith = parameters.signWith === undefined ? null : checkedSigning(parameters.signWith);
  /** The pinned price and `gas` for one transaction, or nothing (the wallet's own) once the chain's price passed the pin. */
  const pinned = async (gas: bigint | null | undefined): Promise<object> => {
    if (signWith === null || gas === null || gas === undefined) return {};
    if ((await priceNow(client)) > capOf(signWith.fees)) return {};
    return { ...signWith.fees, gas };
  };
  const to = parseAddress(payment?.stealthAddress, 'payment.stealthAddress');
  const chainId = BigInt(await client.getChainId());
  const mined = async (hash: Hash, what: string) => {
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new WraithError('TRANSACTION_REVERTED', `The ${what} transaction ${hash} reverted.`);
    return hash;
  };
  /**
   * The transfer's receipt. A revert moved nothing. Any other failure once the wallet returned the
   * hash (the receipt could not be read: a lost connection, a provider's 5xx) leaves a payment that
   * may well be mined: reported with its hash as not announced, so the caller keeps it and announces
   * it, never as if nothing had been sent.
   */
  const transferMined = async (hash: Hash, what: string) => {
    const receipt = await client.waitForTransactionReceipt({ hash }).catch((cause: unknown) => {
      throw new PaymentNotAnnouncedError(hash, null, cause);
    });
    if (receipt.status !== 'success') throw new WraithError('TRANSACTION_REVERTED', `The ${what} transaction ${hash} reverted.`);
    return hash;
  };
  const via: PaymentRoute = signWith?.via ?? (announcer === ANNOUNCER_ADDRESS && (await wraithPayDeployed({ client })) ? 'contract' : 'transactions');
  if (via === 'contract') {
    if (announcer !== ANNOUNCER_ADDRESS) throw new InvalidArgumentError('announcer', 'WraithPay announces on the canonical Announcer only: estimate again with this announcer');
    let amount: bigint;
    let call: ReturnType<typeof payNativeCall>;
    let approval: { token: Address; amount: bigint } | null = null;
    const announceArgs = (value: bigint) =>
      announceParameters({ payment, note: parameters.note ?? { amount: value, token: asset?.type === 'erc20' ? asset.token : 'coin', chainId }, announcer, ...(schemeId === undefined ? {} : { schemeId }) }).args;
    if (asset?.type === 'native') {
      amount = positive(asset.value, 'asset.value');
      call = payNativeCall(amount, announceArgs(amount));
    } else if (asset?.type === 'erc20') {
      amount = positive(asset.amount, 'asset.amount');
      const token = parseAddress(asset.token, 'asset.token');
      const gasTopUp = asset.gasTopUp ?? (await estimateGasTopUp({ client, token, amount, from: wallet.account.address, to })).topUp;
      call = payTokenCall(token, amount, gasTopUp, announceArgs(amount));
      approval = { token, amount };
    } else {
      throw new InvalidArgumentError('asset', "must be { type: 'native', value } or { type: 'erc20', token, amount }");
    }
    const send = async (transaction: { to: Address; value: bigint; data: Hex }, kind: 'approvalReset' | 'approval' | 'payment') => {
      const gas = kind === 'approvalReset' ? signWith?.gas.approvalReset : kind === 'approval' ? signWith?.gas.approval : signWith?.gas.payment;
      // Unestimated, a wallet may sign a payment that reverts (code at the one-time address refusing
      // coin) and charge its fee: tried first, as estimatePayment would have.
      if (kind === 'payment' && signWith === null) await client.call({ account: wallet.account.address, ...transaction }).catch(refusalOrThrow(to));
      const hash = await wallet
        .sendTransaction({ account: wallet.account, chain: wallet.chain, ...transaction, ...(await pinned(gas)) })
        .catch(refusalOrThrow(to));
      return mined(hash, kind === 'approvalReset' ? 'allowance reset' : kind === 'approval' ? 'token approval' : 'payment');
    };
    const paid = await payThroughContract(wallet, client, call, approval, send);
    return { paymentHash: paid.paymentHash, topUpHash: null, announcementHash: paid.paymentHash, approvalHash: paid.approvalHash, via, hashes: paid.hashes };
  }
  let paymentHash: Hash;
  let topUpHash: Hash | null = null;
  let amount: bigint;
  let gasTopUp = 0n;
  if (asset?.type === 'native') {
    amount = positive(asset.value, 'asset.value');
    paymentHash = await transferMined(await wallet.sendTransaction({ account: wallet.account, chain: wallet.chain, to, value: amount, ...(await pinned(signWith?.gas.payment)) }), 'payment');
  } else if (asset?.type === 'erc20') {
    amount = positive(asset.amount, 'asset.amount');
    const token = parseAddress(asset.token, 'asset.token');
    // Priced while the payer still holds the tokens: its transfer stands in for the withdrawal's.
    gasTopUp = asset.gasTopUp ?? (await estimateGasTopUp({ client, token, amount, from: wallet.account.address, to })).topUp;
    paymentHash = await transferMined(
      await wallet.writeContract({ account: wallet.account, chain: wallet.chain, address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount], ...(await pinned(signWith?.gas.payment)) }),
      'token transfer',
    );
  } else {
    throw new InvalidArgumentError('asset', "must be { type: 'native', value } or { type: 'erc20', token, amount }");
  }
  // From here the money has moved: whatever fails, the caller must learn the payment's hash, and
  // that the recipient cannot find it until it is announced.
  try {
    if (gasTopUp > 0n) {
      topUpHash = await mined(await wallet.sendTransaction({ account: wallet.account, chain: wallet.chain, to, value: gasTopUp, ...(await pinned(signWith?.gas.topUp)) }), 'gas top-up');
    }
    const note = parameters.note ?? { amount, token: asset.type === 'erc20' ? asset.token : 'coin', txHash: paymentHash, chainId };
    const announcementHash = await mined(
      await wallet.writeContract({ account: wallet.account, chain: wallet.chain, ...announceParameters({ payment, note, announcer, ...(schemeId === undefined ? {} : { schemeId }) }), ...(await pinned(signWith?.gas.announcement)) }),
      'announcement',
    );
    return { paymentHash, topUpHash, announcementHash, approvalHash: null, via, hashes: [paymentHash, ...(topUpHash === null ? [] : [topUpHash]), announcementHash] };
  } catch (cause) {
    throw new PaymentNotAnnouncedError(paymentHash, topUpHash, cause);
  }
}

/**
 * The payment went out but its announcement did not (a rejected confirmation, a revert, a lost
 * connection, or the payment's own receipt could not be read after the wallet sent it): until it
 * is announced, the recipient cannot find the money. Announce it again with
 * {@link announceParameters} and the same payment (keep the payment until then).
 */
export class PaymentNotAnnouncedError extends WraithError {
  override name = 'PaymentNotAnnouncedError';
  readonly paymentHash: Hash;
  readonly topUpHash: Hash | null;

  constructor(paymentHash: Hash, topUpHash: Hash | null, cause: unknown) {
    super('PAYMENT_NOT_ANNOUNCED', `The payment ${paymentHash} was sent, but its announcement was not made.`, {
      hint: 'The recipient cannot find it until it is announced: announce the same payment again (announceParameters) and keep the payment until then.',
      cause,
    });
    this.paymentHash = paymentHash;
    this.topUpHash = topUpHash;
  }
}

function checkedSigning(signWith: PaymentSigning): PaymentSigning {
  const fees: unknown = signWith?.fees;
  const fields = typeof fees === 'object' && fees !== null ? Object.entries(fees) : [];
  const eip1559 = fields.length === 2 && 'maxFeePerGas' in (fees as object) && 'maxPriorityFeePerGas' in (fees as object);
  const legacy = fields.length === 1 && 'gasPrice' in (fees as object);
  if (!(eip1559 || legacy) || fields.some(([, v]) => typeof v !== 'bigint' || v < 0n)) {
    throw new InvalidArgumentError('signWith.fees', 'must be { maxFeePerGas, maxPriorityFeePerGas } or { gasPrice }, bigints in wei (estimatePayment returns them)');
  }
  const via: unknown = signWith.via ?? 'transactions';
  if (via !== 'contract' && via !== 'transactions') throw new InvalidArgumentError('signWith.via', "must be 'contract' or 'transactions', as estimatePayment returns it");
  const gas = signWith.gas as Partial<PaymentSigning['gas']> | null | undefined;
  const limit = (v: unknown) => typeof v === 'bigint' && v > 0n;
  const limitOrNull = (v: unknown) => v === null || v === undefined || limit(v);
  const valid =
    typeof gas === 'object' &&
    gas !== null &&
    limit(gas.payment) &&
    limitOrNull(gas.approval) &&
    limitOrNull(gas.approvalReset) &&
    (via === 'contract' ? gas.announcement === null && gas.topUp === null : limit(gas.announcement) && limitOrNull(gas.topUp));
  if (!valid) {
    throw new InvalidArgumentError('signWith.gas', 'must be { payment, topUp, announcement, approval, approvalReset }: positive bigints or null, as estimatePayment returns them');
  }
  return signWith;
}

/** The most a pinned price pays per gas. */
const capOf = (fees: PaymentFees): bigint => (fees.gasPrice === undefined ? fees.maxFeePerGas : fees.gasPrice);

/** The least a transaction must bid per gas to be mined now: the base fee, or a legacy chain's gas price. */
async function priceNow(client: PublicClient): Promise<bigint> {
  const block = await client.getBlock({ blockTag: 'latest' });
  return block.baseFeePerGas ?? (await client.getGasPrice());
}

function positive(value: unknown, path: string): bigint {
  if (typeof value !== 'bigint' || value <= 0n) throw new InvalidArgumentError(path, 'must be a positive bigint (base units)');
  return value;
}

/** When the node will not estimate the announcement: more than any scheme's announcement with its note costs. */
const ANNOUNCE_GAS_FALLBACK = 200_000n;
/** The note is sealed, so any hash prices the announcement's calldata as the real one will. */
const PLACEHOLDER_HASH: Hash = `0x${'ff'.repeat(32)}`;

export type EstimatePaymentParameters = {
  /** Reads the chain the payment goes out on. */
  client: PublicClient;
  /** The paying account. */
  from: string;
  /** As {@link payStealth} takes it. */
  payment: PayStealthParameters['payment'];
  /** As {@link payStealth} takes it; a token payment without `gasTopUp` is priced with {@link estimateGasTopUp}'s, as `payStealth` would send. */
  asset: PaymentAsset;
  announcer?: Address;
  /** Default: the payment's scheme. */
  schemeId?: bigint;
};

/** What a payment costs its payer at today's prices. */
export type PaymentPrice = {
  /** The asset to pass to {@link payStealth}, its gas top-up settled: what is paid is what was priced. */
  asset: PaymentAsset;
  /** Coin the payment sends: the value, or a token payment's top-up (wei). */
  sent: bigint;
  /** The most its transactions (see `signWith.via`) cost in fees, L1 data and operator fees included (wei). */
  fee: bigint;
  /** Of `fee`, the L1 data fees (OP Stack; 0 elsewhere). */
  l1Fee: bigint;
  /** `sent + fee`: the coin the payer needs at most. */
  coinNeeded: bigint;
  feeModel: ChainFeeModel;
  /** The price and gas limits `fee` assumes: pass it to {@link payStealth} as `signWith`. */
  signWith: PaymentSigning;
  /**
   * How many transactions the payer signs, each a wallet confirmation: 1 for a coin payment through
   * WraithPay, up to 3 for a token payment there (a reset of a leftover allowance, the approval, the
   * payment); 2 or 3 with separate transactions. A wallet offering atomic batches confirms the
   * approvals and the payment at once.
   */
  confirmations: number;
};

/** The payer's balances now: `tokenBalance` of the token paid, null for a coin payment. */
export type PayerBalances = { coinBalance: bigint; tokenBalance: bigint | null };

/**
 * What {@link estimatePayment} found. `short` says what the payer lacks: `null` when the payment
 * is covered, `'coin'` when the coin does not cover `coinNeeded`, `'token'` when the token
 * balance is below the amount (then the transfer cannot be priced: it would revert).
 */
export type EstimatePaymentReturnType = ({ short: null | 'coin' } & PaymentPrice & PayerBalances) | ({ short: 'token' } & PayerBalances & { tokenBalance: bigint });

/**
 * Check a payment before anything is signed: whether the payer holds the tokens it transfers and
 * enough coin for what it sends plus the fee bound of every transaction of the payment (through
 * WraithPay where it is deployed: the one that pays and announces, after a token approval when
 * the allowance is short, itself after an `approve` of 0 when the token refuses to move a leftover
 * allowance to another non-zero value; elsewhere the transfer, a token payment's top-up, the announcement): gas (with a tenth more than the node's
 * estimate, as the wallet estimates again when it signs) × the max fee per gas in `fees`, plus on
 * the OP Stack the L1 data fee and operator fee charged outside the gas. The announcement's
 * kilobyte of calldata makes the L1 fee most of an OP Stack payment's cost; missed, the transfer
 * would go out and the announcement fail, leaving money its recipient cannot find.
 *
 * `signWith` holds the price (a cap of twice the base fee plus the tip; the chain charges the base
 * fee plus the tip), the route (`via`) and each transaction's gas limit the bound assumes. Until the
 * approval is mined `payToken` cannot be estimated, so its gas limit is bounded by its parts (the
 * token's own transfer and the announcement, each estimated, plus the contract's overhead). A
 * one-time address whose EIP-7702 code refuses coin is `COIN_REFUSED`. Sign with them
 * (`payStealth`'s `signWith`): a wallet left to choose its own cap or gas limit may ask a balance
 * the estimate did not count. Reads only; refuse the payment unless `short` is null.
 *
 * @example
 * import { estimatePayment, payStealth } from '@wraith-pq/sdk/evm';
 * const estimate = await estimatePayment({ client, from: wallet.account.address, payment, asset });
 * if (estimate.short !== null) throw new Error(`not enough ${estimate.short === 'token' ? 'tokens' : 'coin'}`);
 * await payStealth({ wallet, client, payment, asset: estimate.asset, signWith: estimate.signWith });
 */
export async function estimatePayment(parameters: EstimatePaymentParameters): Promise<EstimatePaymentReturnType> {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  const { client, payment, asset, schemeId } = parameters;
  const announcer = parseAddress(parameters.announcer ?? ANNOUNCER_ADDRESS, 'announcer');
  const from = parseAddress(parameters.from, 'from');
  const to = parseAddress(payment?.stealthAddress, 'payment.stealthAddress');
  let amount: bigint;
  let token: Address | null = null;
  if (asset?.type === 'native') amount = positive(asset.value, 'asset.value');
  else if (asset?.type === 'erc20') {
    amount = positive(asset.amount, 'asset.amount');
    token = parseAddress(asset.token, 'asset.token');
    if (asset.gasTopUp !== undefined && (typeof asset.gasTopUp !== 'bigint' || asset.gasTopUp < 0n)) throw new InvalidArgumentError('asset.gasTopUp', 'must be a bigint of 0 or more (wei)');
  } else throw new InvalidArgumentError('asset', "must be { type: 'native', value } or { type: 'erc20', token, amount }");
  const announce = announceParameters({ payment, note: { amount, token: token ?? 'coin', txHash: PLACEHOLDER_HASH, chainId: BigInt(await client.getChainId()) }, announcer, ...(schemeId === undefined ? {} : { schemeId }) });
  const [coinBalance, tokenBalance, announceGas, coinTransferGas, viaContract] = await Promise.all([
    client.getBalance({ address: from }),
    token === null ? null : client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [from] }),
    client.estimateContractGas({ account: from, ...announce }).catch((error: unknown) => {
      // A revert (not the Announcer, a wrong scheme) would fail the announcement after the transfer: stop here.
      if (isRevert(error)) throw error;
      return ANNOUNCE_GAS_FALLBACK;
    }),
    // 21,000 on most chains; Arbitrum's estimate adds its L1 component, EIP-7702 code at the
    // stealth address its `receive`. A revert: that code refuses coin.
    client.estimateGas({ account: from, to, value: 0n }).then(
      (gas) => (gas > TRANSFER_GAS ? withMargin(gas) : TRANSFER_GAS),
      (error: unknown) => {
        // Code that refuses coin does not matter to a token payment that sends none.
        if (isRevert(error) && token !== null && (asset as { gasTopUp?: bigint }).gasTopUp === 0n) return TRANSFER_GAS;
        throw isRevert(error) ? coinRefused(to, error) : error;
      },
    ),
    announcer === ANNOUNCER_ADDRESS ? wraithPayDeployed({ client }) : false,
  ]);
  const route = { client, from, stealthAddress: to, announce: announce.args, coinTransferGas, announceGas };
  const announcement: PaymentStep = { kind: 'announcement', to: announce.address, value: 0n, data: encodeFunctionData({ abi: announce.abi, functionName: announce.functionName, args: announce.args }), gas: withMargin(announceGas) };
  let settled: PaymentAsset;
  let sent: bigint;
  let transactions: PaymentStep[];
  if (token === null) {
    settled = { type: 'native', value: amount };
    sent = amount;
    transactions = viaContract ? await contractNativeSteps(route, amount) : [{ kind: 'payment', to, value: amount, gas: coinTransferGas }, announcement];
  } else {
    if (tokenBalance! < amount) return { short: 'token', coinBalance, tokenBalance: tokenBalance! };
    // Priced while the payer holds the tokens: its transfer stands in for the withdrawal's.
    const [transferGas, topUp] = await Promise.all([
      client.estimateContractGas({ account: from, address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
      (asset as { gasTopUp?: bigint }).gasTopUp ?? estimateGasTopUp({ client, token, amount, from, to }).then((e) => e.topUp),
    ]);
    settled = { type: 'erc20', token, amount, gasTopUp: topUp };
    sent = topUp;
    transactions = viaContract
      ? await contractTokenSteps(route, token, amount, topUp, transferGas)
      : [
          { kind: 'payment', to: token, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }), gas: withMargin(transferGas) },
          ...(topUp > 0n ? [{ kind: 'topUp' as const, to, value: topUp, gas: coinTransferGas }] : []),
          announcement,
        ];
  }
  const priced = await priceTransactions(client, from, transactions, 'payment');
  const coinNeeded = sent + priced.total;
  const gasOf = (kind: PaymentStep['kind']) => transactions.find((t) => t.kind === kind)?.gas ?? null;
  const gas = { payment: gasOf('payment')!, topUp: gasOf('topUp'), announcement: gasOf('announcement'), approval: gasOf('approval'), approvalReset: gasOf('approvalReset') };
  const signWith: PaymentSigning = { fees: priced.price as PaymentFees, via: viaContract ? 'contract' : 'transactions', gas };
  return { short: coinBalance < coinNeeded ? 'coin' : null, asset: settled, sent, fee: priced.total, l1Fee: priced.l1Fee, coinNeeded, feeModel: priced.feeModel, signWith, confirmations: transactions.length, coinBalance, tokenBalance };
}


export type StealthBalancesParameters = {
  /** Reads the chain: the user's wallet provider or their own RPC, not a Wraith server. */
  client: PublicClient;
  /** Discovered stealth addresses. */
  addresses: readonly string[];
  /** ERC-20 tokens to read (default none). */
  tokens?: readonly Address[];
};

export type StealthBalance = {
  address: Address;
  /** Native coin, in wei. */
  native: bigint;
  /** One entry per requested token, in base units. */
  tokens: { token: Address; balance: bigint }[];
};

/**
 * Native and token balances of discovered stealth addresses. With Multicall3 on the client's
 * chain (viem `chain.contracts.multicall3`, as on mainnet and most chains) the token balances
 * of all addresses come from one `eth_call`; native balances are one `eth_getBalance` each (a
 * transport with `batch: true` sends them as one HTTP request).
 *
 * @example
 * import { stealthBalances } from '@wraith-pq/sdk/evm';
 * const balances = await stealthBalances({ client, addresses: discoveries.map((d) => d.stealthAddress), tokens: [USDC] });
 */
export async function stealthBalances(parameters: StealthBalancesParameters): Promise<StealthBalance[]> {
  const { client, tokens = [] } = parameters;
  const addresses = (parameters.addresses ?? []).map((a, i) => parseAddress(a, `addresses[${i}]`));
  const tokenList = tokens.map((t, i) => parseAddress(t, `tokens[${i}]`));
  const calls = addresses.flatMap((address) => tokenList.map((token) => ({ address: token, abi: erc20Abi, functionName: 'balanceOf' as const, args: [address] as const })));
  const tokenReads: Promise<bigint[]> =
    calls.length === 0
      ? Promise.resolve([])
      : client.chain?.contracts?.multicall3 !== undefined
        ? client.multicall({ contracts: calls, allowFailure: false })
        : Promise.all(calls.map((call) => client.readContract(call)));
  // Awaited together: whichever fails first is the error, and the other's failure is not left unhandled.
  const [native, tokenBalances] = await Promise.all([Promise.all(addresses.map((address) => client.getBalance({ address }))), tokenReads]);
  return addresses.map((address, i) => ({
    address,
    native: native[i]!,
    tokens: tokenList.map((token, j) => ({ token, balance: tokenBalances[i * tokenList.length + j]! })),
  }));
}

export type WithdrawParameters = {
  /** Reads and broadcasts: the user's wallet provider or their own RPC, not a Wraith server. */
  client: PublicClient;
  /** The discovery's one-time key `p` (`stealthSecretKey`, 32 bytes or hex). Signs here; never sent anywhere. */
  stealthSecretKey: Uint8Array | Hex;
  /** Where the funds go. */
  to: string;
};

export type WithdrawNativeParameters = WithdrawParameters & {
  /**
   * Allow a destination with code (a contract wallet). The gas it uses is only estimated, so
   * the unused part of the fee stays behind as a remainder, at most `maxRemainder` (default
   * false: refused).
   */
  allowRemainder?: boolean;
};

/** The withdrawal's hash and the price it was signed at: the same fields {@link estimateWithdrawal} shows. */
export type WithdrawReturnType = WithdrawalPrice & {
  hash: Hash;
};

export type EstimateWithdrawalParameters = {
  /** Reads the chain: the user's wallet provider or their own RPC, not a Wraith server. */
  client: PublicClient;
  /** The stealth address to withdraw from (a discovery's `stealthAddress`). */
  from: string;
  /** Where the funds would go. */
  to: string;
  /** An ERC-20 token: its whole balance; without it, the whole native balance. */
  token?: string;
  /** As for {@link withdrawNative}: accept a contract destination and the remainder it leaves. */
  allowRemainder?: boolean;
};

/** What a withdrawal would send, its fee bound at today's prices (`pricedAt: 'today'`; exact or a maximum once signed at that price, L1 data fee included) and the most it can leave behind. */
export type EstimateWithdrawalReturnType = WithdrawalPrice;

/**
 * What {@link withdrawNative} or {@link withdrawToken} would send and pay right now, priced by
 * the same rule, without the one-time key: for showing the fee and what stays behind before the
 * user signs. The chain's fee model is read from the chain (OP Stack: the L1 data fee from its
 * GasPriceOracle; Arbitrum: the gas estimate with its L1 component; elsewhere gas × price).
 * Its fee is at today's prices (`pricedAt: 'today'`): prices can move between the estimate and
 * the withdrawal, which prices again and returns the fee it was signed at (`pricedAt: 'signing'`).
 * Even where `feeKind` is `exact`, say "at today's prices" for an estimate whose withdrawal is not
 * signed at once, e.g. the coin left after a token withdrawal, priced before that one is mined.
 * @throws {InsufficientGasError} when the stealth address could not pay the fee (its `required` is the whole fee bound, L1 fee included).
 *
 * @example
 * import { estimateWithdrawal } from '@wraith-pq/sdk/evm';
 * const { amount, fee, feeKind, maxRemainder } = await estimateWithdrawal({ client, from: discovery.stealthAddress, to: myFreshAddress });
 * // e.g. on Base: "you receive {amount}; fee at most {fee}; at most {maxRemainder} wei stays behind"
 */
export async function estimateWithdrawal(parameters: EstimateWithdrawalParameters): Promise<EstimateWithdrawalReturnType> {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  const from = parseAddress(parameters.from, 'from');
  const to = parseAddress(parameters.to, 'to');
  const { transaction: _signable, ...price } = await planWithdrawal(parameters.client, from, to, parameters.token, parameters.allowRemainder === true);
  return { ...price, pricedAt: 'today' };
}

/**
 * Move the whole native balance of a stealth address to `to`: the balance minus the fee bound.
 * On a standard chain, to an account without code, that leaves exactly 0 wei (a plain transfer
 * uses exactly 21,000 gas, priced with `maxPriorityFeePerGas = maxFeePerGas`, so the fee is
 * exactly `21,000 × maxFeePerGas`). On the OP Stack the bound adds the L1 data fee bound (the
 * GasPriceOracle's, with room for the L1 price to rise before inclusion) and the operator fee;
 * on Arbitrum the gas limit is `eth_estimateGas` (it carries the L1 component) and the chain
 * charges the base fee of the block. What the chain does not charge of the bound stays behind:
 * at most `maxRemainder`, returned (and shown by {@link estimateWithdrawal}) before signing.
 * Resolves once the node accepted the transaction, before it is mined: wait for its receipt
 * before reading balances or withdrawing again.
 * @throws {InsufficientGasError} when the balance does not cover the fee (nothing is sent).
 *
 * @example
 * import { withdrawNative } from '@wraith-pq/sdk/evm';
 * const { hash, amount, fee } = await withdrawNative({ client, stealthSecretKey: discovery.stealthSecretKey, to: myFreshAddress });
 * await client.waitForTransactionReceipt({ hash });
 */
export async function withdrawNative(parameters: WithdrawNativeParameters): Promise<WithdrawReturnType> {
  const { client, account, to } = await prepare(parameters);
  return send(client, account, await planWithdrawal(client, account.address, to, undefined, parameters.allowRemainder === true));
}

/**
 * Move the whole balance of an ERC-20 token from a stealth address to `to`, paying the gas with
 * the stealth address's own native coin (no relayer). Withdraw tokens before the native balance,
 * and wait for this transaction's receipt first: it resolves once the node accepted it, before
 * it is mined.
 * @throws {InsufficientGasError} when the native balance does not cover the fee: nothing is sent.
 *
 * @example
 * import { InsufficientGasError, withdrawToken } from '@wraith-pq/sdk/evm';
 * const { hash, amount } = await withdrawToken({ client, stealthSecretKey, token: USDC, to: myFreshAddress });
 * await client.waitForTransactionReceipt({ hash });
 */
export async function withdrawToken(parameters: WithdrawParameters & { token: string }): Promise<WithdrawReturnType> {
  const { client, account, to } = await prepare(parameters);
  return send(client, account, await planWithdrawal(client, account.address, to, parameters.token, false));
}

/** Sign the planned transaction exactly as it was priced (its nonce and chain id included) and broadcast it. */
async function send(client: PublicClient, account: OneTimeAccount, plan: WithdrawalPlan): Promise<WithdrawReturnType> {
  const { transaction, ...price } = plan;
  const serializedTransaction = await account.signTransaction(transaction);
  return { hash: await client.sendRawTransaction({ serializedTransaction }), ...price, pricedAt: 'signing' };
}

async function prepare(parameters: WithdrawParameters) {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  const { client, stealthSecretKey } = parameters;
  return { client, account: oneTimeAccountOf(stealthSecretKey), to: parseAddress(parameters.to, 'to') };
}
