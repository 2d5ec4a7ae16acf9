/**
 * ERC-6538 registration on a real OP Stack node (Hardhat 3's EDR with `--chain-type op`, see
 * tests/helpers/op-node.ts), where the 1,250 bytes of calldata also pay an L1 data fee outside the
 * gas: the fee `estimateRegistration` gives (the one Receive shows "at most") includes it, and
 * bounds what the chain charges, where gas × max fee alone falls short.
 */
import { readFileSync } from 'node:fs';
import { parseGwei, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc8441KeysOf, generateKeys } from '@wraith-pq/sdk';
import { ERC6538_REGISTRY_ADDRESS, estimateRegistration, registerKeysParameters } from '@wraith-pq/sdk/evm';
import { chargedBy, opNodeOrSkip, startOpNode, type OpNode } from '../helpers/op-node.ts';

const run = opNodeOrSkip();
let node: OpNode;

beforeAll(async () => {
  if (!run) return;
  node = await startOpNode();
  await node.setCode(ERC6538_REGISTRY_ADDRESS, readFileSync(new URL('../fixtures/erc6538/registry.runtime.hex', import.meta.url), 'utf8').trim() as Hex);
  // A costly L1 under a cheap L2 (Base's scalars): the L1 data fee is most of what the registration costs.
  await node.setFees({ l1BaseFee: parseGwei('200'), blobBaseFee: parseGwei('5'), baseFeeScalar: 1368, blobBaseFeeScalar: 810949, baseFee: 1_000n });
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

describe.runIf(run)('ERC-6538 registration on an OP Stack chain', () => {
  it('shows a fee that includes the L1 data fee of the 1,250 bytes and bounds what the chain charges', async () => {
    const wallet = node.wallets[2]!;
    const { metaAddress } = erc8441KeysOf(generateKeys());
    const estimate = await estimateRegistration({ client: node.publicClient, from: wallet.account.address, metaAddress });
    expect(estimate.l1Fee).toBeGreaterThan(0n);
    expect(estimate.maxFee).toBeGreaterThanOrEqual(estimate.gas * estimate.maxFeePerGas + estimate.l1Fee);
    const call = registerKeysParameters({ metaAddress });
    const hash = await wallet.sendTransaction({ to: call.address, data: call.data, gas: estimate.gas });
    const receipt = await node.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    const charged = chargedBy(receipt);
    expect(charged).toBeLessThanOrEqual(estimate.maxFee);
    // Gas × max fee alone, the figure shown before, was less than the chain took.
    expect(charged).toBeGreaterThan(estimate.gas * estimate.maxFeePerGas);
  });
});
