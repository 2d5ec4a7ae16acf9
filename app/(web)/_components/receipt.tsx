'use client';
/**
 * One payment's receipt, for printing (or saving as PDF from the print dialog): what arrived, on
 * which chain, when, with its hashes, and each withdrawal with its fee. Nothing secret: no key, no
 * note ciphertext. Printing shows the receipt alone (receipt.css).
 */
import { formatAmount, noteAmountText } from '../_lib/amount';
import { feeCoinOf, type PaymentRecord, type WithdrawalRecord } from '../_lib/history';
import { TxHash } from './tx-hash';
import './receipt.css';

export type ReceiptProps = {
  payment: PaymentRecord;
  withdrawals: readonly WithdrawalRecord[];
  chainName: string;
  explorerUrl: string | null;
};

export function Receipt({ payment, withdrawals, chainName, explorerUrl }: ReceiptProps) {
  const unit = payment.symbol !== null && payment.decimals !== null ? { symbol: payment.symbol, decimals: payment.decimals } : null;
  const done = withdrawals.filter((w) => w.status === 'withdrawn');
  return (
    <article className="receipt" data-testid="receipt" aria-labelledby="receipt-heading">
      <h3 id="receipt-heading">Receipt: payment #{payment.announcementId}</h3>
      <dl>
        <dt>Amount received</dt>
        <dd data-testid="receipt-amount">{payment.amount === null ? 'not stated by the sender' : noteAmountText(payment.amount, unit)}</dd>
        <dt>Chain</dt>
        <dd>{chainName}</dd>
        <dt>Date</dt>
        <dd>{new Date(payment.date).toLocaleString()}</dd>
        <dt>Received at</dt>
        <dd>
          <code>{payment.stealthAddress}</code>
        </dd>
        {payment.paymentTx && (
          <>
            <dt>Payment</dt>
            <dd>
              <TxHash label="Payment transaction" hash={payment.paymentTx} explorerUrl={explorerUrl} />
            </dd>
          </>
        )}
        {payment.announcementTx && payment.announcementTx !== payment.paymentTx && (
          <>
            <dt>Announcement</dt>
            <dd>
              <TxHash label="Announcement transaction" hash={payment.announcementTx} explorerUrl={explorerUrl} />
            </dd>
          </>
        )}
        {done.map((w) => (
          <div key={w.hash}>
            <dt>Withdrawn {new Date(w.date).toLocaleString()}</dt>
            <dd>
              {noteAmountText(w.amount ?? '0', w.symbol && w.decimals !== null ? { symbol: w.symbol, decimals: w.decimals } : null)} to <code>{w.destination}</code>, network fee{' '}
              {formatAmount(BigInt(w.feePaid ?? '0'), 18, feeCoinOf(done))}
              <br />
              <TxHash label="Withdrawal transaction" hash={w.hash!} explorerUrl={explorerUrl} />
            </dd>
          </div>
        ))}
      </dl>
      <button type="button" className="secondary no-print" onClick={() => window.print()}>
        Print receipt
      </button>
    </article>
  );
}
