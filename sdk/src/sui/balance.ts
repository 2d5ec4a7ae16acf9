/**
 * What a discovered Sui stealth address holds, in SUI.
 * @module
 */
import type { SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { SUI_TYPE_ARG } from '@mysten/sui/utils';
import { parseSuiAddress } from './address.ts';

export type SuiStealthBalanceParameters = {
  /**
   * A JSON-RPC client of the user's own choosing (`new SuiJsonRpcClient({ url, network })`), not a
   * Wraith server: whoever answers learns that this address interests the user.
   */
  client: SuiJsonRpcClient;
  /** The discovery's `stealthSuiAddress` (`0x` and 64 hex digits). */
  address: string;
};

export type SuiStealthBalanceReturnType = {
  /** Lowercase, as asked. */
  address: string;
  /** All SUI the address owns, in MIST (1 SUI = 10^9 MIST): coin objects plus its address balance. */
  total: bigint;
  /** The part held as `Coin<SUI>` objects. */
  coinBalance: bigint;
  /** The part held in the address balance (deposits made with `send_funds`). */
  addressBalance: bigint;
  /** How many `Coin<SUI>` objects hold `coinBalance`. */
  coinObjectCount: number;
};

/**
 * The SUI a stealth address holds (`suix_getBalance`). Both forms count: coin objects, as a
 * plain `transferObjects` payment leaves, and the address balance that `send_funds` deposits
 * into; {@link withdrawSui} sweeps both.
 *
 * @example
 * import { SuiJsonRpcClient, getJsonRpcFullnodeUrl } from '@mysten/sui/jsonRpc';
 * import { suiStealthBalance } from '@wraith-pq/sdk/sui';
 * const client = new SuiJsonRpcClient({ url: getJsonRpcFullnodeUrl('mainnet'), network: 'mainnet' });
 * const { total } = await suiStealthBalance({ client, address: discovery.stealthSuiAddress });
 */
export async function suiStealthBalance(parameters: SuiStealthBalanceParameters): Promise<SuiStealthBalanceReturnType> {
  const address = parseSuiAddress(parameters?.address, 'address');
  const balance = await parameters.client.getBalance({ owner: address, coinType: SUI_TYPE_ARG });
  // fundsInAddressBalance is the part of totalBalance outside coin objects (absent on older nodes).
  const total = BigInt(balance.totalBalance);
  const addressBalance = BigInt(balance.fundsInAddressBalance ?? '0');
  return { address, total, coinBalance: total - addressBalance, addressBalance, coinObjectCount: balance.coinObjectCount };
}
