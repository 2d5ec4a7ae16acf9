/**
 * Gasless withdrawals: the tokens of a one-time address that holds no coin, claimed through
 * EIP-7702 and ERC-4337 v0.8 with the gas paid by a paymaster that takes its fee in the token
 * (contracts/src/WraithTokenPaymaster.sol). No Wraith server is in the path.
 *
 * The one-time address delegates to Simple7702Account (an EIP-7702 authorization signed with the
 * real chain id, once: skipped when it already delegates there) and sends one user operation:
 *
 *   paymasterData: token || fee || EIP-2612 permit(spender = paymaster, value = fee, no deadline)
 *   callData:      executeBatch([token.transfer(to, balance - fee), (to, coin)?])
 *
 * The paymaster takes the fee in validation, with the permit, before the calls run. The fee is
 * fixed in the signed operation: the paymaster's price (set on chain by its operator) applied to
 * `maxCost`, the most gas the EntryPoint can charge for the operation, rounded up. So
 * {@link estimateGaslessWithdrawal}'s fee is exactly what is paid, known before anything is
 * signed, and the address ends at 0 tokens and 0 wei. The token must have an EIP-2612 permit
 * (USDC and most tokens deployed since 2021 do), unless the address already approved the
 * paymaster for the fee.
 *
 * Who sees what: the bundler receives the operation before it is mined: the one-time address,
 * the destination, the amounts and the caller's IP. On chain the paymaster appears on every such
 * withdrawal, and the delegation stays on the address. One operation per
 * one-time address: several in one operation would link them on chain.
 * @module
 */
import { decodeErrorResult, erc20Abi, hexToBytes, toFunctionSelector, type Address, type Hex, type PublicClient } from 'viem';
import { formatUserOperationGas, formatUserOperationRequest, getUserOperationHash, type UserOperation } from 'viem/account-abstraction';
import { hashAuthorization } from 'viem/utils';
import { InvalidArgumentError, WraithError } from '../errors.ts';
import { parseAddress } from './announcer.ts';
import {
  delegationDesignator,
  entryPointNonceAbi,
  executeBatchData,
  ENTRY_POINT_V08,
  SIMPLE_7702_ACCOUNT,
  paymasterData,
  withdrawalCalls,
  wraithPaymasterAbi,
} from './gasless-contracts.ts';
import { BundlerUnreachableError, EntryPointMissingError, PaymasterRefusedError, QuoteExpiredError, TokenBelowFeeError } from './gasless-errors.ts';
import { bundlerNoiseGas, quoteWithin } from './gasless-quote-room.ts';
import { oneTimeAccountOf, type OneTimeAccount } from './one-time-account.ts';
import { permitContextOf, signPermit, type PermitContext } from './permit.ts';

/** Where and through whom: the same for the estimate and the withdrawal. */
export type GaslessRoute = {
  /** Reads the chain: the user's wallet provider or their own RPC, not a Wraith server. */
  client: PublicClient;
  /** The ERC-20 to withdraw, whole balance. */
  token: string;
  /** Where the tokens (and any coin) go. */
  to: string;
  /** The ERC-4337 bundler's JSON-RPC URL (EntryPoint v0.8). It sees the operation: see the module documentation. */
  bundler: string;
  /** The WraithTokenPaymaster that pays the gas for a fee in `token`. */
  paymaster: string;
};

export type EstimateGaslessWithdrawalParameters = GaslessRoute & {
  /** The one-time address (a discovery's `stealthAddress`). */
  from: string;
};

/** The gas fields of the user operation, as estimated by the bundler. */
export type GaslessGas = {
  callGasLimit: bigint;
  verificationGasLimit: bigint;
  preVerificationGas: bigint;
  paymasterVerificationGasLimit: bigint;
  paymasterPostOpGasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
};

