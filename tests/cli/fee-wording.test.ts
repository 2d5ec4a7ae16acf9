/**
 * Issue 32, item 5, on anvil: `wraith withdraw --dry-run` says "exactly" only for a fee that is
 * exact when signed, the run's first transaction, signed at the price the estimate read. Every
 * later leg (the coin left after a token withdrawal, the next payment) is priced again after the
 * transactions before it were mined and moved the base fee (EIP-1559), so its figure is said to
 * hold "at today's prices". The run then charges exactly the first figure and, for a later leg,
 * a fee other than the one estimated: the wording matches what is charged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatEther, getAddress, type Address, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaAddressFingerprint } from '@wraith-pq/sdk';
import { DEV_KEYS, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { temporaryDirectory } from '../helpers/server.ts';
import { jsonLines, recordingCli, requireCliBuild } from './run-cli.ts';
import { startTokenChain } from './token-chain.ts';

const PASSWORD = 'fee-wording-password';
const dir = temporaryDirectory('wraith-cli-fees-');
const keystore = join(dir.path, 'bob.json');
const { cli } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
let chain: AnnouncerChain;
let token: Address;
let metaAddress: string;

beforeAll(async () => {
  requireCliBuild();
  ({ chain, token } = await startTokenChain());
  const created = await cli(['keys', 'new', '--out', keystore]);
  metaAddress = created.stdout.trim();
  const pay = (args: string[]) => cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--announce', 'chain', '--rpc', chain.rpcUrl, '--json', ...args], { WRAITH_PRIVATE_KEY: DEV_KEYS[0]! });
  // The coin payment first, so the run's first transaction is its exact one; then 100 tokens with a gas top-up.
  for (const run of [await pay(['--amount', '0.5']), await pay(['--token', token, '--amount', '100'])]) expect(run.code, run.stderr).toBe(0);
  writeFileSync(join(dir.path, 'fresh.txt'), `${privateKeyToAccount(generatePrivateKey()).address}\n${privateKeyToAccount(generatePrivateKey()).address}\n`);
}, 180_000);
afterAll(async () => {
  await chain?.stop();
  dir.remove();
});

type Estimate = { stealth_address: string; withdrawals: { asset: string; fee: string; fee_kind: string; at_todays_prices: boolean }[] };
type Withdrawal = { stealth_address: string; withdrawals: { asset: string; hash: Hash; fee_paid: string }[] };

describe('the fee words of wraith withdraw', { timeout: 240_000 }, () => {
  it('the dry run says "exactly" for the first transaction only and "at today\'s prices" for later legs; the run charges exactly the first and otherwise for the later coin leg', async () => {
    const flags = ['withdraw', '--keystore', keystore, '--rpc', chain.rpcUrl, '--all', '--to-file', 'fresh.txt', '--json'];
    const dry = await cli([...flags, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const estimates = jsonLines(dry.stdout).filter((l) => l.type === 'estimate') as Estimate[];
    expect(estimates.map((e) => e.withdrawals.map((w) => [w.asset === 'native' ? 'native' : 'token', w.fee_kind, w.at_todays_prices]))).toEqual([
      [['native', 'exact', false]],
      [['token', 'maximum', true], ['native', 'exact', true]],
    ]);
    const [coin, tokens] = estimates as [Estimate, Estimate];
    const figure = (fee: string) => formatEther(BigInt(fee));
    const text = dry.stderr;
    expect(text).toContain(`fee exactly ${figure(coin.withdrawals[0]!.fee)} ETH; 0 wei stays behind`);
    expect(text).toContain(`100 TST, fee at most ${figure(tokens.withdrawals[0]!.fee)} ETH at today's prices`);
    expect(text).toMatch(new RegExp(`ETH \\(about, at today's prices: the coin left once the token withdrawal has paid its gas\\), fee about ${figure(tokens.withdrawals[1]!.fee).replace('.', '\\.')} ETH at today's prices`));
    expect(text.match(/exactly/g)).toHaveLength(1);

    const run = await cli([...flags, '--yes']);
    expect(run.code, run.stderr).toBe(0);
    const done = jsonLines(run.stdout).filter((l) => l.type === 'withdrawal') as Withdrawal[];
    const paid = (w: Withdrawal, asset: 'native' | 'token') => w.withdrawals.find((x) => (asset === 'native') === (x.asset === 'native'))!;
    const [coinDone, tokensDone] = [done.find((d) => d.stealth_address === coin.stealth_address)!, done.find((d) => d.stealth_address === tokens.stealth_address)!];
    const charged = async (hash: Hash) => {
      const receipt = await chain.publicClient.getTransactionReceipt({ hash });
      return receipt.gasUsed * receipt.effectiveGasPrice;
    };
    // "exactly": charged to the wei.
    expect(await charged(paid(coinDone, 'native').hash)).toBe(BigInt(coin.withdrawals[0]!.fee));
    // "at today's prices": the earlier legs moved the base fee, and the later coin leg was charged another figure.
    expect(await charged(paid(tokensDone, 'native').hash)).not.toBe(BigInt(tokens.withdrawals[1]!.fee));
    expect(BigInt(paid(tokensDone, 'native').fee_paid)).toBe(await charged(paid(tokensDone, 'native').hash));
    for (const address of [coin.stealth_address, tokens.stealth_address]) expect(await chain.publicClient.getBalance({ address: getAddress(address) })).toBe(0n);
  });
});
