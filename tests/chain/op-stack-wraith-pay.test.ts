/**
 * Issue 30 on a real OP Stack node (Hardhat 3's EDR, tests/helpers/op-node.ts): a payment through
 * WraithPay pays an L1 data fee on its kilobyte of calldata, outside the gas. A payer funded to
 * exactly what estimatePayment said pays a coin payment (one transaction) and a token payment with
 * its approval (two), the L1 data fees included, and is never asked for more.
 */
import { createWalletClient, erc20Abi, getAddress, http, parseEther, parseGwei, type Address, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStealthPayment, generateKeys } from '@wraith-pq/sdk';
import { estimatePayment, payStealth, WRAITH_PAY_ADDRESS, type PaymentAsset } from '@wraith-pq/sdk/evm';
import { wraithPayRuntimeCode } from '../../sdk/src/evm/wraith-pay-artifact.ts';
import { compileContracts } from '../helpers/anvil.ts';
import { chargedBy, opNodeOrSkip, startOpNode, type OpNode } from '../helpers/op-node.ts';

const run = opNodeOrSkip();
let node: OpNode;
let token: Address;

beforeAll(async () => {
  if (!run) return;
  node = await startOpNode();
  // A costly L1 under a cheap L2 (Base's scalars): the L1 data fee is most of what a payment costs.
  await node.setFees({ l1BaseFee: parseGwei('5000'), blobBaseFee: parseGwei('5'), baseFeeScalar: 1368, blobBaseFeeScalar: 810949, baseFee: 1_000n });
  await node.setCode(WRAITH_PAY_ADDRESS, wraithPayRuntimeCode);
  const { abi, bytecode } = compileContracts(new URL('../fixtures/erc20/', import.meta.url))['TestToken']!;
  const hash = await node.wallets[0]!.deployContract({ abi, bytecode, args: ['Test Token', 'TST', 18, 10n ** 24n] } as never);
  token = getAddress((await node.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

describe.runIf(run)('WraithPay on an OP Stack chain', () => {
  it('a payer funded to exactly coinNeeded pays coin in one transaction and tokens with their approval in two, L1 data fees included', { timeout: 120_000 }, async () => {
    const client = node.publicClient;
    const signer = privateKeyToAccount(generatePrivateKey());
    const wallet = createWalletClient({ account: signer, chain: client.chain!, transport: http(node.rpcUrl) });
    const setCoin = (wei: bigint) => node.rpc('hardhat_setBalance', [signer.address, `0x${wei.toString(16)}`]);
    await node.wallets[0]!.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [signer.address, 10n ** 18n] });
    const cases: PaymentAsset[] = [
      { type: 'native', value: parseEther('0.01') },
      { type: 'erc20', token, amount: 10n ** 18n },
    ];
    for (const asset of cases) {
      const payment = createStealthPayment(generateKeys().metaAddress);
      await setCoin(parseEther('1'));
      const first = await estimatePayment({ client, from: signer.address, payment, asset });
      if (first.short !== null) throw new Error('1 ETH covers the payment');
      await setCoin(first.coinNeeded);
      const estimate = await estimatePayment({ client, from: signer.address, payment, asset: first.asset });
      if (estimate.short !== null) throw new Error('exactly coinNeeded must cover the payment');
      expect(estimate.signWith.via).toBe('contract');
      expect(estimate.l1Fee).toBeGreaterThan(0n);
      const paid = await payStealth({ wallet, client, payment, asset: estimate.asset, signWith: estimate.signWith });
      expect(paid.hashes).toHaveLength(asset.type === 'native' ? 1 : 2);
      let charged = 0n;
      for (const hash of paid.hashes as Hash[]) charged += chargedBy(await client.getTransactionReceipt({ hash }));
      expect(charged).toBeLessThanOrEqual(estimate.fee);
      expect(await client.getBalance({ address: signer.address })).toBe(estimate.coinNeeded - estimate.sent - charged);
      expect(await client.getBalance({ address: payment.stealthAddress as Address })).toBe(estimate.sent);
    }
    expect(await client.getBalance({ address: WRAITH_PAY_ADDRESS })).toBe(0n);
  });
});
