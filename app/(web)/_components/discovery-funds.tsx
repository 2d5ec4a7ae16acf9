'use client';
/**
 * The money at one discovered stealth address: its balances (SDK `stealthBalances`), what its
 * payment brought (from the transaction the opened note names), and a withdrawal to an address
 * the user types, with the fee and what stays behind shown before signing and the result after.
 * Reads and the signed withdrawal go through the chosen wallet's provider; the one-time key `p`
 * signs here and is never sent anywhere (SDK `withdrawNative` / `withdrawToken`).
 *
 * Each payment is on one chain. A wallet on another chain is asked to switch before anything is
 * read, and the wallet's chain is checked again before each read, review and signature: a
 * withdrawal signed for another chain than the payment's is refused (wallet-chain.ts).
 */
import { estimateWithdrawal, feePaidOf, withdrawNative, withdrawToken, type EstimateWithdrawalReturnType } from '@wraith-pq/sdk/evm';
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { getAddress, isAddress, isAddressEqual, type Address, type Hash } from 'viem';
import { formatAmount } from '../_lib/amount';
import { connectReader, type ChainReader } from '../_lib/chain-clients';
import { chainInfo, chainLabel } from '../_lib/chains';
import { errorMessage } from '../_lib/error-message';
import { upsertPayment, withWithdrawal, type WithdrawalSubject } from '../_lib/history';
import { recordHistory } from '../_lib/history-store';
import { noteAsset } from '../_lib/payment-asset';
import { readPaymentFunds, type PaymentFunds } from '../_lib/payment-funds';
import type { SavedDiscovery } from '../_lib/scan-state';
import { assertWalletChain, WrongChainError } from '../_lib/wallet-chain';
import { feeIsBound, feeKindWord } from '../_lib/withdrawal-receipt';
import { ChainSwitch } from './chain-switch';
import { Notice } from './notice';
import { TxHash } from './tx-hash';

type Review = { asset: string; to: Address; estimate: EstimateWithdrawalReturnType };
type Withdrawn = { hash: Hash; amount: string; fee: string; to: Address; asset: string };

export type DiscoveryFundsProps = {
  discovery: SavedDiscovery;
  /** The chain that holds the payment (scan-state.ts `chainIdOf`); null: not known, read on the wallet's chain. */
  chainId: number | null;
  reader: ChainReader;
  /** The wallet's connection on the chain it moved to (after a switch, or found on another chain). */
  onReaderChange: (reader: ChainReader) => void;
  /** Tokens the user asked to check, besides those the payment's transaction shows. */
  extraTokens: readonly Address[];
  /** The discovery's one-time key `p`, derived in this browser. */
  secretKey: () => Promise<Uint8Array>;
  /** Destinations already used in this tab, with the stealth address withdrawn to each. */
  destinations: ReadonlyMap<string, string>;
  onWithdrawn: (to: Address) => void;
  /** Changes when the balances were moved elsewhere on the page (a claim run): read them again. */
  refresh?: number;
};

const NATIVE = 'native';

/**
 * What a withdrawal leaves at the stealth address at most, in wei, from the SDK's estimate.
 * `estimateWithdrawal` states the bound (`maxRemainder`) for chains where the fee is not exact
 * (OP Stack's L1 data fee, Arbitrum's L1 gas: issue 24); read by shape so this page also works
 * with an SDK that does not state it. Without it, a native sweep follows the SDK's exact rule
 * (21,000 gas at one price: 0 wei stays) and a token withdrawal says nothing of the coin.
 */
export function remainderOf(estimate: EstimateWithdrawalReturnType, native: boolean): bigint | null {
  const fields = estimate as { maxRemainder?: unknown; remainder?: unknown; remainderBound?: unknown };
  for (const value of [fields.maxRemainder, fields.remainder, fields.remainderBound]) if (typeof value === 'bigint') return value;
  return native ? 0n : null;
}

