/**
 * Issue 32, items 1 and 2, on anvil with the ERC-5564 Announcer: a meta-address with one
 * character changed still decodes, so `wraith pay` has a typed one confirmed by its fingerprint
 * (the one `wraith keys show` prints) before anything is created; `--dry-run` shows the payment
 * and its fees and creates nothing payable; `pay` without `--announce` or `--save` keeps the
 * payment (owner-only) before it prints the address, and from that record the payment is
 * announced later and found by the recipient's scan. Files holding secrets or histories,
 * exports included (`--out`), are readable by their owner only.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { getAddress, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, decodeAnyMetaAddress, metaAddressFingerprint, openKeys } from '@wraith-pq/sdk';
import { DEV_KEYS, startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { temporaryDirectory } from '../helpers/server.ts';
import { ERROR_LINE, jsonLines, recordingCli, requireCliBuild, runOnTerminal } from './run-cli.ts';

const PASSWORD = 'integrity-test-password';
const PAYER_KEY = DEV_KEYS[1]!;
const dir = temporaryDirectory('wraith-cli-integrity-');
const keystore = join(dir.path, 'bob.json');
const { cli, runs } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
let chain: AnnouncerChain;
let metaAddress: string;
let typo: string;

const modeOf = (path: string) => statSync(join(dir.path, path)).mode & 0o777;
const paymentFiles = () => readdirSync(dir.path).filter((name) => name.startsWith('wraith-payment-'));
const payerNonce = () => chain.publicClient.getTransactionCount({ address: chain.accounts[1]!.address });
const payChain = (target: string, args: string[]) => cli(['pay', target, '--announce', 'chain', '--rpc', chain.rpcUrl, ...args], { WRAITH_PRIVATE_KEY: PAYER_KEY });

beforeAll(async () => {
  requireCliBuild();
  chain = await startAnnouncerChain();
  const created = await cli(['keys', 'new', '--out', keystore]);
  expect(created.code).toBe(0);
  metaAddress = created.stdout.trim();
  // The last hex digit changed: still a valid meta-address (the ML-KEM key's bytes pass every check).
  typo = metaAddress.slice(0, -1) + (metaAddress.endsWith('0') ? '1' : '0');
  expect(decodeAnyMetaAddress(typo).bytes.length).toBe(1218);
}, 120_000);
afterAll(async () => {
  await chain?.stop();
  dir.remove();
});

describe('the fingerprint of a meta-address', { timeout: 240_000 }, () => {
  it('keys show prints the fingerprint of each form, the one a payer compares', async () => {
    const [plain, json] = await Promise.all([cli(['keys', 'show', '--keystore', keystore]), cli(['keys', 'show', '--keystore', keystore, '--json'])]);
    const [wraithForm, erc8441Form] = plain.stdout.trim().split('\n');
    expect(plain.stderr).toContain(`fingerprint ${metaAddressFingerprint(wraithForm!)}`);
    expect(plain.stderr).toContain(`fingerprint ${metaAddressFingerprint(erc8441Form!)}`);
    expect(jsonLines(json.stdout)[0]).toMatchObject({ fingerprint: metaAddressFingerprint(metaAddress), erc8441_fingerprint: metaAddressFingerprint(erc8441Form!) });
    expect(metaAddressFingerprint(typo)).not.toBe(metaAddressFingerprint(metaAddress));
  });

  it('a mistyped meta-address is refused before anything is created: no terminal to confirm on, the recipient\'s fingerprint not matching, --yes alone', async () => {
    const nonce = await payerNonce();
    const unconfirmed = await payChain(typo, ['--amount', '0.1']);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toMatch(ERROR_LINE);
    expect(unconfirmed.stderr).toMatch(new RegExp(`^wraith: FINGERPRINT_REQUIRED: .*this one's is ${metaAddressFingerprint(typo)}\\); nothing was created or paid — .*--fingerprint`));
    expect(unconfirmed.stdout).toContain(`fingerprint: ${metaAddressFingerprint(typo)}`);
    const mismatch = await payChain(typo, ['--amount', '0.1', '--fingerprint', metaAddressFingerprint(metaAddress)]);
    expect(mismatch.stderr).toMatch(new RegExp(`^wraith: FINGERPRINT_MISMATCH: the meta-address's fingerprint is ${metaAddressFingerprint(typo)}, not the ${metaAddressFingerprint(metaAddress)} given`));
    const yes = await payChain(typo, ['--amount', '0.1', '--yes']);
    expect(yes.code).toBe(2);
    expect(yes.stderr).toMatch(/^wraith: USAGE: --yes does not skip the fingerprint check/);
    const viaLink = await cli(['pay', `https://wraith.example/send?to=${encodeURIComponent(typo)}`, '--amount', '0.1']);
    expect(viaLink.stderr).toMatch(/^wraith: FINGERPRINT_REQUIRED: /);
    expect(viaLink.stdout).toContain('the meta-address in the payment link');
    for (const run of [unconfirmed, mismatch, yes, viaLink]) expect(run.stdout).not.toMatch(/stealth address/);
    expect(await payerNonce()).toBe(nonce);
    expect(paymentFiles()).toEqual([]);
  });

  it('on a terminal the fingerprint is asked about, and a no creates nothing', async () => {
    const run = await runOnTerminal(['pay', typo, '--amount', '0.1'], 'n', { cwd: dir.path, env: { WRAITH_PASSWORD: PASSWORD } });
    expect(run.output).toContain(`Does the recipient show the fingerprint ${metaAddressFingerprint(typo)}?`);
    expect(run.output).toMatch(/wraith: CANCELLED: nothing was created or paid/);
    expect(run.code).toBe(1);
    expect(paymentFiles()).toEqual([]);
  });

  it('with the recipient\'s fingerprint (typed loosely: lower case, no dashes) the payment goes through', async () => {
    const loose = metaAddressFingerprint(metaAddress).replaceAll('-', '').toLowerCase();
    const paid = await payChain(metaAddress, ['--amount', '0.1', '--fingerprint', loose, '--json']);
    expect(paid.code, paid.stderr).toBe(0);
    const summary = jsonLines(paid.stdout)[0]!;
    expect(summary).toMatchObject({ fingerprint: metaAddressFingerprint(metaAddress), source: 'typed on the command line', amount: parseEther('0.1').toString() });
    expect(await chain.publicClient.getBalance({ address: getAddress(summary.stealth_address) })).toBe(parseEther('0.1'));
  });
});

describe('no payable address without its record', { timeout: 240_000 }, () => {
  it('--dry-run shows the recipient, the amount and the fees, and creates nothing payable', async () => {
    const [nonce, files] = [await payerNonce(), paymentFiles()];
    const run = await payChain(metaAddress, ['--amount', '0.5', '--fingerprint', metaAddressFingerprint(metaAddress), '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`fingerprint: ${metaAddressFingerprint(metaAddress)}`);
    expect(run.stdout).toContain('amount: 0.5 ETH');
    expect(run.stdout).toMatch(/fees: at most 0\.0\d+ ETH; the paying account needs at most 0\.50\d+ ETH of the coin/);
    expect(run.stdout).toContain('nothing was kept or signed, and no address to pay was created');
    expect(run.stdout + run.stderr).not.toMatch(/stealth address|0x[0-9a-fA-F]{40}\b/);
    expect(await payerNonce()).toBe(nonce);
    expect(paymentFiles()).toEqual(files);
  });

  it('pay without --announce or --save keeps the payment (owner-only) before printing its address; announced later from that record, the recipient finds it', async () => {
    const created = await cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--amount', '0.2']);
    expect(created.code, created.stderr).toBe(0);
    const [keptLine, addressLine] = created.stdout.split('\n').filter((l) => l.startsWith('payment kept') || l.startsWith('stealth address (EVM)'));
    const kept = /^payment kept in (\S+)$/.exec(keptLine!)![1]!;
    const stealth = /(0x[0-9a-fA-F]{40})$/.exec(addressLine!)![1]!;
    expect(kept).toBe(`wraith-payment-${stealth}.json`);
    expect(modeOf(kept)).toBe(0o600);
    expect(created.stderr).toContain(`wraith pay --payment ${kept} --announce chain`);

    // The sender pays from another wallet, then announces from the kept record.
    const transfer = await chain.wallets[2]!.sendTransaction({ to: getAddress(stealth), value: parseEther('0.2') });
    await chain.publicClient.waitForTransactionReceipt({ hash: transfer });
    const announced = await cli(['pay', '--payment', kept, '--announce', 'chain', '--tx-hash', transfer, '--amount', '0.2', '--rpc', chain.rpcUrl], { WRAITH_PRIVATE_KEY: PAYER_KEY });
    expect(announced.code, announced.stderr).toBe(0);

    const scan = await cli(['scan', '--keystore', keystore, '--rpc', chain.rpcUrl, '--json', '--out', 'found.json', '--cursor-file', 'cursor.json']);
    expect(scan.code, scan.stderr).toBe(0);
    expect(scan.stdout).toBe('');
    const found = jsonLines(readFileSync(join(dir.path, 'found.json'), 'utf8')).filter((l) => l.type === 'discovery');
    expect(found).toContainEqual(expect.objectContaining({ stealth_address: stealth, symbol: 'ETH', amount_formatted: '0.2', state: 'unspent', note: { tx_hash: transfer, amount: parseEther('0.2').toString(), chain_id: '31337', token: null } }));
  });

  it('files holding secrets or histories are owner-only: keystore, payment files, history, cursor, scan and history exports', async () => {
    const history = await cli(['history', '--keystore', keystore, '--csv', '--out', 'history.csv']);
    expect(history.code, history.stderr).toBe(0);
    expect(readFileSync(join(dir.path, 'history.csv'), 'utf8')).toMatch(/^type,date,chain_id,/);
    for (const file of ['bob.json', 'bob.json.history', 'cursor.json', 'found.json', 'history.csv', ...paymentFiles()]) expect([file, modeOf(file)]).toEqual([file, 0o600]);
  });

  it('no run printed the password, a secret key or a payment\'s shared secret', async () => {
    const keys = await openKeys(readFileSync(keystore, 'utf8'), PASSWORD);
    const shared = paymentFiles().map((f) => (JSON.parse(readFileSync(join(dir.path, f), 'utf8')) as { shared_secret: string }).shared_secret);
    const everything = runs.map((r) => r.stdout + r.stderr).join('\n');
    for (const secret of [PASSWORD, PAYER_KEY.slice(2), bytesToHex(keys.spendingSecretKey).slice(2), ...shared]) expect(everything).not.toContain(secret);
  });
});
