/**
 * A new user's journey through the CLI (issue 32), on anvil with the ERC-5564 Announcer and a
 * test ERC-20 (TST), and the real server indexing that chain: Bob makes keys and shares a payment
 * link to his meta-address on IPFS; a payer pays it 0.5 ETH and 100 TST, written as people write
 * amounts; a mistyped flag is answered with the one meant; Bob's scan (the server's registry, the
 * chain read for units) shows both in their units, he withdraws everything to fresh addresses,
 * the scan then shows them spent, and `wraith history` has both directions, reconciling to the wei.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { erc20Abi, formatEther, getAddress, parseEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, metaAddressFingerprint } from '@wraith-pq/sdk';
import { DEV_KEYS, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';
import { jsonLines, recordingCli, requireCliBuild } from './run-cli.ts';
import { startTokenChain } from './token-chain.ts';

const PASSWORD = 'journey-password';
const PAYER_KEY = DEV_KEYS[0]!;
const dir = temporaryDirectory('wraith-cli-journey-');
const ipfsDir = temporaryDirectory('wraith-cli-journey-ipfs-');
const { cli, runs } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
const fresh = [privateKeyToAccount(generatePrivateKey()).address, privateKeyToAccount(generatePrivateKey()).address];
let chain: AnnouncerChain;
let token: Address;
let server: RunningServer;
let metaAddress: string;
let link: string;
let cid: string;

const tokensOf = (address: string) => chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [getAddress(address)] });
const coinOf = (address: string) => chain.publicClient.getBalance({ address: getAddress(address) });

beforeAll(async () => {
  requireCliBuild();
  ({ chain, token } = await startTokenChain());
  server = await startServer({
    env: { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '0', IPFS_STORE_DIR: ipfsDir.path, CHAIN_RPC_URL: chain.rpcUrl, CHAIN_NAME: 'ethereum', INDEXER_CONFIRMATIONS: '0', INDEXER_POLL_MS: '100' },
  });
  writeFileSync(join(dir.path, 'fresh.txt'), `${fresh.join('\n')}\n`);
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await chain?.stop();
  dir.remove();
  ipfsDir.remove();
});

describe('a new user\'s CLI journey', { timeout: 240_000 }, () => {
  const api = () => `${server.url}/api/v1`; // as copied from the server's docs: accepted with its /api/v1
  const bob = (args: string[]) => cli([...args]);

  it('Bob makes keys, sees his fingerprint, and shares a payment link to his meta-address on IPFS', async () => {
    const created = await bob(['keys', 'new', '--out', 'bob.json']);
    expect(created.code, created.stderr).toBe(0);
    metaAddress = created.stdout.trim();
    expect(created.stderr).toContain(`fingerprint: ${metaAddressFingerprint(metaAddress)}`);
    ({ cid } = await createClient({ baseUrl: server.url }).uploadMetaAddress({ meta_address: metaAddress }));
    link = `${server.url}/send?to=${cid}`;
  });

  it('the payer pays the link 0.5 ETH and 100 TST, in units; the CLI says where the meta-address came from', async () => {
    const pay = (args: string[]) => cli(['pay', link, '--announce', 'chain', '--rpc', chain.rpcUrl, '--api', api(), ...args], { WRAITH_PRIVATE_KEY: PAYER_KEY });
    const coin = await pay(['--amount', '0.5']);
    expect(coin.code, coin.stderr).toBe(0);
    expect(coin.stdout).toContain(`from IPFS ${cid}, content checked, named by the payment link`);
    expect(coin.stdout).toContain(`fingerprint: ${metaAddressFingerprint(metaAddress)}`);
    expect(coin.stdout).toMatch(/^paid: 0\.5 ETH \(500000000000000000 base units\) in 0x[0-9a-f]{64}$/m);
    const tokens = await pay(['--token', token, '--amount', '100']);
    expect(tokens.code, tokens.stderr).toBe(0);
    expect(tokens.stdout).toMatch(new RegExp(`^paid: 100 TST \\(100000000000000000000 base units of ${token}\\)`, 'm'));
  });

  it('a mistyped flag is answered with the one meant', async () => {
    const typo = await bob(['scan', '--keystore', 'bob.json', '--api', api(), '--rcp', chain.rpcUrl]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^wraith: USAGE: unknown option --rcp \(did you mean --rpc\?\)/);
  });

  it('Bob\'s scan shows both payments in their units', async () => {
    let found: Record<string, any>[] = [];
    // The server indexes the chain every 100 ms: scan until both announcements are in its registry.
    for (let attempt = 0; attempt < 30 && found.length < 2; attempt++) {
      const run = await bob(['scan', '--keystore', 'bob.json', '--api', api(), '--rpc', chain.rpcUrl, '--json', '--out', 'found.json']);
      expect(run.code, run.stderr).toBe(0);
      found = readFileSync(join(dir.path, 'found.json'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>).filter((l) => l.type === 'discovery');
    }
    expect(found.map((d) => [d.amount_formatted, d.symbol, d.state])).toEqual([
      ['0.5', 'ETH', 'unspent'],
      ['100', 'TST', 'unspent'],
    ]);
    const text = await bob(['scan', '--keystore', 'bob.json', '--api', api(), '--rpc', chain.rpcUrl]);
    expect(text.stdout).toMatch(/^found 0x[0-9a-fA-F]{40} .*amount 0\.5 ETH/m);
    expect(text.stdout).toMatch(/^found 0x[0-9a-fA-F]{40} .*amount 100 TST/m);
  });

  it('Bob withdraws everything to fresh addresses: the stealth addresses are left at 0, and the scan shows them spent', async () => {
    const run = await bob(['withdraw', '--keystore', 'bob.json', '--rpc', chain.rpcUrl, '--discoveries', 'found.json', '--all', '--to-file', 'fresh.txt', '--yes', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const found = jsonLines(readFileSync(join(dir.path, 'found.json'), 'utf8')).filter((l) => l.type === 'discovery');
    for (const d of found) {
      expect(await coinOf(d.stealth_address)).toBe(0n);
      expect(await tokensOf(d.stealth_address)).toBe(0n);
    }
    expect(await tokensOf(fresh[1]!)).toBe(parseEther('100'));
    const again = await bob(['scan', '--keystore', 'bob.json', '--api', api(), '--rpc', chain.rpcUrl]);
    expect(again.stdout.trim().split('\n').map((l) => l.split(' ', 1)[0])).toEqual(['spent', 'spent']);
    expect(again.stdout).toContain('(withdrawn: holds nothing now)');
  });

  it('history lists what came in and what went out, and the coin reconciles to the wei', async () => {
    const text = await bob(['history', '--keystore', 'bob.json']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/received 0\.5 ETH at 0x/);
    expect(text.stdout).toMatch(/received 100 TST at 0x/);
    expect(text.stdout).toMatch(/withdrew 100 TST 0x[0-9a-fA-F]{40} → /);
    expect(text.stdout).toMatch(/withdrew 0\.49\d* ETH 0x[0-9a-fA-F]{40} → /);

    const exported = JSON.parse((await bob(['history', '--keystore', 'bob.json', '--json'])).stdout) as { kind: string; payments: Record<string, any>[]; withdrawals: Record<string, any>[] };
    expect(exported.kind).toBe('wraith-history');
    expect(exported.payments).toHaveLength(2);
    const coinPayment = exported.payments.find((p) => p.symbol === 'ETH')!;
    const out = exported.withdrawals.filter((w) => w.stealthAddress.toLowerCase() === coinPayment.stealthAddress.toLowerCase());
    expect(out.reduce((sum, w) => sum + BigInt(w.amount) + BigInt(w.feePaid), 0n)).toBe(BigInt(coinPayment.amount));
    expect(await coinOf(fresh[0]!)).toBe(BigInt(out[0]!.amount));
    expect(formatEther(BigInt(coinPayment.amount))).toBe('0.5');
  });

  it('no run printed the password or the payer\'s key', () => {
    const everything = runs.map((r) => r.stdout + r.stderr).join('\n');
    for (const secret of [PASSWORD, PAYER_KEY.slice(2)]) expect(everything).not.toContain(secret);
  });
});
