'use client';
/**
 * The history on the Scan page (history.ts): each payment found, what was withdrawn from it,
 * where, and at what fee; exported as JSON or CSV (made in this page, downloaded from a blob:
 * nothing goes to the server), and one printable receipt per payment (receipt.tsx). An encrypted
 * backup carries it to another browser, where the same keys restore it (history-store.ts); a
 * restore merges, it never replaces.
 */
import { useId, useState } from 'react';
import { formatAmount, noteAmountText, roundedAmount } from '../_lib/amount';
import { errorMessage } from '../_lib/error-message';
import { feeCoinOf, historyCsv, historyJson, type History } from '../_lib/history';
import { HISTORY_FILE_LIMIT, historyBackup, restoreHistory } from '../_lib/history-store';
import { Notice } from './notice';
import { Receipt } from './receipt';

export type HistoryPanelProps = {
  history: History;
  /** "Base (chain id 8453)" for a chain id (the page's chain names, once loaded). */
  chainName: (chainId: number | null) => string;
  /** The explorer's base URL of a chain, when the page knows one. */
  explorerOf: (chainId: number | null) => string | null;
};

/** Offer `text` as a file download, made in this page. */
function download(text: string, name: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** "3 payments", "1 withdrawal". */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export function HistoryPanel({ history, chainName, explorerOf }: HistoryPanelProps) {
  const [receiptOf, setReceiptOf] = useState<number | null>(null);
  const stamp = new Date().toISOString().slice(0, 10);
  const [restore, setRestore] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const restoreId = useId();

  async function onBackup() {
    setRestore(null);
    try {
      download(await historyBackup(), `wraith-history-backup-${stamp}.json`, 'application/json');
    } catch (cause) {
      setRestore({ kind: 'error', text: errorMessage(cause) });
    }
  }

  async function onRestore(input: HTMLInputElement) {
    const file = input.files?.[0];
    input.value = ''; // the same file can be chosen again
    if (!file) return;
    setRestore(null);
    try {
      if (file.size > HISTORY_FILE_LIMIT) throw new Error('This file is too large to be a Wraith history.');
      const outcome = await restoreHistory(await file.text());
      const added = outcome.payments + outcome.withdrawals;
      const conflicts =
        outcome.conflicts > 0 ? ` ${count(outcome.conflicts, 'record')} left out: this history knows their announcements under other stealth addresses (a history kept against another server).` : '';
      setRestore({
        kind: 'success',
        text: added === 0 ? `Nothing new in ${file.name}: this history already holds all of it.${conflicts}` : `Restored from ${file.name}: ${count(outcome.payments, 'payment')} and ${count(outcome.withdrawals, 'withdrawal')} added.${conflicts}`,
      });
    } catch (cause) {
      setRestore({ kind: 'error', text: errorMessage(cause) });
    }
  }

  const payments = [...history.payments].sort((a, b) => b.date.localeCompare(a.date));
  const receipt = payments.find((p) => p.announcementId === receiptOf);
  return (
    <section className="panel" aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <p className="hint">
        Kept in this browser, encrypted with your keys, and never sent to the server. It ties the addresses you were paid at to where you sent the
        money: keep its files as private as your keys.
      </p>
      {payments.length === 0 ? (
        <p className="hint">Nothing yet: payments appear here once a scan finds them.</p>
      ) : (
        <ul className="history" data-testid="history">
          {payments.map((p) => {
            const out = history.withdrawals.filter((w) => w.announcementId === p.announcementId);
            const done = out.filter((w) => w.status === 'withdrawn');
            const fees = done.reduce((sum, w) => sum + BigInt(w.feePaid ?? '0'), 0n);
            const unit = p.symbol !== null && p.decimals !== null ? { symbol: p.symbol, decimals: p.decimals } : null;
            return (
              <li key={p.announcementId} data-testid="history-row" data-stealth-address={p.stealthAddress.toLowerCase()}>
                <dl className="tx-list">
                  <dt>Received</dt>
                  <dd>
                    <span data-testid="history-amount">{p.amount === null ? '—' : noteAmountText(p.amount, unit, p.asset)}</span> · {new Date(p.date).toLocaleString()} ·{' '}
                    {chainName(p.chainId)}
                  </dd>
                  <dt>Withdrawn</dt>
                  <dd data-testid="history-withdrawn">
                    {done.length === 0
                      ? out.length > 0
                        ? `failed: ${out[out.length - 1]!.error}`
                        : 'not yet'
                      : done.map((w) => noteAmountText(w.amount ?? '0', w.symbol && w.decimals !== null ? { symbol: w.symbol, decimals: w.decimals } : null)).join(' and ')}
                  </dd>
                  <dt>Fees paid</dt>
                  <dd data-testid="history-fees" title={done.length === 0 ? undefined : formatAmount(fees, 18, feeCoinOf(done))}>
                    {done.length === 0 ? '—' : roundedAmount(fees, 18, feeCoinOf(done))}
                  </dd>
                </dl>
                <button type="button" className="secondary small" onClick={() => setReceiptOf(receiptOf === p.announcementId ? null : p.announcementId)}>
                  {receiptOf === p.announcementId ? 'Hide receipt' : 'Receipt'}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {payments.length > 0 && (
        <div className="row">
          <button type="button" className="secondary" onClick={() => download(historyJson(history), `wraith-history-${stamp}.json`, 'application/json')}>
            Export JSON
          </button>
          <button type="button" className="secondary" onClick={() => download(historyCsv(history), `wraith-history-${stamp}.csv`, 'text/csv')}>
            Export CSV
          </button>
          <button type="button" className="secondary" onClick={onBackup}>
            Back up history
          </button>
        </div>
      )}
      <div className="field">
        <label htmlFor={restoreId}>Restore history from a file</label>
        <input id={restoreId} type="file" accept=".json,application/json" aria-describedby={`${restoreId}-hint`} onChange={(e) => onRestore(e.currentTarget)} />
        <p className="hint" id={`${restoreId}-hint`}>
          A backup made with &ldquo;Back up history&rdquo; (encrypted: only these keys open it) or a JSON export. It is merged into this history; nothing here is
          lost.
        </p>
      </div>
      {restore && <Notice kind={restore.kind}>{restore.text}</Notice>}
      {receipt && (
        <Receipt
          payment={receipt}
          withdrawals={history.withdrawals.filter((w) => w.announcementId === receipt.announcementId)}
          chainName={chainName(receipt.chainId)}
          explorerUrl={explorerOf(receipt.chainId)}
        />
      )}
    </section>
  );
}
