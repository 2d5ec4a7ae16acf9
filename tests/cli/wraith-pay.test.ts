/**
 * Issue 30, CLI part: on a chain where WraithPay is deployed, `wraith pay` pays and announces in
 * one transaction (a token payment's top-up inside it), and `wraith withdraw` still finds the
 * token of such a payment by itself: the note then names no separate transfer, so the token is
 * read from the announcing transaction, and the tokens leave before the coin that pays their gas.
 */
import { metaAddressFingerprint } from '@wraith-pq/sdk';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { erc20Abi, getAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployWraithPay, WRAITH_PAY_ADDRESS } from '@wraith-pq/sdk/evm';
import { DEV_KEYS, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { temporaryDirectory } from '../helpers/server.ts';
import { jsonLines, recordingCli, requireCliBuild } from './run-cli.ts';
import { startTokenChain } from './token-chain.ts';

const PASSWORD = 'wraith-pay-cli-password';
const HUNDRED = 100n * 10n ** 18n;
const dir = temporaryDirectory('wraith-cli-wraith-pay-');
const keystore = join(dir.path, 'bob.json');
const { cli } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
let chain: AnnouncerChain;
let token: Address;
let metaAddress: string;

beforeAll(async () => {
  requireCliBuild();
  ({ chain, token } = await startTokenChain());
  await deployWraithPay({ client: chain.publicClient, wallet: chain.wallets[1]! });
  const created = await cli(['keys', 'new', '--out', keystore]);
  expect(created.code).toBe(0);
  metaAddress = created.stdout.trim();
}, 120_000);
afterAll(async () => {
  await chain?.stop();
  dir.remove();
});

describe('wraith pay and withdraw where WraithPay is deployed', () => {
  it('pays tokens with their top-up and announces them in one transaction; withdraw finds the token without --token', { timeout: 180_000 }, async () => {
    const paid = await cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--base-units', '--announce', 'chain', '--rpc', chain.rpcUrl, '--json', '--token', token, '--amount', HUNDRED.toString()], { WRAITH_PRIVATE_KEY: DEV_KEYS[0]! });
    expect(paid.code, paid.stderr).toBe(0);
    const line = jsonLines(paid.stdout)[0]!;
    expect(line).toMatchObject({ token, top_up_tx: null, announcement_tx: line.payment_tx });
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: line.payment_tx });
    expect(getAddress(receipt.to!)).toBe(WRAITH_PAY_ADDRESS);
    const stealth = getAddress(line.stealth_address);
    expect(await chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [stealth] })).toBe(HUNDRED);
    expect(await chain.publicClient.getBalance({ address: stealth })).toBe(BigInt(line.gas_top_up));

    const scan = await cli(['scan', '--keystore', keystore, '--rpc', chain.rpcUrl, '--json']);
    expect(scan.code, scan.stderr).toBe(0);
    writeFileSync(join(dir.path, 'found.json'), scan.stdout);
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    writeFileSync(join(dir.path, 'fresh.txt'), `${destination}\n`);
    const run = await cli(['withdraw', '--keystore', keystore, '--rpc', chain.rpcUrl, '--discoveries', 'found.json', '--all', '--to-file', 'fresh.txt', '--yes', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const [result] = jsonLines(run.stdout).filter((l) => l.type === 'withdrawal');
    expect(result!.withdrawals.map((w: { asset: string }) => w.asset)).toEqual([token, 'native']);
    expect(await chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [destination] })).toBe(HUNDRED);
    expect(await chain.publicClient.getBalance({ address: stealth })).toBe(0n);
    expect(await chain.publicClient.getBalance({ address: destination })).toBeGreaterThan(0n);
    expect(await chain.publicClient.getBalance({ address: WRAITH_PAY_ADDRESS })).toBe(0n);
  });
});
