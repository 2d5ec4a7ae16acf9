/**
 * Fee words that hold (issue 32, item 5): a withdrawal's fee is exact only as signed. A plan of two
 * legs (a token withdrawal, then the coin left at the address) prices the second leg before the
 * first is mined; the base fee can move in between, and the coin leg is then signed, and charged,
 * at another fee than its estimate showed. The SDK says which is which: an estimate's fee is
 * `pricedAt: 'today'`, a withdrawal's `pricedAt: 'signing'`, and only the latter is what the chain
 * charges to the wei (`feeKind: 'exact'` on a standard chain). On anvil.
 */
import { erc20Abi, getAddress, parseEther, parseGwei, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateWithdrawal, withdrawNative, withdrawToken } from '@wraith-pq/sdk/evm';
import { startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { compileContracts } from '../helpers/anvil.ts';

let chain: AnnouncerChain;
let token: Address;

beforeAll(async () => {
  chain = await startAnnouncerChain();
  const { abi, bytecode } = compileContracts(new URL('../fixtures/erc20/', import.meta.url))['TestToken']!;
  const hash = await chain.wallets[0]!.deployContract({ abi, bytecode, args: ['Test Token', 'TST', 18, 10n ** 30n] } as never);
  token = getAddress((await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
});
afterAll(() => chain?.stop());

describe('fee words of a two-leg withdrawal', () => {
  it("prices both legs at today's prices, then signs the coin leg at the fee of its own moment, which the chain charges exactly", async () => {
    const key = generatePrivateKey();
    const stealth = privateKeyToAccount(key).address;
    const client = chain.publicClient;
    await client.waitForTransactionReceipt({ hash: await chain.wallets[0]!.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [stealth, 10n ** 20n] }) });
    await chain.rpc('anvil_setBalance', [stealth, `0x${parseEther('0.1').toString(16)}`]);
    const to = privateKeyToAccount(generatePrivateKey()).address;

    // The dry run: both legs priced before either is sent.
    const tokenLeg = await estimateWithdrawal({ client, from: stealth, to, token });
    const coinLeg = await estimateWithdrawal({ client, from: stealth, to });
    expect(tokenLeg).toMatchObject({ pricedAt: 'today', feeKind: 'maximum' });
    expect(coinLeg).toMatchObject({ pricedAt: 'today', feeKind: 'exact', feeModel: 'standard' });

    const tokenOut = await withdrawToken({ client, stealthSecretKey: key, token, to });
    expect(tokenOut.pricedAt).toBe('signing');
    await client.waitForTransactionReceipt({ hash: tokenOut.hash });
    // The base fee moves before the coin leg is signed (a busy block).
    await chain.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${parseGwei('5').toString(16)}`]);
    await chain.mine();

    const coinOut = await withdrawNative({ client, stealthSecretKey: key, to });
    expect(coinOut).toMatchObject({ pricedAt: 'signing', feeKind: 'exact' });
    const receipt = await client.waitForTransactionReceipt({ hash: coinOut.hash });
    const charged = receipt.gasUsed * receipt.effectiveGasPrice;
    // What was signed is what was charged, to the wei; the estimate was not.
    expect(charged).toBe(coinOut.fee);
    expect(charged).not.toBe(coinLeg.fee);
    expect(await client.getBalance({ address: stealth })).toBe(0n);
  });
});
