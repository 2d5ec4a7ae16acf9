/**
 * The runnable examples under examples/ do what their comments say, against the real server:
 * receive.ts makes keys, a keystore and an uploaded meta-address; send.ts pays and announces;
 * scan-stream.ts finds exactly those payments from the keystore, and a second run resumes
 * from the saved cursor. Each example runs as a user would: `npx tsx examples/<name>.ts`.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, formatMetaAddressUri, generateKeys, hexToBytes } from '@wraith-pq/sdk';
import { PROJECT_DIR, startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';

const exec = promisify(execFile);
const work = temporaryDirectory('wraith-examples-');
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ env: { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '0', IPFS_STORE_DIR: join(work.path, 'ipfs') } });
});
afterAll(async () => {
  await server?.stop();
  work.remove();
});

type Run = { stdout: string; stderr: string; code: number };

async function example(name: string, args: string[] = [], env: Record<string, string> = {}): Promise<Run> {
  try {
    const { stdout, stderr } = await exec('npx', ['tsx', `examples/${name}.ts`, ...args], {
      cwd: PROJECT_DIR,
      env: {
        ...process.env,
        WRAITH_URL: server.url,
        WRAITH_PASSWORD: 'example password for the test',
        KEYSTORE_FILE: join(work.path, 'keystore.json'),
        CURSOR_FILE: join(work.path, 'cursor.json'),
        npm_config_loglevel: 'error',
        ...env,
      },
      timeout: 60_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: typeof failed.code === 'number' ? failed.code : -1 };
  }
}

/** The stealth address send.ts says to pay. */
function paidAddress(run: Run): string {
  const match = run.stdout.match(/^pay \S+ to (0x[0-9a-fA-F]{40}) /m);
  expect(match, run.stdout + run.stderr).not.toBeNull();
  return match![1]!;
}

/** The value after `label: ` on its line of `output`. */
function field(output: string, label: string): string {
  const match = output.match(new RegExp(`^${label}: (\\S+)`, 'm'));
  expect(match, `"${label}:" in:\n${output}`).not.toBeNull();
  return match![1]!;
}

describe('examples', () => {
  let metaAddress = '';
  const paid: string[] = [];

  it('receive.ts creates keys, seals them in a keystore and publishes the meta-address', async () => {
    const run = await example('receive');
    expect(run.code, run.stderr).toBe(0);
    metaAddress = field(run.stdout, 'meta-address');
    expect(hexToBytes(metaAddress)).toHaveLength(1218);
    expect(field(run.stdout, 'text record')).toBe(`ipfs://${field(run.stdout, 'cid')}`);
    const stored = await fetch(`${server.url}/api/v1/ipfs/${field(run.stdout, 'cid')}`);
    expect(bytesToHex(new Uint8Array(await stored.arrayBuffer()))).toBe(metaAddress);
  });

  it('send.ts pays the meta-address (hex or st: URI) and announces each payment', async () => {
    for (const recipient of [metaAddress, formatMetaAddressUri(hexToBytes(metaAddress))]) {
      const run = await example('send', [recipient, '1.5']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^pay 1\.5 to 0x/m);
      paid.push(paidAddress(run));
      expect(run.stdout).toMatch(/^announced: #\d+ tx 0x[0-9a-f]{64}$/m);
    }
    // Someone else's payment in between: not found by our scan.
    const other = await example('send', [bytesToHex(generateKeys().metaAddress)]);
    expect(other.code, other.stderr).toBe(0);
  });

  it('send.ts reports a refused announcement with the server\'s code and request id', async () => {
    const txHash = `0x${'ab'.repeat(32)}`;
    const first = await example('send', [metaAddress], { TX_HASH: txHash });
    expect(first.code, first.stderr).toBe(0);
    paid.push(paidAddress(first));
    const again = await example('send', [metaAddress], { TX_HASH: txHash });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^failed: DUPLICATE_ANNOUNCEMENT \(409\) /m);
    expect(again.stderr).toMatch(/request id: \S{8,}/);
  });

  it('scan-stream.ts finds exactly our payments from the keystore, then resumes from its cursor', async () => {
    const first = await example('scan-stream');
    expect(first.code, first.stderr).toBe(0);
    const found = [...first.stdout.matchAll(/^payment: (0x[0-9a-fA-F]{40}) amount (\S+)/gm)].map((m) => m[1]);
    expect(found).toEqual(paid);
    expect(first.stdout).toMatch(/^scanned 4 announcements from cursor 0, found 3 payments, cursor now 4$/m);

    const second = await example('scan-stream');
    expect(second.stdout).toMatch(/^scanned 0 announcements from cursor 4, found 0 payments, cursor now 4$/m);
  });

  it('a wrong password does not open the keystore', async () => {
    const run = await example('scan-stream', [], { WRAITH_PASSWORD: 'not the password' });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('WrongPasswordError');
  });
});
