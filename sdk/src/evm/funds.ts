/**
 * Money through stealth addresses on an EVM chain: paying one (native coin or ERC-20, then the
 * ERC-5564 announcement with a sealed note), reading what discovered addresses hold, and
 * withdrawing it signed with the one-time key `p` alone, with no relayer.
 *
 * Privacy: read balances and send withdrawals through the recipient's own wallet provider or an
 * RPC of their choice, never through a Wraith server (which would learn which stealth addresses
 * belong together). Withdrawing several stealth addresses to one destination links them on
 * chain for anyone who looks: use a fresh destination per payment where that matters.
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import {
  bytesToHex,
  erc20Abi,
  hexToBytes,
  serializeTransaction,
  type Account,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionSerializable,
  type Transport,
  type WalletClient,
} from 'viem';
import { evmAddressOf } from '../address.ts';
import { InvalidArgumentError, WraithError } from '../errors.ts';
import type { PaymentNoteInput } from '../note.ts';
import type { StealthPayment } from '../payment.ts';
import { announceParameters, parseAddress, ANNOUNCER_ADDRESS, WRAITH_SCHEME_ID } from './announcer.ts';
import { estimateGasTopUp, planWithdrawal, type WithdrawalPlan, type WithdrawalPrice } from './withdrawal-plan.ts';

export { estimateGasTopUp, InsufficientGasError, type EstimateGasTopUpParameters, type EstimateGasTopUpReturnType, type FeeKind, type WithdrawalPrice } from './withdrawal-plan.ts';
export type { ChainFeeModel } from './fee-model.ts';

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
  /** Sealed into the announcement for the recipient alone (default: the amount, the payment's tx hash and the chain id). */
  note?: PaymentNoteInput;
  announcer?: Address;
  /** Default: the payment's scheme (`announceParameters`). */
  schemeId?: bigint;
};

export type PayStealthReturnType = {
  /** The transfer (native value or ERC-20 `transfer`). */
  paymentHash: Hash;
  /** The native top-up of a token payment (null for a native payment, or a token payment with `gasTopUp: 0n`). */
  topUpHash: Hash | null;
  /** The `announce` call. */
  announcementHash: Hash;
};

/**
 * Pay a stealth address and announce it: the transfer, mined, then the announcement with a note
 * sealed for the recipient (amount, the transfer's hash, chain id). Two wallet confirmations;
 * a token payment adds a third, the native gas top-up (by default priced from the chain by
 * {@link estimateGasTopUp} before anything is sent; wallets with batched calls (EIP-5792) are not
 * used yet). Each transaction is awaited until mined; a reverted one throws.
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
  const { wallet, client, payment, asset, announcer = ANNOUNCER_ADDRESS, schemeId } = parameters;
  if (wallet?.account === undefined) throw new InvalidArgumentError('wallet', 'must be a viem WalletClient with an account');
  const to = parseAddress(payment?.stealthAddress, 'payment.stealthAddress');
  const chainId = BigInt(await client.getChainId());
  const mined = async (hash: Hash, what: string) => {
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new WraithError('TRANSACTION_REVERTED', `The ${what} transaction ${hash} reverted.`);
    return hash;
  };
  let paymentHash: Hash;
  let topUpHash: Hash | null = null;
  let amount: bigint;
  let gasTopUp = 0n;
  if (asset?.type === 'native') {
    amount = positive(asset.value, 'asset.value');
    paymentHash = await mined(await wallet.sendTransaction({ account: wallet.account, chain: wallet.chain, to, value: amount }), 'payment');
  } else if (asset?.type === 'erc20') {
    amount = positive(asset.amount, 'asset.amount');
    const token = parseAddress(asset.token, 'asset.token');
    // Priced while the payer still holds the tokens: its transfer stands in for the withdrawal's.
    gasTopUp = asset.gasTopUp ?? (await estimateGasTopUp({ client, token, amount, from: wallet.account.address, to })).topUp;
    paymentHash = await mined(
      await wallet.writeContract({ account: wallet.account, chain: wallet.chain, address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
      'token transfer',
    );
  } else {
    throw new InvalidArgumentError('asset', "must be { type: 'native', value } or { type: 'erc20', token, amount }");
  }
  // From here the money has moved: whatever fails, the caller must learn the payment's hash, and
  // that the recipient cannot find it until it is announced.
  try {
    if (gasTopUp > 0n) {
      topUpHash = await mined(await wallet.sendTransaction({ account: wallet.account, chain: wallet.chain, to, value: gasTopUp }), 'gas top-up');
    }
    const note = parameters.note ?? { amount, txHash: paymentHash, chainId };
    const announcementHash = await mined(
      await wallet.writeContract({ account: wallet.account, chain: wallet.chain, ...announceParameters({ payment, note, announcer, ...(schemeId === undefined ? {} : { schemeId }) }) }),
      'announcement',
    );
    return { paymentHash, topUpHash, announcementHash };
  } catch (cause) {
    throw new PaymentNotAnnouncedError(paymentHash, topUpHash, cause);
  }
}

/**
 * The payment went out but its announcement did not (a rejected confirmation, a revert, a lost
 * connection): until it is announced, the recipient cannot find the money. Announce it again with
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

function positive(value: unknown, path: string): bigint {
  if (typeof value !== 'bigint' || value <= 0n) throw new InvalidArgumentError(path, 'must be a positive bigint (base units)');
  return value;
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

/** What a withdrawal would send, its fee bound (exact or a maximum, L1 data fee included) and the most it can leave behind. */
export type EstimateWithdrawalReturnType = WithdrawalPrice;

