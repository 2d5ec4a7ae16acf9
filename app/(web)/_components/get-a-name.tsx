'use client';
/**
 * Receive: "get a name" at this server's ENS gateway (issue 33). Any wallet can then pay
 * `<label>.<parent>`; each lookup gets a fresh one-time address, and the server publishes the
 * payment's announcement when funds arrive, so the ordinary scan finds it.
 *
 * What the operator sees is said before anything is signed. The request is signed here with the
 * identity's spending key (the SDK's `nameRegistrationMessage`); no key leaves the page. Shown
 * only when the server runs a gateway (GET /api/v1/names says so).
 */
import { createClient, type GatewayNameJson } from '@wraith-pq/sdk';
import { useEffect, useMemo, useState } from 'react';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesToHex } from 'viem';
import { errorMessage } from '../_lib/error-message';
import { Notice } from './notice';

export type GetANameProps = {
  /** The meta-address the name will point at (the ERC-8441 form when the identity has one). */
  metaAddress: Uint8Array;
  spendingSecretKey: Uint8Array;
};

export function GetAName({ metaAddress, spendingSecretKey }: GetANameProps) {
  const client = useMemo(() => createClient({ baseUrl: window.location.origin }), []);
  const [parent, setParent] = useState<string | null | undefined>(undefined);
  const [label, setLabel] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [registered, setRegistered] = useState<GatewayNameJson | null>(null);

  useEffect(() => {
    client.nameGateway().then(
      (answer) => setParent(answer.enabled ? answer.parent : null),
      () => setParent(null),
    );
  }, [client]);

  if (parent === undefined || parent === null) return null;
  const name = `${label.trim().toLowerCase()}.${parent}`;

  const register = async () => {
    setBusy(true);
    setError(null);
    try {
      const account = privateKeyToAccount(bytesToHex(spendingSecretKey));
      setRegistered(await client.registerName({ name, metaAddress, sign: (message) => account.signMessage({ message }) }));
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel" aria-labelledby="get-a-name-heading">
      <h2 id="get-a-name-heading">Get a name any wallet can pay</h2>
      <p className="hint">
        Register <strong>{label.trim() === '' ? `<name>.${parent}` : name}</strong> here. Every wallet that pays it looks it up and gets a
        new one-time address; when funds arrive this server publishes the announcement, and your scan finds the payment as usual.
      </p>
      <Notice kind="info">
        What this server&apos;s operator will see: every one-time address it hands out for your name, hence every payment you receive
        that way and its amount, and each payer&apos;s IP address (not their wallet address). It cannot spend your money. If you want no
        third party, run your own deployment.
      </Notice>
      <label>
        Name
        <input type="text" value={label} onChange={(event) => setLabel(event.target.value)} placeholder="alice" autoComplete="off" spellCheck={false} />
      </label>
      <button type="button" disabled={busy || label.trim() === ''} onClick={register}>
        {busy ? 'Registering…' : `Register ${label.trim() === '' ? 'a name' : name}`}
      </button>
      {error && <Notice kind="error">{error}</Notice>}
      {registered?.registered && <Notice kind="success">{registered.name} is yours: any wallet can pay it now.</Notice>}
    </section>
  );
}
