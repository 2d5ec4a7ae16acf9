'use client';
/**
 * Send, as a task: whom to pay (a payment link, the CID it carries, a .eth or .sui name through
 * this server's resolver, a plain address through the ERC-6538 registry read by the wallet
 * (registry-recipient.tsx), or a meta-address in either form), then the wallet, the amount and
 * asset, one review with every fee, and pay (pay-from-wallet.tsx, SDK `payStealth`). The
 * one-time address is made in this browser at the review (SDK `createStealthPayment`); nobody
 * presses "create". Paying from elsewhere (a one-time EVM or Sui address to pay by hand, then
 * announcing that transaction, INTERFACE.md 4.3) sits under "Advanced" (pay-elsewhere.tsx); such
 * an address not yet announced is kept in this browser and offered again on a later visit
 * (kept-payments-panel.tsx).
 */
import { bytesToHex, decodeAnyMetaAddress, metaAddressFingerprint, type AnyMetaAddress } from '@wraith-pq/sdk';
import dynamic from 'next/dynamic';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiError, downloadMetaAddress, followedChains, resolveEnsAddress, resolveName, type FollowedChain } from '../_lib/api';
import type { ChainWallet } from '../_lib/chain-clients';
import { errorMessage } from '../_lib/error-message';
import { shortHex } from '../_lib/format';
import { classifyRecipient, type Recipient } from '../_lib/recipient';
import { KeptPaymentsPanel } from './kept-payments-panel';
import { Notice } from './notice';
import { PayElsewhere } from './pay-elsewhere';
import { WalletPicker } from './wallet-picker';
import './pay.css';

/** The wallet payment (viem and the SDK's evm entry) loads only once a wallet is connected. */
const PayFromWallet = dynamic(() => import('./pay-from-wallet').then((m) => m.PayFromWallet), {
  ssr: false,
  loading: () => <p className="hint">Loading…</p>,
});

/** A plain address's meta-address from the ERC-6538 registry, read through the wallet (viem loads with it). */
const RegistryRecipient = dynamic(() => import('./registry-recipient').then((m) => m.RegistryRecipient), { ssr: false });

/** Which chain the wallet pays on, and switching it (viem's chain table loads with it). */
const PayChain = dynamic(() => import('./pay-chain').then((m) => m.PayChain), { ssr: false });

/** A recipient found, with the fingerprint a payer can compare with the recipient's (SDK `metaAddressFingerprint`). */
function recipientOf(meta: AnyMetaAddress, source: string, cid?: string): Recipient {
  return { meta, source, fingerprint: metaAddressFingerprint(meta.bytes), ...(cid ? { cid } : {}) };
}

export function SendApp() {
  const [recipient, setRecipient] = useState<Recipient | null>(null);
  const [connection, setConnection] = useState<ChainWallet | null>(null);
  /** The chains this server indexes (ids and names from GET /health). */
  const [followed, setFollowed] = useState<FollowedChain[]>([]);
  /** `?to=` of a payment link, read once on arrival. */
  const [linked, setLinked] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    setLinked(new URLSearchParams(window.location.search).get('to'));
    const abort = new AbortController();
    void followedChains(abort.signal).then(setFollowed);
    return () => abort.abort();
  }, []);
  const recipientKey = recipient ? bytesToHex(recipient.meta.bytes) : null;
  if (linked === undefined) return <p className="hint">Loading…</p>;
  return (
    <>
      <KeptPaymentsPanel followed={followed} walletChainId={connection?.chainId ?? null} />
      <FindRecipient initial={linked} onFound={setRecipient} />
      {recipient && (
        <section className="panel" aria-labelledby="pay-heading">
          <h2 id="pay-heading">
            <span className="step" aria-hidden="true">2</span>Pay from your wallet
          </h2>
          <p className="hint">Your wallet pays, and its chain is read through your wallet, not through this server.</p>
          <WalletPicker mode="sign" connection={connection} onConnected={setConnection} />
          {connection && <PayChain connection={connection} followed={followed} onConnected={setConnection} />}
          {connection && <PayFromWallet key={recipientKey} recipient={recipient} connection={connection} />}
        </section>
      )}
      {recipient && <PayElsewhere key={recipientKey} recipient={recipient} followed={followed} walletChainId={connection?.chainId ?? null} />}
    </>
  );
}

