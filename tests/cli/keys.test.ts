/**
 * `wraith keys` and `wraith bench` as a user runs them (child processes of the built CLI):
 * keystores written owner-only and readable by the SDK, the meta-address printed and nothing
 * secret, a wrong or missing password refused with the keystore's error code, keys from a wallet
 * signature read from stdin or the environment (never argv), and usage mistakes exiting 2.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, deriveKeysFromSignature, formatMetaAddressUri, openKeys } from '@wraith-pq/sdk';
import { temporaryDirectory } from '../helpers/server.ts';
import { ERROR_LINE, jsonLines, requireCliBuild, runCli, type CliRun } from './run-cli.ts';

const PASSWORD = 'correct horse battery staple 7';
const dir = temporaryDirectory('wraith-cli-keys-');
const keystore = join(dir.path, 'keys.json');
const runs: CliRun[] = [];
const cli = async (...args: Parameters<typeof runCli>) => {
  const run = await runCli(...args);
  runs.push(run);
  return run;
};

beforeAll(() => requireCliBuild());
afterAll(() => dir.remove());

describe('wraith keys', () => {
  let metaAddress: string;

  it('keys new writes an owner-only keystore the SDK opens, and prints its meta-address', async () => {
    const run = await cli(['keys', 'new', '--out', keystore], { env: { WRAITH_PASSWORD: PASSWORD } });
    expect(run.code).toBe(0);
    expect(statSync(keystore).mode & 0o777).toBe(0o600);
    const keys = await openKeys(readFileSync(keystore, 'utf8'), PASSWORD);
    metaAddress = formatMetaAddressUri(keys.metaAddress);
    expect(run.stdout).toBe(`${metaAddress}\n`);
    expect(run.stderr).toMatch(/keystore written to .*keys\.json/);
  });

  it('keys show prints the same meta-address, then its ERC-8441 form (and JSON with --json)', async () => {
    const plain = await cli(['keys', 'show', '--keystore', keystore], { env: { WRAITH_PASSWORD: PASSWORD } });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(new RegExp(`^${metaAddress}\nst:eth:0x[0-9a-f]{2500}\n$`));
    const json = await cli(['keys', 'show', '--keystore', keystore, '--json'], { env: { WRAITH_PASSWORD: PASSWORD } });
    const [shown] = jsonLines(json.stdout);
    expect(shown).toMatchObject({ keystore, meta_address: metaAddress, erc8441_meta_address: plain.stdout.split('\n')[1] });
    expect(Object.keys(shown!).sort()).toEqual(['erc8441_fingerprint', 'erc8441_meta_address', 'fingerprint', 'keystore', 'meta_address', 'spending_public_key', 'viewing_public_key_bytes']);
  });

  it('a wrong password is one line with WRONG_PASSWORD and exit status 1', async () => {
    const run = await cli(['keys', 'show', '--keystore', keystore], { env: { WRAITH_PASSWORD: 'not the password' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toMatch(/^wraith: WRONG_PASSWORD: Wrong password for this keystore — check the password/);
    expect(run.stderr).not.toContain('not the password');
  });

  it('without WRAITH_PASSWORD and without a terminal it asks for the variable instead of hanging', async () => {
    const run = await cli(['keys', 'show', '--keystore', keystore]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^wraith: PASSWORD_REQUIRED: .* — set WRAITH_PASSWORD/);
  });

  it('refuses to overwrite a keystore unless --force, and names a missing or foreign file', async () => {
    const again = await cli(['keys', 'new', '--out', keystore], { env: { WRAITH_PASSWORD: PASSWORD } });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^wraith: FILE_EXISTS: .* — .*--force/);
    const missing = await cli(['keys', 'show', '--keystore', join(dir.path, 'nope.json')], { env: { WRAITH_PASSWORD: PASSWORD } });
    expect(missing.stderr).toMatch(/^wraith: FILE_NOT_FOUND: /);
    const foreign = join(dir.path, 'package.json');
    await import('node:fs').then((fs) => fs.writeFileSync(foreign, '{"name":"x"}'));
    const notKeystore = await cli(['keys', 'show', '--keystore', foreign], { env: { WRAITH_PASSWORD: PASSWORD } });
    expect(notKeystore.code).toBe(1);
    expect(notKeystore.stderr).toMatch(/^wraith: INVALID_KEYSTORE: /);
  });

  it('keys from-signature derives the keys deriveKeysFromSignature gives, from stdin or WRAITH_SIGNATURE', async () => {
    const signature = await privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d').signMessage({ message: 'Wraith stealth keys v1' });
    const expected = formatMetaAddressUri(deriveKeysFromSignature(signature).metaAddress);
    const fromStdin = await cli(['keys', 'from-signature', '--out', join(dir.path, 'sig1.json')], { env: { WRAITH_PASSWORD: PASSWORD }, input: `${signature}\n` });
    expect(fromStdin).toMatchObject({ code: 0, stdout: `${expected}\n` });
    const fromEnv = await cli(['keys', 'from-signature', '--out', join(dir.path, 'sig2.json')], { env: { WRAITH_PASSWORD: PASSWORD, WRAITH_SIGNATURE: signature } });
    expect(fromEnv).toMatchObject({ code: 0, stdout: `${expected}\n` });
    const shown = await cli(['keys', 'show', '--keystore', join(dir.path, 'sig1.json'), '--scheme', '1000'], { env: { WRAITH_PASSWORD: PASSWORD } });
    expect(shown.stdout).toBe(`${expected}\n`);
    for (const run of [fromStdin, fromEnv, shown]) expect(run.stdout + run.stderr).not.toContain(signature.slice(2, 66));
  });

  it('a malformed signature or none at all is a one-line error that does not echo it', async () => {
    const bad = await cli(['keys', 'from-signature', '--out', join(dir.path, 'bad.json')], { env: { WRAITH_PASSWORD: PASSWORD }, input: '0x1234zz-secret-ish\n' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(ERROR_LINE);
    expect(bad.stderr).toMatch(/^wraith: INVALID_HEX: /);
    expect(bad.stderr).not.toContain('secret-ish');
    const none = await cli(['keys', 'from-signature', '--out', join(dir.path, 'none.json')], { env: { WRAITH_PASSWORD: PASSWORD } });
    expect(none.stderr).toMatch(/^wraith: SECRET_REQUIRED: .* — set WRAITH_SIGNATURE/);
  });

  it('usage mistakes exit with status 2 and say what to run', async () => {
    for (const args of [['keys'], ['keys', 'new'], ['keys', 'new', '--out', 'x', '--bogus'], ['keys', 'show', '--keystore', keystore, 'extra'], ['frobnicate']]) {
      const run = await cli(args, { env: { WRAITH_PASSWORD: PASSWORD } });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(ERROR_LINE);
      expect(run.stderr).toMatch(/^wraith: USAGE: /);
    }
  });

  it('help lists the commands, and a command\'s --help its options, on stdout with status 0', async () => {
    const help = await cli(['help']);
    expect(help.code).toBe(0);
    for (const command of ['keys new', 'keys show', 'keys from-signature', 'resolve', 'register', 'pay', 'scan', 'withdraw', 'history', 'bench', 'WRAITH_PASSWORD', 'WRAITH_DESTINATION_KEY']) expect(help.stdout).toContain(command);
    const pay = await cli(['pay', '--help']);
    expect(pay).toMatchObject({ code: 0, stderr: '' });
    expect(pay.stdout).toMatch(/^usage: wraith pay .*--announce none\|api\|chain/);
  });

  it('no run printed the password or a secret key', async () => {
    const keys = await openKeys(readFileSync(keystore, 'utf8'), PASSWORD);
    const secrets = [PASSWORD, bytesToHex(keys.spendingSecretKey), bytesToHex(keys.viewingSecretKey).slice(0, 64), 'viewingSeed' in keys ? bytesToHex(keys.viewingSeed) : ''].filter(Boolean);
    const everything = runs.map((r) => r.stdout + r.stderr).join('\n');
    expect(runs.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe('wraith bench', () => {
  it('scans a small batch, finds the hidden payments and reports announcements per second', async () => {
    const run = await cli(['bench', '--count', '600', '--json']);
    expect(run.code).toBe(0);
    const [report] = jsonLines(run.stdout);
    expect(report).toMatchObject({ announcements: 600, found: 5 });
    expect(['wasm', 'typescript']).toContain(report!.kernel);
    expect(report!.announcements_per_second).toBeGreaterThan(0);
    const human = await cli(['bench', '--count', '300']);
    expect(human.stdout).toMatch(/^(wasm|typescript) kernel: 300 announcements in [\d.]+ s = [\d,]+ announcements\/s \(found 5 of 5 payments\)\n$/);
    const bad = await cli(['bench', '--count', 'many']);
    expect(bad.code).toBe(2);
  });
});
