/**
 * Issue 26, scope 5 remainder, on anvil: `wraith withdraw --to-derive <path template>` sends each
 * payment to its own address of the user's HD wallet, the wallet given in WRAITH_DESTINATION_KEY
 * (a recovery phrase, or an extended public key that cannot spend), never an argument. Addresses
 * already used are passed over (anvil's funded dev accounts are indices 0-9 of its well-known
 * phrase), the index each payment was given is kept, and a run resumed after a failure sends the
 * failed payment to the index it was given, not a new one. The addresses agree with viem's own
 * BIP-39/BIP-32 derivation.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { erc20Abi, getAddress, parseEther, type Address } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaAddressFingerprint } from '@wraith-pq/sdk';
import { DEV_KEYS, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { temporaryDirectory } from '../helpers/server.ts';
import { ERROR_LINE, jsonLines, recordingCli, requireCliBuild } from './run-cli.ts';
import { startTokenChain } from './token-chain.ts';

const PASSWORD = 'derive-test-password';
/** anvil's well-known test phrase (its dev accounts are indices 0-9 of m/44'/60'/0'/0): public, never real funds. */
const PHRASE = 'test test test test test test test test test test test junk';
const TEMPLATE = "m/44'/60'/0'/0/{i}";
const dir = temporaryDirectory('wraith-cli-derive-');
const keystore = join(dir.path, 'bob.json');
const { cli, runs } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
let chain: AnnouncerChain;
let token: Address;
const paid: string[] = [];

/** viem's derivation: the reference the CLI's addresses must equal. */
const walletAddress = (index: number) => mnemonicToAccount(PHRASE, { addressIndex: index }).address;
const coinOf = (address: string) => chain.publicClient.getBalance({ address: getAddress(address) });
const tokensOf = (address: string) => chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [getAddress(address)] });
const withdraw = (args: string[], key = PHRASE) =>
  cli(['withdraw', '--keystore', keystore, '--rpc', chain.rpcUrl, '--discoveries', 'found.json', '--all', ...args], { WRAITH_DESTINATION_KEY: key });

beforeAll(async () => {
  requireCliBuild();
  ({ chain, token } = await startTokenChain());
  const created = await cli(['keys', 'new', '--out', keystore]);
  expect(created.code).toBe(0);
  const metaAddress = created.stdout.trim();
  // Coin, tokens without gas (their withdrawal fails until gas is sent), coin.
  for (const args of [['--amount', parseEther('0.2').toString()], ['--token', token, '--amount', '7000', '--gas-top-up', '0'], ['--amount', parseEther('0.1').toString()]]) {
    const run = await cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--base-units', '--announce', 'chain', '--rpc', chain.rpcUrl, '--json', ...args], { WRAITH_PRIVATE_KEY: DEV_KEYS[0]! });
    expect(run.code, run.stderr).toBe(0);
    paid.push(jsonLines(run.stdout)[0]!.stealth_address);
  }
  const scan = await cli(['scan', '--keystore', keystore, '--rpc', chain.rpcUrl, '--json']);
  expect(scan.code, scan.stderr).toBe(0);
  writeFileSync(join(dir.path, 'found.json'), scan.stdout);
}, 180_000);
afterAll(async () => {
  await chain?.stop();
  dir.remove();
});

