/**
 * The recipient's history, one record type for every Wraith front end (the web app's Scan page
 * and `wraith history`): every payment that arrived (incoming: its amount, asset, chain and
 * hashes) and every withdrawal from one (outgoing: destination, amount, the fee bound signed and
 * the fee paid, the hash, or why it failed). Amounts and fees are base units as decimal strings
 * (fees in wei), so an export compares with the chain's receipts to the unit.
 *
 * The JSON export (`historyJson`, `kind: "wraith-history"`, version 1) is what one front end
 * writes and the other reads (`parseHistoryRecords`, field by field); the CSV export
 * (`historyCsv`) has one row per record of either direction. A payment is identified by its
 * registry announcement id when both records have one, else by its chain and stealth address (a
 * payment found on chain has no announcement id).
 *
 * Nothing here is secret in the sense of a key, but a history ties the stealth addresses to their
 * owner's destinations: each front end keeps it encrypted.
 * @module
 */
import { WraithError } from './errors.ts';

/** An incoming payment found by a scan. `asset` is `native`, a token address, or null while unknown. */
export type PaymentRecord = {
  /** The registry's announcement id, or null for a payment found on chain. */
  announcementId: number | null;
  chainId: number | null;
  stealthAddress: string;
  /** When it was announced, or first found (ISO 8601). */
  date: string;
  /** The note's amount, base units; null when the note said none. */
  amount: string | null;
  asset: string | null;
  symbol: string | null;
  decimals: number | null;
  /** The paying transfer (from the note). */
  paymentTx: string | null;
  /** The announcement transaction (or, for a payment announced through a server, the hash the sender gave it). */
  announcementTx: string | null;
};

/** An outgoing withdrawal from a payment, or a failed attempt. */
export type WithdrawalRecord = {
  date: string;
  /** The registry's announcement id of the payment, or null when it was found on chain. */
  announcementId: number | null;
  chainId: number;
  stealthAddress: string;
  destination: string;
  status: 'withdrawn' | 'failed';
  /** `native` or the token's address. */
  asset: string;
  symbol: string | null;
  decimals: number | null;
  /** What reached the destination (base units); null for a failure. */
  amount: string | null;
  /** The fee paid, from the receipt (wei); null for a failure. */
  feePaid: string | null;
  /** The fee bound signed, and whether it was exact or a maximum. */
  feeBound: string | null;
  feeKind: 'exact' | 'maximum' | null;
  hash: string | null;
  error: string | null;
};

/** One row of a history, of either direction. */
export type HistoryRecord = ({ type: 'payment' } & PaymentRecord) | ({ type: 'withdrawal' } & WithdrawalRecord);

/** The records of a history: what arrived and what left. */
export type HistoryRecords = { payments: PaymentRecord[]; withdrawals: WithdrawalRecord[] };

/** A history file that cannot be read: not one, damaged, or of another version. Its message is for the person. */
export class InvalidHistoryError extends WraithError {
  override name = 'InvalidHistoryError';
  constructor(message: string) {
    super('INVALID_HISTORY', message);
  }
}

