'use client';
/**
 * Pay a stealth address from a connected wallet and announce it on chain (SDK `payStealth`): the
 * native coin, or an ERC-20 token with an optional native top-up so the recipient can pay the gas
 * of withdrawing it. The announcement goes to the ERC-5564 Announcer, where this server's indexer
 * (CHAIN_RPC_URL) and any other scanner pick it up; the note sealed in it tells the recipient the
 * amount, the transfer's hash and the chain.
 */
import type { StealthPayment } from '@wraith-pq/sdk';
import { announceParameters, estimateGasTopUp, feePaidOf, PaymentNotAnnouncedError, payStealth, type PaymentAsset, type PayStealthReturnType } from '@wraith-pq/sdk/evm';
import { useId, useState, type FormEvent } from 'react';
import { formatAmount, parseAmount } from '../_lib/amount';
import type { ChainWallet } from '../_lib/chain-clients';
import { chainInfo, chainLabel } from '../_lib/chains';
import { errorMessage } from '../_lib/error-message';
import { checkWalletCovers } from '../_lib/payment-checks';
import { parseTokenAddress, readTokenInfo, type TokenInfo } from '../_lib/token-info';
import { assertWalletChain, WrongChainError } from '../_lib/wallet-chain';
import { Notice } from './notice';
import { TxHash } from './tx-hash';

/** Default top-up: enough native coin for a token transfer and a sweep at ordinary gas prices. */
/** Empty: the top-up is priced from the chain's current fees (a token withdrawal there, with margin). */
const DEFAULT_TOP_UP = '';

/** `chainId`: the chain that holds the money, where the announcement went too. */
type Paid = PayStealthReturnType & { summary: string; chainId: number; fees: bigint | null };
/** Paid, but the announcement failed: the recipient cannot find the money until it is announced, on the chain that holds it. */
type Unannounced = { paymentHash: PayStealthReturnType['paymentHash']; topUpHash: PayStealthReturnType['topUpHash']; amount: bigint; summary: string; chainId: number };

export type PayFromWalletProps = {
  payment: Pick<StealthPayment, 'stealthAddress' | 'ephemeralCiphertext' | 'viewTag' | 'sharedSecret'>;
  connection: ChainWallet;
  /** What to pay, as typed in the Send page's one amount field (in the coin or the token chosen here). */
  amount: string;
  /** Called once the payment and its announcement are mined. */
  onPaid?: () => void;
};

