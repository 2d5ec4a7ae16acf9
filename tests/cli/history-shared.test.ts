/**
 * One history record type (issue 32, item 5): the web app's history (app/(web)/_lib/history.ts)
 * and `wraith history` keep the SDK's records (sdk/src/history.ts), so a history exported by one
 * is read by the other: the CLI imports a web export, and its own export restores in the web's
 * merge, incoming and outgoing rows alike, a payment found on chain (no announcement id) included.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHistoryRecords } from '@wraith-pq/sdk';
import { EMPTY_HISTORY, historyJson, mergeHistory, upsertPayment, withWithdrawal, type PaymentRecord } from '../../app/(web)/_lib/history.ts';
import { temporaryDirectory } from '../helpers/server.ts';
import { recordingCli, requireCliBuild } from './run-cli.ts';

const PASSWORD = 'shared-history-password';
const dir = temporaryDirectory('wraith-cli-history-');
const keystore = join(dir.path, 'bob.json');
const { cli } = recordingCli(dir.path, { WRAITH_PASSWORD: PASSWORD });

const fromServer: PaymentRecord = {
  announcementId: 7,
  chainId: 31337,
  stealthAddress: '0x00000000000000000000000000000000000000aa',
  date: '2026-11-27T09:00:00.000Z',
  amount: '100000000000000000000',
  asset: '0x00000000000000000000000000000000000000bb',
  symbol: 'TST',
  decimals: 18,
  paymentTx: `0x${'11'.repeat(32)}`,
  announcementTx: `0x${'22'.repeat(32)}`,
};
const onChain: PaymentRecord = { ...fromServer, announcementId: null, stealthAddress: '0x00000000000000000000000000000000000000cc', amount: '500000000000000000', asset: 'native', symbol: 'ETH' };

beforeAll(async () => {
  requireCliBuild();
  expect((await cli(['keys', 'new', '--out', keystore])).code).toBe(0);
});
afterAll(() => dir.remove());

describe('one history for the web app and the CLI', { timeout: 240_000 }, () => {
  it('the CLI imports the web app\'s export, shows both directions, and its own export restores on the web', async () => {
    let web = upsertPayment(upsertPayment(EMPTY_HISTORY, fromServer), onChain);
    web = withWithdrawal(web, { announcementId: 7, chainId: 31337, stealthAddress: fromServer.stealthAddress, destination: '0x00000000000000000000000000000000000000dd', asset: fromServer.asset!, symbol: 'TST', decimals: 18 }, { hash: `0x${'33'.repeat(32)}`, amount: 10n ** 20n, feePaid: 21_000n, feeBound: 30_000n, feeKind: 'maximum' });
    writeFileSync(join(dir.path, 'web.json'), historyJson(web));

    const imported = await cli(['history', '--keystore', keystore, '--import', 'web.json']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('imported 2 payments and 1 withdrawal');
    const again = await cli(['history', '--keystore', keystore, '--import', 'web.json']);
    expect(again.stderr).toContain('imported 0 payments and 0 withdrawals');

    const text = await cli(['history', '--keystore', keystore]);
    expect(text.stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/received 100 TST at 0x0+aa/),
      expect.stringMatching(/received 0\.5 ETH at 0x0+cc/),
      expect.stringMatching(/withdrew 100 TST 0x0+aa → 0x0+dd {2}fee 0\.000000000000021 ETH/),
    ]);

    const out = await cli(['history', '--keystore', keystore, '--json', '--out', 'cli.json']);
    expect(out.code, out.stderr).toBe(0);
    expect(statSync(join(dir.path, 'cli.json')).mode & 0o777).toBe(0o600);
    const exported = JSON.parse(readFileSync(join(dir.path, 'cli.json'), 'utf8')) as unknown;
    const restored = mergeHistory(EMPTY_HISTORY, parseHistoryRecords(exported));
    expect(restored).toMatchObject({ payments: 2, withdrawals: 1, conflicts: 0 });
    expect(restored.history.payments).toEqual(web.payments);
    expect(restored.history.withdrawals).toEqual(web.withdrawals);
  });

  it('a file that is not a history export is refused, and a damaged record names itself', async () => {
    writeFileSync(join(dir.path, 'backup.json'), JSON.stringify({ kind: 'wraith-history-backup', version: 1 }));
    const backup = await cli(['history', '--keystore', keystore, '--import', 'backup.json']);
    expect(backup.stderr).toMatch(/^wraith: INVALID_FILE: --import backup\.json is a web backup/);
    const damaged = JSON.parse(historyJson(upsertPayment(EMPTY_HISTORY, { ...fromServer, amount: '1.5' }))) as unknown;
    writeFileSync(join(dir.path, 'damaged.json'), JSON.stringify(damaged));
    const run = await cli(['history', '--keystore', keystore, '--import', 'damaged.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^wraith: INVALID_HISTORY: The payment at position 1 of this file is damaged \(its amount\): nothing was restored/);
  });
});