/**
 * What {@link withdrawNative} or {@link withdrawToken} would send and pay right now, priced by
 * the same rule, without the one-time key: for showing the fee and what stays behind before the
 * user signs. The chain's fee model is read from the chain (OP Stack: the L1 data fee from its
 * GasPriceOracle; Arbitrum: the gas estimate with its L1 component; elsewhere gas × price).
 * Prices can move between the estimate and the withdrawal; the withdrawal returns the price it
 * was signed at.
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
  return price;
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
async function send(client: PublicClient, account: ReturnType<typeof oneTimeAccount>, plan: WithdrawalPlan): Promise<WithdrawReturnType> {
  const { transaction, ...price } = plan;
  const serializedTransaction = await account.signTransaction(transaction);
  return { hash: await client.sendRawTransaction({ serializedTransaction }), ...price };
}

async function prepare(parameters: WithdrawParameters) {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  const { client, stealthSecretKey } = parameters;
  const hex = stealthSecretKey instanceof Uint8Array ? bytesToHex(stealthSecretKey) : stealthSecretKey;
  if (typeof hex !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new InvalidArgumentError('stealthSecretKey', 'must be the 32-byte one-time key of a discovery');
  const account = oneTimeAccount(hexToBytes(hex as Hex));
  return { client, account, to: parseAddress(parameters.to, 'to') };
}

/**
 * The stealth address's account, signing with `p` on the SDK's own secp256k1 (viem's local
 * accounts would bring a second copy of the curve code into a browser bundle).
 */
function oneTimeAccount(secret: Uint8Array): { address: Address; signTransaction(transaction: TransactionSerializable): Promise<Hex> } {
  if (!secp256k1.utils.isValidSecretKey(secret)) throw new InvalidArgumentError('stealthSecretKey', 'is not a valid secp256k1 secret key');
  const address = evmAddressOf(secp256k1.Point.BASE.multiply(secp256k1.Point.Fn.fromBytes(secret))) as Address;
  return {
    address,
    async signTransaction(transaction) {
      const digest = keccak_256(hexToBytes(serializeTransaction(transaction)));
      // Recovered form: the recovery bit, then r and s (low s).
      const signature = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
      const yParity = signature[0]!;
      return serializeTransaction(transaction, { r: bytesToHex(signature.subarray(1, 33)), s: bytesToHex(signature.subarray(33, 65)), yParity, v: 27n + BigInt(yParity) });
    },
  };
}
