/**
 * The recipient's record of what arrived and what left: every discovered payment (its amount,
 * asset, chain and hashes) and every withdrawal from it (destination, amount, the fee bound shown
 * before signing and the fee paid, the hash, or why it failed). Amounts and fees are base units as
 * decimal strings (fees in wei), the SDK's record type, which the CLI's `wraith history` keeps too,
 * so exports compare with the chain's receipts to the unit. Nothing here is secret in the sense of
 * a key, but it ties the stealth addresses to their owner's destinations, so it is kept encrypted
 * (history-store.ts).
 * @module
 */
import type { MergeOutcome as RecordsMergeOutcome, PaymentRecord, WithdrawalRecord } from '@wraith-pq/sdk';
import { chainInfo } from './chains';

// The records, their exports, validation and merge are the SDK's (sdk/src/history.ts): the CLI's
// `wraith history` keeps the same records, so a history exported by one is read by the other.
export { HISTORY_CSV_COLUMNS as CSV_COLUMNS, historyCsv, historyJson, mergeHistory, parseHistoryRecords, upsertPayment } from '@wraith-pq/sdk';

export type { PaymentRecord, WithdrawalRecord };

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

/** What a restore added to this history, and what it left out. */
export type MergeOutcome = RecordsMergeOutcome<History>;

export const EMPTY_HISTORY: History = { version: 1, payments: [], withdrawals: [], run: null };

/**
 * The coin the fees of `withdrawals` (of one payment, so of one chain) were paid in: the chain's
 * own, also when only tokens were withdrawn (gas is never paid in the token).
 */
export function feeCoinOf(withdrawals: readonly Pick<WithdrawalRecord, 'chainId'>[]): string {
  const chainId = withdrawals[0]?.chainId;
  return chainId === undefined ? 'ETH' : chainInfo(chainId).nativeCurrency.symbol;
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

/** A history file that cannot be read: the SDK's, whose message is for the person. */
export { InvalidHistoryError as HistoryFileError } from '@wraith-pq/sdk';