export type EstimateGaslessWithdrawalReturnType = {
  from: Address;
  to: Address;
  token: Address;
  paymaster: Address;
  /** Where the paymaster sends the fees it collected. */
  feeAccount: Address;
  /** Token base units the address holds. */
  balance: bigint;
  /** The fee in token base units: at most this is paid (exactly this, as the call data fixes it). */
  fee: bigint;
  /** What `to` receives: `balance - fee`. */
  amount: bigint;
  /** Wei the address holds, moved to `to` in the same operation. */
  coin: bigint;
  /** The most wei of gas the paymaster can be charged (`fee` is this at its price, rounded up). */
  maxCost: bigint;
  /** The paymaster's price: token base units per 1e18 wei. */
  tokenPerEth: bigint;
  /** Unix seconds the price is valid until: the operation must be included before. */
  validUntil: number;
  /** True when the address does not delegate to Simple7702Account yet (the first claim signs an EIP-7702 authorization). */
  needsAuthorization: boolean;
  gas: GaslessGas;
};

export type WithdrawGaslessParameters = GaslessRoute & {
  /** The discovery's one-time key `p` (32 bytes or hex). Signs here; never sent anywhere. */
  stealthSecretKey: Uint8Array | Hex;
  /** The most fee, in token base units, the caller agreed to (e.g. the estimate's `fee`). */
  maxFee: bigint;
  /** How long to wait for the operation to be mined, ms (default 120 s). */
  timeoutMs?: number;
};

export type WithdrawGaslessReturnType = EstimateGaslessWithdrawalReturnType & {
  userOperationHash: Hex;
  transactionHash: Hex;
  /** Wei of gas the paymaster paid (never above `maxCost`). */
  actualGasCost: bigint;
  actualGasUsed: bigint;
};

/** The operation was mined but its calls reverted: the tokens did not move. */
export class GaslessWithdrawalRevertedError extends WraithError {
  override name = 'GaslessWithdrawalRevertedError';
  readonly transactionHash: Hex;
  constructor(transactionHash: Hex) {
    super('TRANSACTION_REVERTED', `The withdrawal's calls reverted in transaction ${transactionHash}; the tokens did not move.`);
    this.transactionHash = transactionHash;
  }
}

/** viem's stub authorization signature for estimates (any well-formed r, s). */
const STUB_AUTHORIZATION = { r: '0xfffffffffffffffffffffffffffffff000000000000000000000000000000000', s: '0x7aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', yParity: 1 } as const;
/** A stub user operation signature: 65 bytes of the right shape (Simple7702Account recovers, never reverts, on it). */
const STUB_SIGNATURE: Hex = '0xfffffffffffffffffffffffffffffff0000000000000000000000000000000007aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1c';
/** A stub permit for estimates: the paymaster refuses it as a signature failure, which a bundler's estimate tolerates. */
const STUB_PERMIT = { r: STUB_AUTHORIZATION.r, s: STUB_AUTHORIZATION.s, v: 28 } as const;
/**
 * Gas the paymaster's validation spends on a real permit and fee transfer beyond the stub's
 * refused path the bundler measured: the permit's nonce and allowance writes, the fee's two
 * balance writes and their events. A bound, not a measurement of that difference: the gasless
 * tests' claims (an OpenZeppelin ERC20Permit token) succeed within it; a token behind a proxy costs
 * more. Unused verification gas is not charged; it only raises `maxCost`, hence the quoted fee.
 */
const PERMIT_AND_FEE_GAS = 120_000n;
const DEFAULT_TIMEOUT_MS = 120_000;
const RECEIPT_POLL_MS = 500;
const BUNDLER_TIMEOUT_MS = 30_000;

/**
 * The fee of a gasless withdrawal of `token` from `from` to `to`, in the token, before anything
 * is signed: the paymaster's on-chain price applied to the most gas the operation can cost.
 * @throws {EntryPointMissingError} the chain has no EntryPoint v0.8 or Simple7702Account.
 * @throws {PaymasterRefusedError} the paymaster does not accept the token, or refuses the operation.
 * @throws {QuoteExpiredError} the paymaster's price expired.
 * @throws {BundlerUnreachableError} the bundler did not answer.
 * @throws {TokenBelowFeeError} the fee is above the balance.
 *
 * @example
 * import { estimateGaslessWithdrawal } from '@wraith-pq/sdk/evm';
 * const quote = await estimateGaslessWithdrawal({ client, from: discovery.stealthAddress, token: USDC, to: myFreshAddress, bundler, paymaster });
 * console.log(`fee: at most ${quote.fee}, you receive ${quote.amount}`);
 */
