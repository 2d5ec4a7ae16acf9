/**
 * Checks before a payment is signed (issue 26, scope 2): the paying account must hold the token
 * amount and enough coin for what is sent plus the gas of every transaction of the payment (the
 * transfer, the gas top-up of a token payment, the announcement), priced at the max fee per gas
 * the wallet will sign with, plus each one's L1 data fee on an OP Stack chain. A failing check
 * says what is missing and nothing is broadcast: a payment that must fail would otherwise revert
 * on chain and still cost gas.
 * @module
 */
import { announceParameters, estimateGasTopUp, estimateTransactionFees, type PaymentAsset, type TransactionToPrice } from '@wraith-pq/sdk/evm';
import { encodeFunctionData, erc20Abi, type Address, type PublicClient } from 'viem';
import { formatAmount, NATIVE_UNIT, tokenUnit } from './amounts.js';
import { CliError } from './errors.js';
import type { SavedPayment } from './payment-file.js';

/** Gas of a plain value transfer to an account without code. */
const TRANSFER_GAS = 21_000n;

export type CheckedPayment = {
  /** The asset to pass to `payStealth`, its gas top-up settled (default: the SDK's estimate). */
  asset: PaymentAsset;
  /** Coin the payment needs at most: value or top-up, plus the fees of its transactions (wei). */
  coinNeeded: bigint;
  /** Of `coinNeeded`, the L1 data fees (OP Stack; 0 elsewhere). */
  l1Fee: bigint;
};

/**
 * Refuse before signing unless `payer` can pay `amount` (of `token`, or of the coin) and every
 * transaction's fee bound: gas × the max fee per gas the wallet signs with, plus on the OP Stack
 * the L1 data fee and operator fee charged outside the gas (the SDK's `estimateTransactionFees`,
 * the rule withdrawals are priced by). The announcement carries over a kilobyte of calldata, so
 * its L1 fee is most of an OP Stack payment's cost; were it missed, the transfer would go out and
 * the announcement fail for want of it, leaving money its recipient cannot find.
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
  const stealth = payment.stealthAddress as Address;
  const placeholderNote = { amount, txHash: `0x${'ff'.repeat(32)}` as const, chainId: BigInt(await client.getChainId()) };
  const announce = announceParameters({ payment, note: placeholderNote });
  const announcement = { to: announce.address, data: encodeFunctionData({ abi: announce.abi, functionName: announce.functionName, args: announce.args }), gas: 0n };
  const [coin, announceGas] = await Promise.all([client.getBalance({ address: payer }), client.estimateContractGas({ account: payer, ...announce })]);
  announcement.gas = announceGas;
  let asset: PaymentAsset;
  let transactions: TransactionToPrice[];
  let sent: bigint;
  let what: string;
  if (token === undefined) {
    asset = { type: 'native', value: amount };
    transactions = [{ to: stealth, value: amount, gas: TRANSFER_GAS }, announcement];
    sent = amount;
    what = `${formatAmount(amount, NATIVE_UNIT)} plus the gas of the payment and its announcement`;
  } else {
    const [held, unit] = await Promise.all([client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [payer] }), tokenUnit(client, token)]);
    if (held < amount) {
      throw new CliError('INSUFFICIENT_TOKENS', `the paying account ${payer} holds ${formatAmount(held, unit)}, less than the ${formatAmount(amount, unit)} to pay; nothing was sent`, 'pay less, or move tokens to the paying account first');
    }
    const [transferGas, topUp] = await Promise.all([
      client.estimateContractGas({ account: payer, address: token, abi: erc20Abi, functionName: 'transfer', args: [stealth, amount] }),
      parameters.gasTopUp ?? estimateGasTopUp({ client, token, amount, from: payer, to: stealth }).then((e) => e.topUp),
    ]);
    asset = { type: 'erc20', token, amount, gasTopUp: topUp };
    const transfer = { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [stealth, amount] }), gas: transferGas };
    transactions = [transfer, ...(topUp > 0n ? [{ to: stealth, value: topUp, gas: TRANSFER_GAS }] : []), announcement];
    sent = topUp;
    what = `a gas top-up of ${formatAmount(topUp, NATIVE_UNIT)} plus the gas of the transfer${topUp > 0n ? ', the top-up' : ''} and the announcement`;
  }
  const fees = await estimateTransactionFees({ client, from: payer, transactions });
  const needed = sent + fees.total;
  if (fees.l1Fee > 0n) what += `, of which ${formatAmount(fees.l1Fee, NATIVE_UNIT)} is their L1 data fee`;
  if (coin < needed) {
    throw new CliError(
      'INSUFFICIENT_FUNDS',
      `the paying account ${payer} holds ${formatAmount(coin, NATIVE_UNIT)}, and this payment needs up to ${formatAmount(needed, NATIVE_UNIT)} (${what}); nothing was sent`,
      'fund the paying account with the chain\'s coin, or pay less',
    );
  }
  return { asset, coinNeeded: needed, l1Fee: fees.l1Fee };
}
