'use client';
/**
 * Unlock the keys: the keystore saved in this browser, or a backup file, opened with its
 * password (SDK `openKeys`, WebCrypto). The keys stay in this tab's memory.
 */
import { openKeys } from '@wraith-pq/sdk';
import Link from 'next/link';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { errorMessage } from '../_lib/error-message';
import { keystoreLabel, loadKeystore, markBackedUp, saveKeystore } from '../_lib/keystore-storage';
import { shortHex } from '../_lib/format';
import { setUnlockedKeys } from '../_lib/unlocked-keys';
import { Notice } from './notice';

export function UnlockKeys({ why, title = 'Unlock your keys', offerCreate = true }: { why: string; title?: string; offerCreate?: boolean }) {
  const ids = { password: useId(), file: useId(), fileHint: useId(), error: useId() };
  const [stored, setStored] = useState<string | null | undefined>(undefined);
  const [imported, setImported] = useState<{ name: string; text: string } | null>(null);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => setStored(loadKeystore()), []);

  async function onFile(file: File | undefined) {
    setError(null);
    if (!file) return setImported(null);
    if (file.size > 64 * 1024) return setError('This file is too large to be a Wraith keystore.');
    setImported({ name: file.name, text: await file.text() });
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const envelope = imported?.text ?? stored;
    if (!envelope) return setError('Choose a backup file first: no keys are saved in this browser.');
    if (!password) return setError('Enter the keystore password.');
    setBusy(true);
    setError(null);
    try {
      const keys = await openKeys(envelope, password);
      if (imported) {
        saveKeystore(imported.text);
        setStored(imported.text);
        // Opened from a backup file: that file is the backup, no need to offer one.
        const label = keystoreLabel(imported.text);
        if (label) markBackedUp(label);
      }
      setPassword('');
      setUnlockedKeys(keys);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  }

  if (stored === undefined) return <p className="hint">Looking for saved keys…</p>;
  const label = stored ? keystoreLabel(stored) : null;
  const fileField = (
    <div className="field">
      <label htmlFor={ids.file}>Backup file</label>
      <input id={ids.file} type="file" accept=".json,application/json" aria-describedby={ids.fileHint} onChange={(e) => onFile(e.target.files?.[0])} />
      <p className="hint" id={ids.fileHint}>
        {imported ? `Chosen: ${imported.name}. ` : ''}A keystore file exported from the Receive page. Opening it also saves it in
        this browser.
      </p>
    </div>
  );
  return (
    <form className="panel" onSubmit={onSubmit} aria-labelledby={`${ids.password}-heading`} noValidate>
      <h2 id={`${ids.password}-heading`}>{title}</h2>
      <p className="hint">{why}</p>
      {stored ? (
        <p>
          Your keys are saved in this browser{label ? <> (keys <code>{shortHex(label)}</code>)</> : null}.
        </p>
      ) : (
        offerCreate && (
        <Notice kind="info">
          No keys are saved in this browser. <Link href="/receive">Create keys</Link>, or open a backup file.
        </Notice>
        )
      )}
      {/* For password managers: which keystore this password belongs to. */}
      <input type="text" name="username" autoComplete="username" value={label ? `wraith-${label.slice(0, 16)}` : 'wraith'} readOnly hidden />
      {!stored && fileField}
      <div className="field">
        <label htmlFor={ids.password}>Keystore password</label>
        <input
          id={ids.password}
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? ids.error : undefined}
        />
      </div>
      <div className="row">
        <button type="submit" disabled={busy}>
          {busy ? 'Unlocking…' : 'Unlock'}
        </button>
      </div>
      {error && (
        <div id={ids.error}>
          <Notice kind="error">{error}</Notice>
        </div>
      )}
      {stored && (
        <details className="more">
          <summary>Use a backup file instead</summary>
          {fileField}
        </details>
      )}
    </form>
  );
}
