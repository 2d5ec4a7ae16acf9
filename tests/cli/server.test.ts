/**
 * `wraith resolve`, `pay` and `scan` against the real server (`node server.mjs`, in-memory
 * registry), with ENS on a real chain (anvil, tests/helpers/ens-anvil.ts) so a name resolves:
 * a name's meta-address printed, bad and unknown names refused with the server's code, a
 * payment created by the CLI and announced through the API found by `scan` with its sealed
 * note, a scan resumed from its cursor file seeing only what is new, and no run printing the
 * password or a secret key.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, createClient, createStealthPayment, generateKeys, metaAddressFingerprint, openKeys, announcementForPayment } from '@wraith-pq/sdk';
import { startEnsChain, type EnsChain } from '../helpers/ens-anvil.ts';
import { startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';
import { ERROR_LINE, jsonLines, recordingCli, requireCliBuild } from './run-cli.ts';

const PASSWORD = 'server-test-password-42';
const dir = temporaryDirectory('wraith-cli-server-');
const ipfsDir = temporaryDirectory('wraith-cli-ipfs-');
const keystore = join(dir.path, 'alice.json');
let chain: EnsChain;
let server: RunningServer;
let metaAddress: string;
const { cli, runs } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
const txHash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

beforeAll(async () => {
  requireCliBuild();
  chain = await startEnsChain();
  server = await startServer({
    env: { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '0', IPFS_STORE_DIR: ipfsDir.path, ETH_RPC_URL: chain.rpcUrl, ENS_UNIVERSAL_RESOLVER: chain.universalResolver },
  });
  const created = await cli(['keys', 'new', '--out', keystore]);
  expect(created.code).toBe(0);
  metaAddress = created.stdout.trim();
  // Publish it under alice-cli.eth the way a recipient does: bytes to IPFS, the CID in the ENS text record.
  const { text_record } = await createClient({ baseUrl: server.url }).uploadMetaAddress({ meta_address: metaAddress });
  await chain.register('alice-cli.eth');
  await chain.setText('alice-cli.eth', 'stealth-meta', text_record);
  await chain.register('bare-cli.eth');
});
afterAll(async () => {
  await server?.stop();
  await chain?.stop();
  dir.remove();
  ipfsDir.remove();
});

describe('wraith resolve', () => {
  it('prints the meta-address a .eth name publishes', async () => {
    const run = await cli(['resolve', 'Alice-CLI.eth', '--api', server.url]);
    expect(run).toMatchObject({ code: 0, stdout: `${metaAddress}\n`, stderr: '' });
    const json = await cli(['resolve', 'alice-cli.eth', '--json'], { WRAITH_API_URL: server.url });
    expect(jsonLines(json.stdout)[0]).toMatchObject({ name: 'alice-cli.eth', meta_address: metaAddress });
  });

  it('an unknown name, a name without a record and a bad name are one-line errors with the code, exit 1', async () => {
    const unknown = await cli(['resolve', 'nobody-cli.eth', '--api', server.url]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(ERROR_LINE);
    expect(unknown.stderr).toMatch(/^wraith: NAME_NOT_FOUND: .*\(HTTP 404\) — check the spelling/);
    const bare = await cli(['resolve', 'bare-cli.eth', '--api', server.url]);
    expect(bare.stderr).toMatch(/^wraith: NO_STEALTH_RECORD: .*\(HTTP 404\) — /);
    const badOnServer = await cli(['resolve', 'bad name!.eth', '--api', server.url]);
    expect(badOnServer.code).toBe(1);
    expect(badOnServer.stderr).toMatch(/^wraith: INVALID_NAME: .*\(HTTP 400\) — /);
    const notAName = await cli(['resolve', 'alice', '--api', server.url]);
    expect(notAName.code).toBe(1);
    expect(notAName.stderr).toMatch(/^wraith: INVALID_NAME: "alice" is not a .eth or .sui name — /);
  });

  it('an unreachable server or a missing --api say what to do', async () => {
    const down = await cli(['resolve', 'alice-cli.eth', '--api', 'http://127.0.0.1:9']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^wraith: NETWORK_ERROR: could not reach http:\/\/127\.0\.0\.1:9\/api\/v1\/ens\/resolve\/alice-cli\.eth \(.+\) — check --api \(or WRAITH_API_URL\) and that the server is running\n$/);
    const noApi = await cli(['resolve', 'alice-cli.eth']);
    expect(noApi.code).toBe(2);
    expect(noApi.stderr).toMatch(/^wraith: USAGE: resolving a name needs a server: pass --api/);
  });
});

describe('wraith pay and wraith scan through the API', () => {
  let first: { stealth_address: string; stealth_sui_address: string };
  let second: { stealth_address: string };
  const cursorFile = () => join(dir.path, 'cursor.json');

  it('pay to a name prints the stealth addresses; --save then --payment announces it with a note', async () => {
    const created = await cli(['pay', 'alice-cli.eth', '--api', server.url, '--amount', '1500wei', '--save', 'p1.json', '--json']);
    expect(created.code).toBe(0);
    first = jsonLines(created.stdout)[0] as typeof first;
    expect(first).toMatchObject({ recipient: 'alice-cli.eth', announce: 'none', amount: '1500', saved: 'p1.json' });
    expect(first.stealth_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(first.stealth_sui_address).toMatch(/^0x[0-9a-f]{64}$/);
    expect(created.stderr).toContain(`Send 0.0000000000000015 ETH to one of the addresses above`);

    const announced = await cli(['pay', '--payment', 'p1.json', '--announce', 'api', '--tx-hash', txHash(1), '--amount', '1500wei', '--chain-id', '1', '--api', server.url]);
    expect(announced.code).toBe(0);
    expect(announced.stdout).toMatch(new RegExp(`^stealth address \\(EVM\\): ${first.stealth_address}\\nstealth address \\(Sui\\): ${first.stealth_sui_address}\\nannounced: registry id \\d+\\n$`));
  });

  it('scan finds exactly the payment to these keys (not someone else\'s beside it), with the sealed note, and saves its cursor', async () => {
    const other = createStealthPayment(generateKeys().metaAddress);
    await createClient({ baseUrl: server.url }).publishAnnouncement(announcementForPayment(other, { txHash: txHash(2) }));
    const run = await cli(['scan', '--keystore', keystore, '--api', server.url, '--json', '--cursor-file', cursorFile()]);
    expect(run.code).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines.filter((l) => l.type === 'discovery')).toEqual([
      expect.objectContaining({
        stealth_address: first.stealth_address,
        stealth_sui_address: first.stealth_sui_address,
        tx_hash: txHash(1),
        amount: '1500',
        note_status: 'opened',
        note: { tx_hash: txHash(1), amount: '1500', chain_id: '1', token: null }, // announced without --token: the note names no asset
      }),
    ]);
    const summary = lines.at(-1)!;
    expect(summary).toMatchObject({ type: 'summary', source: `api:${server.url}`, from_cursor: 0, scanned: 2, discoveries: 1 });
    expect(JSON.parse(readFileSync(cursorFile(), 'utf8'))).toMatchObject({ source: `api:${server.url}`, cursor: summary.cursor });
  });

  it('a payment straight to the meta-address, announced in one step, is what a resumed scan finds', async () => {
    const paid = await cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--announce', 'api', '--tx-hash', txHash(3), '--api', server.url, '--json']);
    expect(paid.code).toBe(0);
    second = jsonLines(paid.stdout)[0] as typeof second;
    const resumed = await cli(['scan', '--keystore', keystore, '--api', server.url, '--cursor-file', cursorFile()]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`^found ${second.stealth_address}  sui 0x[0-9a-f]{64}  tx ${txHash(3)}  id \\d+\\n$`));
    expect(resumed.stderr).toMatch(/resuming api:.* after cursor \d+/);
    expect(resumed.stderr).toMatch(/scanned 1 announcements from api:.*, found 1 \(cursor \d+\)/);
    // Nothing new since: the next resume scans nothing.
    const idle = await cli(['scan', '--keystore', keystore, '--api', server.url, '--cursor-file', cursorFile(), '--json']);
    expect(jsonLines(idle.stdout)).toEqual([expect.objectContaining({ type: 'summary', scanned: 0, discoveries: 0 })]);
  });

  it('a payment to the identity\'s ERC-8441 meta-address is published with scheme 3 through the API and found by scan with its note', async () => {
    const shown = await cli(['keys', 'show', '--keystore', keystore, '--scheme', '3']);
    expect(shown.code).toBe(0);
    const erc8441MetaAddress = shown.stdout.trim();
    const paid = await cli(['pay', erc8441MetaAddress, '--fingerprint', metaAddressFingerprint(erc8441MetaAddress), '--announce', 'api', '--tx-hash', txHash(4), '--amount', '2500wei', '--token', 'coin', '--chain-id', '1', '--api', server.url, '--json']);
    expect(paid.code).toBe(0);
    const payment = jsonLines(paid.stdout).find((l) => l.stealth_address !== undefined) as { stealth_address: string; scheme_id: number };
    expect(payment.scheme_id).toBe(3);
    const row = (await createClient({ baseUrl: server.url }).listAnnouncements({ limit: 1000 })).announcements.find((a) => a.tx_hash === txHash(4))!;
    expect(row).toMatchObject({ scheme_id: 3, stealth_address: payment.stealth_address });
    const run = await cli(['scan', '--keystore', keystore, '--api', server.url, '--json']);
    expect(run.code).toBe(0);
    expect(jsonLines(run.stdout).filter((l) => l.type === 'discovery' && l.scheme_id === 3)).toEqual([
      expect.objectContaining({ stealth_address: payment.stealth_address, note_status: 'opened', note: { tx_hash: txHash(4), amount: '2500', chain_id: '1', token: 'coin' } }),
    ]);
  });

  it('an announcement naming a token reads --amount by that token: without --rpc for its decimals only base units are taken, and nothing is published', async () => {
    const token = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    const before = (await createClient({ baseUrl: server.url }).listAnnouncements({ limit: 1000 })).announcements.length;
    const refused = await cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--announce', 'api', '--tx-hash', txHash(6), '--amount', '100', '--token', token, '--api', server.url]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/pass --rpc to read its decimals/);
    expect((await createClient({ baseUrl: server.url }).listAnnouncements({ limit: 1000 })).announcements.length).toBe(before);
    const paid = await cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--announce', 'api', '--tx-hash', txHash(6), '--amount', '100', '--base-units', '--token', token, '--api', server.url, '--json']);
    expect(paid.code, paid.stderr).toBe(0);
    expect(jsonLines(paid.stdout).find((l) => l.announcement_id !== undefined)).toMatchObject({ amount: '100' });
  });

  it('scan with a wrong password stops before reading the registry, with WRONG_PASSWORD', async () => {
    const run = await cli(['scan', '--keystore', keystore, '--api', server.url], { WRAITH_PASSWORD: 'wrong-password' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^wraith: WRONG_PASSWORD: /);
  });

  it('pay refuses bad recipients and incomplete announce options with one line each', async () => {
    const badMeta = await cli(['pay', '0x0203abcd', '--api', server.url]);
    expect(badMeta.code).toBe(1);
    expect(badMeta.stderr).toMatch(/^wraith: INVALID_META_ADDRESS: .* — pass a \.eth or \.sui name, or a meta-address/);
    const unknown = await cli(['pay', 'nobody-cli.eth', '--api', server.url]);
    expect(unknown.stderr).toMatch(/^wraith: NAME_NOT_FOUND: /);
    const noTx = await cli(['pay', metaAddress, '--announce', 'api', '--api', server.url]);
    expect(noTx.code).toBe(2);
    expect(noTx.stderr).toMatch(/^wraith: USAGE: --announce api needs --tx-hash/);
    const duplicate = await cli(['pay', metaAddress, '--fingerprint', metaAddressFingerprint(metaAddress), '--announce', 'api', '--tx-hash', txHash(3), '--api', server.url]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/^wraith: DUPLICATE_ANNOUNCEMENT: .*\(HTTP 409\) — /);
    for (const run of [badMeta, unknown, noTx, duplicate]) expect(run.stderr).toMatch(ERROR_LINE);
  });

  it('no run printed the password or a secret key', async () => {
    const keys = await openKeys(readFileSync(keystore, 'utf8'), PASSWORD);
    const saved = JSON.parse(readFileSync(join(dir.path, 'p1.json'), 'utf8')) as { shared_secret: string };
    const secrets = [PASSWORD, 'wrong-password', bytesToHex(keys.spendingSecretKey), bytesToHex(keys.viewingSecretKey).slice(0, 64), saved.shared_secret];
    const everything = runs.map((r) => r.stdout + r.stderr).join('\n');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/\n\s+at /);
    expect(server.log()).not.toContain(bytesToHex(keys.viewingSecretKey).slice(0, 64));
  });
});
