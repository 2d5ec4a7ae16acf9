/**
 * The committed contract artifacts (contracts/build/*.json) and the SDK's generated copy of
 * WraithPay (sdk/src/evm/wraith-pay-artifact.ts) are exactly what the sources compile to with the
 * pinned solc: anyone can rebuild the bytecode that sits at WraithPay's address, byte for byte.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

it('rebuilds the committed contract artifacts byte for byte (node contracts/build.mjs --check)', { timeout: 120_000 }, async () => {
  const root = new URL('../../', import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(process.execPath, ['contracts/build.mjs', '--check'], { cwd: root });
  expect(stdout).toMatch(/^checked \d+ file\(s\) with solc 0\.8\.37/m);
});
