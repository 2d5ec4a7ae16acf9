'use client';
/**
 * One payment found by the scan, as the Scan page lists it: what arrived ("0.5 ETH", from the
 * sender's note), on which chain and when; the addresses, transactions and registry entry behind
 * "Technical details"; the one-time spending key behind "Advanced", with a warning, shown only
 * when asked for. The claim flow (claim-all.tsx) puts its checkbox in `lead` and the payment's
 * balance and destination in `children`.
 */
import { bytesToHex } from '@wraith-pq/sdk';
import { useState, type ReactNode } from 'react';
import { errorMessage } from '../_lib/error-message';
import { formatTime } from '../_lib/format';
import type { SavedDiscovery } from '../_lib/scan-state';
import { CopyButton } from './copy-button';
import { Notice } from './notice';
import { TxHash } from './tx-hash';

export type DiscoveryItemProps = {
  discovery: SavedDiscovery;
  /** "0.5 ETH", "100 TST", or what is known of it (amount.ts `noteAmountText`). */
  amountText: string | null;
  chainText: string;
  explorerUrl: string | null;
  /** The payment's one-time key, derived in this page. */
  secretKey: () => Promise<Uint8Array>;
  /** Claimed: nothing left to move (shown as done). */
  done?: boolean;
  /** Before the amount: the claim's checkbox. */
  lead?: ReactNode;
  children?: ReactNode;
};

export function DiscoveryItem({ discovery, amountText, chainText, explorerUrl, secretKey, done = false, lead, children }: DiscoveryItemProps) {
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const announcementTx = discovery.txHash && discovery.txHash !== discovery.note?.txHash ? discovery.txHash : null;

  async function reveal() {
    setBusy(true);
    setError(null);
    try {
      setSecret(`0x${bytesToHex(await secretKey())}`);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  }

  return (
    <li className={`discovery${done ? ' done' : ''}`} data-testid="discovery" data-done={done ? 'true' : undefined}>
      <div className="discovery-head">
        {lead}
        <div className="discovery-summary">
          <strong className="discovery-amount" data-testid="note-amount">
            {amountText ?? 'Amount not stated by the sender'}
          </strong>
          <span className="hint">
            {' '}
            on <span data-testid="discovery-chain">{chainText}</span> · {formatTime(discovery.timestamp)}
          </span>
          {done && (
            <span className="badge done" data-testid="discovery-done">
              Claimed
            </span>
          )}
        </div>
      </div>
      {children}
      <details className="more">
        <summary>Technical details</summary>
        <dl>
          <dt>Received at</dt>
          <dd>
            <code data-testid="discovery-address">{discovery.stealthAddress}</code> <CopyButton value={discovery.stealthAddress} label="address" />
          </dd>
          <dt>Same payment on Sui</dt>
          <dd>
            <code data-testid="discovery-sui-address">{discovery.stealthSuiAddress}</code>
          </dd>
          <dt>Transactions</dt>
          <dd data-testid="discovery-note">
            {discovery.note?.txHash && (
              <div>
                <TxHash label="Payment" hash={discovery.note.txHash} explorerUrl={explorerUrl} testId="note-tx" />
              </div>
            )}
            {announcementTx && (
              <div>
                <TxHash label="Announcement" hash={announcementTx} explorerUrl={explorerUrl} testId="announcement-tx" />
              </div>
            )}
            {discovery.txHash && !announcementTx && !discovery.note?.txHash && (
              <div>
                <TxHash label="Payment (as the sender announced it)" hash={discovery.txHash} explorerUrl={explorerUrl} />
              </div>
            )}
            <div>
              Registry entry #{discovery.id}
              {discovery.note?.chainId ? <> · the sender&apos;s note names chain id {discovery.note.chainId}</> : null}
              {discovery.note?.amount ? <> · amount {discovery.note.amount} in the asset&apos;s smallest unit</> : null}
              {!discovery.note && ' · no note from the sender'}
              {!discovery.note && discovery.amount ? <> · the sender said: {discovery.amount}</> : null}
            </div>
          </dd>
        </dl>
      </details>
      <details className="more advanced">
        <summary>Advanced: this payment&apos;s private key</summary>
        {secret ? (
          <div className="secret">
            <p>
              <strong>Private key of this payment</strong> — anyone who sees it can take this money. Import it into a wallet only to spend
              it there, and never share it.
            </p>
            <code data-testid="spending-key">{secret}</code>
            <div className="row">
              <CopyButton value={secret} label="private key" />
              <button type="button" className="secondary small" onClick={() => setSecret(null)}>
                Hide key
              </button>
            </div>
          </div>
        ) : (
          <>
            <Notice kind="info">
              Claiming above needs no key. Reveal it only to move this payment with another wallet: whoever sees the key can take the money.
            </Notice>
            <button type="button" className="secondary small" onClick={reveal} disabled={busy}>
              {busy ? 'Deriving…' : 'Reveal spending key'}
            </button>
          </>
        )}
        {error && <Notice kind="error">{error}</Notice>}
      </details>
    </li>
  );
}