export function DiscoveryFunds({ discovery, chainId, reader, onReaderChange, extraTokens, secretKey, destinations, onWithdrawn, refresh = 0 }: DiscoveryFundsProps) {
  const ids = { asset: useId(), to: useId() };
  const address = getAddress(discovery.stealthAddress);
  const { client } = reader;
  const symbol = reader.chain.nativeCurrency.symbol;
  const otherChain = chainId !== null && chainId !== reader.chainId;
  const [funds, setFunds] = useState<PaymentFunds | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [asset, setAsset] = useState(NATIVE);
  const [to, setTo] = useState('');
  const [review, setReview] = useState<Review | null>(null);
  const [busy, setBusy] = useState<'review' | 'sign' | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Every withdrawal made from this payment in this tab (tokens, then the coin), newest last. */
  const [withdrawn, setWithdrawn] = useState<Withdrawn[]>([]);
  const explorerUrl = chainInfo(reader.chainId).explorerUrl;
  const extraKey = extraTokens.join(',');

  /**
   * Before each read and signature: is the wallet still on the chain this connection is for? A
   * wallet that moved without saying so (no `chainChanged`) is connected again where it is now,
   * and the step is refused with a sentence that says so.
   */
  const onConnectionChain = useCallback(async () => {
    try {
      await assertWalletChain(reader.source.provider, reader.walletName, reader.chainId);
    } catch (cause) {
      if (cause instanceof WrongChainError) void connectReader(reader.source).then(onReaderChange, () => {});
      throw cause;
    }
  }, [reader, onReaderChange]);

  // A review priced on one chain is no review on another.
  useEffect(() => setReview(null), [reader.chainId]);

  const load = useCallback(async () => {
    if (otherChain) return;
    setLoadError(null);
    try {
      await onConnectionChain();
      const read = await readPaymentFunds({ client, stealthAddress: address, txHash: discovery.note?.txHash, extraTokens: extraKey.split(',').filter(Boolean) });
      const { tokens, received } = read;
      const infos = tokens.map((t) => t.info);
      setFunds(read);
      // The note's unit, kept in the history so the amount reads "100 TST" from now on.
      const paid = noteAsset(received, discovery.note?.amount);
      const paidInfo = paid?.type === 'erc20' ? infos.find((i) => isAddressEqual(i.address, paid.token)) : undefined;
      if (paid && (paid.type === 'native' || paidInfo)) {
        void recordHistory((h) =>
          upsertPayment(h, {
            announcementId: discovery.id,
            chainId: reader.chainId,
            stealthAddress: address,
            date: new Date(discovery.timestamp * 1000).toISOString(),
            amount: discovery.note?.amount ?? null,
            asset: paid.type === 'native' ? 'native' : paidInfo!.address,
            symbol: paid.type === 'native' ? symbol : paidInfo!.symbol,
            decimals: paid.type === 'native' ? 18 : paidInfo!.decimals,
            paymentTx: discovery.note?.txHash ?? null,
            announcementTx: discovery.txHash,
          }),
        );
      }
      // Tokens first: their gas is paid from the native balance.
      setAsset((current) => (current === NATIVE ? (tokens.find((t) => t.balance > 0n)?.info.address ?? NATIVE) : current));
    } catch (cause) {
      setLoadError(errorMessage(cause));
    }
  }, [client, address, discovery.note?.txHash, discovery.note?.amount, discovery.id, discovery.timestamp, discovery.txHash, reader.chainId, symbol, otherChain, extraKey, onConnectionChain]);

  useEffect(() => {
    void load();
  }, [load, refresh]);

  const tokenOf = (choice: string) => funds?.tokens.find((t) => t.info.address === choice)?.info;
  const describe = (value: bigint, choice: string) => {
    const info = tokenOf(choice);
    return info ? formatAmount(value, info.decimals, info.symbol) : formatAmount(value, 18, symbol);
  };

  /** What the history says a withdrawal of `review` is about. */
  const subjectOf = (r: Review): WithdrawalSubject => {
    const info = tokenOf(r.asset);
    return {
      announcementId: discovery.id,
      chainId: reader.chainId,
      stealthAddress: address,
      destination: r.to,
      asset: r.asset === NATIVE ? 'native' : r.asset,
      symbol: info ? info.symbol : symbol,
      decimals: info ? info.decimals : 18,
    };
  };

  async function onReview(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setReview(null);
    const typed = to.trim();
    if (!isAddress(typed, { strict: false })) return setError('Enter the destination: an address of 0x and 40 hex digits.');
    const destination = getAddress(typed);
    if (isAddressEqual(destination, address)) return setError('That is the stealth address itself: enter another destination.');
    setBusy('review');
    try {
      await onConnectionChain();
      const estimate = await estimateWithdrawal({ client, from: address, to: destination, ...(asset === NATIVE ? {} : { token: asset as Address }) });
      setReview({ asset, to: destination, estimate });
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(null);
    }
  }

  async function onSign() {
    if (!review) return;
    setError(null);
    setBusy('sign');
    try {
      // Checked right before signing, and again by the connection as the SDK signs and sends.
      await onConnectionChain();
      const stealthSecretKey = await secretKey();
      const sent =
        review.asset === NATIVE
          ? await withdrawNative({ client, stealthSecretKey, to: review.to })
          : await withdrawToken({ client, stealthSecretKey, token: review.asset, to: review.to });
      const receipt = await client.waitForTransactionReceipt({ hash: sent.hash });
      if (receipt.status !== 'success') throw new Error(`The withdrawal ${sent.hash} reverted on chain.`);
      const fee = await feePaidOf({ client, receipt });
      setWithdrawn((done) => [...done, { hash: sent.hash, amount: describe(sent.amount, review.asset), fee: formatAmount(fee, 18, symbol), to: review.to, asset: review.asset }]);
      void recordHistory((h) => withWithdrawal(h, subjectOf(review), { hash: sent.hash, amount: sent.amount, feePaid: fee, feeBound: sent.fee, feeKind: sent.feeKind }));
      setReview(null);
      onWithdrawn(review.to);
      setAsset(NATIVE);
      await load();
    } catch (cause) {
      setError(errorMessage(cause));
      void recordHistory((h) => withWithdrawal(h, subjectOf(review), { error: errorMessage(cause) }));
    } finally {
      setBusy(null);
    }
  }

  if (otherChain) {
    const target = chainInfo(chainId, discovery.chain);
    return (
      <div className="funds" data-testid="funds-other-chain">
        <p className="hint">
          This payment is on <strong>{chainLabel(target)}</strong>; {reader.walletName} is on {chainLabel(chainInfo(reader.chainId))}. Its balances are read,
          and a withdrawal signed, on {target.name} only: switch the wallet first.
        </p>
        <ChainSwitch wallet={reader.source} target={target} onSwitched={async () => onReaderChange(await connectReader(reader.source))} />
        {error && <Notice kind="error">{error}</Notice>}
      </div>
    );
  }

  const typedTo = isAddress(to.trim(), { strict: false }) ? getAddress(to.trim()) : null;
  const linkedWith = typedTo ? destinations.get(typedTo) : undefined;
  const links = linkedWith !== undefined && linkedWith !== address;
  const tokensLeft = funds?.tokens.some((t) => t.balance > 0n) ?? false;

  return (
    <div className="funds" data-testid="funds">
      {loadError ? (
        <Notice kind="error">Could not read the balances: {loadError}</Notice>
      ) : !funds ? (
        <p className="hint">Reading balances through {reader.walletName}…</p>
      ) : (
        <>
          {funds.received.length > 0 && (
            <p data-testid="received">
              Paid in that transaction: {funds.received.map((r) => (r.type === 'native' ? formatAmount(r.amount, 18, symbol) : describe(r.amount, r.token))).join(' and ')}
            </p>
          )}
          <p>
            Balance: <strong data-testid="balance-native">{formatAmount(funds.native, 18, symbol)}</strong>
            {funds.tokens.map((t) => (
              <span key={t.info.address}>
                {' · '}
                <strong data-testid="balance-token">{formatAmount(t.balance, t.info.decimals, t.info.symbol)}</strong>
              </span>
            ))}
          </p>
          {funds.incomplete && (
            <Notice kind="error">
              <span data-testid="balance-incomplete">
                Could not read every token this address holds: {funds.incomplete}. Withdraw its tokens before its {symbol} (their gas is paid from it), or read again.
              </span>
            </Notice>
          )}
          {funds.native === 0n && !tokensLeft ? (
            <p className="hint">Nothing left at this address.</p>
          ) : (
            <form onSubmit={onReview} noValidate>
              <div className="row">
                <div className="field">
                  <label htmlFor={ids.asset}>Asset to withdraw</label>
                  <select
                    id={ids.asset}
                    value={asset}
                    onChange={(e) => {
                      setAsset(e.target.value);
                      setReview(null);
                    }}
                  >
                    {funds.tokens
                      .filter((t) => t.balance > 0n)
                      .map((t) => (
                        <option key={t.info.address} value={t.info.address}>
                          {formatAmount(t.balance, t.info.decimals, t.info.symbol)}
                        </option>
                      ))}
                    <option value={NATIVE}>{formatAmount(funds.native, 18, symbol)} (everything, less the fee)</option>
                  </select>
                </div>
                <div className="field">
                  <label htmlFor={ids.to}>Withdraw to</label>
                  <input
                    id={ids.to}
                    type="text"
                    placeholder="0x… (a fresh address of yours)"
                    autoComplete="off"
                    spellCheck={false}
                    value={to}
                    onChange={(e) => {
                      setTo(e.target.value);
                      setReview(null);
                    }}
                  />
                </div>
              </div>
              {asset === NATIVE && tokensLeft && (
                <p className="hint">Withdraw the tokens first: the gas of moving them is paid from this {symbol}.</p>
              )}
              {links && (
                <Notice kind="info">
                  You already withdrew another payment to this address in this session: withdrawing this one there too links the two payments on chain.
                </Notice>
              )}
              <button type="submit" className="secondary" disabled={busy !== null}>
                {busy === 'review' ? 'Estimating the fee…' : 'Review withdrawal'}
              </button>
            </form>
          )}
          {review && (
            <div className="review" data-testid="withdraw-review">
              <p>
                Send <strong data-testid="withdraw-amount">{describe(review.estimate.amount, review.asset)}</strong> to <code>{review.to}</code> on{' '}
                {chainLabel(chainInfo(reader.chainId))}. Network fee{' '}
                <span data-testid="withdraw-fee-kind">{feeKindWord(review.estimate)}</span> <strong data-testid="withdraw-fee">{formatAmount(review.estimate.fee, 18, symbol)}</strong>
                {review.asset === NATIVE ? ' (taken from this balance)' : ` (paid from this address's ${symbol})`}
                {feeIsBound(review.estimate) ? ': a maximum, the chain charges what it uses' : ': the exact charge'}, signed here with this payment&apos;s key.
              </p>
              <p data-testid="withdraw-remainder">{remainderText(review, symbol, describe)}</p>
              <div className="row">
                <button type="button" onClick={onSign} disabled={busy !== null}>
                  {busy === 'sign' ? 'Withdrawing…' : 'Sign and withdraw'}
                </button>
                <button type="button" className="secondary" onClick={() => setReview(null)} disabled={busy !== null}>
                  Cancel
                </button>
              </div>
            </div>
          )}
        </>
      )}
      {withdrawn.map((w) => (
        <Notice kind="success" key={w.hash}>
          <span data-testid="withdraw-result">
            Withdrew {w.amount} to <code>{w.to}</code> (confirmed); network fee {w.fee}, paid from the stealth address.{' '}
            <TxHash label={`Withdrawal (${w.asset === NATIVE ? symbol : (tokenOf(w.asset)?.symbol ?? 'token')})`} hash={w.hash} explorerUrl={explorerUrl} testId="withdraw-tx" />
          </span>
        </Notice>
      ))}
      {error && <Notice kind="error">{error}</Notice>}
    </div>
  );
}


/** The fee line's second half: what stays at the stealth address after this withdrawal, in the coin. */
function remainderText(review: Review, symbol: string, describe: (value: bigint, choice: string) => string): string {
  const native = review.asset === NATIVE;
  const remainder = remainderOf(review.estimate, native);
  if (!native) {
    const token = describe(review.estimate.amount, review.asset).replace(/^[\d.,]+\s*/, '');
    const coin = remainder === null || remainder === 0n ? '' : ` At most ${formatAmount(remainder, 18, symbol)} of the fee may go unused and stay.`;
    return `All of the ${token} moves: none of it stays behind. What is left of this address's ${symbol} stays; withdraw it afterwards.${coin}`;
  }
  return remainder === null || remainder === 0n ? `Nothing stays behind: the address is left with 0 ${symbol}.` : `At most ${formatAmount(remainder, 18, symbol)} stays at the stealth address.`;
}
