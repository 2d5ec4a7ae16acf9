/**
 * `wraith history`: the payments this keystore received (recorded by `wraith scan`) and what
 * `wraith withdraw` did with them, from the history sealed next to it (`<keystore>.history`,
 * encrypted under the keystore's password; see src/history-file.ts). The records are the SDK's
 * (sdk/src/history.ts), the web app's too: `--json` is the same export the web app's Scan page
 * writes and restores, `--csv` the same columns, and `--import <file>` merges a web export in.
 * `--out <file>` writes the export owner-only (0600) instead of a shell redirection, which would
 * leave a file anyone on the machine can read. Nothing in it is secret to its owner; it stays on
 * this machine.
 * @module
 */
import { historyCsv, historyJson, historyRows, mergeHistory, parseHistoryRecords, type HistoryRecord } from '@wraith-pq/sdk';
import { formatUnits } from 'viem';
import { parseCommand } from '../args.js';
import { CliError, UsageError } from '../errors.js';
import { parseJsonFile, readTextFile, writePrivateFile } from '../files.js';
import { readHistoryState, writeHistoryState } from '../history-file.js';
import { openKeystoreWithPassword } from '../keystore-file.js';
import { info, result } from '../output.js';

export { csvField } from '@wraith-pq/sdk';

export const USAGE = 'wraith history --keystore <file> [--json | --csv] [--out <file>] [--import <exported history.json>]';

/** An amount in its unit, or in base units when the unit is not known. */
function amountText(amount: string | null, symbol: string | null, decimals: number | null): string {
  if (amount === null) return 'an amount not given';
  return decimals === null ? `${amount} base units${symbol === null ? '' : ` of ${symbol}`}` : `${formatUnits(BigInt(amount), decimals)} ${symbol ?? ''}`.trimEnd();
}

function line(r: HistoryRecord): string {
  const chain = r.chainId === null ? 'chain ?' : `chain ${r.chainId}`;
  if (r.type === 'payment') return `${r.date}  ${chain}  received ${amountText(r.amount, r.symbol, r.decimals)} at ${r.stealthAddress}${r.paymentTx === null ? '' : `  ${r.paymentTx}`}`;
  if (r.status === 'failed') return `${r.date}  ${chain}  ${r.stealthAddress} → ${r.destination}  FAILED ${r.error}`;
  return `${r.date}  ${chain}  withdrew ${amountText(r.amount, r.symbol, r.decimals)} ${r.stealthAddress} → ${r.destination}  fee ${formatUnits(BigInt(r.feePaid!), 18)} ETH  ${r.hash}`;
}

export async function historyCommand(argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, { keystore: { type: 'string' }, json: { type: 'boolean' }, csv: { type: 'boolean' }, out: { type: 'string' }, import: { type: 'string' } }, 0, USAGE);
  if (values.keystore === undefined) throw new UsageError('--keystore is required', `usage: ${USAGE}`);
  if (values.json && values.csv) throw new UsageError('pass --json or --csv, not both', `usage: ${USAGE}`);
  // The keystore is opened first: a wrong password or path is named as such, not as an unreadable history.
  const { password } = await openKeystoreWithPassword(values.keystore);
  const state = await readHistoryState(values.keystore, password);

  if (values.import !== undefined) {
    const file = parseJsonFile(await readTextFile(values.import, '--import'), values.import, '--import') as { kind?: unknown } | null;
    if (file?.kind === 'wraith-history-backup') throw new CliError('INVALID_FILE', `--import ${values.import} is a web backup, sealed for the browser's keys`, 'export the history as JSON on the Scan page, and import that file');
    if (file?.kind !== 'wraith-history') throw new CliError('INVALID_FILE', `--import ${values.import} is not a Wraith history export`, 'pass a JSON export: `wraith history --json` or the web app\'s Scan page');
    const merged = mergeHistory(state, parseHistoryRecords(file));
    if (merged.history !== state) await writeHistoryState(values.keystore, password, merged.history);
    info(`imported ${merged.payments} payment${merged.payments === 1 ? '' : 's'} and ${merged.withdrawals} withdrawal${merged.withdrawals === 1 ? '' : 's'}${merged.conflicts > 0 ? `; left out ${merged.conflicts} that disagree with this history` : ''}`);
    if (!values.json && !values.csv && values.out === undefined) return;
    Object.assign(state, merged.history);
  }

  const records = { payments: state.payments, withdrawals: state.withdrawals };
  let text: string;
  if (values.csv) text = historyCsv(records);
  else if (values.json) text = historyJson(records);
  else text = historyRows(records).map((r) => `${line(r)}\n`).join('');
  if (values.out !== undefined) {
    await writePrivateFile(values.out, text, '--out', true);
    info(`history written to ${values.out} (readable by you only)`);
    return;
  }
  if (!values.json && !values.csv && text === '') info('nothing recorded for this keystore yet: `wraith scan` records the payments it finds, `wraith withdraw` what it moves');
  if (text !== '') result(text.replace(/\r?\n$/, ''));
}
