'use client';
/**
 * "Switch the wallet to chain X": asks the wallet (wallet-chain.ts: `wallet_switchEthereumChain`,
 * `wallet_addEthereumChain` when the wallet does not know the chain) and, once it reports the
 * chain, hands over a fresh connection on it. The wallet shows its own prompt; a refusal is said
 * here, and nothing else happens.
 */
import { useState } from 'react';
import { chainLabel, type ChainInfo } from '../_lib/chains';
import type { DiscoveredWallet } from '../_lib/eip6963';
import { errorMessage } from '../_lib/error-message';
import { switchWalletChain } from '../_lib/wallet-chain';
import { Notice } from './notice';

export type ChainSwitchProps = {
  wallet: DiscoveredWallet;
  target: ChainInfo;
  /** Connect again on the new chain (the old connection is bound to the old one). */
  onSwitched: () => Promise<void>;
  disabled?: boolean;
  className?: string;
};

export function ChainSwitch({ wallet, target, onSwitched, disabled = false, className = 'secondary' }: ChainSwitchProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onClick() {
    setBusy(true);
    setError(null);
    try {
      await switchWalletChain(wallet.provider, wallet.info.name, target);
      await onSwitched();
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <button type="button" className={className} onClick={onClick} disabled={disabled || busy} data-testid="switch-chain">
        {busy ? `Waiting for ${wallet.info.name}…` : `Switch ${wallet.info.name} to ${chainLabel(target)}`}
      </button>
      {error && <Notice kind="error">{error}</Notice>}
    </>
  );
}
