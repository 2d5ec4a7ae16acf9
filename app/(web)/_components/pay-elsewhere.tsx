'use client';
/**
 * Send, "Advanced": pay from somewhere this page cannot reach (an exchange, a hardware wallet, a
 * Sui wallet). A one-time address is made here (SDK `createStealthPayment`), in its EVM and Sui
 * forms with QR codes; once paid, the payment is announced with the transaction's hash
 * (POST /api/v1/registry/announcements, INTERFACE.md 4.3) so the recipient's scan finds it.
 */
import { bytesToHex, createStealthPayment, type StealthPayment } from '@wraith-pq/sdk';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { publishAnnouncement, type FollowedChain } from '../_lib/api';
import { chainInfo, chainLabel } from '../_lib/chains';
import { errorMessage } from '../_lib/error-message';
import type { Recipient } from '../_lib/recipient';
import { CopyableValue } from './copyable-value';
import { Notice } from './notice';

export type PayElsewhereProps = {
  recipient: Recipient;
  /** EVM chains this server follows: the announcement names the one the payment was made on. */
  followed: readonly FollowedChain[];
  walletChainId: number | null;
};

export function PayElsewhere({ recipient, followed, walletChainId }: PayElsewhereProps) {
  const [payment, setPayment] = useState<StealthPayment | null>(null);
  const [error, setError] = useState<string | null>(null);
  function create() {
    setError(null);
    try {
      setPayment(createStealthPayment(recipient.meta));
    } catch (cause) {
      setError(errorMessage(cause));
    }
  }
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
      {payment && (
        <div>
          <p className="hint">Send the money to the address for your chain: only the recipient can spend from it, and nobody else can tell it is theirs.</p>
          <CopyableValue label="EVM one-time address" value={payment.stealthAddress} qr testId="stealth-address" />
          <CopyableValue label="Sui one-time address" value={payment.stealthSuiAddress} qr testId="stealth-sui-address" />
          <details className="more">
            <summary>Technical details</summary>
            <p className="hint">
              View tag <code data-testid="view-tag">{payment.viewTag}</code>; the ML-KEM ciphertext below is published with the announcement.
            </p>
            <CopyableValue label="Ephemeral key (ML-KEM ciphertext)" value={bytesToHex(payment.ephemeralCiphertext)} long testId="ephemeral-key" />
          </details>
          <Announce key={bytesToHex(payment.ephemeralCiphertext)} payment={payment} chains={followed} walletChainId={walletChainId} />
        </div>
      )}
    </details>
  );
}

const SUI = 'sui';
/** An EVM chain when this server names none: announced as 'ethereum', without an id. */
const EVM = 'evm';

function Announce({ payment, chains, walletChainId }: { payment: StealthPayment; chains: readonly FollowedChain[]; walletChainId: number | null }) {
  const ids = { hash: useId(), chain: useId(), amount: useId() };
  const [txHash, setTxHash] = useState('');
  const [amount, setAmount] = useState('');
  const defaultChain = () => String(chains.find((c) => c.id === walletChainId)?.id ?? chains[0]?.id ?? EVM);
  const [chainChoice, setChainChoice] = useState<string>(defaultChain);
  useEffect(() => {
    if (chainChoice === EVM && chains.length > 0) setChainChoice(defaultChain());
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the followed chains arrive
  }, [chains]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [published, setPublished] = useState<number | null>(null);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!txHash.trim()) return setError('Enter the hash of the transaction that paid the one-time address.');
    const chosen = chains.find((c) => String(c.id) === chainChoice);
    setBusy(true);
    try {
      const { id: announcementId } = await publishAnnouncement({
        ephemeral_key: bytesToHex(payment.ephemeralCiphertext),
        view_tag: payment.viewTag,
        tx_hash: txHash.trim(),
        ...(payment.schemeId === 3 ? { scheme_id: 3, stealth_address: payment.stealthAddress } : {}),
        ...(amount.trim() ? { amount: amount.trim() } : {}),
        // Named as the server names that chain's indexed rows, with its id.
        ...(chosen ? { chain: chosen.name || 'ethereum', chain_id: chosen.id } : { chain: chainChoice === SUI ? SUI : 'ethereum' }),
      });
      setPublished(announcementId);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  }

  if (published !== null) {
    return (
      <Notice kind="success">
        Announcement <strong data-testid="announcement-id">#{published}</strong> published. The recipient finds the payment on their next scan.
      </Notice>
    );
  }
  return (
    <form onSubmit={onSubmit} noValidate>
      <h3>Tell the recipient</h3>
      <p className="hint">Once your transaction is sent, publish its announcement. It holds a sealed note, never the recipient&apos;s identity.</p>
      <div className="field">
        <label htmlFor={ids.hash}>Transaction hash</label>
        <input id={ids.hash} type="text" placeholder="0x…" autoComplete="off" spellCheck={false} value={txHash} onChange={(e) => setTxHash(e.target.value)} aria-invalid={error ? true : undefined} />
      </div>
      <div className="row">
        <div className="field">
          <label htmlFor={ids.chain}>Chain of that transaction</label>
          <select id={ids.chain} value={chainChoice} onChange={(e) => setChainChoice(e.target.value)}>
            {chains.map((c) => (
              <option key={c.id} value={c.id}>
                {chainLabel(chainInfo(c.id, c.name))}
              </option>
            ))}
            {chains.length === 0 && <option value={EVM}>Ethereum</option>}
            <option value={SUI}>Sui</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.amount}>Amount paid (optional)</label>
          <input id={ids.amount} type="text" placeholder="0.5 ETH" autoComplete="off" value={amount} onChange={(e) => setAmount(e.target.value)} />
        </div>
      </div>
      <button type="submit" disabled={busy}>
        {busy ? 'Publishing…' : 'Publish announcement'}
      </button>
      {error && <Notice kind="error">{error}</Notice>}
    </form>
  );
}