export async function estimateGaslessWithdrawal(parameters: EstimateGaslessWithdrawalParameters): Promise<EstimateGaslessWithdrawalReturnType> {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  return (await prepareGasless(parameters, parseAddress(parameters.from, 'from'))).quote;
}

/**
 * Withdraw the whole balance of `token` (and any coin) from a one-time address that needs no coin
 * for gas, through the bundler, paying the paymaster's fee in the token; waits until it is mined.
 * The address ends at exactly 0 tokens and 0 wei.
 * @throws {FeeAboveMaxError} the fee is above `maxFee` (nothing signed).
 * @throws the errors of {@link estimateGaslessWithdrawal}, and {@link GaslessWithdrawalRevertedError}.
 *
 * @example
 * import { estimateGaslessWithdrawal, withdrawGasless } from '@wraith-pq/sdk/evm';
 * const quote = await estimateGaslessWithdrawal({ client, from: discovery.stealthAddress, token, to, bundler, paymaster });
 * // show quote.fee, ask the user, then:
 * const { transactionHash, amount } = await withdrawGasless({ client, stealthSecretKey: discovery.stealthSecretKey, token, to, bundler, paymaster, maxFee: quote.fee });
 */
export async function withdrawGasless(parameters: WithdrawGaslessParameters): Promise<WithdrawGaslessReturnType> {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  if (typeof parameters.maxFee !== 'bigint' || parameters.maxFee < 0n) throw new InvalidArgumentError('maxFee', 'must be a non-negative bigint (token base units)');
  const account = oneTimeAccountOf(parameters.stealthSecretKey);
  const fresh = await prepareGasless(parameters, account.address);
  // Within maxFee, spending at most the room left for the bundler's noise (gasless-quote-room.ts).
  const prepared = { ...fresh, quote: quoteWithin(fresh.quote, fresh.room, parameters.maxFee) };
  const { quote } = prepared;
  const operation = signedOperation(prepared, account);
  const bundler = bundlerOf(parameters.bundler);
  const userOperationHash = await bundlerCall(quote, () => bundler('eth_sendUserOperation', [formatUserOperationRequest(operation), ENTRY_POINT_V08]) as Promise<Hex>);
  const receipt = await bundlerCall(quote, () => receiptOf(bundler, userOperationHash, parameters.timeoutMs ?? DEFAULT_TIMEOUT_MS));
  const transactionHash = receipt.receipt.transactionHash;
  if (!receipt.success) throw new GaslessWithdrawalRevertedError(transactionHash);
  return { ...quote, userOperationHash, transactionHash, actualGasCost: BigInt(receipt.actualGasCost), actualGasUsed: BigInt(receipt.actualGasUsed) };
}

/** What `eth_getUserOperationReceipt` answers (ERC-4337 bundler RPC), the fields read here. */
type RpcUserOperationReceipt = { success: boolean; actualGasCost: Hex; actualGasUsed: Hex; receipt: { transactionHash: Hex } };

/** Poll the bundler for the operation's receipt until it is mined or `timeoutMs` passed. */
async function receiptOf(bundler: BundlerRequest, hash: Hex, timeoutMs: number): Promise<RpcUserOperationReceipt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = (await bundler('eth_getUserOperationReceipt', [hash])) as RpcUserOperationReceipt | null;
    if (receipt !== null && receipt !== undefined) return receipt;
    if (Date.now() > deadline) throw new WraithError('RECEIPT_TIMEOUT', `The bundler did not report the operation ${hash} mined within ${timeoutMs} ms.`, { hint: 'It may still be mined: estimate again before retrying (a mined one leaves nothing to withdraw).' });
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
  }
}

type Prepared = {
  quote: EstimateGaslessWithdrawalReturnType;
  chainId: number;
  nonce: bigint;
  /** The address's transaction count: the EIP-7702 authorization's nonce (the bundler sends the transaction). */
  accountNonce: number;
  /** Gas added to the bundler's preVerificationGas for its noise (gasless-quote-room.ts; 0 off the OP Stack). */
  room: bigint;
  /** The token's permit domain and the address's permit nonce; undefined when the address already approved the paymaster. */
  permit: PermitContext | undefined;
};

