/**
 * Send's check before the wallet signs (app/(web)/_lib/payment-checks.ts) on a real OP Stack node
 * (Hardhat 3's EDR with `--chain-type op`, see tests/helpers/op-node.ts), where the transfer and
 * the announcement's kilobyte of calldata also pay an L1 data fee outside the gas: a wallet whose
 * coin falls a wei short of the amount plus the fees is refused with how much of the fees is L1
 * data fee (most of them here), and nothing is sent; holding the bound the check gave, it passes,
 * and the payment signed at the check's price goes through.
 */
import { createWalletClient, http, parseEther, parseGwei } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStealthPayment, generateKeys } from '@wraith-pq/sdk';
import { payStealth } from '@wraith-pq/sdk/evm';
import { checkWalletCovers, PaymentNotCoveredError } from '../../app/(web)/_lib/payment-checks.ts';
import { chargedBy, opNodeOrSkip, startOpNode, type OpNode } from '../helpers/op-node.ts';

const run = opNodeOrSkip();
const AMOUNT = parseEther('0.01');
let node: OpNode;

beforeAll(async () => {
  if (!run) return;
  node = await startOpNode();
  // A costly L1 under a cheap L2 (Base's scalars): the L1 data fee is most of what a payment costs.
  await node.setFees({ l1BaseFee: parseGwei('5000'), blobBaseFee: parseGwei('5'), baseFeeScalar: 1368, blobBaseFeeScalar: 810949, baseFee: 1_000n });
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

describe.runIf(run)('the Send page on an OP Stack chain', () => {
  it('counts the L1 data fee in the fees a payment needs before signing, and says how much of the fees it is', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const account = signer.address;
    const payment = createStealthPayment(generateKeys().metaAddress);
    const check = () => checkWalletCovers({ client: node.publicClient, account, payment, asset: { type: 'native', value: AMOUNT }, token: null, coinSymbol: 'ETH' });
    await node.rpc('hardhat_setBalance', [account, `0x${parseEther('100').toString(16)}`]);
    const { gasBound } = await check();
    await node.rpc('hardhat_setBalance', [account, `0x${(AMOUNT + gasBound - 1n).toString(16)}`]);
    const refused = await check().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PaymentNotCoveredError);
    const l1Fee = /of network fees, of which ([\d.]+) ETH is the L1 data fee\): 0\.000000000000000001 ETH short\. Nothing was sent/.exec((refused as Error).message);
    expect(l1Fee, (refused as Error).message).not.toBeNull();
    // Most of the fees with a costly L1: what gas × price alone (the check before) left out.
    expect(parseEther(l1Fee![1]!) * 2n).toBeGreaterThan(gasBound);
    expect(await node.publicClient.getTransactionCount({ address: account })).toBe(0);
    await node.rpc('hardhat_setBalance', [account, `0x${(AMOUNT + gasBound).toString(16)}`]);
    const { signWith } = await check();
    // Holding exactly that, the payment goes through when signed at the check's price (Send does so):
    // the transfer and the announcement, L1 data fees and all, and what was not charged stays.
    const wallet = createWalletClient({ account: signer, chain: node.publicClient.chain!, transport: http(node.rpcUrl) });
    const paid = await payStealth({ wallet, client: node.publicClient, payment, asset: { type: 'native', value: AMOUNT }, signWith });
    const receipts = await Promise.all([paid.paymentHash, paid.announcementHash].map((hash) => node.publicClient.getTransactionReceipt({ hash })));
    const charged = receipts.reduce((sum, receipt) => sum + chargedBy(receipt), 0n);
    expect(charged).toBeLessThanOrEqual(gasBound);
    expect(await node.publicClient.getBalance({ address: account })).toBe(gasBound - charged);
    expect(await node.publicClient.getBalance({ address: payment.stealthAddress as `0x${string}` })).toBe(AMOUNT);
  });
});