/** Both directions as one list of rows, oldest first (incoming before outgoing at the same instant). */
export function historyRows(history: HistoryRecords): HistoryRecord[] {
  const rows: HistoryRecord[] = [...history.payments.map((p) => ({ type: 'payment' as const, ...p })), ...history.withdrawals.map((w) => ({ type: 'withdrawal' as const, ...w }))];
  return rows.sort((a, b) => a.date.localeCompare(b.date));
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Whether two payment records are the same payment (announcement id when both have one, else chain and address). */
export function samePayment(a: Pick<PaymentRecord, 'announcementId' | 'chainId' | 'stealthAddress'>, b: Pick<PaymentRecord, 'announcementId' | 'chainId' | 'stealthAddress'>): boolean {
  if (a.announcementId !== null && b.announcementId !== null) return a.announcementId === b.announcementId;
  return sameAddress(a.stealthAddress, b.stealthAddress) && (a.chainId === null || b.chainId === null || a.chainId === b.chainId);
}

/**
 * `history` with `payment` added, or merged into the record of the same payment (known fields are
 * kept, unknown ones filled in). Returns the same object when nothing changed, so a caller can
 * skip a write.
 *
 * @example
 * import { upsertPayment } from '@wraith-pq/sdk';
 * const history = upsertPayment({ payments: [], withdrawals: [] }, {
 *   announcementId: null, chainId: 1, stealthAddress: '0x…', date: new Date().toISOString(),
 *   amount: '500000000000000000', asset: 'native', symbol: 'ETH', decimals: 18, paymentTx: null, announcementTx: null,
 * });
 */
export function upsertPayment<H extends HistoryRecords>(history: H, payment: PaymentRecord): H {
  const index = history.payments.findIndex((p) => samePayment(p, payment));
  if (index < 0) return { ...history, payments: [...history.payments, payment] };
  const current = history.payments[index]!;
  const merged: PaymentRecord = { ...current };
  for (const [key, value] of Object.entries(payment) as [keyof PaymentRecord, PaymentRecord[keyof PaymentRecord]][]) {
    if (value !== null && value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  if (JSON.stringify(merged) === JSON.stringify(current)) return history;
  const payments = [...history.payments];
  payments[index] = merged;
  return { ...history, payments };
}

/**
 * The JSON export: the records as kept, with a kind and version a reader can check
 * (`parseHistoryRecords` reads it back, in either front end).
 *
 * @example
 * import { historyJson, parseHistoryRecords } from '@wraith-pq/sdk';
 * const text = historyJson({ payments: [], withdrawals: [] });
 * parseHistoryRecords(JSON.parse(text)); // { payments: [], withdrawals: [] }
 */
export function historyJson(history: HistoryRecords): string {
  return `${JSON.stringify({ kind: 'wraith-history', version: 1, payments: history.payments, withdrawals: history.withdrawals }, null, 2)}\n`;
}

export const CSV_COLUMNS = [
  'type',
  'date',
  'chain_id',
  'announcement_id',
  'stealth_address',
  'asset',
  'symbol',
  'decimals',
  'amount',
  'destination',
  'status',
  'fee_paid',
  'fee_bound',
  'fee_kind',
  'tx_hash',
  'payment_tx',
  'announcement_tx',
  'error',
] as const;

/**
 * RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. A field a
 * spreadsheet would run as a formula (=, +, -, @, tab, CR first: a token's symbol is the payer's
 * choice) gets a leading apostrophe, so it opens as text (OWASP "CSV injection").
 */
export function csvField(value: string | number | null): string {
  const raw = value === null ? '' : String(value);
  const text = /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The CSV export: one row per incoming payment (`type` payment, status `received`) and per
 * withdrawal or failure (`type` withdrawal), CRLF line ends.
 *
 * @example
 * import { historyCsv } from '@wraith-pq/sdk';
 * historyCsv({ payments: [], withdrawals: [] }).split('\r\n')[0]; // 'type,date,chain_id,…'
 */
export function historyCsv(history: HistoryRecords): string {
  const rows: (string | number | null)[][] = [[...CSV_COLUMNS]];
  for (const p of history.payments) {
    rows.push(['payment', p.date, p.chainId, p.announcementId, p.stealthAddress, p.asset, p.symbol, p.decimals, p.amount, null, 'received', null, null, null, p.paymentTx, p.paymentTx, p.announcementTx, null]);
  }
  for (const w of history.withdrawals) {
    rows.push(['withdrawal', w.date, w.chainId, w.announcementId, w.stealthAddress, w.asset, w.symbol, w.decimals, w.amount, w.destination, w.status, w.feePaid, w.feeBound, w.feeKind, w.hash, null, null, w.error]);
  }
  return `${rows.map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_HASH = /^0x[0-9a-fA-F]{64}$/;
const DIGITS = /^\d+$/;

type Check = (value: unknown) => boolean;
const string: Check = (v) => typeof v === 'string';
const integer: Check = (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const date: Check = (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v));
const oneOf =
  (...values: unknown[]): Check =>
  (v) =>
    values.includes(v);
const matches =
  (pattern: RegExp): Check =>
  (v) =>
    typeof v === 'string' && pattern.test(v);
const orNull =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);
const asset: Check = (v) => v === 'native' || (typeof v === 'string' && HEX_ADDRESS.test(v));

const PAYMENT_FIELDS: Record<keyof PaymentRecord, Check> = {
  announcementId: orNull(integer),
  chainId: orNull(integer),
  stealthAddress: matches(HEX_ADDRESS),
  date,
  amount: orNull(matches(DIGITS)),
  asset: orNull(asset),
  symbol: orNull(string),
  decimals: orNull(integer),
  paymentTx: orNull(string),
  announcementTx: orNull(string),
};

const WITHDRAWAL_FIELDS: Record<keyof WithdrawalRecord, Check> = {
  date,
  announcementId: orNull(integer),
  chainId: integer,
  stealthAddress: matches(HEX_ADDRESS),
  destination: matches(HEX_ADDRESS),
  status: oneOf('withdrawn', 'failed'),
  asset,
  symbol: orNull(string),
  decimals: orNull(integer),
  amount: orNull(matches(DIGITS)),
  feePaid: orNull(matches(DIGITS)),
  feeBound: orNull(matches(DIGITS)),
  feeKind: oneOf('exact', 'maximum', null),
  hash: orNull(matches(HEX_HASH)),
  error: orNull(string),
};

/** `value` as records of `fields` (only those fields kept; a missing announcement id reads as null), or an InvalidHistoryError naming the first record that is not one. */
function records<T>(value: unknown, fields: Record<string, Check>, what: string): T[] {
  if (!Array.isArray(value)) throw new InvalidHistoryError(`This file holds no list of ${what}s: it is not a Wraith history.`);
  return value.map((record: unknown, index) => {
    const fieldsOf = record !== null && typeof record === 'object' ? ({ announcementId: null, ...(record as Record<string, unknown>) } as Record<string, unknown>) : null;
    const bad = fieldsOf ? Object.entries(fields).find(([name, check]) => !check(fieldsOf[name])) : ['the record'];
    if (bad) throw new InvalidHistoryError(`The ${what} at position ${index + 1} of this file is damaged (its ${bad[0]}): nothing was restored.`);
    return Object.fromEntries(Object.keys(fields).map((name) => [name, fieldsOf![name]])) as T;
  });
}

/**
 * The payments and withdrawals of a history as JSON (`historyJson`'s export, or the plaintext a
 * front end keeps), checked field by field: nothing is returned unless every record reads.
 *
 * @example
 * import { parseHistoryRecords } from '@wraith-pq/sdk';
 * const { payments, withdrawals } = parseHistoryRecords(JSON.parse(exportedText));
 * @throws {InvalidHistoryError} naming the first record that is damaged, or the version.
 */
export function parseHistoryRecords(value: unknown): HistoryRecords {
  if (value === null || typeof value !== 'object') throw new InvalidHistoryError('This file is not a Wraith history.');
  const v = value as Record<string, unknown>;
  if (v.version !== 1) throw new InvalidHistoryError('This history was written by another version of Wraith: nothing was restored.');
  return {
    payments: records<PaymentRecord>(v.payments, PAYMENT_FIELDS, 'payment'),
    withdrawals: records<WithdrawalRecord>(v.withdrawals, WITHDRAWAL_FIELDS, 'withdrawal'),
  };
}

/** What a merge added, and what it left out because the history here says otherwise. */
export type MergeOutcome<H extends HistoryRecords = HistoryRecords> = { history: H; payments: number; withdrawals: number; conflicts: number };

/**
 * `from` merged into `into`: a payment new here is added, one known here keeps what this history
 * says and gains only what it lacked; a withdrawal is added unless the same record is here. A
 * record whose announcement this history knows under another stealth address (a history kept
 * against another server) is left out and counted as a conflict. Other fields of `into` are kept.
 *
 * @example
 * import { mergeHistory, parseHistoryRecords } from '@wraith-pq/sdk';
 * const { history, payments, withdrawals } = mergeHistory(mine, parseHistoryRecords(JSON.parse(theirs)));
 */
export function mergeHistory<H extends HistoryRecords>(into: H, from: HistoryRecords): MergeOutcome<H> {
  const payments = [...into.payments];
  let addedPayments = 0;
  let conflicts = 0;
  const sameAnnouncement = (a: PaymentRecord | WithdrawalRecord, b: PaymentRecord | WithdrawalRecord) => a.announcementId !== null && a.announcementId === b.announcementId;
  for (const payment of from.payments) {
    const index = payments.findIndex((p) => sameAnnouncement(p, payment) || samePayment(p, payment));
    if (index < 0) {
      payments.push(payment);
      addedPayments++;
      continue;
    }
    const here = payments[index]!;
    if (!sameAddress(here.stealthAddress, payment.stealthAddress)) {
      conflicts++;
      continue;
    }
    const missing = (Object.keys(PAYMENT_FIELDS) as (keyof PaymentRecord)[]).filter((key) => here[key] === null && payment[key] !== null);
    if (missing.length > 0) payments[index] = { ...here, ...Object.fromEntries(missing.map((key) => [key, payment[key]])) };
  }
  // The same withdrawal, whatever the order of its fields.
  const identity = (w: WithdrawalRecord) => JSON.stringify(Object.keys(WITHDRAWAL_FIELDS).map((key) => w[key as keyof WithdrawalRecord]));
  const known = new Set(into.withdrawals.map(identity));
  const withdrawals = [...into.withdrawals];
  let addedWithdrawals = 0;
  for (const withdrawal of from.withdrawals) {
    const payment = payments.find((p) => sameAnnouncement(p, withdrawal));
    if (payment && !sameAddress(payment.stealthAddress, withdrawal.stealthAddress)) {
      conflicts++;
      continue;
    }
    const key = identity(withdrawal);
    if (known.has(key)) continue;
    known.add(key);
    withdrawals.push(withdrawal);
    addedWithdrawals++;
  }
  withdrawals.sort((a, b) => a.date.localeCompare(b.date));
  const changed = addedPayments > 0 || addedWithdrawals > 0 || payments.some((p, i) => p !== into.payments[i]);
  return { history: changed ? { ...into, payments, withdrawals } : into, payments: addedPayments, withdrawals: addedWithdrawals, conflicts };
}
