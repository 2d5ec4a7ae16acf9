/**
 * Claim-all on a payment of tokens whose gas money, once the tokens are moved, is worth less than
 * its own withdrawal (app/(web)/_lib/claim-run.ts), on anvil: the claim is done, the coin left is
 * reported as dust, and the history gets the token withdrawal only, no failure for the coin that
 * was never meant to move.
 */
import { estimateWithdrawal } from '@wraith-pq/sdk/evm';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, parseEther, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimPayment } from '../../app/(web)/_lib/claim-run.ts';
import type { WithdrawalOutcome } from '../../app/(web)/_lib/history.ts';
import { DEV_KEYS } from '../helpers/announcer-chain.ts';
import { compileContracts, startAnvil, type Anvil } from '../helpers/anvil.ts';

let anvil: Anvil;
let client: PublicClient;
let token: Address;
const payer = privateKeyToAccount(DEV_KEYS[1]!);

beforeAll(async () => {
  anvil = await startAnvil();
  client = createPublicClient({ chain: foundry, transport: http(anvil.rpcUrl, { retryCount: 0 }), pollingInterval: 50 }) as PublicClient;
  const { abi, bytecode } = compileContracts(new URL('../fixtures/erc20/', import.meta.url))['TestToken']!;
  const wallet = createWalletClient({ account: payer, chain: foundry, transport: http(anvil.rpcUrl, { retryCount: 0 }) });
  const hash = await wallet.deployContract({ abi, bytecode, args: ['Test Token', 'TST', 18, parseEther('1000')] } as never);
  token = getAddress((await client.waitForTransactionReceipt({ hash })).contractAddress!);
}, 60_000);
afterAll(async () => {
  await anvil?.stop();
});

const setBalance = (address: Address, wei: bigint) => client.request({ method: 'anvil_setBalance', params: [address, `0x${wei.toString(16)}`] } as never);

describe('claiming a token payment whose coin cannot pay for moving itself', () => {
  it('moves the tokens, leaves the coin as dust, and records no failure for it', async () => {
    const key = generatePrivateKey();
    const stealth = privateKeyToAccount(key).address;
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const wallet = createWalletClient({ account: payer, chain: foundry, transport: http(anvil.rpcUrl, { retryCount: 0 }) });
    const paid = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [stealth, parseEther('100')] });
    await client.waitForTransactionReceipt({ hash: paid });
    // Priced on a large balance: the token withdrawal's bound and a coin sweep's fee.
    await setBalance(stealth, parseEther('1'));
    const tokenFee = (await estimateWithdrawal({ client, from: stealth, to: destination, token })).fee;
    const coinFee = (await estimateWithdrawal({ client, from: stealth, to: destination })).fee;
    // Gas money for the tokens, and half a coin sweep's fee over.
    await setBalance(stealth, tokenFee + coinFee / 2n);

    const outcomes: [string | null, WithdrawalOutcome][] = [];
    const claimed = await claimPayment({
      client,
      stealthAddress: stealth,
      destination,
      txHash: paid,
      extraTokens: [],
      coin: { symbol: 'ETH', decimals: 18 },
      secretKey: async () => Uint8Array.from(Buffer.from(key.slice(2), 'hex')),
      onWithdrawal: (asset, outcome) => outcomes.push([asset.token, outcome]),
    });
    const left = await client.getBalance({ address: stealth });
    expect(claimed).toEqual({ withdrawals: 1, dust: left });
    expect(left).toBeGreaterThan(0n);
    expect(left).toBeLessThan(coinFee);
    expect(outcomes.map(([asset, outcome]) => [asset, 'error' in outcome])).toEqual([[token, false]]);
    expect(await client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [destination] })).toBe(parseEther('100'));
  });
});
