/**
 * The fee of a withdrawal, shown before the user signs it: the gas of the transaction the SDK's
 * `withdrawNative` / `withdrawToken` will send, priced by the same rule (EIP-1559 with the tip
 * equal to the cap, so the fee is exactly gas × cap; legacy gas price on chains without a base
 * fee). Prices move between this estimate and the signature; the result shows the fee paid.
 * @module
 */
import { InsufficientGasError } from '@wraith-pq/sdk/evm';
import { erc20Abi, type Address, type PublicClient } from 'viem';

/** A plain transfer to an account without code: exactly this much gas. */
const TRANSFER_GAS = 21_000n;

export type WithdrawalEstimate = {
  /** What arrives at the destination (wei, or token base units). */
  amount: bigint;
  /** The network fee, in wei, paid from the stealth address's native balance. */
  fee: bigint;
};

export type EstimateWithdrawalParameters = { client: PublicClient; from: Address; to: Address; token?: Address };

/**
 * @throws {InsufficientGasError} when the stealth address cannot pay the fee (nothing would be sent).
 */
export async function estimateWithdrawal({ client, from, to, token }: EstimateWithdrawalParameters): Promise<WithdrawalEstimate> {
  const [native, price] = await Promise.all([client.getBalance({ address: from }), gasPrice(client)]);
  if (token !== undefined) {
    const amount = await client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [from] });
    if (amount === 0n) throw new Error('This address holds none of this token.');
    const gas = await client.estimateContractGas({ account: from, address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
    const fee = gas * price;
    if (native < fee) throw new InsufficientGasError(from, fee, native, 'a token withdrawal');
    return { amount, fee };
  }
  const code = await client.getCode({ address: to });
  if (code !== undefined && code !== '0x') {
    throw new Error('The destination is a contract: the gas it uses is not known in advance, so the stealth address could not be emptied to 0 wei. Withdraw to an ordinary account.');
  }
  const fee = TRANSFER_GAS * price;
  if (native <= fee) throw new InsufficientGasError(from, fee, native, 'a withdrawal of its native balance');
  return { amount: native - fee, fee };
}

async function gasPrice(client: PublicClient): Promise<bigint> {
  const block = await client.getBlock({ blockTag: 'latest' });
  if (block.baseFeePerGas === null || block.baseFeePerGas === undefined) return client.getGasPrice();
  return (await client.estimateFeesPerGas({ type: 'eip1559', chain: client.chain ?? null })).maxFeePerGas;
}