/** Read the chain, ask the bundler for the gas, and price the fee. */
async function prepareGasless(parameters: GaslessRoute, from: Address): Promise<Prepared> {
  const { client } = parameters;
  const token = parseAddress(parameters.token, 'token');
  const to = parseAddress(parameters.to, 'to');
  const paymaster = parseAddress(parameters.paymaster, 'paymaster');
  if (typeof parameters.bundler !== 'string' || !/^https?:\/\//i.test(parameters.bundler)) throw new InvalidArgumentError('bundler', 'must be an http(s) URL');
  // The contracts first: a chain without them, or a paymaster that does not take the token, is said so plainly.
  const [chainId, entryPointCode, implementationCode, paymasterCode, block] = await Promise.all([
    client.getChainId(),
    client.getCode({ address: ENTRY_POINT_V08 }),
    client.getCode({ address: SIMPLE_7702_ACCOUNT }),
    client.getCode({ address: paymaster }),
    client.getBlock({ blockTag: 'latest' }),
  ]);
  if (entryPointCode === undefined || entryPointCode === '0x') throw new EntryPointMissingError('EntryPoint v0.8');
  if (implementationCode === undefined || implementationCode === '0x') throw new EntryPointMissingError('Simple7702Account');
  if (paymasterCode === undefined || paymasterCode === '0x') throw new PaymasterRefusedError('no paymaster contract at this address on this chain');
  const [[tokenPerEth, validUntil], feeAccount] = await Promise.all([
    client.readContract({ address: paymaster, abi: wraithPaymasterAbi, functionName: 'prices', args: [token] }),
    client.readContract({ address: paymaster, abi: wraithPaymasterAbi, functionName: 'feeAccount' }),
  ]);
  if (tokenPerEth === 0n) throw new PaymasterRefusedError('UnlistedToken: it does not accept this token');
  if (BigInt(validUntil) <= block.timestamp) throw new QuoteExpiredError(validUntil);
  const [code, balance, coin, nonce, accountNonce, allowance, permitContext] = await Promise.all([
    client.getCode({ address: from }),
    client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [from] }),
    client.getBalance({ address: from }),
    client.readContract({ address: ENTRY_POINT_V08, abi: entryPointNonceAbi, functionName: 'getNonce', args: [from, 0n] }),
    client.getTransactionCount({ address: from, blockTag: 'pending' }),
    client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [from, paymaster] }),
    permitContextOf(client, token, from, chainId),
  ]);
  if (balance === 0n) throw new InvalidArgumentError('token', 'the address holds none of this token');
  const needsAuthorization = (code ?? '0x').toLowerCase() !== delegationDesignator(SIMPLE_7702_ACCOUNT);

  // The chain's price now, with room for the base fee to double before inclusion; the bundler
  // refuses a cap under its own price, and the fee is priced at the cap (never charged more).
  const baseFee = block.baseFeePerGas ?? (await client.getGasPrice());
  const maxPriorityFeePerGas = await client.estimateMaxPriorityFeePerGas().catch(() => 0n);
  const maxFeePerGas = 2n * baseFee + maxPriorityFeePerGas;

  // Estimate the operation as it will be sent, with a stub permit and a fee of the same size: the
  // transfer of the rest non-zero, as in the real batch.
  const half = (balance + 1n) / 2n;
  const draft = {
    from, nonce, needsAuthorization,
    callData: executeBatchData(withdrawalCalls({ token, to, amount: balance - half, coin })),
    paymasterData: paymasterData(token, half, STUB_PERMIT),
  };
  const bundler = bundlerOf(parameters.bundler);
  const estimate = {
    ...operationFields(draft, paymaster),
    callGasLimit: 0n,
    verificationGasLimit: 0n,
    preVerificationGas: 0n,
    paymasterVerificationGasLimit: 0n,
    paymasterPostOpGasLimit: 0n,
    maxFeePerGas: 0n,
    maxPriorityFeePerGas: 0n,
    ...(needsAuthorization ? { authorization: { address: SIMPLE_7702_ACCOUNT, chainId, nonce: accountNonce, ...STUB_AUTHORIZATION } } : {}),
    signature: STUB_SIGNATURE,
  } as UserOperation<'0.8'>;
  const [answer, room] = await Promise.all([
    bundlerCall({ validUntil }, () => bundler('eth_estimateUserOperationGas', [formatUserOperationRequest(estimate), ENTRY_POINT_V08])),
    bundlerNoiseGas(client, baseFee + maxPriorityFeePerGas),
  ]);
  const gas = formatUserOperationGas(answer as never);
  const limits = {
    callGasLimit: gas.callGasLimit,
    verificationGasLimit: gas.verificationGasLimit,
    preVerificationGas: gas.preVerificationGas + room,
    paymasterVerificationGasLimit: (gas.paymasterVerificationGasLimit ?? 0n) + PERMIT_AND_FEE_GAS,
    // No postOp: the paymaster returns no context.
    paymasterPostOpGasLimit: 0n,
  };
  // EntryPoint v0.8 requiredPreFund: the sum of every gas limit at maxFeePerGas.
  const maxCost = (limits.callGasLimit + limits.verificationGasLimit + limits.preVerificationGas + limits.paymasterVerificationGasLimit + limits.paymasterPostOpGasLimit) * maxFeePerGas;
  const fee = ceilDiv(maxCost * tokenPerEth, 10n ** 18n);
  if (fee > balance) throw new TokenBelowFeeError(fee, balance);
  // The fee is taken with a permit, or with an allowance the address already gave the paymaster.
  if (allowance < fee && permitContext === undefined) {
    throw new PaymasterRefusedError('the token has no EIP-2612 permit, so the paymaster cannot take its fee from an address that holds no coin');
  }
  return {
    chainId,
    nonce,
    accountNonce,
    room,
    permit: allowance >= fee ? undefined : permitContext,
    quote: {
      from, to, token, paymaster, feeAccount, balance, fee, amount: balance - fee, coin, maxCost, tokenPerEth, validUntil: Number(validUntil), needsAuthorization,
      gas: { ...limits, maxFeePerGas, maxPriorityFeePerGas },
    },
  };
}

