'use client';
/**
 * One-time addresses made on Send ("Advanced") and not announced yet, read back from this
 * browser (kept-payments.ts) after a reload or a later visit: each with its address to pay, the
 * form that announces a payment to it, and a way to forget one that was never paid. Shown only
 * when there is one.
 */
import { useEffect, useState } from 'react';
import type { FollowedChain } from '../_lib/api';
import { forgetPayment, keptPayments, type KeptPayment } from '../_lib/kept-payments';
import { AnnouncePayment } from './announce-payment';
import { CopyableValue } from './copyable-value';
import { Notice } from './notice';

export type KeptPaymentsPanelProps = {
  followed: readonly FollowedChain[];
  walletChainId: number | null;
};

export function KeptPaymentsPanel({ followed, walletChainId }: KeptPaymentsPanelProps) {
  /** Read once the page is in the browser (localStorage is not there when it renders on the server). */
  const [kept, setKept] = useState<KeptPayment[]>([]);
  useEffect(() => setKept(keptPayments()), []);
  if (kept.length === 0) return null;
  function forget(record: KeptPayment) {
    if (!window.confirm('Forget this one-time address? If you paid it, the recipient cannot find that money unless it is announced.')) return;
    forgetPayment(record.stealthAddress);
    setKept((all) => all.filter((k) => k.stealthAddress !== record.stealthAddress));
  }
  return (
    <section className="panel" aria-labelledby="kept-heading" data-testid="kept-payments">
      <h2 id="kept-heading">Not announced yet</h2>
      <Notice kind="info">
        {kept.length === 1 ? 'A one-time address you made here is' : `${kept.length} one-time addresses you made here are`} not announced. If you paid it, announce the
        payment below: until then the recipient cannot find the money.
      </Notice>
      {kept.map((record) => (
        <div key={record.stealthAddress} className="kept-payment" data-testid="kept-payment">
          <p>
            For <strong>{record.recipient}</strong> · fingerprint <strong className="fingerprint-value">{record.fingerprint}</strong> · made{' '}
            {new Date(record.createdAt).toLocaleString()}
          </p>
          <CopyableValue label="EVM one-time address" value={record.stealthAddress} testId="kept-address" />
          <CopyableValue label="Sui one-time address" value={record.stealthSuiAddress} />
          <AnnouncePayment payment={record} chains={followed} walletChainId={walletChainId} />
          <button type="button" className="secondary small" onClick={() => forget(record)}>
            Forget it
          </button>
        </div>
      ))}
    </section>
  );
}
