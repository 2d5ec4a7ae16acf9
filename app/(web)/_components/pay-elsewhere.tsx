'use client';
/**
 * Send, "Advanced": pay from somewhere this page cannot reach (an exchange, a hardware wallet, a
 * Sui wallet). A one-time address is made here (SDK `createStealthPayment`), in its EVM and Sui
 * forms with QR codes; once paid, the payment is announced with the transaction's hash
 * (announce-payment.tsx) so the recipient's scan finds it.
 *
 * The address is kept in this browser (kept-payments.ts) before it is shown, and leaving the page
 * asks first until it is announced: paid and never announced, nobody could find the money. After
 * a reload Send offers the kept address again (kept-payments-panel.tsx).
 */
import { createStealthPayment, type StealthPayment } from '@wraith-pq/sdk';
import { useState } from 'react';
import type { FollowedChain } from '../_lib/api';
import { errorMessage } from '../_lib/error-message';
import { keepPayment, type KeptPayment } from '../_lib/kept-payments';
import { useLeaveGuard } from '../_lib/leave-guard';
import type { Recipient } from '../_lib/recipient';
import { AnnouncePayment } from './announce-payment';
import { CopyableValue } from './copyable-value';
import { Notice } from './notice';

export type PayElsewhereProps = {
  recipient: Recipient;
  /** EVM chains this server follows: the announcement names the one the payment was made on. */
  followed: readonly FollowedChain[];
  walletChainId: number | null;
};

const LEAVE_QUESTION = 'The one-time address is not announced yet: if you pay it, the recipient cannot find the money until it is. It stays kept in this browser and Send offers it again. Leave this page?';

export function PayElsewhere({ recipient, followed, walletChainId }: PayElsewhereProps) {
  const [made, setMade] = useState<{ payment: StealthPayment; kept: KeptPayment } | null>(null);
  const [announced, setAnnounced] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useLeaveGuard(made !== null && !announced, LEAVE_QUESTION);
  function create() {
    setError(null);
    try {
      const payment = createStealthPayment(recipient.meta);
      // Kept before it is shown: a payment to an address nobody kept could never be announced.
      const kept = keepPayment(payment, recipient);
      setMade({ payment, kept });
      setAnnounced(false);
    } catch (cause) {
      setError(errorMessage(cause));
    }
  }
  const payment = made?.payment;
  return (
    <details className="panel advanced" data-testid="pay-elsewhere">
      <summary>
        <h2>Advanced: pay from another wallet or chain</h2>
      </summary>
      <p className="hint">
        Get a one-time address of {recipient.source} to pay by hand, on an EVM chain or on Sui, then tell the recipient about the
        payment here so they find it.
      </p>
      <button type="button" className="secondary" onClick={create}>
        {payment ? 'Make another one-time address' : 'Make a one-time address'}
      </button>
      {error && <Notice kind="error">{error}</Notice>}
      {made && payment && (
        <div>
          <p className="hint">
            Send the money to the address for your chain: only the recipient can spend from it, and nobody else can tell it is theirs. This
            browser keeps it until you announce the payment.
          </p>
          <CopyableValue label="EVM one-time address" value={payment.stealthAddress} qr testId="stealth-address" />
          <CopyableValue label="Sui one-time address" value={payment.stealthSuiAddress} qr testId="stealth-sui-address" />
          <details className="more">
            <summary>Technical details</summary>
            <p className="hint">
              View tag <code data-testid="view-tag">{payment.viewTag}</code>; the ML-KEM ciphertext below is published with the announcement.
            </p>
            <CopyableValue label="Ephemeral key (ML-KEM ciphertext)" value={made.kept.ephemeralKey} long testId="ephemeral-key" />
          </details>
          <AnnouncePayment key={made.kept.ephemeralKey} payment={made.kept} chains={followed} walletChainId={walletChainId} onPublished={() => setAnnounced(true)} />
        </div>
      )}
    </details>
  );
}
