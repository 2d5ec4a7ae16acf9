/**
 * Issue 26, scope 2, on a real OP Stack node (Hardhat 3's EDR with `--chain-type op`, see
 * tests/helpers/op-node.ts), where every transaction also pays an L1 data fee outside its gas:
 * `wraith pay --announce chain` counts that fee for the transfer and for the announcement (over
 * a kilobyte of calldata) before signing. A payer whose coin covers the amount and the gas but
 * not the L1 fees is refused, and nothing is broadcast (before, the transfer would go out and the
 * announcement fail for want of its L1 fee, leaving money its recipient cannot find); with the
 * sum the check asked for, the payment and its announcement both go through, and the chain
 * charges no more than that sum.
 */
import { getAddress, parseEther, parseGwei, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaAddressFingerprint } from '@wraith-pq/sdk';
import { chargedBy, opNodeOrSkip, startOpNode, type OpNode } from '../helpers/op-node.ts';
import { temporaryDirectory } from '../helpers/server.ts';
import { jsonLines, recordingCli, requireCliBuild } from './run-cli.ts';

const run = opNodeOrSkip();
const PASSWORD = 'op-pay-test-password';
const AMOUNT = parseEther('0.01');
const PAYER_KEY = generatePrivateKey();
const PAYER = privateKeyToAccount(PAYER_KEY).address;
const dir = temporaryDirectory('wraith-cli-op-pay-');
const { cli, runs } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
let node: OpNode;
let metaAddress: string;

beforeAll(async () => {
  if (!run) return;
  requireCliBuild();
  node = await startOpNode();
  // A costly L1 (5,000 gwei, Base's scalars) under a cheap L2: the L1 data fee is most of what a payment costs.
  await node.setFees({ l1BaseFee: parseGwei('5000'), blobBaseFee: parseGwei('5'), baseFeeScalar: 1368, blobBaseFeeScalar: 810949, baseFee: 1_000n });
  const created = await cli(['keys', 'new', '--out', 'bob.json']);
  expect(created.code, created.stderr).toBe(0);
  metaAddress = created.stdout.trim();
}, 120_000);
afterAll(async () => {
  await node?.stop();
  dir.remove();
});

const setBalance = (wei: bigint) => node.rpc('hardhat_setBalance', [PAYER, `0x${wei.toString(16)}`]);
const pay = () => cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--announce', 'chain', '--rpc', node.rpcUrl, '--amount', `${AMOUNT}wei`, '--json'], { WRAITH_PRIVATE_KEY: PAYER_KEY });
const eth = (text: string) => parseEther(text);

describe.runIf(run)('wraith pay on an OP Stack chain', () => {
  it('refuses before signing a payment whose coin covers the amount and the gas but not the L1 data fees, and pays once it does', async () => {
    // What the payment needs, as the refusal says it: the total, and the L1 data fee within it.
    await setBalance(AMOUNT);
    const probe = await pay();
    expect(probe.code).toBe(1);
    const need = /needs up to ([\d.]+) ETH \(.*, of which ([\d.]+) ETH is their L1 data fee\); nothing was sent/.exec(probe.stderr);
    expect(need, probe.stderr).not.toBeNull();
    const [total, l1Fee] = [eth(need![1]!), eth(need![2]!)];
    expect(l1Fee).toBeGreaterThan(0n);
    // The L1 data fee is the larger part of the fees here: a check without it would pass the payer below.
    expect(l1Fee * 2n).toBeGreaterThan(total - AMOUNT);

    // Enough for the amount and every gas, short of the L1 fees: refused, no nonce moved.
    const short = total - l1Fee / 2n;
    await setBalance(short);
    const block = await node.publicClient.getBlockNumber();
    const refused = await pay();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^wraith: INSUFFICIENT_FUNDS: the paying account 0x[0-9a-fA-F]{40} holds [\d.]+ ETH, and this payment needs up to [\d.]+ ETH \(0\.01 ETH plus the gas of the payment and its announcement, of which [\d.]+ ETH is their L1 data fee\); nothing was sent — /);
    expect([await node.publicClient.getTransactionCount({ address: PAYER }), await node.publicClient.getBlockNumber()]).toEqual([0, block]);

    // The sum asked for: paid and announced, and the chain charged at most that. Every run draws a
    // fresh ephemeral key, so the next run's calldata (its zero bytes, its compressed size) and with
    // it the gas and L1 fee it must reserve move a little (CI once saw 6e10 wei, twelve gas per zero
    // byte): fund the probe's total plus a hundredth of its fees, far below the half L1 fee that was
    // refused above, and compare what the chain charged with the same margin.
    const margin = (total - AMOUNT) / 100n;
    const funded = total + margin;
    await setBalance(funded);
    const paid = await pay();
    expect(paid.code, paid.stderr).toBe(0);
    const result = jsonLines(paid.stdout)[0]!;
    let charged = 0n;
    let l1Charged = 0n;
    for (const hash of [result.payment_tx, result.announcement_tx] as Hash[]) {
      const receipt = await node.publicClient.getTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      charged += chargedBy(receipt);
      l1Charged += (receipt as { l1Fee?: bigint | null }).l1Fee ?? 0n;
    }
    expect(l1Charged).toBeGreaterThan(0n);
    expect(l1Charged).toBeLessThanOrEqual(l1Fee + l1Fee / 100n);
    expect(AMOUNT + charged).toBeLessThanOrEqual(total + margin);
    expect(await node.publicClient.getBalance({ address: PAYER })).toBe(funded - AMOUNT - charged);
    expect(await node.publicClient.getBalance({ address: getAddress(result.stealth_address) })).toBe(AMOUNT);
    console.log(`OP Stack payment: needed at most ${total - AMOUNT} wei of fees (${l1Fee} L1), charged ${charged} (${l1Charged} L1)`);
  }, 240_000);

  it('no run printed the password or the payer key', () => {
    const everything = runs.map((r) => r.stdout + r.stderr).join('\n');
    for (const secret of [PASSWORD, PAYER_KEY.slice(2)]) expect(everything).not.toContain(secret);
  });
});
