'use client';
/**
 * "Connect wallet": the wallets this browser announces by EIP-6963 (eip6963.ts), one button
 * each. To sign (Send) the wallet is asked for an account; to read (Scan) only its chain is
 * used, so the recipient's wallet account is never tied to the stealth addresses it reads.
 */
import { useEffect, useRef, useState } from 'react';
import type { ChainReader, ChainWallet } from '../_lib/chain-clients';
import { watchWallets, type DiscoveredWallet } from '../_lib/eip6963';
import { errorMessage } from '../_lib/error-message';
import { shortHex } from '../_lib/format';
import { Notice } from './notice';

type Props =
  | { mode: 'sign'; connection: ChainWallet | null; onConnected: (connection: ChainWallet | null) => void }
  | {
      mode: 'read';
      connection: ChainReader | null;
      onConnected: (connection: ChainReader | null) => void;
      /** Read through the first wallet found, without a click (reading asks the wallet for nothing: no account, no prompt). Once per page. */
      auto?: boolean;
    };

/** A connection of the kind `mode` asks for, on the chain the wallet is on now; viem loads with the first one, not with the page. */
async function connectionOf(mode: Props['mode'], wallet: DiscoveredWallet): Promise<ChainReader> {
  const { connectReader, connectWallet } = await import('../_lib/chain-clients');
  return mode === 'sign' ? connectWallet(wallet) : connectReader(wallet);
}

export function WalletPicker(props: Props) {
  const [wallets, setWallets] = useState<DiscoveredWallet[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [active, setActive] = useState<DiscoveredWallet | null>(null);
  const { mode } = props;
  // One callback for both modes: a 'sign' picker only ever hands over a ChainWallet (connectionOf).
  const onConnected = props.onConnected as (connection: ChainReader | null) => void;

  useEffect(() => {
    setWallets([]);
    return watchWallets(setWallets);
  }, []);

  const autoRead = props.mode === 'read' && props.auto === true;
  const autoTried = useRef(false);
  useEffect(() => {
    const first = wallets?.[0];
    if (!autoRead || autoTried.current || !first || props.connection) return;
    autoTried.current = true;
    void connect(first);
  }, [autoRead, wallets, props.connection]); // eslint-disable-line react-hooks/exhaustive-deps

  // A wallet that moves to another chain (EIP-1193 `chainChanged`) is connected again on that
  // chain: a connection is bound to the chain it was made on (chain-clients.ts), and the page
  // must show the chain it would read or pay on. A changed account makes the connection stale:
  // drop it rather than pay from an account the page does not show.
  useEffect(() => {
    const wallet = active;
    const provider = wallet?.provider;
    if (!wallet || !provider?.on) return;
    const moved = () => {
      void (async () => {
        try {
          onConnected(await connectionOf(mode, wallet));
        } catch (cause) {
          setActive(null);
          onConnected(null);
          setError(`Your wallet switched chain and could not be read again: ${errorMessage(cause)}`);
        }
      })();
    };
    const stale = () => {
      setActive(null);
      onConnected(null);
      setError('Your wallet switched account: connect again.');
    };
    provider.on('chainChanged', moved);
    provider.on('accountsChanged', stale);
    return () => {
      provider.removeListener?.('chainChanged', moved);
      provider.removeListener?.('accountsChanged', stale);
    };
  }, [active, onConnected, mode]);

  async function connect(wallet: DiscoveredWallet) {
    setBusy(wallet.info.uuid);
    setError(null);
    try {
      onConnected(await connectionOf(props.mode, wallet));
      setActive(wallet);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(null);
    }
  }

  const { connection } = props;
  if (connection) {
    return (
      <div className="wallet-connected" data-testid="wallet-connected">
        <p>
          {props.mode === 'sign' && 'account' in connection ? (
            <>
              Connected to <strong>{connection.walletName}</strong>: account <code>{shortHex(connection.account, 4)}</code> on{' '}
            </>
          ) : (
            <>
              Reading the chain through <strong>{connection.walletName}</strong> on{' '}
            </>
          )}
          {connection.chain.name} (chain id <span data-testid="wallet-chain-id">{connection.chainId}</span>).
        </p>
        <button
          type="button"
          className="secondary small"
          onClick={() => {
            setActive(null);
            props.onConnected(null);
          }}
        >
          Disconnect
        </button>
      </div>
    );
  }
  return (
    <div className="wallet-picker">
      {wallets === null || (wallets.length === 0 && autoRead) ? null : wallets.length === 0 ? (
        <p className="hint">
          No browser wallet found. Install or turn on a wallet extension, then reload this page.
        </p>
      ) : (
        <div className="row">
          {wallets.map((wallet) => (
            <button key={wallet.info.uuid} type="button" className="secondary" onClick={() => connect(wallet)} disabled={busy !== null}>
              {/^data:image\//.test(wallet.info.icon) && <img src={wallet.info.icon} alt="" width={20} height={20} className="wallet-icon" />}
              {busy === wallet.info.uuid ? 'Connecting…' : `${props.mode === 'sign' ? 'Connect' : 'Read with'} ${wallet.info.name}`}
            </button>
          ))}
        </div>
      )}
      {error && <Notice kind="error">{error}</Notice>}
    </div>
  );
}