function FindRecipient({ initial, onFound }: { initial: string | null; onFound: (recipient: Recipient | null) => void }) {
  const id = useId();
  const [input, setInput] = useState(initial ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [found, setFound] = useState<Recipient | null>(null);
  /** An address (typed, or an ENS name's without a stealth-meta record): looked up in the ERC-6538 registry through the wallet. */
  const [lookup, setLookup] = useState<{ address: string; name?: string } | null>(null);

  async function find(text: string) {
    setError(null);
    setFound(null);
    setLookup(null);
    onFound(null);
    const parsed = classifyRecipient(text);
    if (parsed.kind === 'invalid') return setError(parsed.reason);
    if (parsed.kind === 'address') return setLookup({ address: parsed.address });
    setBusy(true);
    try {
      let recipient: Recipient;
      if (parsed.kind === 'meta-address') {
        recipient = recipientOf(decodeAnyMetaAddress(parsed.text), 'the pasted meta-address');
      } else if (parsed.kind === 'cid') {
        const bytes = await downloadMetaAddress(parsed.cid).catch((cause: unknown) => {
          if (cause instanceof ApiError && cause.status === 404) {
            throw new Error('Nobody is found at this payment link: it may have been mistyped or cut short. Ask the recipient to send it again.');
          }
          throw cause;
        });
        recipient = recipientOf(decodeAnyMetaAddress(bytes), 'the recipient of this link', parsed.cid);
      } else {
        const resolved = await resolveName(parsed.kind, parsed.name).catch(async (cause) => {
          // A .eth name without a stealth-meta record: the address it sets may have an ERC-6538 registration.
          if (parsed.kind !== 'ens' || !(cause instanceof ApiError) || cause.code !== 'NO_STEALTH_RECORD') throw cause;
          const { ens_name, address } = await resolveEnsAddress(parsed.name).catch((inner) => {
            if (!(inner instanceof ApiError) || inner.code !== 'NAME_NOT_FOUND') throw inner;
            throw new Error(`${parsed.name} has not set up private payments yet, so it cannot be paid here. Ask them for their payment link.`);
          });
          setLookup({ address, name: ens_name });
          return null;
        });
        if (resolved === null) return;
        // Validate locally too: the payment is only as good as the key it encrypts to.
        recipient = recipientOf(decodeAnyMetaAddress(resolved.meta_address), parsed.name, resolved.ipfs_cid);
      }
      setFound(recipient);
      onFound(recipient);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  }

  // A payment link opened: look its recipient up at once.
  const started = useRef(false);
  useEffect(() => {
    if (started.current || !initial) return;
    started.current = true;
    void find(initial);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on arrival
  }, [initial]);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void find(input);
  }

  return (
    <section className="panel" aria-labelledby="recipient-heading">
      <h2 id="recipient-heading">
        <span className="step" aria-hidden="true">1</span>Who are you paying?
      </h2>
      <form onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor={id}>Payment link, name or address</label>
          <input
            id={id}
            type="text"
            placeholder="alice.eth, alice.sui, a payment link or 0x…"
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            value={input}
            onChange={(e) => setInput(e.target.value)}
            aria-describedby={`${id}-hint`}
            aria-invalid={error ? true : undefined}
          />
          <p className="hint" id={`${id}-hint`}>
            The link the recipient shared (or the code at its end), their .eth or .sui name, their wallet&apos;s address, or their
            meta-address.
          </p>
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Looking up…' : 'Find recipient'}
        </button>
      </form>
      {error && <Notice kind="error">{error}</Notice>}
      {lookup && !found && (
        <RegistryRecipient
          key={lookup.address}
          address={lookup.address}
          {...(lookup.name ? { name: lookup.name } : {})}
          onFound={({ meta, source }) => {
            const recipient = recipientOf(meta, source);
            setFound(recipient);
            onFound(recipient);
          }}
        />
      )}
      {found && (
        <Notice kind="success">
          <span data-testid="recipient-found">
            Found <strong>{found.source}</strong>
            <br />
            Fingerprint <strong className="fingerprint-value" data-testid="recipient-fingerprint">{found.fingerprint}</strong>
          </span>
          <details className="more">
            <summary>Technical details</summary>
            <p className="hint">
              Spending key <code>{shortHex(bytesToHex(found.meta.spendingPublicKey))}</code>
              {found.cid ? <> · published at IPFS <code>{found.cid}</code></> : null} · paid with{' '}
              <span data-testid="recipient-scheme">{found.meta.schemeId === 3 ? 'scheme 3 (ERC-8441)' : 'scheme 1000 (Wraith)'}</span>.
            </p>
          </details>
        </Notice>
      )}
    </section>
  );
}
