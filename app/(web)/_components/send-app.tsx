'use client';
/**
 * Send: find the recipient's meta-address (a .eth or .sui name through this server's resolver,
 * a plain address through the ERC-6538 registry read by the wallet (registry-recipient.tsx), or
 * pasted, in either form: scheme 3 for a 1250-byte one, 1000 for 1218 bytes), create the one-time payment in this browser (SDK `createStealthPayment`), then
 * either pay and announce it on chain from a connected wallet (pay-from-wallet.tsx, EVM), or pay
 * elsewhere and announce it here with the transaction hash (INTERFACE.md 4.3).
 */
import { bytesToHex, createStealthPayment, decodeAnyMetaAddress, type AnyMetaAddress, type StealthPayment } from '@wraith-pq/sdk';
import dynamic from 'next/dynamic';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { ApiError, followedChains, publishAnnouncement, resolveEnsAddress, resolveName, type FollowedChain } from '../_lib/api';
import type { ChainWallet } from '../_lib/chain-clients';
import { errorMessage } from '../_lib/error-message';
import { shortHex } from '../_lib/format';
import { classifyRecipient } from '../_lib/recipient';
import { CopyableValue } from './copyable-value';
import { Notice } from './notice';
import { WalletPicker } from './wallet-picker';

/** The wallet payment (viem and the SDK's evm entry) loads only once a wallet is connected. */
const PayFromWallet = dynamic(() => import('./pay-from-wallet').then((m) => m.PayFromWallet), {
  ssr: false,
  loading: () => <p className="hint">Loading…</p>,
});

/** A plain address's meta-address from the ERC-6538 registry, read through the wallet (viem loads with it). */
const RegistryRecipient = dynamic(() => import('./registry-recipient').then((m) => m.RegistryRecipient), { ssr: false });

/** Which chain the wallet pays on, and switching it (viem's chain table loads with it). */
const PayChain = dynamic(() => import('./pay-chain').then((m) => m.PayChain), { ssr: false });

type Recipient = { meta: AnyMetaAddress; source: string; cid?: string };
type Payment = StealthPayment & { chain: string };

export function SendApp() {
  const [recipient, setRecipient] = useState<Recipient | null>(null);
  const [payment, setPayment] = useState<Payment | null>(null);
  /** The one amount of the page: what the wallet pays and seals into the note, or what an announcement states. */
  const [amount, setAmount] = useState('');
  const [connection, setConnection] = useState<ChainWallet | null>(null);
  /** The payment (by its ciphertext) already paid and announced from the wallet: no manual announcement then. */
  const [paidFromWallet, setPaidFromWallet] = useState<string | null>(null);
  /** The chains this server indexes (ids and names from GET /health). */
  const [followed, setFollowed] = useState<FollowedChain[]>([]);
  useEffect(() => {
    const abort = new AbortController();
    void followedChains(abort.signal).then(setFollowed);
    return () => abort.abort();
  }, []);
  const onEvm = payment?.chain === 'ethereum';
  const paymentKey = payment ? bytesToHex(payment.ephemeralCiphertext) : null;
  return (
    <>
      <FindRecipient
        onFound={(found) => {
          setRecipient(found);
          setPayment(null);
        }}
      />
      {recipient && <CreatePayment recipient={recipient} payment={payment} onCreated={setPayment} amount={amount} onAmount={setAmount} />}
      {payment && onEvm && (
        <section className="panel" aria-labelledby="pay-heading">
          <h2 id="pay-heading">
            <span className="step" aria-hidden="true">3</span>Pay from your wallet
          </h2>
          <p className="hint">
            Your wallet sends the funds to the stealth address, then announces the payment on chain (ERC-5564) with a note only the
            recipient can read. The chain is read through your wallet, not through this server.
          </p>
          <WalletPicker mode="sign" connection={connection} onConnected={setConnection} />
          {connection && <PayChain connection={connection} followed={followed} onConnected={setConnection} />}
          {connection && <PayFromWallet key={paymentKey} payment={payment} connection={connection} amount={amount} onPaid={() => setPaidFromWallet(paymentKey)} />}
        </section>
      )}
      {payment && paidFromWallet !== paymentKey && (
        <Announce key={paymentKey} payment={payment} amount={amount} step={onEvm ? 4 : 3} chains={onEvm ? followed : []} walletChainId={connection?.chainId ?? null} />
      )}
    </>
  );
}

