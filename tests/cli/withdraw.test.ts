/**
 * Issue 26, CLI part, on anvil with the Announcer at its canonical address and a solc-compiled
 * ERC-20: `wraith pay --token` sends tokens with a gas top-up and announces them; a payer who
 * cannot cover a payment is refused before signing (its nonce does not move); `wraith withdraw`
 * prices every payment of a `wraith scan --json` file, refuses to send several to one address
 * unless told it links them, then withdraws them all to fresh addresses (tokens before coin), a
 * failing one reported with its reason while the others go through; `wraith history` lists what
 * was withdrawn, as CSV and JSON that agree with the chain's receipts. No run prints a secret.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { erc20Abi, getAddress, parseEther, type Address, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, HISTORY_CSV_COLUMNS, metaAddressFingerprint, openKeys, parseHistoryRecords, scanRegistry } from '@wraith-pq/sdk';
import { chainAnnouncementPages } from '@wraith-pq/sdk/evm';
import { DEV_KEYS, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { temporaryDirectory } from '../helpers/server.ts';
import { ERROR_LINE, jsonLines, recordingCli, requireCliBuild, runOnTerminal } from './run-cli.ts';
import { startTokenChain } from './token-chain.ts';

const PASSWORD = 'withdraw-test-password';
const PAYER_KEY = DEV_KEYS[0]!; // deploys the token: holds the whole supply
const TOKENLESS_KEY = DEV_KEYS[3]!;
const HUNDRED = 100n * 10n ** 18n;
const dir = temporaryDirectory('wraith-cli-withdraw-');
const keystore = join(dir.path, 'bob.json');
const found = join(dir.path, 'found.json');
const { cli, runs } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
let chain: AnnouncerChain;
let token: Address;
let metaAddress: string;

const coinOf = (address: string) => chain.publicClient.getBalance({ address: getAddress(address) });
const tokensOf = (address: string) => chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [getAddress(address)] });
const nonceOf = (key: `0x${string}`) => chain.publicClient.getTransactionCount({ address: privateKeyToAccount(key).address });
const fresh = (): Address => privateKeyToAccount(generatePrivateKey()).address;

/** `wraith ...args` on a pseudo-terminal, typing `answer` at the [y/N] question; kept with the other runs. */
async function onTerminal(args: string[], answer: string): Promise<{ code: number | null; output: string }> {
  const run = await runOnTerminal(args, answer, { cwd: dir.path, env: { WRAITH_PASSWORD: PASSWORD } });
  runs.push({ code: run.code, stdout: run.output, stderr: '' });
  return run;
}

beforeAll(async () => {
  requireCliBuild();
  ({ chain, token } = await startTokenChain());
  const created = await cli(['keys', 'new', '--out', keystore]);
  expect(created.code).toBe(0);
  metaAddress = created.stdout.trim();
}, 120_000);
afterAll(async () => {
  await chain?.stop();
  dir.remove();
});

