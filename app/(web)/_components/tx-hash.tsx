'use client';
/**
 * A transaction hash with the label that says what it is (payment, gas top-up, announcement,
 * withdrawal), linked to the chain's explorer where the page knows one (explorer.ts). The label
 * is part of the element, so no hash on a page stands alone.
 */
import { explorerTxUrl } from '../_lib/explorer';

export type TxHashProps = {
  /** What the transaction is: "Payment", "Gas top-up", "Announcement", "Withdrawal (100 TST)"… */
  label: string;
  hash: string;
  /** The explorer's base URL for the chain of `hash`; null: no link (local chains, unknown chains). */
  explorerUrl: string | null;
  testId?: string;
};

export function TxHash({ label, hash, explorerUrl, testId }: TxHashProps) {
  const url = explorerTxUrl(explorerUrl, hash);
  return (
    <span className="tx-hash" data-testid="labelled-hash">
      <span className="tx-label">{label}</span>{' '}
      <code data-testid={testId} title={hash}>
        {hash}
      </code>
      {url && (
        <>
          {' '}
          <a href={url} target="_blank" rel="noopener noreferrer">
            view on the explorer
          </a>
        </>
      )}
    </span>
  );
}