export function PayFromWallet({ payment, connection, amount, onPaid }: PayFromWalletProps) {
  const ids = { asset: useId(), token: useId(), topUp: useId() };
  const [asset, setAsset] = useState<'native' | 'erc20'>('native');
  const [token, setToken] = useState('');
  /** The most the payment's gas can cost, once the checks before signing passed. */
  const [gasBound, setGasBound] = useState<bigint | null>(null);
  const [topUp, setTopUp] = useState(DEFAULT_TOP_UP);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; afterWallet: boolean } | null>(null);
  const [paid, setPaid] = useState<Paid | null>(null);
  const [unannounced, setUnannounced] = useState<Unannounced | null>(null);
  const symbol = connection.chain.nativeCurrency.symbol;

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setGasBound(null);
    setBusy(true);
    let afterWallet = false;
    try {
      let chosen: PaymentAsset;
      let summary: string;
      let tokenInfo: TokenInfo | null = null;
      if (asset === 'native') {
        const value = parseAmount(amount, 18, 'Amount to pay');
        chosen = { type: 'native', value };
        summary = formatAmount(value, 18, symbol);
      } else {
        const info = await readTokenInfo(connection.client, parseTokenAddress(token));
        tokenInfo = info;
        const value = parseAmount(amount, info.decimals, 'Amount to pay');
        // Left empty, the top-up is what withdrawing the tokens costs on this chain today, with margin
        // (L1 data fee included on OP Stack chains); it is shown before the wallet is asked.
        const gasTopUp =
          topUp.trim() === ''
            ? (await estimateGasTopUp({ client: connection.client, token: info.address, amount: value, from: connection.wallet.account.address })).topUp
            : parseAmount(topUp, 18, 'Gas top-up', { allowZero: true });
        chosen = { type: 'erc20', token: info.address, amount: value, gasTopUp };
        summary = `${formatAmount(value, info.decimals, info.symbol)}${gasTopUp > 0n ? ` and ${formatAmount(gasTopUp, 18, symbol)} for gas` : ''}`;
      }
      // The connection is bound to the chain shown above: a wallet that moved since is refused
      // here, before it is asked for anything, and again by the connection before each signature.
      await assertWalletChain(connection.source.provider, connection.walletName, connection.chainId);
      // The wallet holds what it would send and the gas of every transaction: else nothing is signed.
      const { gasBound: bound, signWith } = await checkWalletCovers({ client: connection.client, account: connection.account, payment, asset: chosen, token: tokenInfo, coinSymbol: symbol });
      setGasBound(bound);
      afterWallet = true;
      const chainId = connection.chainId;
      try {
        const result = await payStealth({ wallet: connection.wallet, client: connection.client, payment, asset: chosen, signWith });
        setPaid({ ...result, summary, chainId, fees: await feesOf(connection, result.hashes) });
        onPaid?.();
      } catch (cause) {
        if (cause instanceof PaymentNotAnnouncedError) {
          setUnannounced({ paymentHash: cause.paymentHash, topUpHash: cause.topUpHash, amount: chosen.type === 'native' ? chosen.value : chosen.amount, summary, chainId });
        }
        throw cause;
      }
    } catch (cause) {
      // Paid but not announced: say why the announcement failed (the notice above says the rest).
      if (cause instanceof PaymentNotAnnouncedError) setError({ message: errorMessage(cause.cause), afterWallet: false });
      else setError({ message: errorMessage(cause), afterWallet: afterWallet && !(cause instanceof WrongChainError) });
    } finally {
      setBusy(false);
    }
  }

  /** The same payment's announcement, sent again from the wallet, with the note the first try would have sealed. */
  async function announceAgain() {
    if (!unannounced) return;
    setError(null);
    setBusy(true);
    try {
      // Announced where the money is, or not at all.
      if (connection.chainId !== unannounced.chainId) {
        const where = chainLabel(chainInfo(unannounced.chainId));
        throw new Error(`The payment is on ${where}, and ${connection.walletName} is on ${chainLabel(chainInfo(connection.chainId))}: switch it back to ${where} to announce it there.`);
      }
      const note = { amount: unannounced.amount, txHash: unannounced.paymentHash, chainId: BigInt(unannounced.chainId) };
      const announcementHash = await connection.wallet.writeContract({
        account: connection.wallet.account,
        chain: connection.wallet.chain,
        ...announceParameters({ payment, note }),
      });
      const receipt = await connection.client.waitForTransactionReceipt({ hash: announcementHash });
      if (receipt.status !== 'success') throw new Error(`The announcement transaction ${announcementHash} reverted.`);
      setPaid({
        paymentHash: unannounced.paymentHash,
        topUpHash: unannounced.topUpHash,
        announcementHash,
        approvalHash: null,
        via: 'transactions',
        hashes: [unannounced.paymentHash, ...(unannounced.topUpHash ? [unannounced.topUpHash] : []), announcementHash],
        summary: unannounced.summary,
        chainId: unannounced.chainId,
        fees: await feesOf(connection, [unannounced.paymentHash, unannounced.topUpHash, announcementHash]),
      });
      setUnannounced(null);
      onPaid?.();
    } catch (cause) {
      setError({ message: errorMessage(cause), afterWallet: false });
    } finally {
      setBusy(false);
    }
  }

  if (unannounced) {
    return (
      <div data-testid="unannounced">
        <Notice kind="error">
          The payment <TxHash label="Payment" hash={unannounced.paymentHash} explorerUrl={chainInfo(unannounced.chainId).explorerUrl} /> was sent, but its announcement was not made{error ? `: ${error.message}` : '.'} Do not pay
          again: the recipient finds this payment once it is announced.
        </Notice>
        <button type="button" onClick={announceAgain} disabled={busy}>
          {busy ? 'Announcing…' : 'Announce it on chain'}
        </button>
      </div>
    );
  }

  if (paid) {
    return (
      <div data-testid="paid">
        <Notice kind="success">
          Paid <strong data-testid="paid-summary">{paid.summary}</strong> on <strong data-testid="paid-chain">{chainLabel(chainInfo(paid.chainId))}</strong> and
          announced it there: every transaction is confirmed on chain. The recipient finds the payment on their next scan.
        </Notice>
        {paid.fees !== null && (
          <p data-testid="paid-fees">
            Network fees paid: <strong>{formatAmount(paid.fees, 18, chainInfo(paid.chainId).nativeCurrency.symbol)}</strong>, from the receipts.
          </p>
        )}
        <div className="tx-lines">
          <p>
            <TxHash label="Payment" hash={paid.paymentHash} explorerUrl={chainInfo(paid.chainId).explorerUrl} testId="payment-tx" /> · confirmed
          </p>
          {paid.topUpHash && (
            <p>
              <TxHash label="Gas top-up" hash={paid.topUpHash} explorerUrl={chainInfo(paid.chainId).explorerUrl} testId="top-up-tx" /> · confirmed
            </p>
          )}
          <p>
            <TxHash label="Announcement" hash={paid.announcementHash} explorerUrl={chainInfo(paid.chainId).explorerUrl} testId="announcement-tx" /> · confirmed
          </p>
        </div>
        <p className="hint">A stealth address is for one payment: create another address for the next one.</p>
      </div>
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <div className="row">
        <div className="field">
          <label htmlFor={ids.asset}>Asset</label>
          <select id={ids.asset} value={asset} onChange={(e) => setAsset(e.target.value as 'native' | 'erc20')}>
            <option value="native">{symbol} (native coin)</option>
            <option value="erc20">ERC-20 token</option>
          </select>
        </div>
      </div>
      <p className="hint" data-testid="pay-amount">
        Paying {amount.trim() ? <strong>{amount.trim()}</strong> : 'the amount entered above'} {asset === 'native' ? symbol : 'of the token below'}: that amount is sent
        and sealed into the note.
      </p>
      {asset === 'erc20' && (
        <div className="row">
          <div className="field">
            <label htmlFor={ids.token}>Token address</label>
            <input id={ids.token} type="text" placeholder="0x…" autoComplete="off" spellCheck={false} value={token} onChange={(e) => setToken(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={ids.topUp}>Gas top-up ({symbol})</label>
            <input
              id={ids.topUp}
              type="text"
              inputMode="decimal"
              autoComplete="off"
              placeholder="priced from the chain"
              value={topUp}
              onChange={(e) => setTopUp(e.target.value)}
              aria-describedby={`${ids.topUp}-hint`}
            />
            <p className="hint" id={`${ids.topUp}-hint`}>
              Sent along so the recipient can pay the gas of moving the tokens (a fresh address holds no {symbol}). Left empty, it is what a token
              withdrawal costs on this chain now, doubled for rising fees; 0 for none.
            </p>
          </div>
        </div>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Waiting for your wallet and the chain…' : 'Pay and announce'}
      </button>
      {busy && gasBound !== null && (
        <p className="hint" data-testid="gas-bound">
          Network fees at most {formatAmount(gasBound, 18, symbol)} at today&apos;s price (your wallet shows its own figure before each signature).
        </p>
      )}
      {busy && (
        <p className="hint" aria-live="polite">
          Confirm each transaction in your wallet: the payment{asset === 'erc20' && topUp.trim() !== '0' ? ', the gas top-up' : ''} and the
          announcement. Each is waited for until it is mined.
        </p>
      )}
      {error && (
        <Notice kind="error">
          {error.message}
          {error.afterWallet &&
            ' If your wallet had already sent the payment, do not pay again: check its activity, and announce that transaction with the form below.'}
        </Notice>
      )}
    </form>
  );
}

/** What the payment's transactions cost the wallet, from their receipts; null when a receipt cannot be read. */
async function feesOf(connection: ChainWallet, hashes: readonly (`0x${string}` | null)[]): Promise<bigint | null> {
  try {
    const receipts = await Promise.all(hashes.flatMap((hash) => (hash ? [connection.client.getTransactionReceipt({ hash })] : [])));
    const fees = await Promise.all(receipts.map((receipt) => feePaidOf({ client: connection.client, receipt })));
    return fees.reduce((sum, fee) => sum + fee, 0n);
  } catch {
    return null;
  }
}
