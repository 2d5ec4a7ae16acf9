'use client';
/**
 * Send, step 3: which chain the connected wallet pays on, named with its id, and a way to move
 * it to another chain this server follows. The payment and its announcement both go to the
 * chain shown here (the connection is bound to it, chain-clients.ts): the recipient's scan
 * finds the announcement on the chain that holds the money.
 */
import { useEffect, useId, useState } from 'react';
import type { FollowedChain } from '../_lib/api';
import { connectWallet, type ChainWallet } from '../_lib/chain-clients';
import { chainInfo, chainLabel, type ChainInfo } from '../_lib/chains';
import { ChainSwitch } from './chain-switch';
import { Notice } from './notice';

export type PayChainProps = {
  connection: ChainWallet;
  /** The chains this server indexes (GET /health); may be empty. */
  followed: readonly FollowedChain[];
  onConnected: (connection: ChainWallet) => void;
  /** No switching while a payment is on its way. */
  disabled?: boolean;
};

export function PayChain({ connection, followed, onConnected, disabled = false }: PayChainProps) {
  const id = useId();
  const nameOf = (chainId: number) => followed.find((f) => f.id === chainId)?.name;
  const current = chainInfo(connection.chainId, nameOf(connection.chainId));
  const options: ChainInfo[] = followed.map((f) => chainInfo(f.id, f.name));
  if (!options.some((o) => o.id === current.id)) options.push(current);
  const [choice, setChoice] = useState(current.id);
  // The wallet moved by itself (its own menu): offer the chain it is on now.
  useEffect(() => setChoice(current.id), [current.id]);
  const target = options.find((o) => o.id === choice) ?? current;
  const unfollowed = followed.length > 0 && nameOf(current.id) === undefined;

  return (
    <div className="pay-chain" data-testid="pay-chain">
      <p>
        {connection.walletName} pays on <strong data-testid="pay-chain-name">{chainLabel(current)}</strong>, and announces the payment on the same
        chain.
      </p>
      {unfollowed && (
        <Notice kind="info">
          <span data-testid="pay-chain-unfollowed">
            This server does not follow {chainLabel(current)}: its registry will not carry the announcement, so a recipient who scans here will not find
            the payment. Switch to a chain it follows{followed.length > 0 ? ` (${followed.map((f) => chainLabel(chainInfo(f.id, f.name))).join(', ')})` : ''}.
          </span>
        </Notice>
      )}
      {options.length > 1 && (
        <div className="row chain-choice">
          <div className="field">
            <label htmlFor={id}>Pay on</label>
            <select id={id} value={choice} onChange={(e) => setChoice(Number(e.target.value))} disabled={disabled}>
              {options.map((o) => (
                <option key={o.id} value={o.id}>
                  {chainLabel(o)}
                </option>
              ))}
            </select>
          </div>
          {target.id !== current.id && (
            <ChainSwitch
              wallet={connection.source}
              target={target}
              disabled={disabled}
              onSwitched={async () => {
                const next = await connectWallet(connection.source);
                setChoice(next.chainId);
                onConnected(next);
              }}
            />
          )}
        </div>
      )}
    </div>
  );
}