type Draft = { from: Address; nonce: bigint; callData: Hex; paymasterData: Hex; needsAuthorization: boolean };

/** The fields of the user operation that do not depend on the gas estimate. */
function operationFields({ from, nonce, callData, paymasterData, needsAuthorization }: Draft, paymaster: Address) {
  return {
    sender: from,
    nonce,
    callData,
    paymaster,
    paymasterData,
    // EIP-7702 in ERC-4337 v0.8: factory 0x7702 marks an operation that carries the authorization.
    ...(needsAuthorization ? { factory: '0x7702' as Address, factoryData: '0x' as Hex } : {}),
  };
}

/** The operation with the real fee and its permit, its EIP-7702 authorization when needed, signed with the one-time key. */
function signedOperation({ quote, chainId, nonce, accountNonce, permit }: Prepared, account: OneTimeAccount): UserOperation<'0.8'> {
  const callData = executeBatchData(withdrawalCalls({ token: quote.token, to: quote.to, amount: quote.amount, coin: quote.coin }));
  const data = paymasterData(quote.token, quote.fee, permit === undefined ? undefined : signPermit(account, permit, quote.paymaster, quote.fee));
  // The real chain id, never 0 (0 would let the authorization be replayed on every chain).
  const authorization = quote.needsAuthorization
    ? (() => {
        const unsigned = { address: SIMPLE_7702_ACCOUNT, chainId, nonce: accountNonce };
        return { ...unsigned, ...account.signDigest(hexToBytes(hashAuthorization(unsigned))) };
      })()
    : undefined;
  const operation = {
    ...operationFields({ from: quote.from, nonce, callData, paymasterData: data, needsAuthorization: quote.needsAuthorization }, quote.paymaster),
    ...quote.gas,
    ...(authorization === undefined ? {} : { authorization }),
    signature: '0x' as Hex,
  } as UserOperation<'0.8'>;
  const hash = getUserOperationHash({ chainId, entryPointAddress: ENTRY_POINT_V08, entryPointVersion: '0.8', userOperation: operation });
  // Simple7702Account recovers the signer from the hash as it is (no EIP-191 prefix).
  const { r, s, yParity } = account.signDigest(hexToBytes(hash));
  return { ...operation, signature: `${r}${s.slice(2)}${(27 + yParity).toString(16)}` as Hex };
}

