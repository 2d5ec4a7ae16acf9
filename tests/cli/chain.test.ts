/**
 * `wraith pay --announce chain` and `wraith scan --rpc` on a real chain: anvil with the ERC-5564
 * Announcer at its canonical address (tests/helpers/announcer-chain.ts). The CLI pays from
 * WRAITH_PRIVATE_KEY and announces with a sealed note; a scan straight from the node, with no
 * Wraith server, finds the payment, and a resumed scan finds only what came after its cursor.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAddress, parseEther, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, metaAddressFingerprint, openKeys } from '@wraith-pq/sdk';
import { DEV_KEYS, startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { PROJECT_DIR, temporaryDirectory } from '../helpers/server.ts';
import { ERROR_LINE, jsonLines, recordingCli, requireCliBuild } from './run-cli.ts';

const PASSWORD = 'chain-test-password';
const SENDER_KEY = DEV_KEYS[1]!;
const dir = temporaryDirectory('wraith-cli-chain-');
const keystore = join(dir.path, 'bob.json');
const cursorFile = join(dir.path, 'chain-cursor.json');
let chain: AnnouncerChain;
let metaAddress: string;
const { cli, runs } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });

beforeAll(async () => {
  requireCliBuild();
  chain = await startAnnouncerChain();
  const created = await cli(['keys', 'new', '--out', keystore]);
  expect(created.code).toBe(0);
  metaAddress = created.stdout.trim();
});
afterAll(async () => {
  await chain?.stop();
  dir.remove();
});

describe('wraith pay --announce chain, wraith scan --rpc', () => {
  let firstPayment: { stealth_address: string; payment_tx: Hex; announcement_tx: Hex };

  it('pays the stealth address from WRAITH_PRIVATE_KEY and announces it on the Announcer', async () => {
    const run = await cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--announce', 'chain', '--rpc', chain.rpcUrl, '--amount', '0.25', '--json'], { WRAITH_PRIVATE_KEY: SENDER_KEY });
    expect(run.code, run.stderr).toBe(0);
    firstPayment = jsonLines(run.stdout)[0] as typeof firstPayment;
    expect(firstPayment).toMatchObject({ announce: 'chain', chain_id: 31337, amount: parseEther('0.25').toString() });
    expect(await chain.publicClient.getBalance({ address: getAddress(firstPayment.stealth_address) })).toBe(parseEther('0.25'));
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: firstPayment.announcement_tx });
    expect(receipt.from.toLowerCase()).toBe(chain.accounts[1]!.address.toLowerCase());
    expect(receipt.logs.map((l) => getAddress(l.address))).toContain(chain.announcer);
  });

  it('scan --rpc finds it straight from the node with the sealed note, and saves a chain cursor', async () => {
    const noise = await cli(['pay', 'st:eth:0x' + 'ab'.repeat(4), '--announce', 'chain', '--rpc', chain.rpcUrl, '--amount', '1'], { WRAITH_PRIVATE_KEY: SENDER_KEY });
    expect(noise.stderr).toMatch(/^wraith: INVALID_META_ADDRESS: /); // a typo never reaches the chain
    const run = await cli(['scan', '--keystore', keystore, '--rpc', chain.rpcUrl, '--json', '--cursor-file', cursorFile]);
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    const discoveries = lines.filter((l) => l.type === 'discovery');
    expect(discoveries).toEqual([
      expect.objectContaining({
        stealth_address: firstPayment.stealth_address,
        tx_hash: firstPayment.announcement_tx,
        note_status: 'opened',
        // The note names its asset (PROTOCOL.md 8.1: 113 bytes of metadata, kept by the chain decoder).
        note: { tx_hash: firstPayment.payment_tx, amount: parseEther('0.25').toString(), chain_id: '31337', token: 'coin' },
        stealth_address_mismatch: false,
        announcement_id: null,
      }),
    ]);
    expect(discoveries[0]!.block_number).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', source: 'chain:31337', scanned: 1, discoveries: 1 });
    expect(JSON.parse(readFileSync(cursorFile, 'utf8'))).toMatchObject({ source: 'chain:31337', cursor: lines.at(-1)!.cursor });
  });

  it('a payment funded elsewhere and announced from a saved file is found by the resumed scan only', async () => {
    const saved = await cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--save', 'p2.json', '--amount', '777wei']);
    expect(saved.code).toBe(0);
    const stealth = /stealth address \(EVM\): (0x[0-9a-fA-F]{40})/.exec(saved.stdout)![1]!;
    const transfer = await chain.wallets[2]!.sendTransaction({ to: getAddress(stealth), value: 777n });
    await chain.publicClient.waitForTransactionReceipt({ hash: transfer });
    const announced = await cli(['pay', '--payment', 'p2.json', '--announce', 'chain', '--tx-hash', transfer, '--amount', '777wei', '--token', 'coin', '--rpc', chain.rpcUrl], { WRAITH_PRIVATE_KEY: SENDER_KEY });
    expect(announced.code, announced.stderr).toBe(0);
    expect(announced.stdout).toMatch(/^stealth address \(EVM\): 0x[0-9a-fA-F]{40}\nstealth address \(Sui\): 0x[0-9a-f]{64}\nannounced: 0x[0-9a-f]{64} \(chain 31337\)\n$/);

    const resumed = await cli(['scan', '--keystore', keystore, '--rpc', chain.rpcUrl, '--json', '--cursor-file', cursorFile]);
    const lines = jsonLines(resumed.stdout);
    expect(lines.filter((l) => l.type === 'discovery')).toEqual([
      expect.objectContaining({ stealth_address: stealth, note: { tx_hash: transfer, amount: '777', chain_id: '31337', token: 'coin' } }),
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', scanned: 1, discoveries: 1 });
    // In text, each payment's line reads its amount in the asset its note names (the coin here).
    const text = await cli(['scan', '--keystore', keystore, '--rpc', chain.rpcUrl]);
    expect(text.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^found ${firstPayment.stealth_address} .* amount 0\\.25 ETH  tx `)),
      expect.stringMatching(new RegExp(`^found ${stealth} .* amount 0\\.000000000000000777 ETH  tx ${transfer}`)),
    ]);

    // From a block after every announcement there is nothing to find.
    const later = (await chain.blockNumber()) + 1n;
    const none = await cli(['scan', '--keystore', keystore, '--rpc', chain.rpcUrl, '--from-block', later.toString(), '--json']);
    expect(jsonLines(none.stdout)).toEqual([expect.objectContaining({ type: 'summary', scanned: 0, discoveries: 0 })]);
  });

  it('on a terminal, scan shows a progress line on stderr', async () => {
    // `script` (util-linux) gives the CLI a pseudo-terminal, as an interactive shell would.
    const env = Object.fromEntries([...Object.entries(process.env).filter(([name]) => !name.startsWith('WRAITH_')), ['WRAITH_PASSWORD', PASSWORD]]) as NodeJS.ProcessEnv;
    const command = [process.execPath, join(PROJECT_DIR, 'cli', 'bin', 'wraith.js'), 'scan', '--keystore', keystore, '--rpc', chain.rpcUrl].join(' ');
    const output = await new Promise<string>((resolve) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      child.once('close', () => resolve(text));
    });
    expect(output).toMatch(/\r\x1b\[2Kscanned 2 · found 2 · \d+\/s · cursor \d+/);
    expect(output).toMatch(/scanned 2 announcements from chain:31337, found 2 \(cursor \d+\)/);
    expect(output).not.toContain(PASSWORD);
  });

  it('a cursor file of another source is refused rather than applied', async () => {
    const run = await cli(['scan', '--keystore', keystore, '--api', 'http://127.0.0.1:9', '--cursor-file', cursorFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^wraith: CURSOR_MISMATCH: .*belongs to chain:31337/);
  });

  it('--announce chain without WRAITH_PRIVATE_KEY or --rpc says what is missing and sends nothing', async () => {
    const before = await chain.blockNumber();
    const noKey = await cli(['pay', metaAddress, '--announce', 'chain', '--rpc', chain.rpcUrl, '--amount', '5']);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/^wraith: PRIVATE_KEY_REQUIRED: WRAITH_PRIVATE_KEY is not set — /);
    const noRpc = await cli(['pay', metaAddress, '--announce', 'chain', '--amount', '5'], { WRAITH_PRIVATE_KEY: SENDER_KEY });
    expect(noRpc.code).toBe(2);
    const badKey = await cli(['pay', metaAddress, '--announce', 'chain', '--rpc', chain.rpcUrl, '--amount', '5'], { WRAITH_PRIVATE_KEY: '0x1234' });
    expect(badKey.stderr).toMatch(/^wraith: INVALID_PRIVATE_KEY: /);
    for (const run of [noKey, noRpc, badKey]) expect(run.stderr).toMatch(ERROR_LINE);
    expect(await chain.blockNumber()).toBe(before);
  });

  it('no run printed the password, the sender key or a secret key', async () => {
    const keys = await openKeys(readFileSync(keystore, 'utf8'), PASSWORD);
    const secrets = [PASSWORD, SENDER_KEY.slice(2), bytesToHex(keys.spendingSecretKey), bytesToHex(keys.viewingSecretKey).slice(0, 64)];
    const everything = runs.map((r) => r.stdout + r.stderr).join('\n');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/\n\s+at /);
  });
});
