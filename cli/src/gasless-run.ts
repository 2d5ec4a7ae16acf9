/**
 * `wraith withdraw --gasless`: each payment's tokens claimed through an ERC-4337 bundler with the
 * gas paid by a paymaster for a fee in the token (the SDK's estimateGaslessWithdrawal and
 * withdrawGasless), for payments whose address holds no coin to pay its own gas. Priced first
 * like every withdrawal; the fee shown is the most that is taken (the withdrawal is refused if
 * it rose). One operation per payment. The bundler and paymaster come from --bundler and
 * --paymaster, or from the server's GET /api/v1/chains for the chain of --rpc: the server learns
 * nothing but that this chain's settings were read; the bundler sees each one-time address, its
 * destination and this machine's IP.
 * @module
 */
import { estimateGaslessWithdrawal, withdrawGasless } from '@wraith-pq/sdk/evm';
import type { WraithClient } from '@wraith-pq/sdk';
import { getAddress, isAddress, type Address, type PublicClient } from 'viem';
import type { AssetUnit } from './amounts.js';
import { urlFlag } from './args.js';
import { CliError, UsageError } from './errors.js';
import type { SpendablePayment } from './spendable.js';
import { closeResult, reasonOf, type Holdings, type PaymentEstimate, type PaymentResult, type StepResult } from './withdrawal-run.js';

export type GaslessRoute = { bundler: string; paymaster: Address };

type GaslessFlags = { gasless?: boolean | undefined; bundler?: string | undefined; paymaster?: string | undefined };

/** The flags' route, checked before anything is opened or read: both flags, neither (the server names them), or a usage error. */
export function gaslessFlags(flags: GaslessFlags, usage: string): GaslessRoute | undefined {
  if (flags.gasless !== true && (flags.bundler !== undefined || flags.paymaster !== undefined)) throw new UsageError('--bundler and --paymaster go with --gasless', `usage: ${usage}`);
  const bundler = urlFlag(flags.bundler, process.env.WRAITH_BUNDLER_URL, 'bundler', 'WRAITH_BUNDLER_URL', usage);
  if (flags.gasless !== true) return undefined;
  if ((bundler === undefined) !== (flags.paymaster === undefined)) throw new UsageError('pass both --bundler <url> and --paymaster <address>, or neither (then they come from the server, --api)', `usage: ${usage}`);
  if (bundler === undefined || flags.paymaster === undefined) return undefined;
  if (!isAddress(flags.paymaster, { strict: false })) throw new UsageError('--paymaster must be an EVM address (0x + 40 hex)', `usage: ${usage}`);
  return { bundler, paymaster: getAddress(flags.paymaster) };
}

/** The bundler and paymaster: from the flags ({@link gaslessFlags}), or the server's settings for `chainId`. */
export async function gaslessRoute(fromFlags: GaslessRoute | undefined, server: WraithClient | undefined, chainId: number, usage: string): Promise<GaslessRoute> {
  if (fromFlags !== undefined) return fromFlags;
  if (server === undefined) throw new UsageError('--gasless needs --bundler and --paymaster, or a server (--api or WRAITH_API_URL) that names them for this chain', `usage: ${usage}`);
  const { chains } = await server.getChains();
  const gasless = chains.find((c) => c.chain_id === chainId)?.gasless ?? null;
  if (gasless === null) throw new CliError('GASLESS_NOT_OFFERED', `the server offers no gasless withdrawals on chain ${chainId}`, 'pass --bundler and --paymaster, or withdraw without --gasless after sending the address some coin');
  return { bundler: gasless.bundler_url, paymaster: getAddress(gasless.paymaster) };
}

/** Price one payment's gasless withdrawal: one step per token it holds (its coin goes along in the same operation). */
export async function estimateGaslessPayment(client: PublicClient, payment: SpendablePayment, holdings: Holdings, destination: Address, units: Map<Address, AssetUnit>, route: GaslessRoute): Promise<PaymentEstimate> {
  const [nonce, destinationBalance] = await Promise.all([client.getTransactionCount({ address: destination }), client.getBalance({ address: destination })]);
  const estimate: PaymentEstimate = { payment, destination, destinationUsed: nonce > 0 || destinationBalance > 0n, steps: [], dust: 0n, problem: null };
  const held = holdings.tokens.filter((t) => t.balance > 0n);
  try {
    if (held.length !== 1) throw new CliError('GASLESS_ONE_TOKEN', `a gasless withdrawal moves one token per payment, and this one holds ${held.length === 0 ? 'none of the --token tokens' : held.length}`, held.length === 0 ? 'pass the payment\'s token with --token' : 'withdraw it without --gasless, or one --token at a time');
    const { token } = held[0]!;
    const quote = await estimateGaslessWithdrawal({ client, from: payment.stealthAddress, to: destination, token, ...route });
    const unit = units.get(token)!;
    estimate.steps.push({ asset: token, unit, amount: quote.amount, fee: quote.fee, feeKind: 'maximum', maxRemainder: 0n, l1Fee: 0n, afterTokens: false, feeUnit: unit, coin: quote.coin });
  } catch (error) {
    estimate.problem = reasonOf(error);
  }
  return estimate;
}

/** Withdraw one payment as estimated, refusing a fee above the one shown. Never throws: a failure is the result's `error`. */
export async function withdrawGaslessPayment(client: PublicClient, estimate: PaymentEstimate, route: GaslessRoute, onStep: (step: StepResult) => void): Promise<PaymentResult> {
  const { payment, destination } = estimate;
  const result: PaymentResult = { stealthAddress: payment.stealthAddress, destination, status: 'done', withdrawals: [], leftBehind: 0n, error: null };
  try {
    if (estimate.problem !== null) throw new CliError(estimate.problem.code, estimate.problem.message, estimate.problem.hint);
    const step = estimate.steps[0]!;
    const sent = await withdrawGasless({ client, stealthSecretKey: payment.stealthSecretKey, to: destination, token: step.asset as Address, maxFee: step.fee, ...route });
    // The address paid no coin: the fee was taken in the token (`fee`, `feeUnit`).
    const done: StepResult = { asset: step.asset, symbol: step.unit.symbol, hash: sent.transactionHash, amount: sent.amount, fee: sent.fee, feeKind: 'maximum', feePaid: sent.fee, feeUnit: step.unit };
    result.withdrawals.push(done);
    onStep(done);
  } catch (error) {
    return closeResult(client, result, error);
  }
  return closeResult(client, result);
}
