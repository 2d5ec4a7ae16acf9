/**
 * Checks before a payment is signed (issue 26, scope 2): the paying account must hold the token
 * amount and enough coin for what is sent plus the gas of every transaction of the payment (the
 * transfer, the gas top-up of a token payment, the announcement), priced at the max fee per gas
 * the wallet will sign with, plus each one's L1 data fee on an OP Stack chain. A failing check
 * says what is missing and nothing is broadcast: a payment that must fail would otherwise revert
 * on chain and still cost gas.
 * @module
 */
import { estimatePayment, type PaymentAsset, type PaymentSigning } from '@wraith-pq/sdk/evm';
import type { Address, PublicClient } from 'viem';
import { formatAmount, NATIVE_UNIT, tokenUnit } from './amounts.js';
import { CliError } from './errors.js';
import type { SavedPayment } from './payment-file.js';

export type CheckedPayment = {
  /** The asset to pass to `payStealth`, its gas top-up settled (default: the SDK's estimate). */
  asset: PaymentAsset;
  /** The price and gas limits the check assumed: `payStealth` signs with them. */
  signWith: PaymentSigning;
  /** The most the payment's transactions cost in fees (wei), of it the L1 data fee, and the coin needed at most (sent + fee). */
  fee: bigint;
  l1Fee: bigint;
  coinNeeded: bigint;
};

/**
 * Refuse before signing unless `payer` can pay `amount` (of `token`, or of the coin) and every
 * transaction's fee bound, as the SDK's `estimatePayment` prices them (gas × the max fee per gas
 * the wallet signs with, plus on the OP Stack the L1 data fee and operator fee charged outside
 * the gas).
 */
export async function checkPayerFunds(parameters: {
  client: PublicClient;
  payer: Address;
  payment: SavedPayment;
  amount: bigint;
  token?: Address;
  gasTopUp?: bigint;
}): Promise<CheckedPayment> {
  const { client, payer, payment, amount, token } = parameters;
  const asset: PaymentAsset = token === undefined ? { type: 'native', value: amount } : { type: 'erc20', token, amount, ...(parameters.gasTopUp === undefined ? {} : { gasTopUp: parameters.gasTopUp }) };
  const estimate = await estimatePayment({ client, from: payer, payment, asset });
  if (estimate.short === 'token') {
    const unit = await tokenUnit(client, token!);
    throw new CliError('INSUFFICIENT_TOKENS', `the paying account ${payer} holds ${formatAmount(estimate.tokenBalance, unit)}, less than the ${formatAmount(amount, unit)} to pay; nothing was sent`, 'pay less, or move tokens to the paying account first');
  }
  const topUp = estimate.asset.type === 'erc20' ? (estimate.asset.gasTopUp ?? 0n) : 0n;
  let what =
    token === undefined
      ? `${formatAmount(amount, NATIVE_UNIT)} plus the gas of the payment and its announcement`
      : `a gas top-up of ${formatAmount(topUp, NATIVE_UNIT)} plus the gas of the transfer${topUp > 0n ? ', the top-up' : ''} and the announcement`;
  if (estimate.l1Fee > 0n) what += `, of which ${formatAmount(estimate.l1Fee, NATIVE_UNIT)} is their L1 data fee`;
  if (estimate.short === 'coin') {
    throw new CliError(
      'INSUFFICIENT_FUNDS',
      `the paying account ${payer} holds ${formatAmount(estimate.coinBalance, NATIVE_UNIT)}, and this payment needs up to ${formatAmount(estimate.coinNeeded, NATIVE_UNIT)} (${what}); nothing was sent`,
      'fund the paying account with the chain\'s coin, or pay less',
    );
  }
  return { asset: estimate.asset, signWith: estimate.signWith, fee: estimate.fee, l1Fee: estimate.l1Fee, coinNeeded: estimate.coinNeeded };
}
