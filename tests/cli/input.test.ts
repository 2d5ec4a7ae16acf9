/**
 * The command line's input side, as a new user meets it (issue 32): amounts in the asset's unit
 * (base units only when said), a mistyped flag or command answered with what was meant, help for
 * one command with an example, `--api` given with its `/api/v1`, and a server or node that cannot
 * be reached named by its URL and the cause, with the credential an RPC URL carries left out.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_UNIT, parseAmount } from '../../cli/src/amounts.ts';
import { freePort, temporaryDirectory } from '../helpers/server.ts';
import { ERROR_LINE, recordingCli, requireCliBuild } from './run-cli.ts';

const PASSWORD = 'input-test-password';
const dir = temporaryDirectory('wraith-cli-input-');
const keystore = join(dir.path, 'bob.json');
const { cli } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });
const TST = { symbol: 'TST', decimals: 18 };
const USDC = { symbol: 'USDC', decimals: 6 };

beforeAll(async () => {
  requireCliBuild();
  expect((await cli(['keys', 'new', '--out', keystore])).code).toBe(0);
});
afterAll(() => dir.remove());

describe('amounts as people write them', () => {
  it('reads 0.5 as half an ETH, 100 as 100 tokens by their decimals, and base units only when said', () => {
    expect(parseAmount('0.5', NATIVE_UNIT, { flag: '--amount' })).toBe(5n * 10n ** 17n);
    expect(parseAmount('0.5ether', NATIVE_UNIT, { flag: '--amount' })).toBe(5n * 10n ** 17n);
    expect(parseAmount('20gwei', NATIVE_UNIT, { flag: '--amount' })).toBe(20n * 10n ** 9n);
    expect(parseAmount('100wei', NATIVE_UNIT, { flag: '--amount' })).toBe(100n);
    expect(parseAmount('100', NATIVE_UNIT, { flag: '--amount', baseUnits: true })).toBe(100n);
    expect(parseAmount('100', TST, { flag: '--amount' })).toBe(100n * 10n ** 18n);
    expect(parseAmount('100', USDC, { flag: '--amount' })).toBe(100_000_000n);
    expect(parseAmount('2.5usdc', USDC, { flag: '--amount' })).toBe(2_500_000n);
  });

  it('refuses what would be read wrongly: more decimals than the unit has, a unit of another asset, a token without decimals', () => {
    expect(() => parseAmount('0.0000001', USDC, { flag: '--amount' })).toThrow(/more decimal places than its unit's 6/);
    expect(() => parseAmount('1.5wei', NATIVE_UNIT, { flag: '--amount' })).toThrow(/more decimal places/);
    expect(() => parseAmount('1ether', TST, { flag: '--amount' })).toThrow(/ether is not a unit of TST/);
    expect(() => parseAmount('5', { symbol: 'base units of 0x…', decimals: null }, { flag: '--amount' })).toThrow(/gives no decimals/);
    expect(() => parseAmount('-1', NATIVE_UNIT, { flag: '--amount' })).toThrow(/is not an amount/);
    expect(() => parseAmount('1e18', NATIVE_UNIT, { flag: '--amount' })).toThrow(/not a unit of ETH/);
  });
});

describe('a command line that helps', { timeout: 180_000 }, () => {
  it('answers a mistyped flag or command with the one it most likely meant (exit status 2)', async () => {
    const flag = await cli(['pay', 'alice.eth', '--amout', '0.5']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(ERROR_LINE);
    expect(flag.stderr).toMatch(/^wraith: USAGE: unknown option --amout \(did you mean --amount\?\) — use --amount/);
    const swapped = await cli(['scan', '--keystore', keystore, '--cursor-flie', 'c.json']);
    expect(swapped.stderr).toContain('did you mean --cursor-file?');
    const command = await cli(['withdarw', '--all']);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/^wraith: USAGE: unknown command "withdarw" \(did you mean withdraw\?\) — run `wraith withdraw --help`\n$/);
  });

  it('refuses an address flag whose mixed case is not its EIP-55 checksum, as a typo, before reaching the node', async () => {
    // One letter's case changed in a checksummed address (EIP-55's own example): a mistyped character.
    const typo = '0x52908400098527886e0F7030069857D2E4169EE7';
    const unreachable = 'http://127.0.0.1:1';
    const registry = await cli(['resolve', '0x52908400098527886e0f7030069857d2e4169ee7', '--rpc', unreachable, '--registry', typo]);
    expect(registry.code).toBe(1);
    expect(registry.stderr).toMatch(ERROR_LINE);
    expect(registry.stderr).toContain(`wraith: INVALID_ADDRESS: --registry ${typo} fails its EIP-55 checksum`);
    const address = await cli(['withdraw', '--keystore', keystore, '--rpc', unreachable, '--address', typo, '--to', typo.toLowerCase()]);
    expect(address.stderr).toContain(`wraith: INVALID_ADDRESS: --address ${typo} fails its EIP-55 checksum`);
    // All one case carries no checksum: taken as is, so the run goes on to the node it cannot reach.
    const lower = await cli(['resolve', typo.toLowerCase(), '--rpc', unreachable, '--registry', typo.toUpperCase().replace('0X', '0x')]);
    expect(lower.stderr).not.toContain('INVALID_ADDRESS');
    expect(lower.stderr).toContain('127.0.0.1:1');
  });

  it('help <command> and <command> --help show that command\'s usage and an example', async () => {
    const [help, flag] = await Promise.all([cli(['help', 'scan']), cli(['withdraw', '--help'])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: wraith scan --keystore/);
    expect(help.stdout).toMatch(/example:\n {2}wraith scan --keystore bob\.json/);
    expect(flag.stdout).toMatch(/^usage: wraith withdraw /);
    expect(flag.stdout).toMatch(/example:\n {2}wraith withdraw /);
    expect((await cli(['help', 'scna'])).stderr).toContain('did you mean scan?');
  });
});

describe('unreachable servers and nodes', { timeout: 180_000 }, () => {
  let closed: number;
  beforeAll(async () => {
    // A port nobody listens on: bound, then released.
    closed = await freePort();
  });

  it('a server scan that cannot connect names the server (its /api/v1 accepted), the cause, and --rpc as the other way; a password in --api is refused unprinted', async () => {
    const withPassword = await cli(['scan', '--keystore', keystore, '--api', `http://alice:hunter2@127.0.0.1:${closed}`]);
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toMatch(/^wraith: USAGE: --api must not carry a user name or password — set the server's API key in WRAITH_API_KEY/);
    expect(withPassword.stderr).not.toContain('hunter2');
    const run = await cli(['scan', '--keystore', keystore, '--api', `http://127.0.0.1:${closed}/api/v1`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toContain(`could not reach http://127.0.0.1:${closed}/api/v1/registry/announcements (connect ECONNREFUSED`);
    expect(run.stderr).toContain('--rpc <url>');
    expect(run.stderr).not.toContain('/api/v1/api/v1');
  });

  it('a node that cannot be reached is named without the API key its URL carries in the path or the query', async () => {
    const key = '0123456789abcdef0123456789abcdef';
    const run = await cli(['scan', '--keystore', keystore, '--rpc', `http://127.0.0.1:${closed}/v3/${key}?apikey=s3cr3t-token`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toMatch(new RegExp(`^wraith: RPC_UNREACHABLE: could not reach the node at http://127\\.0\\.0\\.1:${closed}/v3/… \\(.*ECONNREFUSED`));
    expect(run.stderr).toContain('check --rpc');
    expect(run.stderr).not.toContain(key);
    expect(run.stderr).not.toContain('s3cr3t-token');
  });

  it('a node answering with an HTTP error is named with its status', async () => {
    const server = createServer((socket) => socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const run = await cli(['scan', '--keystore', keystore, '--rpc', `http://127.0.0.1:${port}/?key=abc`]);
      expect(run.stderr).toMatch(new RegExp(`^wraith: RPC_UNREACHABLE: the node at http://127\\.0\\.0\\.1:${port} answered HTTP 401 — `));
    } finally {
      server.close();
    }
  });
});
