/**
 * What a found payment holds, read through the user's own RPC: the asset it was paid in (the one
 * its note names, PROTOCOL.md 8.1; for an older note, a token named by the transfer the note
 * points to, else the coin), that asset's unit (symbol and
 * decimals read from the token), and whether it is still there. A payment whose asset is gone
 * and whose address has sent a transaction was withdrawn (`spent`); one that never held anything
 * was announced but not paid (`empty`).
 * @module
 */
import { stealthBalances } from '@wraith-pq/sdk/evm';
import { getAddress, type Address, type PublicClient } from 'viem';
import { NATIVE_UNIT, tokenUnit, type AssetUnit } from './amounts.js';
import { noteToken } from './spendable.js';

export type PaymentStatus = {
  /** `native` or the token's address. */
  asset: 'native' | Address;
  unit: AssetUnit;
  /** What the stealth address holds of that asset now (base units). */
  balance: bigint;
  state: 'unspent' | 'spent' | 'empty';
};

/** Reads the status of found payments, each token's unit read once. */
export function createStatusReader(
  client: PublicClient,
): (payment: { stealthAddress: string; noteTxHash: `0x${string}` | null; noteAsset: 'coin' | string | null }) => Promise<PaymentStatus> {
  const units = new Map<Address, Promise<AssetUnit>>();
  return async ({ stealthAddress, noteTxHash, noteAsset }) => {
    const address = getAddress(stealthAddress);
    const token =
      noteAsset === 'coin' ? null : noteAsset !== null ? getAddress(noteAsset) : await noteToken(client, { stealthAddress: address, noteTxHash, announcementTxHash: null });
    const [[holding], nonce] = await Promise.all([stealthBalances({ client, addresses: [address], tokens: token === null ? [] : [token] }), client.getTransactionCount({ address })]);
    let unit = NATIVE_UNIT;
    if (token !== null) {
      if (!units.has(token)) units.set(token, tokenUnit(client, token));
      unit = await units.get(token)!;
    }
    const balance = token === null ? holding!.native : holding!.tokens[0]!.balance;
    return { asset: token ?? 'native', unit, balance, state: balance > 0n ? 'unspent' : nonce > 0 ? 'spent' : 'empty' };
  };
}
