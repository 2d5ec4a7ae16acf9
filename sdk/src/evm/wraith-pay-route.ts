/**
 * A payment through WraithPay (./wraith-pay.ts), priced and signed: the internals of
 * `estimatePayment` and `payStealth` where the contract is deployed.
 *
 * - coin: one transaction, `payNative`, that pays and announces;
 * - token: `payToken` (the transfer, the gas top-up and the announcement), preceded by an
 *   `approve` of exactly the amount when the payer's allowance to WraithPay is short, and by an
 *   `approve` of 0 when a short allowance is left over and the token refuses to move a non-zero
 *   allowance to another non-zero value (USDT on Ethereum does: `require(value == 0 ||
 *   allowance == 0)`, against the race described under ERC-20 `approve`). A wallet
 *   that offers atomic batches (EIP-5792 `wallet_getCapabilities` answering `atomic` `supported`
 *   or `ready`) gets both in one `wallet_sendCalls`: one confirmation.
 *
 * The allowance is only usable by the payer: `payToken` moves the caller's own tokens.
 * @internal
 * @module
 */
import { BaseError, ContractFunctionRevertedError, encodeFunctionData, erc20Abi, type Account, type Address, type Chain, type Hash, toFunctionSelector, type Hex, type PublicClient, type Transport, type WalletClient } from 'viem';
import { WraithError } from '../errors.ts';
import { isRevert } from './viem-errors.ts';
import { TRANSFER_GAS } from './withdrawal-plan.ts';
import { payNativeCall, payTokenCall, wraithPayDeployed, WRAITH_PAY_ADDRESS, type WraithPayCall } from './wraith-pay.ts';
import type { AnnounceParametersReturnType } from './announcer.ts';

/** How a payment is made: through WraithPay (one transaction pays and announces), or as separate transactions. */
export type PaymentRoute = 'contract' | 'transactions';

/** One transaction of a payment as it will be signed. */
export type PaymentStep = { kind: 'approvalReset' | 'approval' | 'payment' | 'topUp' | 'announcement'; to: Address; value: bigint; data?: Hex; gas: bigint };

/**
 * Room above a gas estimate in the bound (percent): the wallet estimates again when it signs, with
 * the real note (other zero bytes in the calldata) and a chain a block or two on.
 */
const GAS_ESTIMATE_MARGIN_PERCENT = 10n;
export const withMargin = (gas: bigint) => gas + (gas * GAS_ESTIMATE_MARGIN_PERCENT + 99n) / 100n;

/**
 * What forwarding coin adds to a call estimated without it: a CALL with value (9,000), to an
 * account that may not exist yet (25,000), cold (2,600; EIP-2929), and the stated amount's 32
 * calldata bytes at 16 gas each. Estimating with the real value would need the payer to hold it,
 * and the estimate must hold for a payer who does not yet.
 */
const FORWARD_GAS = 9_000n + 25_000n + 2_600n + 32n * 16n;
/**
 * What `payToken` adds to the token's own `transfer` and the announcement, each estimated alone
 * (their two 21,000 intrinsic gas are counted where the payment pays one): spending the allowance
 * (a cold slot read, 2,100, and its write, 2,900; a token may do more, hence the rounding up), two
 * cold calls (2 × 2,600) and copying the announcement's kilobyte into memory.
 */
const PAY_TOKEN_OVERHEAD_GAS = 20_000n;

export type ContractEstimateInput = {
  client: PublicClient;
  from: Address;
  stealthAddress: Address;
  announce: AnnounceParametersReturnType['args'];
  /** Gas of a plain zero-value call to the stealth address (more than 21,000 when its EIP-7702 code runs). */
  coinTransferGas: bigint;
  announceGas: bigint;
};

/** The transactions of a coin payment through WraithPay, with their gas limits. */
export async function contractNativeSteps(input: ContractEstimateInput, amount: bigint): Promise<PaymentStep[]> {
  const { client, from, announce } = input;
  // Estimated with nothing forwarded (the payer may not hold `amount` yet), then the forward added.
  const probe = payNativeCall(0n, announce);
  const gas = await client.estimateGas({ account: from, to: probe.to, value: 0n, data: probe.data }).catch(refusalOrThrow(input.stealthAddress));
  return [{ kind: 'payment', ...payNativeCall(amount, announce), gas: withMargin(gas + forwardGas(input)) }];
}

