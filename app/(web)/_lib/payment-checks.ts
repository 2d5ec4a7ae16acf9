/**
 * The checks Send makes before the wallet is asked to sign anything: the wallet holds the tokens
 * it would transfer, and enough of the chain's coin for what it sends plus the fee of every
 * transaction of the payment (the transfer, a token payment's top-up, the announcement), at the
 * chain's price now, L1 data fee included (the SDK's `estimatePayment`). A payment that must fail
 * on chain (and cost its gas) is refused here with a sentence that says what is missing; nothing
 * is sent. Reads go through the wallet's provider.
 * @module
 */
import { estimatePayment, type PaymentAsset, type PaymentSigning, type PayStealthParameters } from '@wraith-pq/sdk/evm';
import type { Address, PublicClient } from 'viem';
import { formatAmount } from './amount';
import type { TokenInfo } from './token-info';

/** The wallet cannot pay this payment: nothing was signed or sent. */
export class PaymentNotCoveredError extends Error {
  override name = 'PaymentNotCoveredError';
}

export type CheckWalletCoversParameters = {
  client: PublicClient;
  account: Address;
  payment: PayStealthParameters['payment'];
  asset: PaymentAsset;
  /** The token paid, for a token payment (its symbol and decimals for the message). */
  token: TokenInfo | null;
  coinSymbol: string;
};

/**
 * Once the checks pass: the most the payment's fees can cost at today's price (L1 data fees
 * included, wei), and the price and gas limits to sign with so that the wallet is not asked for more.
 */
export type CheckWalletCoversReturnType = {
  gasBound: bigint;
  signWith: PaymentSigning;
  /** What to pay, a token payment's gas top-up settled (priced from the chain when it was left out). */
  asset: PaymentAsset;
  /** Coin the payment sends besides the fees: the amount, or a token payment's top-up (wei). */
  sent: bigint;
};

export async function checkWalletCovers({ client, account, payment, asset, token, coinSymbol }: CheckWalletCoversParameters): Promise<CheckWalletCoversReturnType> {
  const coin = (wei: bigint) => formatAmount(wei, 18, coinSymbol);
  const estimate = await estimatePayment({ client, from: account, payment, asset });
  if (estimate.short === 'token') {
    const show = (v: bigint) => formatAmount(v, token?.decimals ?? 18, token?.symbol ?? 'tokens');
    const [held, amount] = [estimate.tokenBalance, asset.type === 'erc20' ? asset.amount : 0n];
    throw new PaymentNotCoveredError(`Your wallet holds ${show(held)}, and this payment sends ${show(amount)}: ${show(amount - held)} short. Nothing was sent; pay less or add tokens first.`);
  }
  const { sent, fee, l1Fee, coinNeeded, coinBalance } = estimate;
  if (estimate.short === 'coin') {
    const what = asset.type === 'native' ? coin(sent) : sent > 0n ? `${coin(sent)} for the recipient's gas` : null;
    const l1 = l1Fee > 0n ? `, of which ${coin(l1Fee)} is the L1 data fee` : '';
    throw new PaymentNotCoveredError(
      `Your wallet holds ${coin(coinBalance)}, and this payment needs up to ${coin(coinNeeded)} (${what ? `${what} and ` : ''}at most ${coin(fee)} of network fees${l1}): ${coin(coinNeeded - coinBalance)} short. Nothing was sent; pay less or add ${coinSymbol} first.`,
    );
  }
  return { gasBound: fee, signWith: estimate.signWith, asset: estimate.asset, sent };
}
