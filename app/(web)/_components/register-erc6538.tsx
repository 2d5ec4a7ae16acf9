'use client';
/**
 * Receive: register the identity's 1250-byte ERC-8441 meta-address in the ERC-6538 registry
 * (`registerKeys(3, meta)`) from the user's wallet, so that a sender who knows only the wallet's
 * address (or its ENS name) can pay it. The registry stores the bytes on chain: a first
 * registration costs about 0.96 M gas, so the gas and its price are shown before the wallet is
 * asked. The current registration is read back through the wallet's provider (erc6538-lookup.ts).
 *
 * Registering ties this identity to the wallet's address in public: payments stay unlinkable, but
 * anyone can see that this address receives stealth payments with these keys.
 */
import { estimateRegistration, registerKeysParameters } from '@wraith-pq/sdk/evm';
import { useCallback, useEffect, useState } from 'react';
import { formatEther, formatGwei, type Hash } from 'viem';
import type { ChainWallet } from '../_lib/chain-clients';
import { chainInfo, chainLabel } from '../_lib/chains';
import { ownRegistration, type OwnRegistration } from '../_lib/erc6538-lookup';
import { roundAmount } from '../_lib/amount';
import { shownError } from '../_lib/error-message';
import { assertWalletChain } from '../_lib/wallet-chain';
import { ErrorNotice, type ShownError } from './error-notice';
import { Notice } from './notice';
import { WalletPicker } from './wallet-picker';

type Estimate = { gas: bigint; maxFee: bigint; l1Fee: bigint; maxFeePerGas: bigint };
/** The registration sent from this page: its hash, and the chain it went to. */
type Sent = { hash: Hash; chainId: number; status: 'confirmed' | 'reverted' };

const STATUS_TEXT: Record<OwnRegistration, string> = {
  registered: 'Registered: the registry holds this meta-address for your wallet\'s address under scheme 3.',
  differs: 'Registered, but with a different meta-address (other keys): registering replaces it with this one.',
  'not-registered': 'Not registered: senders who know only your address cannot pay you yet.',
  'no-registry': 'This chain has no ERC-6538 registry at its canonical address: switch your wallet to a chain that has one.',
};

export type RegisterErc6538Props = {
  /** The identity's 1250-byte ERC-8441 meta-address. */
  metaAddress: Uint8Array;
};

export function RegisterErc6538({ metaAddress }: RegisterErc6538Props) {
  const [connection, setConnection] = useState<ChainWallet | null>(null);
  const [status, setStatus] = useState<OwnRegistration | null>(null);
  const [estimate, setEstimate] = useState<Estimate | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const [sent, setSent] = useState<Sent | null>(null);

  /** Read the registration and price a new one, for the account and chain of `connection`. */
  const refresh = useCallback(
    async (current: ChainWallet) => {
      setError(null);
      setStatus(null);
      setEstimate(null);
      try {
        const found = await ownRegistration(current.client, current.account, metaAddress);
        setStatus(found);
        if (found === 'no-registry') return;
        const priced = await estimateRegistration({ client: current.client, from: current.account, metaAddress });
        setEstimate({ gas: priced.gas, maxFee: priced.maxFee, l1Fee: priced.l1Fee, maxFeePerGas: priced.maxFeePerGas });
      } catch (cause) {
        setError(shownError(cause));
      }
    },
    [metaAddress],
  );

  useEffect(() => {
    if (connection) void refresh(connection);
  }, [connection, refresh]);

  async function register() {
    if (!connection || !estimate) return;
    setBusy(true);
    setError(null);
    try {
      // The price was shown for this chain: refuse if the wallet moved since.
      await assertWalletChain(connection.source.provider, connection.walletName, connection.chainId);
      const call = registerKeysParameters({ metaAddress });
      const hash = await connection.wallet.sendTransaction({ account: connection.wallet.account, chain: connection.wallet.chain, to: call.address, data: call.data, gas: estimate.gas });
      const receipt = await connection.client.waitForTransactionReceipt({ hash });
      setSent({ hash, chainId: connection.chainId, status: receipt.status === 'success' ? 'confirmed' : 'reverted' });
      await refresh(connection);
    } catch (cause) {
      setError(shownError(cause));
    } finally {
      setBusy(false);
    }
  }

  const symbol = connection?.chain.nativeCurrency.symbol ?? 'ETH';
  return (
    <div data-testid="erc6538-register">
      <WalletPicker mode="sign" connection={connection} onConnected={setConnection} />
      {connection && (
        <>
          {status === null && !error && <p className="hint">Reading the registry on {chainLabel(chainInfo(connection.chainId))}…</p>}
          {status !== null && (
            <Notice kind={status === 'registered' ? 'success' : 'info'}>
              <span data-testid="erc6538-status" data-status={status}>
                {STATUS_TEXT[status]}
              </span>
            </Notice>
          )}
          {estimate && status !== 'registered' && (
            <div data-testid="erc6538-cost">
              <p>
                Registering on {chainLabel(chainInfo(connection.chainId))} costs at most{' '}
                <strong data-testid="erc6538-fee">{roundAmount(estimate.maxFee, 18, symbol, { up: true })}</strong>
                {estimate.l1Fee > 0n && (
                  <>
                    {' '}
                    (of which <span data-testid="erc6538-l1-fee">{roundAmount(estimate.l1Fee, 18, symbol, { up: true })}</span> is the fee for storing the data on
                    the main chain)
                  </>
                )}
                , paid by your wallet once: the 1,250 bytes are stored on chain.
              </p>
              <details className="more">
                <summary>Technical details</summary>
                <p className="hint">
                  About <span data-testid="erc6538-gas">{estimate.gas.toLocaleString('en-US')} gas</span> at up to{' '}
                  <span data-testid="erc6538-gas-price">{formatGwei(estimate.maxFeePerGas)} gwei</span>
                  {estimate.l1Fee > 0n ? ', plus the L1 data fee of its 1,250 bytes' : ''}: at most {formatEther(estimate.maxFee)} {symbol}.
                </p>
              </details>
            </div>
          )}
          {estimate && status !== 'registered' && (
            <Notice kind="info">
              <span data-testid="erc6538-public">
                Registering is public: anyone can see that your wallet&apos;s account registered these keys, so that account is tied to this identity for good. Payments
                stay unlinkable, but if that tie matters, register from an account not otherwise linked to you.
              </span>
            </Notice>
          )}
          {estimate && status !== 'registered' && (
            <button type="button" onClick={register} disabled={busy}>
              {busy ? 'Waiting for your wallet and the chain…' : 'Register with your wallet'}
            </button>
          )}
          {sent && (
            <dl className="tx-list">
              <dt>Registration (ERC-6538)</dt>
              <dd>
                <code data-testid="registration-tx">{sent.hash}</code> · {sent.status} on {chainLabel(chainInfo(sent.chainId))}
              </dd>
            </dl>
          )}
        </>
      )}
      {error && <ErrorNotice error={error} />}
    </div>
  );
}
