'use client';
/**
 * Receive: create keys in this browser (SDK `generateKeys`; the server never sees them), show
 * the meta-address in both forms (PROTOCOL.md section 10: 1218 bytes for scheme 1000, 1250 bytes
 * for ERC-8441's scheme 3), save the keys encrypted (SDK `sealKeys`) in localStorage, export a
 * backup file, publish the meta-address to IPFS for a name's record (INTERFACE.md 4.5), and
 * register the 1250-byte form in the ERC-6538 registry from a wallet (register-erc6538.tsx).
 */
import { bytesToHex, erc8441KeysOf, generateKeys, sealKeys } from '@wraith-pq/sdk';
import dynamic from 'next/dynamic';
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { uploadMetaAddress, type UploadResult } from '../_lib/api';
import { errorMessage } from '../_lib/error-message';
import { shortHex } from '../_lib/format';
import { downloadKeystore, keystoreLabel, loadKeystore, saveKeystore } from '../_lib/keystore-storage';
import { setUnlockedKeys, useUnlockedKeys, type UnlockedKeys } from '../_lib/unlocked-keys';
import { CopyableValue } from './copyable-value';
import { Notice } from './notice';
import { UnlockKeys } from './unlock-keys';

const MIN_PASSWORD = 8;

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
  // The ERC-8441 form needs the ML-KEM seed (PROTOCOL.md section 10): keys opened without it have none.
  const erc8441 = useMemo(
    () => (keys.viewingSeed ? erc8441KeysOf({ spendingSecretKey: keys.spendingSecretKey, viewingSeed: keys.viewingSeed }).metaAddress : null),
    [keys],
  );
  const erc8441Hex = erc8441 ? bytesToHex(erc8441) : null;
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
        <p className="hint">
          This is Wraith&apos;s form (1,218 bytes): senders pay it with scheme 1000. The same keys also have the ERC-8441 form below
          (1,250 bytes, scheme 3), which any wallet implementing that standard can pay; you receive under both.
        </p>
        {erc8441Hex ? (
          <CopyableValue label="ERC-8441 meta-address (scheme 3)" value={`0x${erc8441Hex}`} long testId="erc8441-meta-address" />
        ) : (
          <Notice kind="info">These keys were opened without their viewing seed, so their ERC-8441 form cannot be derived here.</Notice>
        )}
      </section>
      <SaveKeys keys={keys} saved={saved} stored={stored} onSaved={onSaved} />
      <PublishMetaAddress metaHex={metaHex} />
      {erc8441 && (
        <section className="panel" aria-labelledby="register-heading">
          <h2 id="register-heading">
            <span className="step" aria-hidden="true">4</span>Register with your wallet&apos;s address (ERC-6538)
          </h2>
          <p className="hint">
            Lets anyone pay you knowing only your wallet&apos;s address or its ENS name: the ERC-8441 meta-address is stored in the
            ERC-6538 registry under that address, on the chain your wallet is on. Senders then pay you with scheme 3. This links
            the address to these keys in public (each payment stays unlinkable), and it costs gas once.
          </p>
          <RegisterErc6538 metaAddress={erc8441} />
        </section>
      )}
      <GetAName metaAddress={erc8441 ?? keys.metaAddress} spendingSecretKey={keys.spendingSecretKey} />
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
            The file is encrypted; it is useless without your password, and your password is useless without it. Your
            history of payments and withdrawals has its own backup, on the Scan page.
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