function FindRecipient({ onFound }: { onFound: (recipient: Recipient) => void }) {
  const id = useId();
  const [input, setInput] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [found, setFound] = useState<Recipient | null>(null);
  /** An address (typed, or an ENS name's without a stealth-meta record): looked up in the ERC-6538 registry through the wallet. */
  const [lookup, setLookup] = useState<{ address: string; name?: string } | null>(null);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setFound(null);
    setLookup(null);
    const parsed = classifyRecipient(input);
    if (parsed.kind === 'invalid') return setError(parsed.reason);
    if (parsed.kind === 'address') return setLookup({ address: parsed.address });
    setBusy(true);
    try {
      let recipient: Recipient;
      if (parsed.kind === 'meta-address') {
        recipient = { meta: decodeAnyMetaAddress(parsed.text), source: 'the pasted meta-address' };
      } else {
        const resolved = await resolveName(parsed.kind, parsed.name).catch(async (cause) => {
          // A .eth name without a stealth-meta record: the address it sets may have an ERC-6538 registration.
          if (parsed.kind !== 'ens' || !(cause instanceof ApiError) || cause.code !== 'NO_STEALTH_RECORD') throw cause;
          const { ens_name, address } = await resolveEnsAddress(parsed.name).catch((inner) => {
            if (!(inner instanceof ApiError) || inner.code !== 'NAME_NOT_FOUND') throw inner;
            throw new Error(`${parsed.name} has no stealth-meta record and sets no address to look up in the ERC-6538 registry: it cannot be paid privately yet.`);
          });
          setLookup({ address, name: ens_name });
          return null;
        });
        if (resolved === null) return;
        // Validate locally too: the payment is only as good as the key it encrypts to.
        recipient = { meta: decodeAnyMetaAddress(resolved.meta_address), source: parsed.name, ...(resolved.ipfs_cid ? { cid: resolved.ipfs_cid } : {}) };
      }
      setFound(recipient);
      onFound(recipient);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="recipient-heading">
      <h2 id="recipient-heading">
        <span className="step" aria-hidden="true">1</span>Recipient
      </h2>
      <form onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor={id}>Name or meta-address, or an address</label>
          <input
            id={id}
            type="text"
            placeholder="alice.eth, alice.sui, 0x… address or meta-address"
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            value={input}
            onChange={(e) => setInput(e.target.value)}
            aria-describedby={`${id}-hint`}
            aria-invalid={error ? true : undefined}
          />
          <p className="hint" id={`${id}-hint`}>
            An ENS name (.eth), a SuiNS name (.sui), an address registered in the ERC-6538 registry (0x and 40 hex digits), or the
            recipient&apos;s meta-address (hex or st:eth:0x…).
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
          onFound={(recipient) => {
            setFound(recipient);
            onFound(recipient);
          }}
        />
      )}
      {found && (
        <Notice kind="success">
          Found the meta-address of <strong>{found.source}</strong>
          {found.cid ? <> (IPFS <code>{found.cid}</code>)</> : null}: spending key{' '}
          <code>{shortHex(bytesToHex(found.meta.spendingPublicKey))}</code>. The payment uses{' '}
          <strong data-testid="recipient-scheme">{found.meta.schemeId === 3 ? 'scheme 3 (ERC-8441)' : 'scheme 1000 (Wraith)'}</strong>.
        </Notice>
      )}
    </section>
  );
}

type CreatePaymentProps = { recipient: Recipient; payment: Payment | null; onCreated: (payment: Payment) => void; amount: string; onAmount: (amount: string) => void };

