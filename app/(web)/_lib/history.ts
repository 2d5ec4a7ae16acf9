/**
 * The recipient's record of what arrived and what left: every discovered payment (its amount,
 * asset, chain and hashes) and every withdrawal from it (destination, amount, the fee bound shown
 * before signing and the fee paid, the hash, or why it failed). Amounts and fees are base units as
 * decimal strings (fees in wei), as the CLI's `wraith history` keeps them, so exports compare with
 * the chain's receipts to the unit. Nothing here is secret in the sense of a key, but it ties the
 * stealth addresses to their owner's destinations, so it is kept encrypted (history-store.ts).
 * @module
 */
import { chainInfo } from './chains';

/** A payment found by a scan. `asset` is `native`, a token address, or null while unknown. */
export type PaymentRecord = {
  announcementId: number;
  chainId: number | null;
  stealthAddress: string;
  /** When it was announced (ISO 8601). */
  date: string;
  /** The note's amount, base units; null when the note said none. */
  amount: string | null;
  asset: string | null;
  symbol: string | null;
  decimals: number | null;
  /** The paying transfer (from the note). */
  paymentTx: string | null;
  /** The announcement transaction (or, for a payment announced through the server, the hash the sender gave it). */
  announcementTx: string | null;
};

export type WithdrawalRecord = {
  date: string;
  announcementId: number;
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

/** One payment of a claim run: where it goes and how far it got. */
export type ClaimRunItem = {
  announcementId: number;
  stealthAddress: string;
  destination: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  error: string | null;
};

/** A claim of several payments at once, kept so a run cut short (a reload, a failure) can be resumed. */
export type ClaimRun = { startedAt: string; chainId: number; items: ClaimRunItem[] };

export type History = { version: 1; payments: PaymentRecord[]; withdrawals: WithdrawalRecord[]; run: ClaimRun | null };

export const EMPTY_HISTORY: History = { version: 1, payments: [], withdrawals: [], run: null };

/**
 * The coin the fees of `withdrawals` (of one payment, so of one chain) were paid in: the chain's
 * own, also when only tokens were withdrawn (gas is never paid in the token).
 */
export function feeCoinOf(withdrawals: readonly Pick<WithdrawalRecord, 'chainId'>[]): string {
  const chainId = withdrawals[0]?.chainId;
  return chainId === undefined ? 'ETH' : chainInfo(chainId).nativeCurrency.symbol;
}

/** `history` with `payment` added, or merged into the record of the same announcement (known fields are kept). */
export function upsertPayment(history: History, payment: PaymentRecord): History {
  const index = history.payments.findIndex((p) => p.announcementId === payment.announcementId);
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

/** The JSON export: the records as kept, with a kind and version a reader can check. */
export function historyJson(history: History): string {
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
function csvField(value: string | number | null): string {
  const raw = value === null ? '' : String(value);
  const text = /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV export: one row per payment (`type` payment) and per withdrawal or failure (`type` withdrawal). */
export function historyCsv(history: History): string {
  const rows: (string | number | null)[][] = [[...CSV_COLUMNS]];
  for (const p of history.payments) {
    rows.push(['payment', p.date, p.chainId, p.announcementId, p.stealthAddress, p.asset, p.symbol, p.decimals, p.amount, null, 'received', null, null, null, p.paymentTx, p.paymentTx, p.announcementTx, null]);
  }
  for (const w of history.withdrawals) {
    rows.push(['withdrawal', w.date, w.chainId, w.announcementId, w.stealthAddress, w.asset, w.symbol, w.decimals, w.amount, w.destination, w.status, w.feePaid, w.feeBound, w.feeKind, w.hash, null, null, w.error]);
  }
  return `${rows.map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}

/** Which withdrawal a record is about: the payment, the chain, the destination and the asset moved. */
export type WithdrawalSubject = Pick<WithdrawalRecord, 'announcementId' | 'chainId' | 'stealthAddress' | 'destination' | 'asset' | 'symbol' | 'decimals'>;

/** What happened: mined (with the price it was signed at and the fee from its receipt), or failed with a reason. */
export type WithdrawalOutcome = { hash: string; amount: bigint; feePaid: bigint; feeBound: bigint; feeKind: 'exact' | 'maximum' } | { error: string };

/** `history` with one withdrawal (or failure) of `subject` appended, dated now. */
export function withWithdrawal(history: History, subject: WithdrawalSubject, outcome: WithdrawalOutcome): History {
  const failed = 'error' in outcome;
  const record: WithdrawalRecord = {
    date: new Date().toISOString(),
    ...subject,
    status: failed ? 'failed' : 'withdrawn',
    amount: failed ? null : outcome.amount.toString(),
    feePaid: failed ? null : outcome.feePaid.toString(),
    feeBound: failed ? null : outcome.feeBound.toString(),
    feeKind: failed ? null : outcome.feeKind,
    hash: failed ? null : outcome.hash,
    error: failed ? outcome.error : null,
  };
  return { ...history, withdrawals: [...history.withdrawals, record] };
}

/** A history file that cannot be read: not one, damaged, or of other keys. Its message is for the person. */
export class HistoryFileError extends Error {
  override name = 'HistoryFileError';
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
  announcementId: integer,
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
  announcementId: integer,
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

/** `value` as records of `fields` (only those fields kept), or a HistoryFileError naming the first record that is not one. */
function records<T>(value: unknown, fields: Record<string, Check>, what: string): T[] {
  if (!Array.isArray(value)) throw new HistoryFileError(`This file holds no list of ${what}s: it is not a Wraith history.`);
  return value.map((record: unknown, index) => {
    const fieldsOf = record !== null && typeof record === 'object' ? (record as Record<string, unknown>) : null;
    const bad = fieldsOf ? Object.entries(fields).find(([name, check]) => !check(fieldsOf[name])) : ['the record'];
    if (bad) throw new HistoryFileError(`The ${what} at position ${index + 1} of this file is damaged (its ${bad[0]}): nothing was restored.`);
    return Object.fromEntries(Object.keys(fields).map((name) => [name, fieldsOf![name]])) as T;
  });
}

/** The payments and withdrawals of a history as JSON (`historyJson`'s export, or the plaintext of a backup), checked field by field. */
export function parseHistoryRecords(value: unknown): Pick<History, 'payments' | 'withdrawals'> {
  if (value === null || typeof value !== 'object') throw new HistoryFileError('This file is not a Wraith history.');
  const v = value as Record<string, unknown>;
  if (v.version !== 1) throw new HistoryFileError('This history was written by another version of Wraith: nothing was restored.');
  return {
    payments: records<PaymentRecord>(v.payments, PAYMENT_FIELDS, 'payment'),
    withdrawals: records<WithdrawalRecord>(v.withdrawals, WITHDRAWAL_FIELDS, 'withdrawal'),
  };
}

/** What a restore added, and what it left out because the history here says otherwise. */
export type MergeOutcome = { history: History; payments: number; withdrawals: number; conflicts: number };

/**
 * `from` merged into `into`: a payment new here is added, one known here keeps what this history
 * says and gains only what it lacked; a withdrawal is added unless the same record is here. A
 * record whose announcement this history knows under another stealth address (a history kept
 * against another server) is left out and counted as a conflict. The claim run in progress here is kept.
 */
export function mergeHistory(into: History, from: Pick<History, 'payments' | 'withdrawals'>): MergeOutcome {
  const payments = [...into.payments];
  let addedPayments = 0;
  let conflicts = 0;
  const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  for (const payment of from.payments) {
    const index = payments.findIndex((p) => p.announcementId === payment.announcementId);
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
    const payment = payments.find((p) => p.announcementId === withdrawal.announcementId);
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
