/**
 * The checks Send makes before the wallet is asked to sign anything: the wallet holds the tokens
 * it would transfer, and enough of the chain's coin for what it sends plus the fee of every
 * transaction of the payment (the transfer, a token payment's top-up, the announcement), at the
 * chain's price now: gas × max fee, plus on the OP Stack the L1 data fee charged outside the gas
 * (the SDK's `estimateTransactionFees`, the rule withdrawals are priced by). The announcement's
 * kilobyte of calldata makes that L1 fee most of an OP Stack payment's cost; missed, the transfer
 * would go out and the announcement fail, leaving money its recipient cannot find. A payment that must fail on chain (and cost its gas) is refused here with a
 * sentence that says what is missing; nothing is sent. Reads go through the wallet's provider.
 * @module
 */
import { announceParameters, estimateTransactionFees, type PaymentAsset, type TransactionToPrice } from '@wraith-pq/sdk/evm';
import { encodeFunctionData, erc20Abi, type Address, type PublicClient } from 'viem';
import { formatAmount } from './amount';
import type { TokenInfo } from './token-info';

/** Gas of a plain coin transfer to an account without code (a fresh stealth address). */
const TRANSFER_GAS = 21_000n;
/** When the node will not estimate the announcement: above what a 1,218- or 1,121-byte ciphertext with its note costs. */
const ANNOUNCE_GAS_FALLBACK = 200_000n;
const NO_HASH = `0x${'00'.repeat(32)}` as const;

/** The wallet cannot pay this payment: nothing was signed or sent. */
export class PaymentNotCoveredError extends Error {
  override name = 'PaymentNotCoveredError';
}

export type CheckWalletCoversParameters = {
  client: PublicClient;
  account: Address;
  payment: Parameters<typeof announceParameters>[0]['payment'];
  asset: PaymentAsset;
  /** The token paid, for a token payment (its symbol and decimals for the message). */
  token: TokenInfo | null;
  coinSymbol: string;
};

/** The most the payment's fees can cost at today's price (L1 data fees included), once the checks pass (wei). */
export type CheckWalletCoversReturnType = { gasBound: bigint };

export async function checkWalletCovers({ client, account, payment, asset, token, coinSymbol }: CheckWalletCoversParameters): Promise<CheckWalletCoversReturnType> {
  const coin = (wei: bigint) => formatAmount(wei, 18, coinSymbol);
  if (asset.type === 'erc20') {
    const held = await client.readContract({ address: asset.token, abi: erc20Abi, functionName: 'balanceOf', args: [account] });
    if (held < asset.amount) {
      const show = (v: bigint) => formatAmount(v, token?.decimals ?? 18, token?.symbol ?? 'tokens');
      throw new PaymentNotCoveredError(
        `Your wallet holds ${show(held)}, and this payment sends ${show(asset.amount)}: ${show(asset.amount - held)} short. Nothing was sent; pay less or add tokens first.`,
      );
    }
  }
  const chainId = BigInt(await client.getChainId());
  const amount = asset.type === 'native' ? asset.value : asset.amount;
  const announce = announceParameters({ payment, note: { amount, txHash: NO_HASH, chainId } });
  const stealth = payment.stealthAddress as Address;
  const [balance, transferGas, announceGas] = await Promise.all([
    client.getBalance({ address: account }),
    asset.type === 'native' ? TRANSFER_GAS : client.estimateContractGas({ account, address: asset.token, abi: erc20Abi, functionName: 'transfer', args: [stealth, asset.amount] }),
    client.estimateContractGas({ account, ...announce }).catch(() => ANNOUNCE_GAS_FALLBACK),
  ]);
  const topUp = asset.type === 'erc20' ? (asset.gasTopUp ?? 0n) : 0n;
  const announcement: TransactionToPrice = { to: announce.address, data: encodeFunctionData({ abi: announce.abi, functionName: announce.functionName, args: announce.args }), gas: announceGas };
  const transactions: TransactionToPrice[] =
    asset.type === 'native'
      ? [{ to: stealth, value: asset.value, gas: transferGas }, announcement]
      : [
          { to: asset.token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [stealth, asset.amount] }), gas: transferGas },
          ...(topUp > 0n ? [{ to: stealth, value: topUp, gas: TRANSFER_GAS }] : []),
          announcement,
        ];
  const { total: gasBound, l1Fee } = await estimateTransactionFees({ client, from: account, transactions });
  const sent = asset.type === 'native' ? asset.value : topUp;
  if (balance < sent + gasBound) {
    const what = asset.type === 'native' ? coin(sent) : topUp > 0n ? `${coin(topUp)} for the recipient's gas` : null;
    const l1 = l1Fee > 0n ? `, of which ${coin(l1Fee)} is the L1 data fee` : '';
    throw new PaymentNotCoveredError(
      `Your wallet holds ${coin(balance)}, and this payment needs up to ${coin(sent + gasBound)} (${what ? `${what} and ` : ''}at most ${coin(gasBound)} of network fees${l1}): ${coin(sent + gasBound - balance)} short. Nothing was sent; pay less or add ${coinSymbol} first.`,
    );
  }
  return { gasBound };
}