type BundlerRequest = (method: string, params: unknown[]) => Promise<unknown>;

/** A JSON-RPC error the bundler answered (its message and data carry the EntryPoint's AAxx code and revert data). */
class BundlerRpcError extends Error {
  override name = 'BundlerRpcError';
  readonly details: string;
  constructor(method: string, error: { code?: unknown; message?: unknown; data?: unknown }) {
    const details = `${String(error.message ?? '')} ${typeof error.data === 'string' ? error.data : JSON.stringify(error.data ?? '')}`;
    super(`${method} refused (${String(error.code)}): ${details}`);
    this.details = details;
  }
}

/**
 * The bundler's JSON-RPC over fetch: a failure to reach it (network, timeout, HTTP error) is a
 * {@link BundlerUnreachableError}, an answered error a {@link BundlerRpcError}. Plain fetch rather
 * than viem's transport or bundler client, which would add ~15 kB gzipped to a browser bundle.
 */
function bundlerOf(url: string): BundlerRequest {
  let id = 0;
  return async (method, params) => {
    let body: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        signal: AbortSignal.timeout(BUNDLER_TIMEOUT_MS),
      });
      if (!response.ok && response.status !== 400 && response.status !== 500) throw new Error(`HTTP ${response.status}`);
      body = (await response.json()) as typeof body;
    } catch (error) {
      throw new BundlerUnreachableError(error);
    }
    if (body.error !== undefined && body.error !== null) throw new BundlerRpcError(method, body.error);
    return body.result;
  };
}

/** Run a bundler call, turning its failures into this module's typed errors. */
async function bundlerCall<T>(context: { validUntil: number | bigint }, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw gaslessError(error, Number(context.validUntil));
  }
}

function gaslessError(error: unknown, validUntil: number): unknown {
  if (error instanceof WraithError) return error;
  const chain = causes(error);
  const text = chain.map((e) => `${(e as { shortMessage?: string }).shortMessage ?? ''} ${(e as { details?: string }).details ?? ''} ${e instanceof Error ? e.message : ''}`).join(' ');
  if (/\bAA32\b/.test(text)) return new QuoteExpiredError(validUntil, error);
  // The paymaster's signature failure: its permit or the fee transfer did not go through.
  if (/\bAA34\b/.test(text)) return new PaymasterRefusedError('it could not take its fee with the permit (AA34)', error);
  const reason = paymasterReason(text);
  if (reason !== undefined) return new PaymasterRefusedError(reason, error);
  if (/\bAA3\d\b/.test(text)) {
    return new PaymasterRefusedError(/\b(AA3\d[^.;"\n]*)/.exec(text)?.[1]?.trim() ?? 'the paymaster reverted', error);
  }
  return error;
}

/** The error and its causes, outermost first. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = error; e !== undefined && e !== null && chain.length < 10; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** The 4-byte selectors of the paymaster's errors, to find its revert data inside a bundler's message. */
const PAYMASTER_ERROR_SELECTORS = wraithPaymasterAbi.filter((item) => item.type === 'error').map((item) => toFunctionSelector(`${item.name}(${item.inputs.map((input) => input.type).join(',')})`).slice(2));

/** The paymaster's custom error in a bundler's message (its revert data, hex, possibly wrapped), by name with its arguments. */
function paymasterReason(text: string): string | undefined {
  for (const [run] of text.matchAll(/0x[0-9a-fA-F]{8,}/g)) {
    const digits = run.slice(2).toLowerCase();
    for (const selector of PAYMASTER_ERROR_SELECTORS) {
      const at = digits.indexOf(selector);
      if (at === -1 || at % 2 !== 0) continue;
      for (const data of [`0x${digits.slice(at)}`, `0x${digits.slice(at, at + 8 + 128)}`, `0x${digits.slice(at, at + 8 + 64)}`, `0x${digits.slice(at, at + 8)}`] as Hex[]) {
        try {
          const decoded = decodeErrorResult({ abi: wraithPaymasterAbi, data });
          return `${decoded.errorName}(${(decoded.args ?? []).map(String).join(', ')})`;
        } catch {
          // wrong length: try a shorter slice
        }
      }
    }
  }
  return undefined;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
