/**
 * What a discovered payment holds now: its native balance and the balances of the tokens its own
 * transaction brought (payment-asset.ts) or the user named, read through the user's provider
 * (never the Wraith server, which must not learn which stealth addresses are one person's).
 *
 * A read that fails is said, never taken for "no tokens": `incomplete` holds why, since a claim
 * that believed the list would sweep the coin a token's withdrawal needs for gas and strand the
 * token (claim-run.ts refuses such a payment).
 * @module
 */
import { BaseError, erc20Abi, getAddress, type Address, type Hash, type PublicClient } from 'viem';
import { errorMessage } from './error-message';
import { receivedAssets, type ReceivedAsset } from './payment-asset';
import { readTokenInfo, type TokenInfo } from './token-info';

/** A failed read's reason in one line: viem's short message, without the request it repeats. */
const readError = (cause: unknown) => (cause instanceof BaseError ? cause.shortMessage : errorMessage(cause));

export type PaymentFunds = {
  native: bigint;
  tokens: { info: TokenInfo; balance: bigint }[];
  received: ReceivedAsset[];
  /** Why the tokens listed may not be all the address holds (a read failed), or null when every read answered. */
  incomplete: string | null;
};

export type ReadPaymentFundsParameters = {
  client: PublicClient;
  stealthAddress: Address;
  /** The paying transaction the opened note names, when it names one. */
  txHash: string | null | undefined;
  /** Tokens to check besides those that transaction shows. */
  extraTokens: readonly string[];
};

/** A token's balance at `owner`; without its symbol or decimals, counted in its smallest units under its address. */
async function readTokenFunds(client: PublicClient, token: Address, owner: Address): Promise<{ info: TokenInfo; balance: bigint }> {
  const [info, balance] = await Promise.all([
    readTokenInfo(client, token).catch((): TokenInfo => ({ address: token, symbol: `units of the token ${token}`, decimals: 0 })),
    client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }).catch((cause: unknown) => {
      throw new Error(`the balance of the token ${token} could not be read (${readError(cause)})`);
    }),
  ]);
  return { info, balance };
}

export async function readPaymentFunds({ client, stealthAddress, txHash, extraTokens }: ReadPaymentFundsParameters): Promise<PaymentFunds> {
  const problems: string[] = [];
  let received: ReceivedAsset[] = [];
  if (txHash) {
    try {
      received = await receivedAssets(client, txHash as Hash, stealthAddress);
    } catch (cause) {
      problems.push(`the payment's transaction ${txHash} could not be read (${readError(cause)})`);
    }
  }
  const candidates = [...new Set([...received.flatMap((r) => (r.type === 'erc20' ? [r.token] : [])), ...extraTokens].map((t) => getAddress(t)))];
  const [native, reads] = await Promise.all([client.getBalance({ address: stealthAddress }), Promise.allSettled(candidates.map((token) => readTokenFunds(client, token, stealthAddress)))]);
  const tokens = reads.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : (problems.push(errorMessage(r.reason)), [])));
  return { native, tokens, received, incomplete: problems.length > 0 ? problems.join('; ') : null };
}