/** The transactions of a token payment through WraithPay: `approve` when the allowance is short, then `payToken`. */
export async function contractTokenSteps(input: ContractEstimateInput, token: Address, amount: bigint, gasTopUp: bigint, transferGas: bigint): Promise<PaymentStep[]> {
  const { client, from, announce } = input;
  const forward = gasTopUp > 0n ? forwardGas(input) : 0n;
  const allowance = await client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [from, WRAITH_PAY_ADDRESS] });
  const pay = payTokenCall(token, amount, gasTopUp, announce);
  if (allowance >= amount) {
    const probe = payTokenCall(token, amount, 0n, announce);
    const gas = await client.estimateGas({ account: from, to: probe.to, value: 0n, data: probe.data }).catch(refusalOrThrow(input.stealthAddress));
    return [{ kind: 'payment', ...pay, gas: withMargin(gas + forward) }];
  }
  // Until the approval is mined, `payToken` cannot be estimated (transferFrom would revert): bounded
  // by its parts, each measured on this chain for this token and this announcement.
  const approve = approveCall(token, amount);
  const reset = allowance > 0n && (await refusesApprove(client, from, approve));
  // After a reset the approval starts from 0, as it does for an owner that never approved: priced
  // from the one-time address (fresh, no allowance), since the payer's own would revert until then.
  const approveGas = await client.estimateGas({ account: reset ? input.stealthAddress : from, to: token, value: 0n, data: approve.data });
  const resetCall = approveCall(token, 0n);
  const resetSteps: PaymentStep[] = reset ? [{ kind: 'approvalReset', ...resetCall, gas: withMargin(await client.estimateGas({ account: from, ...resetCall })) }] : [];
  return [
    ...resetSteps,
    { kind: 'approval', ...approve, gas: withMargin(approveGas) },
    { kind: 'payment', ...pay, gas: withMargin(transferGas + input.announceGas + PAY_TOKEN_OVERHEAD_GAS + forward) },
  ];
}

/** `approve(WraithPay, amount)` on `token`. */
const approveCall = (token: Address, amount: bigint) => ({ to: token, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [WRAITH_PAY_ADDRESS, amount] }) });

/**
 * Whether the token refuses `approve` from `from` now: with a non-zero allowance left over, a
 * USDT-shaped token reverts until it is set to 0. Any other failure (the node, the transport) is thrown.
 */
async function refusesApprove(client: PublicClient, from: Address, approve: { to: Address; data: Hex }): Promise<boolean> {
  try {
    await client.call({ account: from, to: approve.to, data: approve.data });
    return false;
  } catch (error) {
    if (isRevert(error)) return true;
    throw error;
  }
}

const forwardGas = (input: ContractEstimateInput) => FORWARD_GAS + (input.coinTransferGas > TRANSFER_GAS ? input.coinTransferGas - TRANSFER_GAS : 0n);

/** The stealth address refuses coin (its EIP-7702 code reverts): a typed error; any other failure as it came. */
export function refusalOrThrow(stealthAddress: Address) {
  return (error: unknown): never => {
    if (refusesCoin(error)) throw coinRefused(stealthAddress, error);
    throw error;
  };
}

function refusesCoin(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  if (revert?.data?.errorName === 'CoinRefused') return true;
  // A raw estimate: the revert data is CoinRefused's selector.
  const data = (error.walk((e) => typeof (e as { data?: unknown }).data === 'string') as { data?: string } | null)?.data;
  return typeof data === 'string' && data.startsWith(COIN_REFUSED_SELECTOR);
}

/** The first 4 bytes of keccak256("CoinRefused(address)"): the revert data starts with them. */
const COIN_REFUSED_SELECTOR = toFunctionSelector('CoinRefused(address)');

