/**
 * Checks before a payment is signed (issue 26, scope 2): the paying account must hold the token
 * amount and enough coin for what is sent plus the gas of every transaction of the payment (the
 * transfer, the gas top-up of a token payment, the announcement), priced at the max fee per gas
 * the wallet will sign with. A failing check says what is missing and nothing is broadcast: a
 * payment that must fail would otherwise revert on chain and still cost gas.
 * @module
 */
import { announceParameters, estimateGasTopUp, type PaymentAsset } from '@wraith-pq/sdk/evm';
import { erc20Abi, type Address, type PublicClient } from 'viem';
import { formatAmount, NATIVE_UNIT, tokenUnit } from './amounts.js';
import { CliError } from './errors.js';
import type { SavedPayment } from './payment-file.js';

/** Gas of a plain value transfer to an account without code. */
const TRANSFER_GAS = 21_000n;

export type CheckedPayment = {
  /** The asset to pass to `payStealth`, its gas top-up settled (default: the SDK's estimate). */
  asset: PaymentAsset;
  /** Coin the payment needs at most: value or top-up, plus the gas of its transactions (wei). */
  coinNeeded: bigint;
};

/** The price per gas the wallet will sign with (EIP-1559 max fee, else the legacy gas price). */
async function maxPricePerGas(client: PublicClient): Promise<bigint> {
  try {
    return (await client.estimateFeesPerGas()).maxFeePerGas;
  } catch {
    return client.getGasPrice();
  }
}

/** Refuse before signing unless `payer` can pay `amount` (of `token`, or of the coin) and all the gas. */
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
  const [coin, price, announceGas] = await Promise.all([
    client.getBalance({ address: payer }),
    maxPricePerGas(client),
    client.estimateContractGas({ account: payer, ...announceParameters({ payment, note: placeholderNote }) }),
  ]);
  let asset: PaymentAsset;
  let needed: bigint;
  let what: string;
  if (token === undefined) {
    asset = { type: 'native', value: amount };
    needed = amount + (TRANSFER_GAS + announceGas) * price;
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
    needed = topUp + (transferGas + (topUp > 0n ? TRANSFER_GAS : 0n) + announceGas) * price;
    what = `a gas top-up of ${formatAmount(topUp, NATIVE_UNIT)} plus the gas of the transfer${topUp > 0n ? ', the top-up' : ''} and the announcement`;
  }
  if (coin < needed) {
    throw new CliError(
      'INSUFFICIENT_FUNDS',
      `the paying account ${payer} holds ${formatAmount(coin, NATIVE_UNIT)}, and this payment needs up to ${formatAmount(needed, NATIVE_UNIT)} (${what}); nothing was sent`,
      'fund the paying account with the chain\'s coin, or pay less',
    );
  }
  return { asset, coinNeeded: needed };
}
