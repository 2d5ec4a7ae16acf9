'use client';
/**
 * Send, step 1, for a plain address: its meta-address from the ERC-6538 registry, read through the
 * sender's wallet provider on the chain the wallet is on (erc6538-lookup.ts), never through this
 * server. Scheme 3 (ERC-8441) is preferred to 1000 (its Section 2.3); a cleared (empty) value is
 * no registration, and an address without one is said to be so: nothing is created or sent.
 */
import type { AnyMetaAddress } from '@wraith-pq/sdk';
import { useEffect, useRef, useState } from 'react';
import type { ChainReader } from '../_lib/chain-clients';
import { chainInfo, chainLabel } from '../_lib/chains';
import { lookupRegisteredMetaAddress } from '../_lib/erc6538-lookup';
import { errorMessage } from '../_lib/error-message';
import { shortHex } from '../_lib/format';
import { Notice } from './notice';
import { WalletPicker } from './wallet-picker';

export type RegistryRecipientProps = {
  address: string;
  /** The ENS name the address came from (GET /api/v1/ens/address), to name the recipient by. */
  name?: string;
  onFound: (recipient: { meta: AnyMetaAddress; source: string }) => void;
};

export function RegistryRecipient({ address, name, onFound }: RegistryRecipientProps) {
  const [reader, setReader] = useState<ChainReader | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [reading, setReading] = useState(false);
  // The latest callback, without making the lookup run again when the parent renders.
  const found = useRef(onFound);
  found.current = onFound;

  useEffect(() => {
    if (!reader) return;
    let current = true;
    setProblem(null);
    setReading(true);
    const where = chainLabel(chainInfo(reader.chainId));
    const who = name ? `${name} (${shortHex(address, 4)})` : shortHex(address, 4);
    lookupRegisteredMetaAddress(reader.client, address)
      .then((lookup) => {
        if (!current) return;
        switch (lookup.status) {
          case 'registered':
            found.current({ meta: lookup.metaAddress, source: `${who} (ERC-6538 registry on ${where})` });
            return;
          case 'unregistered':
            return setProblem(
              `${who} has no meta-address registered in the ERC-6538 registry on ${where} (or cleared it), so it cannot be paid privately: nothing was created or sent. Ask the recipient for their meta-address or name, or to register (Receive page); if they registered on another chain, switch your wallet there.`,
            );
          case 'invalid':
            return setProblem(
              `${who} registered a value under scheme ${lookup.schemeId} that is not a valid meta-address (${lookup.reason}): do not pay it. Nothing was created or sent.`,
            );
          case 'no-registry':
            return setProblem(`${where} has no ERC-6538 registry: switch your wallet to the chain where the recipient registered, then look again.`);
        }
      })
      .catch((cause) => current && setProblem(errorMessage(cause)))
      .finally(() => current && setReading(false));
    return () => {
      current = false;
    };
  }, [reader, address, name]);

  return (
    <div data-testid="registry-lookup">
      <p className="hint">
        {name ? `${name} publishes no stealth-meta record; it sets the address ${shortHex(address, 4)}` : 'A plain address'}: its meta-address is
        read from the ERC-6538 registry through your wallet, on the chain it is on, so this server does not learn which registration you read.
      </p>
      <WalletPicker mode="read" connection={reader} onConnected={setReader} />
      {reading && <p className="hint">Reading the registry…</p>}
      {problem && (
        <Notice kind="error">
          <span data-testid="registry-lookup-problem">{problem}</span>
        </Notice>
      )}
    </div>
  );
}