export function coinRefused(stealthAddress: Address, cause: unknown): WraithError {
  return new WraithError('COIN_REFUSED', `The one-time address ${stealthAddress} carries code that refuses coin. Nothing was sent.`, {
    hint: 'Pay the recipient a new one-time address (create a new payment from their meta-address).',
    cause,
  });
}

type Wallet = WalletClient<Transport, Chain, Account>;

export type ContractPaymentResult = { paymentHash: Hash; approvalHash: Hash | null; hashes: Hash[] };

/**
 * Sign a payment's WraithPay steps. `send` signs one transaction at its pinned price and gas and
 * waits until it is mined (a revert throws). The code at WraithPay's address is checked first:
 * coin sent to that address without the contract there would stay where nobody can move it.
 */
export async function payThroughContract(
  wallet: Wallet,
  client: PublicClient,
  call: WraithPayCall,
  approval: { token: Address; amount: bigint } | null,
  send: (call: { to: Address; value: bigint; data: Hex }, kind: 'approvalReset' | 'approval' | 'payment') => Promise<Hash>,
): Promise<ContractPaymentResult> {
  if (!(await wraithPayDeployed({ client }))) {
    throw new WraithError('WRAITH_PAY_MISSING', `WraithPay is not deployed at ${WRAITH_PAY_ADDRESS} on this chain. Nothing was sent.`, {
      hint: 'Estimate the payment again (estimatePayment) and sign with its new signWith: it then uses separate transactions.',
    });
  }
  if (approval !== null) {
    const allowance = await client.readContract({ address: approval.token, abi: erc20Abi, functionName: 'allowance', args: [wallet.account.address, WRAITH_PAY_ADDRESS] });
    if (allowance < approval.amount) {
      const approve = approveCall(approval.token, approval.amount);
      // A leftover allowance the token will not move to another non-zero value: to 0 first.
      const reset = allowance > 0n && (await refusesApprove(client, wallet.account.address, approve)) ? [approveCall(approval.token, 0n)] : [];
      if (await offersAtomicBatch(wallet)) return batch(wallet, [...reset, approve, call]);
      const resetHashes = reset.length > 0 ? [await send(reset[0]!, 'approvalReset')] : [];
      const approvalHash = await send(approve, 'approval');
      const paymentHash = await send(call, 'payment');
      return { paymentHash, approvalHash, hashes: [...resetHashes, approvalHash, paymentHash] };
    }
  }
  const paymentHash = await send(call, 'payment');
  return { paymentHash, approvalHash: null, hashes: [paymentHash] };
}

/** Whether the wallet executes a batch of calls atomically (EIP-5792 `atomic`: `supported`, or `ready` to upgrade the account). */
async function offersAtomicBatch(wallet: Wallet): Promise<boolean> {
  // A local account signs here: there is no wallet to ask.
  if (wallet.account.type === 'local') return false;
  try {
    const capabilities = (await wallet.getCapabilities({ account: wallet.account, chainId: wallet.chain.id })) as { atomic?: { status?: string } } | undefined;
    const status = capabilities?.atomic?.status;
    return status === 'supported' || status === 'ready';
  } catch {
    // No EIP-5792: separate transactions.
    return false;
  }
}

/** The approval and the payment in one atomic `wallet_sendCalls`: one confirmation; the wallet prices it. */
async function batch(wallet: Wallet, calls: { to: Address; value: bigint; data: Hex }[]): Promise<ContractPaymentResult> {
  const { id } = await wallet.sendCalls({ account: wallet.account, chain: wallet.chain, calls, forceAtomic: true });
  const result = await wallet.waitForCallsStatus({ id, pollingInterval: wallet.pollingInterval });
  const receipts = result.receipts ?? [];
  if (result.status !== 'success' || receipts.length === 0 || receipts.some((r) => r.status !== 'success')) {
    throw new WraithError('TRANSACTION_REVERTED', `The batch ${id} (approval and payment) did not go through; being atomic, nothing was paid.`);
  }
  const hashes = [...new Set(receipts.map((r) => r.transactionHash))];
  return { paymentHash: hashes[hashes.length - 1]!, approvalHash: hashes[0]!, hashes };
}
