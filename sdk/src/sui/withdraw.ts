/**
 * Sweeping a Sui stealth address: all of its SUI to one destination, signed with the one-time
 * key `p` alone, leaving 0.
 *
 * The transaction is one command, `TransferObjects([GasCoin], to)`. Sui pays gas from the gas
 * coin and, after charging the fee, hands what is left of that coin to whoever the transaction
 * gave it to: the whole balance minus the exact fee reaches `to`, with no amount to compute. The
 * @mysten/sui resolver fills in the rest: the reference gas price, a budget from a dry run, and
 * the gas payment (the address's `Coin<SUI>` objects, plus a reservation of its address
 * balance, all merged into the gas coin before execution).
 * @module
 */
import type { SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { Transaction } from '@mysten/sui/transactions';
import { normalizeStructTag, SUI_TYPE_ARG } from '@mysten/sui/utils';
import { InvalidArgumentError } from '../errors.ts';
import { parseSuiAddress } from './address.ts';
import { suiStealthBalance } from './balance.ts';
import { SuiInsufficientGasError, SuiTransactionFailedError } from './errors.ts';
import { suiStealthKeypair } from './keypair.ts';

export type WithdrawSuiParameters = {
  /**
   * Reads, dry-runs and executes: a full node of the user's own choosing, not a Wraith server
   * (which would learn which stealth addresses belong together).
   */
  client: SuiJsonRpcClient;
  /** The discovery's one-time key `p` (`stealthSecretKey`, 32 bytes or `0x` hex). Signs here; never sent anywhere. */
  stealthSecretKey: Uint8Array | string;
  /** Where the SUI goes (`0x` and 64 hex digits). */
  to: string;
};

export type WithdrawSuiReturnType = {
  /** The transaction digest (base58), as explorers show it. */
  digest: string;
  /** The effects' status: always `success` here (a failure throws). */
  status: 'success';
  /** MIST received by `to`. */
  amount: bigint;
  /** Gas charged in MIST: computation + storage - storage rebate. */
  fee: bigint;
  /**
   * MIST left at the stealth address: 0, unless it holds more coin objects than one gas payment
   * takes (the resolver uses the first page of them); then withdraw again.
   */
  remaining: bigint;
};

/**
 * Move all the SUI of a stealth address to `to`, leaving 0: the gas coin itself is transferred,
 * so `to` receives the balance minus the exact fee. The budget comes from a dry run; when the
 * address holds less SUI than that budget nothing is signed or sent.
 * @throws {InvalidArgumentError} for a malformed key or destination, or `to` being the stealth address itself.
 * @throws {SuiInsufficientGasError} when the balance is 0 or below the gas budget (nothing sent).
 * @throws {SuiTransactionFailedError} when the chain executed the transaction and its effects report failure.
 * Transport failures and refusals by the node come as the client's own errors (`JsonRpcError`, ...).
 *
 * @example
 * import { SuiJsonRpcClient, getJsonRpcFullnodeUrl } from '@mysten/sui/jsonRpc';
 * import { withdrawSui } from '@wraith-pq/sdk/sui';
 * const client = new SuiJsonRpcClient({ url: getJsonRpcFullnodeUrl('mainnet'), network: 'mainnet' });
 * const { digest, amount, fee } = await withdrawSui({ client, stealthSecretKey: discovery.stealthSecretKey, to: myFreshSuiAddress });
 */
export async function withdrawSui(parameters: WithdrawSuiParameters): Promise<WithdrawSuiReturnType> {
  if (typeof parameters !== 'object' || parameters === null) throw new InvalidArgumentError('parameters', 'must be an object');
  const { client } = parameters;
  const keypair = suiStealthKeypair(parameters.stealthSecretKey);
  const owner = keypair.toSuiAddress();
  const to = parseSuiAddress(parameters.to, 'to');
  if (to === owner) throw new InvalidArgumentError('to', 'is the stealth address itself');

  const { total } = await suiStealthBalance({ client, address: owner });
  if (total === 0n) throw new SuiInsufficientGasError(owner, null, 0n);

  const transaction = new Transaction();
  transaction.setSender(owner);
  transaction.transferObjects([transaction.gas], to);
  const bytes = await transaction.build({ client });
  // The gas coin must cover the budget, not just the fee: below it the node refuses the transaction.
  const budget = BigInt(transaction.getData().gasData.budget!);
  if (total < budget) throw new SuiInsufficientGasError(owner, budget, total);

  const { signature } = await keypair.signTransaction(bytes);
  const response = await client.executeTransactionBlock({
    transactionBlock: bytes,
    signature,
    options: { showEffects: true, showBalanceChanges: true },
  });
  const status = response.effects?.status;
  if (status?.status !== 'success') throw new SuiTransactionFailedError(response.digest, status?.error ?? 'the node returned no effects');

  const gas = response.effects!.gasUsed;
  const fee = BigInt(gas.computationCost) + BigInt(gas.storageCost) - BigInt(gas.storageRebate);
  const changes = (response.balanceChanges ?? []).filter((change) => normalizeStructTag(change.coinType) === SUI_TYPE_ARG);
  const changeOf = (address: string) =>
    changes.reduce((sum, change) => (typeof change.owner === 'object' && 'AddressOwner' in change.owner && change.owner.AddressOwner === address ? sum + BigInt(change.amount) : sum), 0n);
  const spent = -changeOf(owner);
  return { digest: response.digest, status: 'success', amount: changeOf(to), fee, remaining: total - spent };
}
