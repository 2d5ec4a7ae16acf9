'use client';
/**
 * Receive: create keys in this browser (SDK `generateKeys`; the server never sees them), show
 * the meta-address, save the keys encrypted (SDK `sealKeys`) in localStorage, export a backup
 * file, and publish the meta-address to IPFS for a name's record (INTERFACE.md 4.5).
 */
import { bytesToHex, generateKeys, sealKeys } from '@wraith-pq/sdk';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { uploadMetaAddress, type UploadResult } from '../_lib/api';
import { errorMessage } from '../_lib/error-message';
import { shortHex } from '../_lib/format';
import { downloadKeystore, keystoreLabel, loadKeystore, saveKeystore } from '../_lib/keystore-storage';
import { setUnlockedKeys, useUnlockedKeys, type UnlockedKeys } from '../_lib/unlocked-keys';
import { CopyableValue } from './copyable-value';
import { Notice } from './notice';
import { UnlockKeys } from './unlock-keys';

const MIN_PASSWORD = 8;

export function ReceiveApp() {
  const keys = useUnlockedKeys();
  const [stored, setStored] = useState<string | null | undefined>(undefined);
  useEffect(() => setStored(loadKeystore()), []);

  if (stored === undefined) return <p className="hint">Loading…</p>;
  if (!keys) {
    return (
      <>
        {stored && <UnlockKeys why="Your keys are saved in this browser, encrypted. Unlock them to see your meta-address." />}
        <section className="panel" aria-labelledby="generate-heading">
          <h2 id="generate-heading">{stored ? 'Or start with new keys' : 'Create your keys'}</h2>
          <p>
            Your keys are generated here, in this browser, from its secure random source: a secp256k1 spending key
            and an ML-KEM-768 viewing key. They are never sent to the server.
          </p>
          {stored && (
            <p className="hint">Saving new keys replaces the keystore in this browser: export a backup of it first if you still need it.</p>
          )}
          <button type="button" onClick={() => setUnlockedKeys(generateKeys())}>
            Generate keys
          </button>
        </section>
        {!stored && <UnlockKeys title="Restore from a backup" why="Already have keys? Open the backup file you exported." offerCreate={false} />}
      </>
    );
  }
  return <KeysView keys={keys} stored={stored} onSaved={setStored} />;
}

function KeysView({ keys, stored, onSaved }: { keys: UnlockedKeys; stored: string | null; onSaved: (envelope: string) => void }) {
  const metaHex = bytesToHex(keys.metaAddress);
  const spendingHex = bytesToHex(keys.spendingPublicKey);
  const saved = stored !== null && keystoreLabel(stored) === spendingHex;
  return (
    <>
      <section className="panel" aria-labelledby="meta-heading">
        <h2 id="meta-heading">
          <span className="step" aria-hidden="true">1</span>Your meta-address
        </h2>
        <p className="hint">
          Public: share it, or publish it under your name (step 3). Senders derive a new one-time address from it for
          every payment. Spending key <code>{shortHex(spendingHex)}</code>.
        </p>
        <CopyableValue label="Meta-address" value={`0x${metaHex}`} qrValue={`0X${metaHex.toUpperCase()}`} qr long testId="meta-address" />
      </section>
      <SaveKeys keys={keys} saved={saved} stored={stored} onSaved={onSaved} />
      <PublishMetaAddress metaHex={metaHex} />
      <div className="row">
        <button type="button" className="secondary" onClick={() => setUnlockedKeys(null)}>
          Lock keys
        </button>
        <button type="button" className="secondary" onClick={() => setUnlockedKeys(generateKeys())}>
          Generate new keys
        </button>
      </div>
    </>
  );
}

function SaveKeys({ keys, saved, stored, onSaved }: { keys: UnlockedKeys; saved: boolean; stored: string | null; onSaved: (envelope: string) => void }) {
  const ids = { password: useId(), confirm: useId(), hint: useId() };
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [justSaved, setJustSaved] = useState(false);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (password.length < MIN_PASSWORD) return setError(`Choose a password of at least ${MIN_PASSWORD} characters.`);
    if (password !== confirm) return setError('The two passwords differ.');
    setBusy(true);
    setError(null);
    try {
      const envelope = await sealKeys(keys, password);
      saveKeystore(envelope);
      setPassword('');
      setConfirm('');
      setJustSaved(true);
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
        <span className="step" aria-hidden="true">2</span>Keep your keys
      </h2>
      {saved ? (
        <>
          {justSaved ? (
            <Notice kind="success">Saved in this browser, encrypted with your password.</Notice>
          ) : (
            <p>These keys are saved in this browser, encrypted with your password.</p>
          )}
          <p className="hint">
            Export a backup file and keep it somewhere safe: clearing this browser&apos;s data deletes the saved copy.
            The file is encrypted; it is useless without your password, and your password is useless without it.
          </p>
          <button type="button" className="secondary" onClick={() => stored && downloadKeystore(stored)}>
            Export backup file
          </button>
        </>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <p className="hint" id={ids.hint}>
            The keys are encrypted in this browser (PBKDF2-SHA256, 600,000 rounds, then AES-256-GCM) and stored in its
            local storage. Nothing is uploaded.
            {stored ? ' This replaces the keystore already saved in this browser.' : ''}
          </p>
          {/* For password managers: which keystore this password belongs to. */}
          <input type="text" name="username" autoComplete="username" value={`wraith-${bytesToHex(keys.spendingPublicKey).slice(0, 16)}`} readOnly hidden />
          <div className="field">
            <label htmlFor={ids.password}>New password</label>
            <input
              id={ids.password}
              type="password"
              autoComplete="new-password"
              aria-describedby={ids.hint}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor={ids.confirm}>Repeat the password</label>
            <input id={ids.confirm} type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          </div>
          <button type="submit" disabled={busy}>
            {busy ? 'Encrypting…' : 'Save encrypted keys'}
          </button>
          {error && <Notice kind="error">{error}</Notice>}
        </form>
      )}
    </section>
  );
}

function PublishMetaAddress({ metaHex }: { metaHex: string }) {
  const nameId = useId();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<UploadResult | null>(null);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setResult(await uploadMetaAddress(metaHex, name.trim() || undefined));
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="publish-heading">
      <h2 id="publish-heading">
        <span className="step" aria-hidden="true">3</span>Publish under your name
      </h2>
      <form onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor={nameId}>Your name (optional)</label>
          <input
            id={nameId}
            type="text"
            placeholder="alice.eth"
            autoComplete="off"
            spellCheck={false}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-describedby={`${nameId}-hint`}
          />
          <p className="hint" id={`${nameId}-hint`}>
            Only a label for the stored file. The meta-address is uploaded to IPFS; you then write the returned record
            into your name yourself.
          </p>
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Publishing…' : 'Publish meta-address to IPFS'}
        </button>
      </form>
      {error && <Notice kind="error">{error}</Notice>}
      {result && (
        <div>
          <Notice kind="success">Published. Content identifier (CID): <code>{result.cid}</code></Notice>
          <CopyableValue label="Text record" value={result.text_record} testId="text-record" />
          <ul>
            <li>
              <strong>ENS (.eth):</strong> set the text record <code>stealth-meta</code> of your name to this value.
            </li>
            <li>
              <strong>SuiNS (.sui):</strong> set your name&apos;s content hash to this value.
            </li>
          </ul>
          <p className="hint">Then anyone can pay your name on the Send page.</p>
        </div>
      )}
    </section>
  );
}
