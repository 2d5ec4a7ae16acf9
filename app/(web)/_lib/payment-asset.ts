/**
 * What a payment brought to a stealth address, read from the transaction its note names
 * (PROTOCOL.md section 8), through the user's provider: native value sent to the address, and
 * ERC-20 `Transfer` events to it. The note says how much; this says in which asset, so the
 * Scan page knows which token balances to read without the user typing token addresses.
 * @module
 */
import { WRAITH_PAY_ADDRESS, wraithPayAbi } from '@wraith-pq/sdk/evm';
import { decodeFunctionData, erc20Abi, getAddress, isAddressEqual, parseEventLogs, type Address, type Hash, type PublicClient } from 'viem';

export type ReceivedAsset = { type: 'native'; amount: bigint } | { type: 'erc20'; token: Address; amount: bigint };

export async function receivedAssets(client: PublicClient, txHash: Hash, stealthAddress: Address): Promise<ReceivedAsset[]> {
  const [transaction, receipt] = await Promise.all([client.getTransaction({ hash: txHash }), client.getTransactionReceipt({ hash: txHash })]);
  if (receipt.status !== 'success') return [];
  const assets: ReceivedAsset[] = [];
  if (transaction.to && isAddressEqual(transaction.to, stealthAddress) && transaction.value > 0n) assets.push({ type: 'native', amount: transaction.value });
  // Through WraithPay the coin reaches the address inside the contract's call: read it from the call.
  if (transaction.to && isAddressEqual(transaction.to, WRAITH_PAY_ADDRESS) && transaction.value > 0n) {
    const coin = wraithPayCoin(transaction.input, stealthAddress);
    if (coin > 0n) assets.push({ type: 'native', amount: coin });
  }
  for (const log of parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })) {
    if (isAddressEqual(log.args.to, stealthAddress)) assets.push({ type: 'erc20', token: getAddress(log.address), amount: log.args.value });
  }
  return assets;
}

/** The coin a WraithPay call sent `stealthAddress`: payNative's amount, or payToken's gas top-up. */
function wraithPayCoin(input: `0x${string}`, stealthAddress: Address): bigint {
  try {
    const call = decodeFunctionData({ abi: wraithPayAbi, data: input });
    if (call.functionName === 'payNative' && isAddressEqual(call.args[0], stealthAddress)) return call.args[1];
    if (call.functionName === 'payToken' && isAddressEqual(call.args[0], stealthAddress)) return call.args[3];
  } catch {
    // Another call: nothing to read.
  }
  return 0n;
}

/**
 * Which of the assets a payment's transaction brought its note's amount counts: the one of that
 * exact amount, else the token (a token payment's coin is its gas top-up), else the coin.
 */
export function noteAsset(received: readonly ReceivedAsset[], noteAmount: string | null | undefined): ReceivedAsset | null {
  const exact = noteAmount && /^\d+$/.test(noteAmount) ? received.find((r) => r.amount === BigInt(noteAmount)) : undefined;
  return exact ?? received.find((r) => r.type === 'erc20') ?? received[0] ?? null;
}
