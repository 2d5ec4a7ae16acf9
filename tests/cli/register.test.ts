/**
 * Issue 25 in the command line, on anvil with the Announcer and the canonical ERC-6538 registry's
 * mainnet runtime bytecode (tests/fixtures/erc6538, SHA-256 pinned in tests/chain/erc6538.test.ts):
 * `wraith keys show` gives both meta-address forms (and the tracking key on request, with a
 * warning); `wraith register` shows the price before anything is signed, registers the 1250-byte
 * form under scheme 3, sends nothing when nothing would change, and registers on behalf (the
 * registrant signs, a relayer pays); `wraith pay <0x address>` reads the registry, pays with
 * scheme 3 and says so (scheme 1000 on request), and refuses an unregistered or cleared address
 * before signing; the recipient scans and withdraws the scheme-3 payments (coin, and tokens with
 * their top-up) to fresh addresses.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { erc20Abi, getAddress, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, erc8441KeysOf, openKeys } from '@wraith-pq/sdk';
import { ANNOUNCER_ADDRESS, ERC6538_REGISTRY_ADDRESS, stealthMetaAddressOf } from '@wraith-pq/sdk/evm';
import { DEV_KEYS, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { temporaryDirectory } from '../helpers/server.ts';
import { ERROR_LINE, jsonLines, recordingCli, requireCliBuild } from './run-cli.ts';
import { startTokenChain } from './token-chain.ts';

const PASSWORD = 'register-test-password';
const PAYER_KEY = DEV_KEYS[0]!;
const BOB_KEY = DEV_KEYS[1]!; // Bob's public address: registers his meta-address directly
const RELAYER_KEY = DEV_KEYS[2]!;
const CAROL_KEY = generatePrivateKey(); // holds no coin: registers through a relayer
const BOB = privateKeyToAccount(BOB_KEY).address;
const CAROL = privateKeyToAccount(CAROL_KEY).address;
const dir = temporaryDirectory('wraith-cli-register-');
const bobKeystore = join(dir.path, 'bob.json');
const carolKeystore = join(dir.path, 'carol.json');
const { cli, runs } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
let chain: AnnouncerChain;
let token: Address;
let bobForms: { wraith: string; erc8441: string };


const fresh = (): Address => privateKeyToAccount(generatePrivateKey()).address;
const coinOf = (address: string) => chain.publicClient.getBalance({ address: getAddress(address) });
const tokensOf = (address: string) => chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [getAddress(address)] });
const nonceOf = (address: Address) => chain.publicClient.getTransactionCount({ address });
const registered = (registrant: Address, schemeId: number) => stealthMetaAddressOf({ client: chain.publicClient, registrant, schemeId });
const hexOf = (uri: string) => uri.replace(/^st:eth:0x/, '');

beforeAll(async () => {
  requireCliBuild();
  ({ chain, token } = await startTokenChain());
  const code = readFileSync(new URL('../fixtures/erc6538/registry.runtime.hex', import.meta.url), 'utf8').trim() as Hex;
  await chain.publicClient.request({ method: 'anvil_setCode' as never, params: [ERC6538_REGISTRY_ADDRESS, code] as never });
  const [bob, carol] = await Promise.all([cli(['keys', 'new', '--out', bobKeystore]), cli(['keys', 'new', '--out', carolKeystore])]);
  expect([bob.code, carol.code]).toEqual([0, 0]);
}, 120_000);
afterAll(async () => {
  await chain?.stop();
  dir.remove();
});

describe('wraith keys, register and pay by address (ERC-6538, ERC-8441) on anvil', () => {
  it('keys show prints both meta-address forms, and the tracking key only on request, with a warning', async () => {
    const shown = await cli(['keys', 'show', '--keystore', bobKeystore]);
    expect(shown.code, shown.stderr).toBe(0);
    const [wraith, erc8441] = shown.stdout.trim().split('\n');
    expect(hexOf(wraith!)).toHaveLength(1218 * 2);
    expect(hexOf(wraith!).slice(0, 2)).toBe('02');
    expect(hexOf(erc8441!)).toHaveLength(1250 * 2);
    expect(shown.stderr).toContain("line 2: ERC-8441's form (1250 bytes, scheme 3)");
    expect(shown.stdout).not.toMatch(/tracking/i);
    bobForms = { wraith: wraith!, erc8441: erc8441! };

    // The derivation of PROTOCOL.md section 10, from the keystore's own secrets.
    const keys = await openKeys(readFileSync(bobKeystore, 'utf8'), PASSWORD);
    const expected = erc8441KeysOf(keys as Parameters<typeof erc8441KeysOf>[0]);
    expect(hexOf(erc8441!)).toBe(bytesToHex(expected.metaAddress));
    const only3 = await cli(['keys', 'show', '--keystore', bobKeystore, '--scheme', '3']);
    expect(only3.stdout).toBe(`${erc8441}\n`);

    const tracking = await cli(['keys', 'show', '--keystore', bobKeystore, '--tracking-key', '--json']);
    expect(tracking.code, tracking.stderr).toBe(0);
    const [json] = jsonLines(tracking.stdout);
    expect(json).toMatchObject({ meta_address: wraith, erc8441_meta_address: erc8441, tracking_key: `0x${bytesToHex(expected.trackingKey)}` });
    expect(tracking.stderr).toMatch(/the tracking key cannot spend, but it finds every scheme-3 payment .* links them all/);
  });

  it('register shows the price first and needs a confirmation; with --yes it stores the 1250-byte form under scheme 3 (about 0.96 M gas), and a second run sends nothing', async () => {
    const args = ['register', '--keystore', bobKeystore, '--rpc', chain.rpcUrl];
    const block = await chain.blockNumber();
    const asked = await cli(args, { WRAITH_PRIVATE_KEY: BOB_KEY });
    expect(asked.code).toBe(1);
    expect(asked.stderr).toMatch(new RegExp(`register the 1250-byte ERC-8441 meta-address under scheme 3 for ${BOB} on chain 31337:\\n  (\\d+) gas, fee at most [\\d.]+ ETH; ${BOB} holds [\\d.]+ ETH`));
    expect(asked.stderr).toMatch(/wraith: CONFIRMATION_REQUIRED: /);
    const estimatedGas = BigInt(/\n {2}(\d+) gas/.exec(asked.stderr)![1]!);
    expect(estimatedGas).toBeGreaterThan(900_000n);
    expect(estimatedGas).toBeLessThan(1_050_000n);
    expect(await chain.blockNumber()).toBe(block);
    expect(await registered(BOB, 3)).toBeNull();

    const done = await cli([...args, '--yes', '--json'], { WRAITH_PRIVATE_KEY: BOB_KEY });
    expect(done.code, done.stderr).toBe(0);
    const [result] = jsonLines(done.stdout);
    expect(result).toMatchObject({ registrant: BOB, scheme_id: 3, chain_id: 31337, cleared: false });
    expect(BigInt(result!.gas_used)).toBeLessThanOrEqual(estimatedGas);
    console.log(`wraith register, first 1250-byte registration: ${result!.gas_used} gas`);
    expect(bytesToHex((await registered(BOB, 3))!)).toBe(hexOf(bobForms.erc8441));

    // Anyone can now look the plain address up, through their own RPC.
    const resolved = await cli(['resolve', BOB.toLowerCase(), '--rpc', chain.rpcUrl, '--json']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(jsonLines(resolved.stdout)[0]).toMatchObject({ registrant: BOB, scheme_id: 3, meta_address: bobForms.erc8441 });

    const nonce = await nonceOf(BOB);
    const again = await cli([...args, '--yes'], { WRAITH_PRIVATE_KEY: BOB_KEY });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`unchanged: ${BOB} scheme 3\n`);
    expect(await nonceOf(BOB)).toBe(nonce);
  });

  it('register --sign lets a registrant without coin sign, and --relay submits it at the relayer\'s cost; a tampered signature is refused before sending', async () => {
    const signed = await cli(['register', '--keystore', carolKeystore, '--rpc', chain.rpcUrl, '--sign'], { WRAITH_PRIVATE_KEY: CAROL_KEY });
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stderr).toContain('nothing was sent');
    const file = jsonLines(signed.stdout)[0]!;
    expect(file).toMatchObject({ kind: 'wraith-erc6538-registration', chain_id: 31337, registrant: CAROL, scheme_id: 3, nonce: '0' });
    writeFileSync(join(dir.path, 'carol-signed.json'), JSON.stringify(file));
    // The same signature over other bytes: Bob's meta-address registered for Carol.
    writeFileSync(join(dir.path, 'tampered.json'), JSON.stringify({ ...file, meta_address: `0x${hexOf(bobForms.erc8441)}` }));

    const relayer = privateKeyToAccount(RELAYER_KEY).address;
    const relayerNonce = await nonceOf(relayer);
    const tampered = await cli(['register', '--relay', 'tampered.json', '--rpc', chain.rpcUrl, '--yes'], { WRAITH_PRIVATE_KEY: RELAYER_KEY });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toMatch(/^wraith: REGISTRATION_REFUSED: the registry refuses this registration/m);
    expect(await nonceOf(relayer)).toBe(relayerNonce);

    const relayed = await cli(['register', '--relay', 'carol-signed.json', '--rpc', chain.rpcUrl, '--yes'], { WRAITH_PRIVATE_KEY: RELAYER_KEY });
    expect(relayed.code, relayed.stderr).toBe(0);
    expect(relayed.stderr).toContain(`(relayed: ${relayer} pays)`);
    expect(relayed.stdout).toMatch(new RegExp(`^registered: ${CAROL} scheme 3 in 0x[0-9a-f]{64}`));
    expect(await coinOf(CAROL)).toBe(0n);
    const carolErc8441 = (await cli(['keys', 'show', '--keystore', carolKeystore, '--scheme', '3'])).stdout.trim();
    expect(bytesToHex((await registered(CAROL, 3))!)).toBe(hexOf(carolErc8441));
  });

  const paid: { stealth_address: string; scheme_id: number }[] = [];

  it('pay <0x address> reads the registry and pays with scheme 3, saying so; --scheme 1000 pays the same recipient with scheme 1000; tokens go with a top-up', async () => {
    const pay = (args: string[]) => cli(['pay', BOB, '--base-units', '--announce', 'chain', '--rpc', chain.rpcUrl, '--json', ...args], { WRAITH_PRIVATE_KEY: PAYER_KEY });
    const coin = await pay(['--amount', parseEther('0.3').toString()]);
    expect(coin.code, coin.stderr).toBe(0);
    const first = jsonLines(coin.stdout)[0]!;
    expect(first).toMatchObject({ scheme_id: 3, recipient: BOB, registrant: BOB, amount: parseEther('0.3').toString() });
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: first.announcement_tx });
    const announcement = receipt.logs.find((l) => getAddress(l.address) === ANNOUNCER_ADDRESS)!;
    expect(BigInt(announcement.topics[1]!)).toBe(3n); // announced under scheme 3, epk || ct of 1121 bytes
    expect(await coinOf(first.stealth_address)).toBe(parseEther('0.3'));

    const tokens = await pay(['--token', token, '--amount', (50n * 10n ** 18n).toString()]);
    expect(tokens.code, tokens.stderr).toBe(0);
    const second = jsonLines(tokens.stdout)[0]!;
    expect(second).toMatchObject({ scheme_id: 3, symbol: 'TST' });
    expect(BigInt(second.gas_top_up)).toBeGreaterThan(0n);

    // In text: first where the meta-address came from, its fingerprint, then the scheme.
    const legacy = await cli(['pay', BOB, '--announce', 'chain', '--rpc', chain.rpcUrl, '--scheme', '1000', '--amount', '0.1', '--save', 'legacy.json'], { WRAITH_PRIVATE_KEY: PAYER_KEY });
    expect(legacy.code, legacy.stderr).toBe(0);
    const [who, fingerprint, scheme] = legacy.stdout.split('\n');
    expect(who).toBe(`recipient: ${BOB}, from the ERC-6538 registry`);
    expect(fingerprint).toMatch(/^fingerprint: [0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    expect(scheme).toBe(`scheme: scheme 1000 (Wraith), for the recipient's 1250-byte meta-address`);
    const third = { stealth_address: /^stealth address \(EVM\): (0x[0-9a-fA-F]{40})$/m.exec(legacy.stdout)![1]!, scheme_id: 1000 };
    expect(JSON.parse(readFileSync(join(dir.path, 'legacy.json'), 'utf8'))).toMatchObject({ scheme_id: 1000, stealth_address: third.stealth_address });
    paid.push(first as never, second as never, third);
  }, 120_000);

  it('an unregistered address, and one whose registration was cleared, are refused before signing', async () => {
    const payer = privateKeyToAccount(PAYER_KEY).address;
    const nonce = await nonceOf(payer);
    const nobody = fresh();
    const unregistered = await cli(['pay', nobody, '--announce', 'chain', '--rpc', chain.rpcUrl, '--amount', '1000wei'], { WRAITH_PRIVATE_KEY: PAYER_KEY });
    expect(unregistered.code).toBe(1);
    expect(unregistered.stderr).toMatch(ERROR_LINE);
    expect(unregistered.stderr).toMatch(new RegExp(`^wraith: NOT_REGISTERED: ${nobody} has no meta-address in the ERC-6538 registry on this chain .* — ask the recipient to run \`wraith register\``));
    // A mixed-case address whose EIP-55 checksum fails (one letter's case flipped) is a typo, not a recipient.
    const checksummed = getAddress(nobody);
    const flip = checksummed.slice(2).search(/[a-fA-F]/) + 2;
    const typo = checksummed.slice(0, flip) + (checksummed[flip] === checksummed[flip]!.toLowerCase() ? checksummed[flip]!.toUpperCase() : checksummed[flip]!.toLowerCase()) + checksummed.slice(flip + 1);
    const mistyped = await cli(['pay', typo, '--announce', 'chain', '--rpc', chain.rpcUrl, '--amount', '1000wei'], { WRAITH_PRIVATE_KEY: PAYER_KEY });
    expect(mistyped.code).toBe(1);
    expect(mistyped.stderr).toMatch(/^wraith: INVALID_ADDRESS: .* fails its EIP-55 checksum/);
    const noRpc = await cli(['pay', nobody, '--amount', '1000wei']);
    expect(noRpc.code).toBe(2);
    expect(noRpc.stderr).toMatch(/^wraith: USAGE: paying a plain address needs --rpc <url>/);

    // Carol clears scheme 3 (through a relayer again: she holds no coin); senders then treat her as unregistered.
    const signed = await cli(['register', '--keystore', carolKeystore, '--rpc', chain.rpcUrl, '--sign', '--clear'], { WRAITH_PRIVATE_KEY: CAROL_KEY });
    expect(signed.code, signed.stderr).toBe(0);
    writeFileSync(join(dir.path, 'carol-clear.json'), signed.stdout);
    const cleared = await cli(['register', '--relay', 'carol-clear.json', '--rpc', chain.rpcUrl, '--yes'], { WRAITH_PRIVATE_KEY: RELAYER_KEY });
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stdout).toMatch(new RegExp(`^cleared: ${CAROL} scheme 3 in 0x`));
    expect(await registered(CAROL, 3)).toBeNull();
    const toCarol = await cli(['pay', CAROL, '--announce', 'chain', '--rpc', chain.rpcUrl, '--amount', '1000wei'], { WRAITH_PRIVATE_KEY: PAYER_KEY });
    expect(toCarol.stderr).toMatch(/^wraith: NOT_REGISTERED: /);
    expect(await nonceOf(payer)).toBe(nonce);
  }, 120_000);

  it('the recipient finds the scheme-3 and scheme-1000 payments on chain and withdraws them all to fresh addresses, tokens included', async () => {
    const scan = await cli(['scan', '--keystore', bobKeystore, '--rpc', chain.rpcUrl, '--json']);
    expect(scan.code, scan.stderr).toBe(0);
    writeFileSync(join(dir.path, 'found.json'), scan.stdout);
    const found = jsonLines(scan.stdout).filter((l) => l.type === 'discovery');
    expect(found.map((d) => d.stealth_address)).toEqual(paid.map((p) => p.stealth_address));

    const destinations = paid.map(() => fresh());
    writeFileSync(join(dir.path, 'fresh.txt'), `${destinations.join('\n')}\n`);
    const run = await cli(['withdraw', '--keystore', bobKeystore, '--rpc', chain.rpcUrl, '--discoveries', 'found.json', '--all', '--to-file', 'fresh.txt', '--yes', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const results = jsonLines(run.stdout).filter((l) => l.type === 'withdrawal');
    expect(results.map((r) => [r.stealth_address, r.destination, r.status])).toEqual(paid.map((p, i) => [p.stealth_address, destinations[i], 'done']));
    for (const p of paid) expect([await coinOf(p.stealth_address), await tokensOf(p.stealth_address)]).toEqual([0n, 0n]);
    expect(await tokensOf(destinations[1]!)).toBe(50n * 10n ** 18n);
    expect(await coinOf(destinations[0]!)).toBeGreaterThan(parseEther('0.2999'));
    expect(await coinOf(destinations[2]!)).toBeGreaterThan(parseEther('0.0999'));
  }, 120_000);

  it('no run printed the password, a private key or a spending key', async () => {
    const bob = await openKeys(readFileSync(bobKeystore, 'utf8'), PASSWORD);
    const secrets = [PASSWORD, PAYER_KEY.slice(2), BOB_KEY.slice(2), RELAYER_KEY.slice(2), CAROL_KEY.slice(2), bytesToHex(bob.spendingSecretKey)];
    const everything = runs.map((r) => r.stdout + r.stderr).join('\n');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/\n\s+at /);
  });
});