describe('wraith withdraw --to-derive on anvil', () => {
  it('an extended public key gives the same fresh addresses as the phrase, passing over the used ones (estimate only)', async () => {
    const xpub = mnemonicToAccount(PHRASE, { path: "m/44'/60'/0'" }).getHdKey().publicExtendedKey;
    const run = await withdraw(['--to-derive', '0/{i}', '--dry-run', '--json'], xpub);
    expect(run.code, run.stderr).toBe(0);
    // Indices 0-9 are anvil's funded accounts: used, so passed over.
    expect(jsonLines(run.stdout).filter((l) => l.type === 'estimate').map((l) => [l.destination, l.destination_index])).toEqual([10, 11, 12].map((i) => [walletAddress(i), i]));
    expect(run.stderr).toContain(`destinations: 0/{i} of your extended public key, indices 10, 11, 12: check the first (${walletAddress(10)}) in your wallet`);
  });

  it('the wallet key is refused when it is malformed or cannot derive the path, without echoing it', async () => {
    const typo = PHRASE.replace('junk', 'junks');
    const wrongWord = await withdraw(['--to-derive', TEMPLATE, '--yes'], typo);
    const badChecksum = await withdraw(['--to-derive', TEMPLATE, '--yes'], PHRASE.replace('junk', 'test'));
    for (const run of [wrongWord, badChecksum]) {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(ERROR_LINE);
      expect(run.stderr).toMatch(/^wraith: INVALID_DESTINATION_KEY: WRAITH_DESTINATION_KEY is neither an extended public key .* nor a BIP-39 English recovery phrase with a valid checksum/);
      expect(run.stderr).not.toContain('test test');
    }
    const xpub = mnemonicToAccount(PHRASE, { path: "m/44'/60'/0'" }).getHdKey().publicExtendedKey;
    const hardened = await withdraw(['--to-derive', TEMPLATE, '--yes'], xpub);
    expect(hardened.code).toBe(2);
    expect(hardened.stderr).toMatch(/^wraith: USAGE: an extended public key derives non-hardened children only/);
    const noIndex = await withdraw(['--to-derive', "m/44'/60'/0'/0/5", '--yes']);
    expect(noIndex.stderr).toMatch(/^wraith: USAGE: --to-derive must be a BIP-32 path with \{i\} once/);
    const unset = await cli(['withdraw', '--keystore', keystore, '--rpc', chain.rpcUrl, '--discoveries', 'found.json', '--all', '--to-derive', TEMPLATE, '--yes']);
    expect(unset.stderr).toMatch(/^wraith: SECRET_REQUIRED: no destination wallet's extended public key or recovery phrase: WRAITH_DESTINATION_KEY is not set/);
    // Nothing moved.
    expect([await coinOf(paid[0]!), await coinOf(paid[2]!)]).toEqual([parseEther('0.2'), parseEther('0.1')]);
  }, 120_000);

  it('each payment goes to its own index; the failed one goes to the index it was given when the run is resumed', async () => {
    const first = await withdraw(['--to-derive', TEMPLATE, '--yes', '--json']);
    expect(first.code).toBe(1);
    const results = jsonLines(first.stdout).filter((l) => l.type === 'withdrawal');
    expect(results.map((r) => [r.stealth_address, r.destination, r.status])).toEqual([
      [paid[0], walletAddress(10), 'done'],
      [paid[1], walletAddress(11), 'failed'],
      [paid[2], walletAddress(12), 'done'],
    ]);
    expect(await coinOf(walletAddress(10))).toBeGreaterThan(parseEther('0.1999'));
    expect(await coinOf(walletAddress(11))).toBe(0n);

    // Gas for the token payment, then the same command: index 11 again. Its address has meanwhile
    // received 1 wei from elsewhere, so only the kept assignment (not a search for an unused
    // index, which would give 13) sends the payment there; the estimate says it is not fresh.
    for (const [to, value] of [[paid[1]!, parseEther('0.001')], [walletAddress(11), 1n]] as const) {
      await chain.publicClient.waitForTransactionReceipt({ hash: await chain.wallets[2]!.sendTransaction({ to: getAddress(to), value }) });
    }
    const resumed = await withdraw(['--to-derive', TEMPLATE, '--yes', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('indices 11: check the first');
    expect(jsonLines(resumed.stdout).find((l) => l.type === 'estimate')).toMatchObject({ destination: walletAddress(11), destination_index: 11, destination_used: true });
    const again = jsonLines(resumed.stdout).filter((l) => l.type === 'withdrawal');
    expect(again.map((r) => [r.stealth_address, r.destination, r.status])).toEqual([[paid[1], walletAddress(11), 'done']]);
    expect(await tokensOf(walletAddress(11))).toBe(7000n);
    for (const p of paid) expect([await coinOf(p), await tokensOf(p)]).toEqual([0n, 0n]);

    const history = await cli(['history', '--keystore', keystore, '--csv']);
    const [header, ...rows] = history.stdout.trim().split('\n').map((l) => l.replace(/\r$/, '').split(','));
    const [status, destination] = [header!.indexOf('status'), header!.indexOf('destination')];
    expect(rows.filter((r) => r[status] === 'withdrawn').map((r) => r[destination])).toEqual([walletAddress(10), walletAddress(12), walletAddress(11), walletAddress(11)]);
  }, 120_000);

  it('no run printed the phrase or the password', () => {
    const everything = runs.map((r) => r.stdout + r.stderr).join('\n');
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain('test test test');
    expect(everything).not.toMatch(/\n\s+at /);
  });
});
