'use client';
/**
 * "Tell the recipient": publish the announcement of a payment made by hand to a one-time address
 * (POST /api/v1/registry/announcements, INTERFACE.md 4.3) with the transaction's hash, so the
 * recipient's scan finds it. Once published, this browser's record of the address
 * (kept-payments.ts) is forgotten: there is nothing left to announce.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { publishAnnouncement, type FollowedChain } from '../_lib/api';
import { chainInfo, chainLabel } from '../_lib/chains';
import { errorMessage } from '../_lib/error-message';
import { forgetPayment, type KeptPayment } from '../_lib/kept-payments';
import { Notice } from './notice';

const SUI = 'sui';
/** An EVM chain when this server names none: announced as 'ethereum', without an id. */
const EVM = 'evm';

export type AnnouncePaymentProps = {
  /** With `txHash` and `chainId` when the transfer is known (a wallet payment): the form starts with them. */
  payment: Pick<KeptPayment, 'schemeId' | 'stealthAddress' | 'ephemeralKey' | 'viewTag' | 'txHash' | 'chainId'>;
  chains: readonly FollowedChain[];
  walletChainId: number | null;
  onPublished?: (announcementId: number) => void;
};

export function AnnouncePayment({ payment, chains, walletChainId, onPublished }: AnnouncePaymentProps) {
  const ids = { hash: useId(), chain: useId(), amount: useId() };
  const [txHash, setTxHash] = useState(payment.txHash ?? '');
  const [amount, setAmount] = useState('');
  const defaultChain = () => String(chains.find((c) => c.id === (payment.chainId ?? walletChainId))?.id ?? chains[0]?.id ?? EVM);
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
        ephemeral_key: payment.ephemeralKey,
        view_tag: payment.viewTag,
        tx_hash: txHash.trim(),
        ...(payment.schemeId === 3 ? { scheme_id: 3, stealth_address: payment.stealthAddress } : {}),
        ...(amount.trim() ? { amount: amount.trim() } : {}),
        // Named as the server names that chain's indexed rows, with its id.
        ...(chosen ? { chain: chosen.name || 'ethereum', chain_id: chosen.id } : { chain: chainChoice === SUI ? SUI : 'ethereum' }),
      });
      forgetPayment(payment.stealthAddress);
      setPublished(announcementId);
      onPublished?.(announcementId);
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
