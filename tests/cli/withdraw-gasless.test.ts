/**
 * `wraith withdraw --gasless` (issue 31) on anvil (Prague) with EntryPoint v0.8, Simple7702Account,
 * WraithTokenPaymaster and the alto bundler: a token payment made with no gas top-up (its
 * one-time address holds no coin) is priced, then claimed through the bundler; the address ends
 * at 0 tokens and 0 wei, the destination holds the amount minus a fee no higher than the one
 * shown before signing, and running the command again finds nothing left to do.
 */
import { metaAddressFingerprint } from '@wraith-pq/sdk';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { getAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEE_ACCOUNT, startGaslessChain, type GaslessChain } from '../helpers/account-abstraction.ts';
import { DEV_KEYS } from '../helpers/announcer-chain.ts';
import { startServer, temporaryDirectory } from '../helpers/server.ts';
import { jsonLines, recordingCli, requireCliBuild } from './run-cli.ts';

const PASSWORD = 'gasless-test-password';
const AMOUNT = 20_000_000n; // 20 TUSD (6 decimals)
const dir = temporaryDirectory('wraith-cli-gasless-');
const keystore = join(dir.path, 'bob.json');
const found = join(dir.path, 'found.json');
const { cli } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
let g: GaslessChain;
let meta: string;

beforeAll(async () => {
  requireCliBuild();
  g = await startGaslessChain();
  await g.mint(privateKeyToAccount(DEV_KEYS[0]!).address, 10n * AMOUNT);
  const created = await cli(['keys', 'new', '--out', keystore]);
  expect(created.code).toBe(0);
  meta = created.stdout.trim();
}, 180_000);
afterAll(async () => {
  await g?.stop();
  dir.remove();
});

describe('wraith withdraw --gasless', () => {
  it('claims a token payment that came with no coin, the fee in the token no more than shown, and a second run finds nothing to do', async () => {
    const paid = await cli(['pay', meta, '--fingerprint', metaAddressFingerprint(meta), '--base-units', '--token', g.token, '--amount', AMOUNT.toString(), '--gas-top-up', '0', '--announce', 'chain', '--rpc', g.chain.rpcUrl, '--json'], { WRAITH_PRIVATE_KEY: DEV_KEYS[0]! });
    expect(paid.code, paid.stderr).toBe(0);
    const stealth = getAddress(jsonLines(paid.stdout)[0]!.stealth_address as string);
    expect(await g.chain.publicClient.getBalance({ address: stealth })).toBe(0n);

    const scan = await cli(['scan', '--keystore', keystore, '--rpc', g.chain.rpcUrl, '--json']);
    expect(scan.code, scan.stderr).toBe(0);
    writeFileSync(found, scan.stdout);
    const to: Address = privateKeyToAccount(generatePrivateKey()).address;
    const feesBefore = await g.tokenBalance(g.paymaster);
    const args = ['withdraw', '--keystore', keystore, '--rpc', g.chain.rpcUrl, '--discoveries', found, '--all', '--to', to, '--gasless', '--bundler', g.bundlerUrl, '--paymaster', g.paymaster, '--yes', '--json'];
    const run = await cli(args);
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    const estimate = lines.find((l) => l.type === 'estimate')!;
    const shownFee = BigInt(estimate.withdrawals[0].fee);
    expect(estimate.withdrawals[0]).toMatchObject({ asset: g.token, fee_asset: g.token, fee_kind: 'maximum' });
    expect(run.stderr).toMatch(/fee at most [\d.]+ TUSD, paid in the token through the bundler/);
    const done = lines.find((l) => l.type === 'withdrawal')!;
    expect(done).toMatchObject({ status: 'done', destination: to, error: null });
    const fee = AMOUNT - (await g.tokenBalance(to));
    expect(fee).toBeGreaterThan(0n);
    expect(fee).toBeLessThanOrEqual(shownFee);
    expect((await g.tokenBalance(g.paymaster)) - feesBefore).toBe(fee);
    expect(await g.tokenBalance(stealth)).toBe(0n);
    expect(await g.chain.publicClient.getBalance({ address: stealth })).toBe(0n);

    // Resumable as today: what was withdrawn holds nothing and is not touched again.
    const again = await cli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/nothing to withdraw/);
  }, 300_000);

  it('takes the bundler and paymaster from the server\'s settings for the chain (--api) when the flags are absent', async () => {
    const server = await startServer({
      env: {
        REGISTRY_URL: `file:${dir.path}/registry.db`,
        CHAINS: JSON.stringify([{ name: 'local', rpc_url: g.chain.rpcUrl, tokens: [{ address: g.token, symbol: 'TUSD', decimals: 6 }], gasless: { bundler_url: g.bundlerUrl, paymaster: g.paymaster, tokens: [g.token] } }]),
        RATE_LIMIT_RPS: '0',
      },
    });
    try {
      const paid = await cli(['pay', meta, '--fingerprint', metaAddressFingerprint(meta), '--base-units', '--token', g.token, '--amount', AMOUNT.toString(), '--gas-top-up', '0', '--announce', 'chain', '--rpc', g.chain.rpcUrl, '--json'], { WRAITH_PRIVATE_KEY: DEV_KEYS[0]! });
      expect(paid.code, paid.stderr).toBe(0);
      const stealth = getAddress(jsonLines(paid.stdout)[0]!.stealth_address as string);
      const to: Address = privateKeyToAccount(generatePrivateKey()).address;
      const run = await cli(['withdraw', '--keystore', keystore, '--rpc', g.chain.rpcUrl, '--from-block', '0', '--address', stealth, '--to', to, '--token', g.token, '--gasless', '--api', server.url, '--yes', '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(jsonLines(run.stdout).find((l) => l.type === 'withdrawal')).toMatchObject({ status: 'done', destination: to, error: null });
      expect(await g.tokenBalance(stealth)).toBe(0n);
      expect(await g.tokenBalance(to)).toBeGreaterThan(0n);
      // The server was asked for the chain's settings only: no request named the one-time address or the destination.
      expect(server.log()).not.toContain(stealth.slice(2).toLowerCase());
      expect(server.log().toLowerCase()).not.toContain(to.slice(2).toLowerCase());
    } finally {
      await server.stop();
    }
  }, 300_000);

  it('needs both --bundler and --paymaster, or a server that names them', async () => {
    const run = await cli(['withdraw', '--keystore', 'missing.json', '--rpc', g.chain.rpcUrl, '--all', '--to', FEE_ACCOUNT, '--gasless', '--bundler', g.bundlerUrl, '--yes']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^wraith: USAGE: pass both --bundler <url> and --paymaster <address>, or neither/);
  });
});
