'use client';
/**
 * Receive, in the order that cannot lose money: create keys in this browser (SDK `generateKeys`;
 * the server never sees them), keep them (the password-encrypted keystore, SDK `sealKeys`, in
 * localStorage), offer a backup file, and only then show how to get paid: a payment link and a
 * QR code carrying the CID of the meta-address (POST /api/v1/ipfs/upload, INTERFACE.md 4.5) and
 * its short fingerprint. Until the keys are saved nothing that could be shared is on the page,
 * and leaving asks first (leave-guard.ts): a payment to keys that are gone is lost.
 *
 * The meta-address itself (both forms, PROTOCOL.md section 10), a name's record and the
 * ERC-6538 registration (register-erc6538.tsx) sit under "Advanced".
 */
import { bytesToHex, erc8441KeysOf, generateKeys, metaAddressFingerprint, sealKeys } from '@wraith-pq/sdk';
import dynamic from 'next/dynamic';
import { useCallback, useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { uploadMetaAddress } from '../_lib/api';
import { errorMessage } from '../_lib/error-message';
import { downloadKeystore, isBackedUp, keystoreLabel, loadKeystore, markBackedUp, saveKeystore } from '../_lib/keystore-storage';
import { useLeaveGuard } from '../_lib/leave-guard';
import { paymentLink } from '../_lib/share-link';
import { setUnlockedKeys, useUnlockedKeys, type UnlockedKeys } from '../_lib/unlocked-keys';
import { CopyButton } from './copy-button';
import { CopyableValue } from './copyable-value';
import { Notice } from './notice';
import { QrCode } from './qr-code';
import { UnlockKeys } from './unlock-keys';
import './pay.css';

const MIN_PASSWORD = 8;

const UNSAVED_QUESTION = 'Your new keys are not saved yet. If you leave, they are gone for good. Leave anyway?';

/** The ERC-6538 registration (viem and the SDK's evm entry) loads only when the page shows it. */
const RegisterErc6538 = dynamic(() => import('./register-erc6538').then((m) => m.RegisterErc6538), {
  ssr: false,
  loading: () => <p className="hint">Loading…</p>,
});

import { GetAName } from './get-a-name';

export function ReceiveApp() {
  const keys = useUnlockedKeys();
  const [stored, setStored] = useState<string | null | undefined>(undefined);
  useEffect(() => setStored(loadKeystore()), []);

  if (stored === undefined) return <p className="hint">Loading…</p>;
  if (!keys) {
    return (
      <>
        {stored && <UnlockKeys why="Your keys are saved in this browser. Unlock them to get your payment link." />}
        <section className="panel" aria-labelledby="generate-heading">
          <h2 id="generate-heading">{stored ? 'Or start with new keys' : 'Create your keys'}</h2>
          <p>Your keys are made here, in this browser, and never leave it. Next you save them with a password, then you get a link anyone can pay.</p>
          {stored && <p className="hint">Saving new keys replaces the ones saved in this browser: export a backup of those first if you still need them.</p>}
          <button type="button" onClick={() => setUnlockedKeys(generateKeys())}>
            Generate keys
          </button>
          <TechnicalDetails>
            Two key pairs: a secp256k1 spending key, which controls the money, and an ML-KEM-768 (FIPS 203) viewing key, which
            finds the payments. Both come from this browser&apos;s secure random source.
          </TechnicalDetails>
        </section>
        {!stored && <UnlockKeys title="Restore from a backup" why="Already have keys? Open the backup file you exported." offerCreate={false} />}
      </>
    );
  }
  return <KeysView keys={keys} stored={stored} onSaved={setStored} />;
}

function TechnicalDetails({ children }: { children: React.ReactNode }) {
  return (
    <details className="more">
      <summary>Technical details</summary>
      <p className="hint">{children}</p>
    </details>
  );
}

function KeysView({ keys, stored, onSaved }: { keys: UnlockedKeys; stored: string | null; onSaved: (envelope: string) => void }) {
  const spendingHex = bytesToHex(keys.spendingPublicKey);
  const saved = stored !== null && keystoreLabel(stored) === spendingHex;
  const [backedUp, setBackedUp] = useState(() => isBackedUp(spendingHex));
  useEffect(() => setBackedUp(isBackedUp(spendingHex)), [spendingHex]);
  useLeaveGuard(!saved, UNSAVED_QUESTION);
  const backupDone = useCallback(() => {
    markBackedUp(spendingHex);
    setBackedUp(true);
  }, [spendingHex]);

  if (!saved) return <SaveKeys keys={keys} stored={stored} onSaved={onSaved} />;
  if (!backedUp) return <BackUpKeys stored={stored!} onDone={backupDone} />;
  return (
    <>
      <ShareKeys keys={keys} />
      <section className="panel" aria-labelledby="kept-heading">
        <h2 id="kept-heading">Your keys</h2>
        <p>Saved in this browser with your password, and backed up to a file.</p>
        <div className="row">
          <button type="button" className="secondary" onClick={() => downloadKeystore(stored!)}>
            Export backup file again
          </button>
          <button type="button" className="secondary" onClick={() => setUnlockedKeys(null)}>
            Lock keys
          </button>
        </div>
      </section>
      <GetAName metaAddress={keys.metaAddress} spendingSecretKey={keys.spendingSecretKey} />
      <Advanced keys={keys} />
    </>
  );
}

function SaveKeys({ keys, stored, onSaved }: { keys: UnlockedKeys; stored: string | null; onSaved: (envelope: string) => void }) {
  const ids = { password: useId(), confirm: useId(), hint: useId() };
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (password.length < MIN_PASSWORD) return setError(`Choose a password of at least ${MIN_PASSWORD} characters.`);
    if (password !== confirm) return setError('The two passwords differ: type the same password twice.');
    setBusy(true);
    setError(null);
    try {
      const envelope = await sealKeys(keys, password);
      saveKeystore(envelope);
      setPassword('');
      setConfirm('');
      onSaved(envelope);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="save-heading">
      <h2 id="save-heading">
        <span className="step" aria-hidden="true">1</span>Keep your keys
      </h2>
      <Notice kind="info">
        <span data-testid="keys-unsaved">Your new keys exist only in this tab until you save them. Save them now: your payment link comes next.</span>
      </Notice>
      <form onSubmit={onSubmit} noValidate>
        <p className="hint" id={ids.hint}>
          They are locked with your password and kept in this browser. Nothing is uploaded.
          {stored ? ' This replaces the keys already saved in this browser.' : ''}
        </p>
        {/* For password managers: which keystore this password belongs to. */}
        <input type="text" name="username" autoComplete="username" value={`wraith-${bytesToHex(keys.spendingPublicKey).slice(0, 16)}`} readOnly hidden />
        <div className="field">
          <label htmlFor={ids.password}>New password</label>
          <input id={ids.password} type="password" autoComplete="new-password" aria-describedby={ids.hint} value={password} onChange={(e) => setPassword(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={ids.confirm}>Repeat the password</label>
          <input id={ids.confirm} type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        </div>
        <div className="row">
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Save encrypted keys'}
          </button>
          <button type="button" className="secondary" onClick={() => window.confirm(UNSAVED_QUESTION.replace('If you leave', 'If you start over')) && setUnlockedKeys(null)}>
            Start over
          </button>
        </div>
        {error && <Notice kind="error">{error}</Notice>}
      </form>
      <TechnicalDetails>
        The keystore is encrypted with AES-256-GCM under a key derived from your password (PBKDF2-SHA256, 600,000 rounds) and
        stored in this browser&apos;s local storage.
      </TechnicalDetails>
    </section>
  );
}

function BackUpKeys({ stored, onDone }: { stored: string; onDone: () => void }) {
  return (
    <section className="panel" aria-labelledby="backup-heading">
      <h2 id="backup-heading">
        <span className="step" aria-hidden="true">2</span>Back them up
      </h2>
      <Notice kind="success">Saved in this browser, encrypted with your password.</Notice>
      <p>
        Clearing this browser&apos;s data deletes the saved keys, and with them every payment not yet withdrawn. Export a backup
        file and keep it somewhere safe: it is locked with your password, and useless without it.
      </p>
      <div className="row">
        <button
          type="button"
          onClick={() => {
            downloadKeystore(stored);
            onDone();
          }}
        >
          Export backup file
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Skip for now
        </button>
      </div>
    </section>
  );
}

type Share = { state: 'loading' } | { state: 'ready'; cid: string } | { state: 'failed'; message: string };

/** The payment link (CID of the meta-address), its QR code and the fingerprint a payer can check. */
function ShareKeys({ keys }: { keys: UnlockedKeys }) {
  const metaHex = bytesToHex(keys.metaAddress);
  const fingerprint = useMemo(() => metaAddressFingerprint(keys.metaAddress), [keys]);
  const [share, setShare] = useState<Share>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setShare({ state: 'loading' });
    uploadMetaAddress(metaHex)
      .then(({ cid }) => live && setShare({ state: 'ready', cid }))
      .catch((cause: unknown) => live && setShare({ state: 'failed', message: errorMessage(cause) }));
    return () => {
      live = false;
    };
  }, [metaHex, attempt]);
  const link = share.state === 'ready' ? paymentLink(window.location.origin, share.cid) : null;

  return (
    <section className="panel" aria-labelledby="share-heading">
      <h2 id="share-heading">
        <span className="step" aria-hidden="true">3</span>Get paid
      </h2>
      <p>Share this link, or let someone scan the code with their phone. Each payment goes to a new address that only you can find and spend.</p>
      {share.state === 'loading' && <p className="hint">Making your payment link…</p>}
      {share.state === 'failed' && (
        <Notice kind="error">
          Your payment link could not be made: {share.message}{' '}
          <button type="button" className="secondary small" onClick={() => setAttempt(attempt + 1)}>
            Try again
          </button>
        </Notice>
      )}
      {link && (
        <div className="share">
          <div className="share-link">
            <div className="value-label" id="payment-link-label">
              Your payment link
            </div>
            <output className="value-box" aria-labelledby="payment-link-label" data-testid="payment-link">
              {link}
            </output>
            <CopyButton value={link} label="payment link" />
          </div>
          <QrCode value={link} label="QR code of your payment link" ecc="M" testId="payment-qr" />
        </div>
      )}
      <p className="fingerprint">
        Fingerprint <strong data-testid="fingerprint">{fingerprint}</strong>
      </p>
      <p className="hint">A payer sees the same fingerprint before paying. If they typed your details by hand, compare it with them.</p>
      {share.state === 'ready' && <UseYourName cid={share.cid} />}
    </section>
  );
}

function UseYourName({ cid }: { cid: string }) {
  const record = `ipfs://${cid}`;
  return (
    <details className="more">
      <summary>Get paid at your .eth or .sui name</summary>
      <p>Write this record into your name once; then anyone can pay the name itself, and your link can be /send?to=yourname.eth.</p>
      <CopyableValue label="Record for your name" value={record} testId="text-record" />
      <ul>
        <li>
          <strong>ENS (.eth):</strong> set the text record <code>stealth-meta</code> of your name to this value.
        </li>
        <li>
          <strong>SuiNS (.sui):</strong> set your name&apos;s content hash to this value.
        </li>
      </ul>
    </details>
  );
}

function Advanced({ keys }: { keys: UnlockedKeys }) {
  const metaHex = bytesToHex(keys.metaAddress);
  // The ERC-8441 form needs the ML-KEM seed (PROTOCOL.md section 10): keys opened without it have none.
  const erc8441 = useMemo(
    () => (keys.viewingSeed ? erc8441KeysOf({ spendingSecretKey: keys.spendingSecretKey, viewingSeed: keys.viewingSeed }).metaAddress : null),
    [keys],
  );
  return (
    <details className="panel advanced">
      <summary>
        <h2>Advanced</h2>
      </summary>
      <p className="hint">
        Your meta-address is the long public key the link points to. Payers who use other wallets may ask for it. Wraith&apos;s form
        (1,218 bytes) is paid with scheme 1000; the ERC-8441 form (1,250 bytes) with scheme 3. You receive under both.
      </p>
      <CopyableValue label="Meta-address" value={`0x${metaHex}`} long testId="meta-address" />
      {erc8441 ? (
        <CopyableValue label="ERC-8441 meta-address (scheme 3)" value={`0x${bytesToHex(erc8441)}`} long testId="erc8441-meta-address" />
      ) : (
        <Notice kind="info">These keys were opened without their viewing seed, so their ERC-8441 form cannot be derived here.</Notice>
      )}
      {erc8441 && (
        <section aria-labelledby="register-heading">
          <h3 id="register-heading">Get paid at your wallet&apos;s address (ERC-6538)</h3>
          <p className="hint">
            Lets anyone pay you knowing only your wallet&apos;s address or its ENS name: the ERC-8441 meta-address is stored in the
            ERC-6538 registry under that address, on the chain your wallet is on. This links the address to these keys in public (each
            payment stays private), and it costs a fee once.
          </p>
          <RegisterErc6538 metaAddress={erc8441} />
        </section>
      )}
      <div className="row">
        <button
          type="button"
          className="secondary"
          onClick={() => window.confirm('New keys replace these on this page. Payments to these keys stay yours only if you keep their backup. Go on?') && setUnlockedKeys(generateKeys())}
        >
          Generate new keys
        </button>
      </div>
    </details>
  );
}