function CreatePayment({ recipient, payment, onCreated, amount, onAmount }: CreatePaymentProps) {
  const ids = { amount: useId(), chain: useId() };
  const [chain, setChain] = useState('ethereum');
  const [error, setError] = useState<string | null>(null);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      onCreated({ ...createStealthPayment(recipient.meta), chain });
    } catch (cause) {
      setError(errorMessage(cause));
    }
  }

  return (
    <section className="panel" aria-labelledby="payment-heading">
      <h2 id="payment-heading">
        <span className="step" aria-hidden="true">2</span>One-time address
      </h2>
      <form onSubmit={onSubmit} noValidate>
        <div className="row">
          <div className="field">
            <label htmlFor={ids.amount}>Amount to pay</label>
            <input
              id={ids.amount}
              type="text"
              inputMode="decimal"
              placeholder="0.5"
              autoComplete="off"
              value={amount}
              onChange={(e) => onAmount(e.target.value)}
              aria-describedby={`${ids.amount}-hint`}
            />
            <p className="hint" id={`${ids.amount}-hint`}>
              In the coin or token you pay with. Paid from a wallet, it is what is sent and what the note sealed for the recipient says.
            </p>
          </div>
          <div className="field">
            <label htmlFor={ids.chain}>Chain</label>
            <select id={ids.chain} value={chain} onChange={(e) => setChain(e.target.value)}>
              <option value="ethereum">Ethereum (EVM)</option>
              <option value="sui">Sui</option>
            </select>
          </div>
        </div>
        <button type="submit">{payment ? 'Create another address' : 'Create stealth address'}</button>
      </form>
      {error && <Notice kind="error">{error}</Notice>}
      {payment && (
        <div>
          <p className="hint">
            Created in this browser for {recipient.source}. Send the funds to the address for your chain; only the
            recipient can spend from it, and nobody else can tell it belongs to them.
          </p>
          <CopyableValue label="EVM stealth address" value={payment.stealthAddress} qr qrOpen={payment.chain === 'ethereum'} testId="stealth-address" />
          <CopyableValue label="Sui stealth address" value={payment.stealthSuiAddress} qr qrOpen={payment.chain === 'sui'} testId="stealth-sui-address" />
          <details>
            <summary>Announcement data</summary>
            <p>
              View tag: <code data-testid="view-tag">{payment.viewTag}</code> · chain <code>{payment.chain}</code>
            </p>
            <CopyableValue label="Ephemeral key (ML-KEM ciphertext)" value={bytesToHex(payment.ephemeralCiphertext)} long testId="ephemeral-key" />
          </details>
        </div>
      )}
    </section>
  );
}

type AnnounceProps = {
  payment: Payment;
  /** The page's amount field, as typed: stated with the announcement when not empty. */
  amount: string;
  step: number;
  /** EVM chains this server follows: the announcement names the one the payment was made on. */
  chains: readonly FollowedChain[];
  walletChainId: number | null;
};

function Announce({ payment, amount, step, chains, walletChainId }: AnnounceProps) {
  const id = useId();
  const chainFieldId = useId();
  const [txHash, setTxHash] = useState('');
  const [chainChoice, setChainChoice] = useState<string>(() => String(chains.find((c) => c.id === walletChainId)?.id ?? chains[0]?.id ?? ''));
  useEffect(() => {
    if (chainChoice === '' && chains.length > 0) setChainChoice(String(chains.find((c) => c.id === walletChainId)?.id ?? chains[0]!.id));
  }, [chains, chainChoice, walletChainId]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [published, setPublished] = useState<number | null>(null);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!txHash.trim()) return setError('Enter the hash of the transaction that paid the stealth address.');
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
        ...(chosen ? { chain: chosen.name || payment.chain, chain_id: chosen.id } : { chain: payment.chain }),
      });
      setPublished(announcementId);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="announce-heading">
      <h2 id="announce-heading">
        <span className="step" aria-hidden="true">{step}</span>
        {step === 3 ? 'Announce the payment' : 'Or: announce a payment made elsewhere'}
      </h2>
      {published !== null ? (
        <Notice kind="success">
          Announcement <strong data-testid="announcement-id">#{published}</strong> published. The recipient finds the payment
          on their next scan.
        </Notice>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <p className="hint">
            After your transaction to the stealth address is sent, publish the announcement so the recipient can find it.
            It holds the ciphertext and view tag, never the recipient&apos;s identity.
          </p>
          <div className="field">
            <label htmlFor={id}>Transaction hash</label>
            <input
              id={id}
              type="text"
              placeholder="0x…"
              autoComplete="off"
              spellCheck={false}
              value={txHash}
              onChange={(e) => setTxHash(e.target.value)}
              aria-invalid={error ? true : undefined}
            />
          </div>
          {chains.length > 0 && (
            <div className="field">
              <label htmlFor={chainFieldId}>Chain of that transaction</label>
              <select id={chainFieldId} value={chainChoice} onChange={(e) => setChainChoice(e.target.value)}>
                {chains.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name || 'chain'} (chain id {c.id})
                  </option>
                ))}
              </select>
            </div>
          )}
          <button type="submit" disabled={busy}>
            {busy ? 'Publishing…' : 'Publish announcement'}
          </button>
          {error && <Notice kind="error">{error}</Notice>}
        </form>
      )}
    </section>
  );
}
