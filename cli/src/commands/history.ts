/**
 * `wraith history`: what `wraith withdraw` did with this keystore's payments, from the history
 * sealed next to it (`<keystore>.history`, encrypted under the keystore's password; see
 * src/history-file.ts): one line per withdrawal transaction or failure, as text, JSON lines
 * (`--json`) or CSV (`--csv`, with a header). Nothing in it is secret to its owner; it stays on
 * this machine.
 * @module
 */
import { formatUnits } from 'viem';
import { parseCommand } from '../args.js';
import { UsageError } from '../errors.js';
import { readHistory, type HistoryRecord } from '../history-file.js';
import { openKeystoreWithPassword } from '../keystore-file.js';
import { info, result, resultJson } from '../output.js';

export const USAGE = 'wraith history --keystore <file> [--json | --csv]';

const COLUMNS = ['date', 'chain_id', 'status', 'stealth_address', 'destination', 'asset', 'symbol', 'amount', 'amount_formatted', 'fee_paid', 'fee_bound', 'fee_kind', 'hash', 'error'] as const;

function formatted(r: HistoryRecord): string | null {
  if (r.amount === null) return null;
  return r.decimals === null ? r.amount : formatUnits(BigInt(r.amount), r.decimals);
}

/** RFC 4180: quote a field holding a comma, a quote or a line break; a field a spreadsheet would run as a formula (=, +, -, @, tab, CR first) opens as text behind an apostrophe (OWASP "CSV injection"). */
export function csvField(value: string | number | null): string {
  const raw = value === null ? '' : String(value);
  const text = /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export async function historyCommand(argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, { keystore: { type: 'string' }, json: { type: 'boolean' }, csv: { type: 'boolean' } }, 0, USAGE);
  if (values.keystore === undefined) throw new UsageError('--keystore is required', `usage: ${USAGE}`);
  if (values.json && values.csv) throw new UsageError('pass --json or --csv, not both', `usage: ${USAGE}`);
  // The keystore is opened first: a wrong password or path is named as such, not as an unreadable history.
  const { password } = await openKeystoreWithPassword(values.keystore);
  const records = await readHistory(values.keystore, password);
  if (values.csv) {
    result(COLUMNS.join(','));
    for (const r of records) result(COLUMNS.map((c) => csvField(c === 'amount_formatted' ? formatted(r) : r[c])).join(','));
    return;
  }
  if (values.json) {
    for (const r of records) resultJson({ ...r, amount_formatted: formatted(r) });
    return;
  }
  if (records.length === 0) info('no withdrawals recorded for this keystore yet');
  for (const r of records) {
    result(
      r.status === 'withdrawn'
        ? `${r.date}  chain ${r.chain_id}  ${r.stealth_address} → ${r.destination}  ${formatted(r)} ${r.symbol}  fee ${formatUnits(BigInt(r.fee_paid!), 18)} ETH  ${r.hash}`
        : `${r.date}  chain ${r.chain_id}  ${r.stealth_address} → ${r.destination}  FAILED ${r.error}`,
    );
  }
}