describe('wraith pay --token, wraith withdraw, wraith history on anvil', { timeout: 240_000 }, () => {
  const paid: { stealth_address: string; payment_tx: Hash; top_up_tx: Hash | null; gas_top_up?: string }[] = [];
  const pay = (args: string[], key = PAYER_KEY) => cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--base-units', '--announce', 'chain', '--rpc', chain.rpcUrl, '--json', ...args], { WRAITH_PRIVATE_KEY: key });

  it('pay --token sends 100 TST with the default gas top-up and announces it; coin and a top-up of 0 pay too', async () => {
    const tokens = await pay(['--token', token, '--amount', HUNDRED.toString()]);
    expect(tokens.code, tokens.stderr).toBe(0);
    const first = jsonLines(tokens.stdout)[0]!;
    expect(first).toMatchObject({ token, symbol: 'TST', amount: HUNDRED.toString(), chain_id: 31337 });
    expect(BigInt(first.gas_top_up)).toBeGreaterThan(0n);
    expect(await tokensOf(first.stealth_address)).toBe(HUNDRED);
    expect(await coinOf(first.stealth_address)).toBe(BigInt(first.gas_top_up));
    const topUp = await chain.publicClient.getTransaction({ hash: first.top_up_tx });
    expect(topUp.value).toBe(BigInt(first.gas_top_up));

    const coin = await pay(['--amount', parseEther('0.25').toString()]);
    // Third: tokens with no gas (--gas-top-up 0), so their withdrawal must fail; fourth: coin again.
    const noGas = await pay(['--token', token, '--amount', '5000', '--gas-top-up', '0']);
    const coin2 = await pay(['--amount', parseEther('0.1').toString()]);
    for (const run of [coin, noGas, coin2]) expect(run.code, run.stderr).toBe(0);
    paid.push(first as never, ...[coin, noGas, coin2].map((r) => jsonLines(r.stdout)[0] as never));
    expect(paid[2]).toMatchObject({ gas_top_up: '0', top_up_tx: null });
    expect(await coinOf(paid[2]!.stealth_address)).toBe(0n);
  });

  it('a payment the payer cannot cover is refused before signing: no transaction, the nonce does not move', async () => {
    const [nonceBefore, tokenlessNonce, block] = await Promise.all([nonceOf(PAYER_KEY), nonceOf(TOKENLESS_KEY), chain.blockNumber()]);
    // Refusals send nothing, so they can run side by side.
    const [noTokens, tooManyTokens, tooMuchCoin, topUpTooBig] = await Promise.all([
      pay(['--token', token, '--amount', '1'], TOKENLESS_KEY),
      pay(['--token', token, '--amount', (10n ** 25n).toString()]),
      pay(['--amount', parseEther('1000000').toString()]),
      pay(['--token', token, '--amount', '1', '--gas-top-up', parseEther('1000000').toString()]),
    ]);
    expect(noTokens.stderr).toMatch(/^wraith: INSUFFICIENT_TOKENS: the paying account 0x[0-9a-fA-F]{40} holds 0 TST, less than the 0\.000000000000000001 TST to pay; nothing was sent — /);
    expect(tooManyTokens.stderr).toMatch(/^wraith: INSUFFICIENT_TOKENS: .* holds [\d.]+ TST, less than the 10000000 TST to pay/);
    expect(tooMuchCoin.stderr).toMatch(/^wraith: INSUFFICIENT_FUNDS: the paying account .* holds [\d.]+ ETH, and this payment needs up to [\d.]+ ETH \(1000000 ETH plus the gas/);
    expect(topUpTooBig.stderr).toMatch(/^wraith: INSUFFICIENT_FUNDS: .*a gas top-up of 1000000 ETH/);
    for (const run of [noTokens, tooManyTokens, tooMuchCoin, topUpTooBig]) {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(ERROR_LINE);
    }
    expect([await nonceOf(PAYER_KEY), await nonceOf(TOKENLESS_KEY), await chain.blockNumber()]).toEqual([nonceBefore, tokenlessNonce, block]);
  });

  it('withdraw refuses to send several payments to one address without --allow-linking, and asks before sending (on a terminal, naming the link)', async () => {
    const scan = await cli(['scan', '--keystore', keystore, '--rpc', chain.rpcUrl, '--json']);
    expect(scan.code, scan.stderr).toBe(0);
    writeFileSync(found, scan.stdout);
    expect(jsonLines(scan.stdout).filter((l) => l.type === 'discovery').map((l) => l.stealth_address)).toEqual(paid.map((p) => p.stealth_address));
    const block = await chain.blockNumber();

    const linked = await cli(['withdraw', '--keystore', keystore, '--rpc', chain.rpcUrl, '--discoveries', found, '--all', '--token', token, '--to', fresh(), '--yes']);
    expect(linked.code).toBe(1);
    expect(linked.stderr).toMatch(/^wraith: WOULD_LINK_PAYMENTS: 4 payments would go to one destination \(0x[0-9a-fA-F]{40}\): that links them on chain, .* — use --to-file with one fresh address per payment, or pass --allow-linking/m);

    // Usage mistakes are caught before the keystore is opened or the chain is read.
    const usage = await Promise.all([
      ['--all', '--to', '0x12'],
      ['--all', '--to-file', 'a.txt', '--token', 'USDC'],
      ['--to-file', 'a.txt'],
      ['--all', '--to', fresh(), '--to-file', 'a.txt'],
    ].map((args) => cli(['withdraw', '--keystore', 'missing.json', '--rpc', chain.rpcUrl, ...args])));
    for (const run of usage) {
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^wraith: USAGE: .* — usage: wraith withdraw /);
    }

    // Without a terminal to ask and without --yes: the estimate is shown, nothing is sent.
    const destinations = join(dir.path, 'unused.txt');
    writeFileSync(destinations, `${[fresh(), fresh(), fresh(), fresh()].join('\n')}\n`);
    const unconfirmed = await cli(['withdraw', '--keystore', keystore, '--rpc', chain.rpcUrl, '--discoveries', found, '--all', '--token', token, '--to-file', destinations]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain('4 payments to withdraw on chain 31337:');
    expect(unconfirmed.stderr).toMatch(/100 TST, fee at most 0\.0\d+ ETH/);
    expect(unconfirmed.stderr).toMatch(/0\.2499\d+ ETH, fee about 0\.0\d+ ETH at today's prices; 0 wei stays behind/);
    expect(unconfirmed.stderr).toMatch(/cannot withdraw: INSUFFICIENT_GAS: /);
    expect(unconfirmed.stderr).toMatch(/wraith: CONFIRMATION_REQUIRED: .* — read the estimate above, then run again with --yes/);

    // On a terminal the question names the link --allow-linking accepts; answering no sends nothing.
    const asked = await onTerminal(['withdraw', '--keystore', keystore, '--rpc', chain.rpcUrl, '--discoveries', found, '--all', '--to', fresh(), '--allow-linking'], 'n');
    expect(asked.output).toContain('Withdraw 4 payments? Several go to one destination: this links them on chain. [y/N] ');
    expect(asked.output).toMatch(/wraith: CANCELLED: nothing was withdrawn/);
    expect(asked.code).toBe(1);
    expect(await chain.blockNumber()).toBe(block);
  }, 120_000); // eleven runs of the CLI: close to a minute when the machine is shared

  it('withdraw --all --to-file moves each payment to its own fresh address, tokens before coin; the one without gas fails with its reason, the rest go through, and the run resumes; dust is left', async () => {
    const destinations = paid.map(() => fresh());
    writeFileSync(join(dir.path, 'fresh.txt'), `# one fresh address per payment\n${destinations.join('\n')}\n`);
    // No --token: the payments' notes name their token transfers, and those tokens are withdrawn too.
    const run = await cli(['withdraw', '--keystore', keystore, '--rpc', chain.rpcUrl, '--discoveries', found, '--all', '--to-file', 'fresh.txt', '--yes', '--json']);
    expect(run.code).toBe(1); // one payment failed
    expect(run.stderr).toMatch(/wraith: WITHDRAWAL_FAILED: 1 of 4 payments could not be withdrawn/);
    expect(run.stderr).toMatch(/\[1\/4\] 0x[0-9a-fA-F]{40}: 100 TST sent in 0x[0-9a-f]{64}/);
    expect(run.stderr).toMatch(/\[3\/4\] 0x[0-9a-fA-F]{40}: FAILED: INSUFFICIENT_GAS: .* — send at least \d+ wei of the coin to 0x/);
    const lines = jsonLines(run.stdout);
    expect(lines.filter((l) => l.type === 'estimate')).toHaveLength(4);
    const results = lines.filter((l) => l.type === 'withdrawal');
    expect(results.map((r) => [r.stealth_address, r.destination, r.status])).toEqual(paid.map((p, i) => [p.stealth_address, destinations[i], i === 2 ? 'failed' : 'done']));
    expect(results[2]!.error).toMatchObject({ code: 'INSUFFICIENT_GAS' });
    expect(lines.at(-1)).toEqual({ type: 'summary', chain_id: 31337, payments: 4, done: 3, failed: 1, skipped: 0, not_started: 0 });
    // The token payment: its tokens first, then the coin left of its top-up.
    expect(results[0]!.withdrawals.map((w: { asset: string }) => w.asset)).toEqual([token, 'native']);

    for (const [i, result] of results.entries()) {
      const stealth = paid[i]!.stealth_address;
      if (i === 2) {
        expect([await tokensOf(stealth), await coinOf(stealth), await tokensOf(destinations[i]!)]).toEqual([5000n, 0n, 0n]);
        continue;
      }
      expect([await coinOf(stealth), await tokensOf(stealth), result.left_behind]).toEqual([0n, 0n, '0']);
      let coin = 0n;
      for (const w of result.withdrawals) {
        const receipt = await chain.publicClient.getTransactionReceipt({ hash: w.hash });
        expect(receipt.status).toBe('success');
        expect(receipt.from.toLowerCase()).toBe(stealth.toLowerCase());
        expect(BigInt(w.fee_paid)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
        if (w.asset === 'native') coin += BigInt(w.amount);
        else expect(BigInt(w.amount)).toBe(HUNDRED);
      }
      expect(await coinOf(destinations[i]!)).toBe(coin);
      expect(await tokensOf(destinations[i]!)).toBe(i === 0 ? HUNDRED : 0n);
    }
    expect(await coinOf(destinations[1]!)).toBeGreaterThan(parseEther('0.2499'));

    // Gas sent to the failed payment, the same command again: only it is left, and it goes to
    // the address it was given (unused), never to one an earlier run filled.
    const gas = await chain.wallets[2]!.sendTransaction({ to: getAddress(paid[2]!.stealth_address), value: parseEther('0.001') });
    await chain.publicClient.waitForTransactionReceipt({ hash: gas });
    const resumed = await cli(['withdraw', '--keystore', keystore, '--rpc', chain.rpcUrl, '--discoveries', found, '--all', '--to-file', 'fresh.txt', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`^withdrew ${paid[2]!.stealth_address} → ${destinations[2]}: 0\\.000000000000005 TST in 0x[0-9a-f]{64} \\(fee [\\d.]+ ETH\\), [\\d.]+ ETH in 0x[0-9a-f]{64} \\(fee [\\d.]+ ETH\\)\n$`));
    for (const p of paid) expect([await coinOf(p.stealth_address), await tokensOf(p.stealth_address)]).toEqual([0n, 0n]);
    expect(await tokensOf(destinations[2]!)).toBe(5000n);

    // Coin worth less than the fee of moving it is left, said so, and not a failure.
    const dust = await chain.wallets[2]!.sendTransaction({ to: getAddress(paid[1]!.stealth_address), value: 1000n });
    await chain.publicClient.waitForTransactionReceipt({ hash: dust });
    const dusty = await cli(['withdraw', '--keystore', keystore, '--rpc', chain.rpcUrl, '--discoveries', found, '--all', '--to', fresh(), '--yes']);
    expect(dusty.code, dusty.stderr).toBe(0);
    expect(dusty.stderr).toContain('0.000000000000001 ETH of the coin stays behind: less than the fee of moving it');
    expect(dusty.stdout).toBe(`skipped ${paid[1]!.stealth_address}: 0.000000000000001 ETH stays, less than the fee of moving it\n`);
    expect(await coinOf(paid[1]!.stealth_address)).toBe(1000n);
  });

  it('history --csv and --json list every withdrawal and the failure, agreeing with the receipts; the file on disk is sealed', async () => {
    const csv = await cli(['history', '--keystore', keystore, '--csv']);
    expect(csv.code, csv.stderr).toBe(0);
    // The SDK's export, the web app's columns: a row per payment the scan found, then one per withdrawal or failure.
    const [header, ...all] = csv.stdout.trim().split('\n').map((line) => line.replace(/\r$/, '').split(','));
    expect(header).toEqual([...HISTORY_CSV_COLUMNS]);
    const column = (row: string[], name: string) => row[header!.indexOf(name)]!;
    expect(all.filter((r) => column(r, 'type') === 'payment').map((r) => column(r, 'stealth_address'))).toEqual(paid.map((p) => p.stealth_address));
    const rows = all.filter((r) => column(r, 'type') === 'withdrawal');
    expect(rows.map((r) => column(r, 'status'))).toEqual(['withdrawn', 'withdrawn', 'withdrawn', 'failed', 'withdrawn', 'withdrawn', 'withdrawn']);
    for (const row of rows.filter((r) => column(r, 'status') === 'withdrawn')) {
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: column(row, 'tx_hash') as Hash });
      expect(BigInt(column(row, 'fee_paid'))).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
      expect(BigInt(column(row, 'fee_paid'))).toBeLessThanOrEqual(BigInt(column(row, 'fee_bound')));
    }
    const tst = rows.find((r) => column(r, 'symbol') === 'TST')!;
    expect([column(tst, 'amount'), column(tst, 'decimals')]).toEqual([HUNDRED.toString(), '18']);

    const exported = parseHistoryRecords(JSON.parse((await cli(['history', '--keystore', keystore, '--json'])).stdout));
    expect(exported.withdrawals.map((r) => r.hash)).toEqual(rows.map((r) => column(r, 'tx_hash') || null));
    const sealed = readFileSync(`${keystore}.history`, 'utf8');
    expect(sealed).not.toContain(paid[0]!.stealth_address.slice(2).toLowerCase());
    expect(sealed).not.toContain(paid[0]!.stealth_address.slice(2));

    const wrong = await cli(['history', '--keystore', keystore, '--csv'], { WRAITH_PASSWORD: 'not-the-password' });
    expect(wrong.stderr).toMatch(/^wraith: WRONG_PASSWORD: /);
    expect(wrong.stdout).toBe('');
  });

  it('no run printed the password, a payer key, a secret key or a one-time key', async () => {
    const keys = await openKeys(readFileSync(keystore, 'utf8'), PASSWORD);
    const oneTime: string[] = [];
    for await (const batch of scanRegistry(chainAnnouncementPages({ client: chain.publicClient }), keys)) {
      for (const d of batch.discoveries) oneTime.push(bytesToHex(d.stealthSecretKey!).replace(/^0x/, ''));
    }
    expect(oneTime).toHaveLength(4);
    const secrets = [PASSWORD, PAYER_KEY.slice(2), TOKENLESS_KEY.slice(2), bytesToHex(keys.spendingSecretKey).replace(/^0x/, ''), ...oneTime];
    const everything = runs.map((r) => r.stdout + r.stderr).join('\n');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/\n\s+at /);
  });
});
