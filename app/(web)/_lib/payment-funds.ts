/**
 * What a discovered payment holds now: its native balance and the balances of the tokens its own
 * transaction brought (payment-asset.ts) or the user named, read in one `stealthBalances` call
 * through the user's provider (never the Wraith server, which must not learn which stealth
 * addresses are one person's).
 * @module
 */
import { stealthBalances } from '@wraith-pq/sdk/evm';
import { getAddress, type Address, type Hash, type PublicClient } from 'viem';
import { receivedAssets, type ReceivedAsset } from './payment-asset';
import { readTokenInfo, type TokenInfo } from './token-info';

export type PaymentFunds = { native: bigint; tokens: { info: TokenInfo; balance: bigint }[]; received: ReceivedAsset[] };

export type ReadPaymentFundsParameters = {
  client: PublicClient;
  stealthAddress: Address;
  /** The paying transaction the opened note names, when it names one. */
  txHash: string | null | undefined;
  /** Tokens to check besides those that transaction shows. */
  extraTokens: readonly string[];
};

export async function readPaymentFunds({ client, stealthAddress, txHash, extraTokens }: ReadPaymentFundsParameters): Promise<PaymentFunds> {
  const received = txHash ? await receivedAssets(client, txHash as Hash, stealthAddress).catch(() => []) : [];
  const candidates = [...new Set([...received.flatMap((r) => (r.type === 'erc20' ? [r.token] : [])), ...extraTokens].map((t) => getAddress(t)))];
  // An address that is not a token (typed by mistake, or a contract the payment's logs named)
  // is left out rather than failing every balance of this payment.
  const infos = (await Promise.allSettled(candidates.map((token) => readTokenInfo(client, token)))).flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const [balance] = await stealthBalances({ client, addresses: [stealthAddress], tokens: infos.map((info) => info.address) });
  return { native: balance!.native, tokens: balance!.tokens.map((t, i) => ({ info: infos[i]!, balance: t.balance })), received };
}
