/**
 * Claiming one payment in a claim run: read what its stealth address holds, withdraw each token
 * with a balance, then the coin (the tokens' gas is paid from the coin, so the coin goes last),
 * each signed in the page with the payment's one-time key and broadcast through the user's
 * provider (SDK `withdrawToken` / `withdrawNative`): no wallet prompt, nothing through the Wraith
 * server. Every mined withdrawal and every failure is reported as it happens, so the history holds
 * it even when the run is cut short; a failure stops this payment (never the run) and is thrown
 * with its reason. Running a payment again withdraws what is still there: a run resumes by
 * claiming again the payments that are not done. A payment whose tokens could not all be read is
 * refused before anything is signed: sweeping its coin would take the gas its tokens need.
 *
 * With `gasless` (issue 31: its coin cannot pay its own withdrawal, and the chain's paymaster takes
 * its token), the token and any coin go in one user operation through the chain's bundler
 * (SDK `withdrawGasless`), the fee taken in the token and never above the `maxFee` reviewed.
 * @module
 */
import { feePaidOf, InsufficientGasError, withdrawGasless, withdrawNative, withdrawToken, type WithdrawReturnType } from '@wraith-pq/sdk/evm';
import type { Address, PublicClient } from 'viem';
import { errorMessage } from './error-message';
import type { WithdrawalOutcome } from './history';
import { readPaymentFunds } from './payment-funds';

/** The asset one withdrawal moves: `token` null for the chain's coin. */
export type ClaimAsset = { token: Address | null; symbol: string; decimals: number };

export type ClaimPaymentParameters = {
  client: PublicClient;
  stealthAddress: Address;
  destination: Address;
  /** The paying transaction the note names (which tokens to look for). */
  txHash: string | null | undefined;
  extraTokens: readonly string[];
  coin: { symbol: string; decimals: number };
  /** The payment's one-time key, derived in this page. */
  secretKey: () => Promise<Uint8Array>;
  /** Claim through the gasless route: the bundler, the paymaster, the token it takes its fee in, and the most fee agreed to. */
  gasless?: { bundler: string; paymaster: Address; token: Address; maxFee: bigint };
  /** Called for each withdrawal once mined, and for the one that failed. */
  onWithdrawal: (asset: ClaimAsset, outcome: WithdrawalOutcome) => void;
};

/** What a claim did: the withdrawals mined, and coin left behind because moving it would cost more than it is (wei). */
export type ClaimPaymentReturnType = { withdrawals: number; dust: bigint };

async function mined(client: PublicClient, sent: WithdrawReturnType): Promise<WithdrawalOutcome> {
  const receipt = await client.waitForTransactionReceipt({ hash: sent.hash });
  if (receipt.status !== 'success') throw new Error(`The withdrawal ${sent.hash} reverted on chain.`);
  return { hash: sent.hash, amount: sent.amount, feePaid: await feePaidOf({ client, receipt }), feeBound: sent.fee, feeKind: sent.feeKind };
}

export async function claimPayment(parameters: ClaimPaymentParameters): Promise<ClaimPaymentReturnType> {
  const { client, stealthAddress, destination, onWithdrawal, coin } = parameters;
  const funds = await readPaymentFunds({ client, stealthAddress, txHash: parameters.txHash, extraTokens: parameters.extraTokens });
  if (funds.incomplete !== null) throw new Error(`Could not read which tokens it holds: ${funds.incomplete}. Nothing was sent; try again.`);
  let withdrawals = 0;
  let stealthSecretKey: Uint8Array | null = null;
  const key = async () => (stealthSecretKey ??= await parameters.secretKey());
  /** `dustOk`: the coin after a token withdrawal, where too little to pay its own fee is dust (below), not a failure. */
  const attempt = async (asset: ClaimAsset, send: () => Promise<WithdrawReturnType>, dustOk = false) => {
    try {
      onWithdrawal(asset, await mined(client, await send()));
      withdrawals += 1;
    } catch (cause) {
      if (!(dustOk && cause instanceof InsufficientGasError)) onWithdrawal(asset, { error: errorMessage(cause) });
      throw cause;
    }
  };
  const { gasless } = parameters;
  if (gasless) {
    const info = funds.tokens.find((t) => t.info.address.toLowerCase() === gasless.token.toLowerCase())?.info;
    const asset = { token: gasless.token, symbol: info?.symbol ?? 'tokens', decimals: info?.decimals ?? 0 };
    try {
      const done = await withdrawGasless({ client, stealthSecretKey: await key(), token: gasless.token, to: destination, bundler: gasless.bundler, paymaster: gasless.paymaster, maxFee: gasless.maxFee });
      // No coin was paid: the fee (done.fee) came out of the tokens, so what arrived is done.amount.
      onWithdrawal(asset, { hash: done.transactionHash, amount: done.amount, feePaid: 0n, feeBound: 0n, feeKind: 'exact' });
    } catch (cause) {
      onWithdrawal(asset, { error: errorMessage(cause) });
      throw cause;
    }
    return { withdrawals: 1, dust: 0n };
  }
  for (const { info, balance } of funds.tokens) {
    if (balance === 0n) continue;
    await attempt({ token: info.address, symbol: info.symbol, decimals: info.decimals }, async () => withdrawToken({ client, stealthSecretKey: await key(), token: info.address, to: destination }));
  }
  const native = withdrawals > 0 ? await client.getBalance({ address: stealthAddress }) : funds.native;
  if (native === 0n) return { withdrawals, dust: 0n };
  try {
    await attempt({ token: null, ...coin }, async () => withdrawNative({ client, stealthSecretKey: await key(), to: destination }), withdrawals > 0);
  } catch (cause) {
    // What a token withdrawal's gas money left is worth less than its own fee: it stays, said so.
    if (cause instanceof InsufficientGasError && withdrawals > 0) return { withdrawals, dust: cause.available };
    throw cause;
  }
  return { withdrawals, dust: 0n };
}
