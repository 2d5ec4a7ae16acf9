'use client';
/**
 * Send from a connected wallet: the amount and the asset together (the chain's coin or a token,
 * by symbol, with the wallet's balance beside it: well-known tokens listed (known-tokens.ts), any
 * other by its address, read from its contract), then one review with every fee in the chain's
 * coin and the total, then pay (SDK `payStealth`). A token the chain's gasless route takes its fee
 * in (GET /api/v1/chains `gasless`, issue 31) is sent with no coin for the recipient's fees unless
 * the payer adds some: the recipient pays the fee of moving it in the token itself, and the review
 * says so. The review makes the one-time address
 * (`createStealthPayment`) and runs the checks before signing (payment-checks.ts): the balances
 * first, so a payer short of tokens is told how many, whatever the other fields hold, and only
 * then the estimates that could revert. The payment goes to the ERC-5564 Announcer with a note
 * only the recipient can read (amount, transaction, chain), where any scanner finds it.
 *
 * Where WraithPay is missing the announcement is a transaction of its own, after the transfer:
 * such a payment is kept in this browser (kept-payments.ts) from before the wallet is asked until
 * it is announced, so a transfer sent and then lost to an error or a reload is still offered for
 * announcing (send-app.tsx shows kept ones), never left where its recipient cannot find it.
 */
import { createStealthPayment, WraithError, type StealthPayment } from '@wraith-pq/sdk';
import { announceParameters, feePaidOf, PaymentNotAnnouncedError, payStealth, type PaymentAsset, type PaymentSigning, type PayStealthReturnType } from '@wraith-pq/sdk/evm';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { erc20Abi, type Address } from 'viem';
import { formatAmount, parseAmount, roundAmount } from '../_lib/amount';
import type { ChainWallet } from '../_lib/chain-clients';
import { chainInfo, chainLabel } from '../_lib/chains';
import { isCancelledInWallet, shownError } from '../_lib/error-message';
import { gaslessRoute, namedTokens, type GaslessRouteInfo } from '../_lib/api';
import { knownTokens, type KnownToken } from '../_lib/known-tokens';
import { forgetPayment, keepPayment, noteTransfer } from '../_lib/kept-payments';
import { useLeaveGuard } from '../_lib/leave-guard';
import { checkWalletCovers } from '../_lib/payment-checks';
import type { Recipient } from '../_lib/recipient';
import { parseTokenAddress, readTokenInfo, type TokenInfo } from '../_lib/token-info';
import { assertWalletChain, WrongChainError } from '../_lib/wallet-chain';
import { ErrorNotice, type ShownError } from './error-notice';
import { Notice } from './notice';
import { TxHash } from './tx-hash';

const COIN = 'native';
const OTHER = 'other';

/** What the review showed, and what Pay signs: the one-time address, the settled asset and the price. */
type Review = {
  payment: StealthPayment;
  asset: PaymentAsset;
  signWith: PaymentSigning;
  token: TokenInfo | null;
  /** The amount paid, in its unit (base units). */
  amount: bigint;
  /** Coin sent besides the fees: the amount, or a token payment's top-up (wei). */
  sent: bigint;
  /** The most the fees can cost (wei). */
  fee: bigint;
  summary: string;
  chainId: number;
  /** The chain's gasless route takes its fee in this token: the recipient can move it without coin. */
  feeInToken: GaslessRouteInfo | null;
};

/** `chainId`: the chain that holds the money, where the announcement went too. */
type Paid = PayStealthReturnType & { summary: string; chainId: number; fees: bigint | null; stealthAddress: string };
/** Paid, but the announcement failed: the recipient cannot find the money until it is announced, on the chain that holds it. */
type Unannounced = { paymentHash: PayStealthReturnType['paymentHash']; topUpHash: PayStealthReturnType['topUpHash']; amount: bigint; token: 'coin' | `0x${string}`; summary: string; chainId: number; payment: StealthPayment };

type Balances = { coin: bigint | null; tokens: Record<string, bigint | null> };

export type PayFromWalletProps = {
  recipient: Recipient;
  connection: ChainWallet;
};

export function PayFromWallet({ recipient, connection }: PayFromWalletProps) {
  const ids = { amount: useId(), asset: useId(), token: useId(), topUp: useId() };
  const symbol = connection.chain.nativeCurrency.symbol;
  /** The tokens this server names for the chain, then the page's own well-known ones. */
  const [named, setNamed] = useState<KnownToken[]>([]);
  useEffect(() => {
    const abort = new AbortController();
    setNamed([]);
    void namedTokens(connection.chainId, abort.signal).then(setNamed);
    return () => abort.abort();
  }, [connection.chainId]);
  /** The chain's gasless route (its paymaster and the tokens it takes its fee in), when the server names one. */
  const [gasless, setGasless] = useState<GaslessRouteInfo | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    setGasless(null);
    void gaslessRoute(connection.chainId, abort.signal).then(setGasless);
    return () => abort.abort();
  }, [connection.chainId]);
  /** The route, when it takes its fee in `token`. */
  const routeFor = (token: TokenInfo | null) => (token && gasless?.tokens.some((t) => t.toLowerCase() === token.address.toLowerCase()) ? gasless : null);
  const listed = [...named, ...knownTokens(connection.chainId)].filter((t, i, all) => all.findIndex((u) => u.address.toLowerCase() === t.address.toLowerCase()) === i);
  const listedKey = listed.map((t) => t.address).join();
  const [amount, setAmount] = useState('');
  const [choice, setChoice] = useState<string>(COIN);
  const [otherToken, setOtherToken] = useState('');
  const [other, setOther] = useState<{ info: TokenInfo; balance: bigint | null } | null>(null);
  const [topUp, setTopUp] = useState('');
  const [balances, setBalances] = useState<Balances>({ coin: null, tokens: {} });
  const [review, setReview] = useState<Review | null>(null);
  const [exact, setExact] = useState(false);
  const [busy, setBusy] = useState<'review' | 'pay' | null>(null);
  const [error, setError] = useState<(ShownError & { afterWallet: boolean }) | null>(null);
  const [paid, setPaid] = useState<Paid | null>(null);
  const [unannounced, setUnannounced] = useState<Unannounced | null>(null);
  const [round, setRound] = useState(0);
  useLeaveGuard(unannounced !== null, 'The payment was sent but not announced yet: the recipient cannot find it until it is. Send offers it again from this browser. Leave this page?');

  // The wallet's balances, read through its own provider; again after each payment.
  useEffect(() => {
    let live = true;
    const { client, account } = connection;
    void Promise.all([
      client.getBalance({ address: account }).catch(() => null),
      Promise.all(listed.map((t) => client.readContract({ address: t.address, abi: erc20Abi, functionName: 'balanceOf', args: [account] }).catch(() => null))),
    ]).then(([coin, tokens]) => live && setBalances({ coin, tokens: Object.fromEntries(listed.map((t, i) => [t.address, tokens[i] ?? null])) }));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `listed` is keyed by `listedKey`
  }, [connection, round, listedKey]);

  // Another token, by address: its symbol, decimals and the wallet's balance, once the address is whole.
  useEffect(() => {
    setOther(null);
    if (choice !== OTHER) return;
    let address: Address;
    try {
      address = parseTokenAddress(otherToken);
    } catch {
      return;
    }
    let live = true;
    const { client, account } = connection;
    void readTokenInfo(client, address)
      .then(async (info) => {
        const balance = await client.readContract({ address, abi: erc20Abi, functionName: 'balanceOf', args: [account] }).catch(() => null);
        if (live) setOther({ info, balance });
      })
      .catch(() => undefined); // said at the review, with the reason
    return () => {
      live = false;
    };
  }, [choice, otherToken, connection, round]);

  const chosenToken: TokenInfo | null = choice === COIN ? null : choice === OTHER ? (other?.info ?? null) : (listed.find((t) => t.address === choice) ?? null);
  const chosenBalance = choice === COIN ? balances.coin : choice === OTHER ? (other?.balance ?? null) : (balances.tokens[choice] ?? null);
  const show = (value: bigint, decimals: number, unit: string, up = false) => (exact ? formatAmount(value, decimals, unit) : roundAmount(value, decimals, unit, { up }));

  async function onReview(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setBusy('review');
    try {
      let token: TokenInfo | null = null;
      if (choice === OTHER) token = await readTokenInfo(connection.client, parseTokenAddress(otherToken));
      else if (choice !== COIN) token = chosenToken;
      const value = parseAmount(amount, token?.decimals ?? 18, 'Amount');
      // Left empty, the top-up is what withdrawing the tokens costs on this chain today, with margin
      // (estimatePayment prices it, after the balance checks); none where the chain's gasless route
      // takes its fee in this token (issue 31): the recipient pays that fee in the token itself.
      const feeInToken = routeFor(token);
      const typedTopUp = token && topUp.trim() !== '' ? parseAmount(topUp, 18, 'Coin for their fees', { allowZero: true }) : undefined;
      const gasTopUp = typedTopUp ?? (feeInToken ? 0n : undefined);
      // The connection is bound to the chain shown above: a wallet that moved since is refused here, before anything else.
      await assertWalletChain(connection.source.provider, connection.walletName, connection.chainId);
      const payment = createStealthPayment(recipient.meta);
      const asset: PaymentAsset = token ? { type: 'erc20', token: token.address, amount: value, ...(gasTopUp === undefined ? {} : { gasTopUp }) } : { type: 'native', value };
      const check = await checkWalletCovers({ client: connection.client, account: connection.account, payment, asset, token, coinSymbol: symbol });
      const settledTopUp = check.asset.type === 'erc20' ? (check.asset.gasTopUp ?? 0n) : 0n;
      const summary = token ? `${formatAmount(value, token.decimals, token.symbol)}${settledTopUp > 0n ? ` and ${formatAmount(settledTopUp, 18, symbol)} for gas` : ''}` : formatAmount(value, 18, symbol);
      setReview({ payment, asset: check.asset, signWith: check.signWith, token, amount: value, sent: check.sent, fee: check.gasBound, summary, chainId: connection.chainId, feeInToken });
    } catch (cause) {
      setError({ ...shownError(cause), afterWallet: false });
    } finally {
      setBusy(null);
    }
  }

  async function onPay() {
    if (!review) return;
    setError(null);
    setBusy('pay');
    let afterWallet = false;
    try {
      await assertWalletChain(connection.source.provider, connection.walletName, review.chainId);
      // Through WraithPay the payment is its announcement; otherwise kept until announced (refused, nothing sent, if it cannot be).
      const separate = review.signWith.via !== 'contract';
      if (separate) keepPayment(review.payment, recipient);
      afterWallet = true;
      try {
        const result = await payStealth({ wallet: connection.wallet, client: connection.client, payment: review.payment, asset: review.asset, signWith: review.signWith });
        if (separate) forgetPayment(review.payment.stealthAddress);
        setPaid({ ...result, summary: review.summary, chainId: review.chainId, stealthAddress: review.payment.stealthAddress, fees: await feesOf(connection, result.hashes) });
        setReview(null);
        setRound((n) => n + 1);
      } catch (cause) {
        if (cause instanceof PaymentNotAnnouncedError) {
          noteTransfer(review.payment.stealthAddress, cause.paymentHash, review.chainId);
          setUnannounced({ paymentHash: cause.paymentHash, topUpHash: cause.topUpHash, amount: review.amount, token: review.asset.type === 'native' ? 'coin' : review.asset.token, summary: review.summary, chainId: review.chainId, payment: review.payment });
        } else if (separate && nothingSent(cause)) {
          forgetPayment(review.payment.stealthAddress);
        }
        throw cause;
      }
    } catch (cause) {
      // Paid but not announced: say why the announcement failed (the notice above says the rest).
      if (cause instanceof PaymentNotAnnouncedError) setError({ ...shownError(cause.cause), afterWallet: false });
      else setError({ ...shownError(cause), afterWallet: afterWallet && !(cause instanceof WrongChainError) && !isCancelledInWallet(cause) });
    } finally {
      setBusy(null);
    }
  }

  /** The same payment's announcement, sent again from the wallet, with the note the first try would have sealed. */
  async function announceAgain() {
    if (!unannounced) return;
    setError(null);
    setBusy('pay');
    try {
      // Announced where the money is, or not at all.
      if (connection.chainId !== unannounced.chainId) {
        const where = chainLabel(chainInfo(unannounced.chainId));
        throw new Error(`The payment is on ${where}, and ${connection.walletName} is on ${chainLabel(chainInfo(connection.chainId))}: switch it back to ${where} to announce it there.`);
      }
      // The note names its asset (PROTOCOL.md 8.1), as payStealth's would have.
      const note = { amount: unannounced.amount, token: unannounced.token, txHash: unannounced.paymentHash, chainId: BigInt(unannounced.chainId) };
      const announcementHash = await connection.wallet.writeContract({ account: connection.wallet.account, chain: connection.wallet.chain, ...announceParameters({ payment: unannounced.payment, note }) });
      const receipt = await connection.client.waitForTransactionReceipt({ hash: announcementHash });
      if (receipt.status !== 'success') throw new Error(`The announcement transaction ${announcementHash} failed on chain. Try again; the payment itself is safe.`);
      forgetPayment(unannounced.payment.stealthAddress);
      setPaid({
        paymentHash: unannounced.paymentHash,
        topUpHash: unannounced.topUpHash,
        announcementHash,
        approvalHash: null,
        via: 'transactions',
        hashes: [unannounced.paymentHash, ...(unannounced.topUpHash ? [unannounced.topUpHash] : []), announcementHash],
        summary: unannounced.summary,
        chainId: unannounced.chainId,
        stealthAddress: unannounced.payment.stealthAddress,
        fees: await feesOf(connection, [unannounced.paymentHash, unannounced.topUpHash, announcementHash]),
      });
      setUnannounced(null);
    } catch (cause) {
      setError({ ...shownError(cause), afterWallet: false });
    } finally {
      setBusy(null);
    }
  }

  function startAgain() {
    setPaid(null);
    setReview(null);
    setAmount('');
    setError(null);
  }

  const exactToggle = (
    <button type="button" className="secondary small" aria-pressed={exact} onClick={() => setExact(!exact)}>
      {exact ? 'Show rounded amounts' : 'Show exact amounts'}
    </button>
  );

  if (unannounced) {
    return (
      <div data-testid="unannounced">
        <Notice kind="error">
          The payment <TxHash label="Payment" hash={unannounced.paymentHash} explorerUrl={chainInfo(unannounced.chainId).explorerUrl} /> was sent, but the recipient
          was not told about it{error ? `: ${error.message}` : '.'} Do not pay again: announce it below, and the recipient finds it.
        </Notice>
        <button type="button" onClick={announceAgain} disabled={busy !== null}>
          {busy ? 'Announcing…' : 'Announce it on chain'}
        </button>
      </div>
    );
  }

  if (paid) {
    const explorer = chainInfo(paid.chainId).explorerUrl;
    // Through WraithPay one transaction pays and announces (an approval may come first); else each is its own.
    const lines = [
      ...(paid.approvalHash ? [{ label: 'Token approval', hash: paid.approvalHash, testId: 'approval-tx' }] : []),
      ...(paid.announcementHash === paid.paymentHash
        ? [{ label: 'Payment and announcement', hash: paid.paymentHash, testId: 'payment-tx' }]
        : [
            { label: 'Payment', hash: paid.paymentHash, testId: 'payment-tx' },
            ...(paid.topUpHash ? [{ label: 'Gas top-up', hash: paid.topUpHash, testId: 'top-up-tx' }] : []),
            { label: 'Announcement', hash: paid.announcementHash, testId: 'announcement-tx' },
          ]),
    ];
    return (
      <div data-testid="paid">
        <Notice kind="success">
          Paid <strong data-testid="paid-summary">{paid.summary}</strong> to {recipient.source} on <strong data-testid="paid-chain">{chainLabel(chainInfo(paid.chainId))}</strong>. It is
          confirmed on chain, and the recipient finds it on their next scan.
        </Notice>
        {paid.fees !== null && (
          <p data-testid="paid-fees">
            Network fees paid: <strong>{show(paid.fees, 18, chainInfo(paid.chainId).nativeCurrency.symbol)}</strong> {exactToggle}
          </p>
        )}
        <details className="more">
          <summary>Technical details</summary>
          <p className="hint">
            Paid to the one-time address <code data-testid="paid-address">{paid.stealthAddress}</code>.
          </p>
          <div className="tx-lines">
            {lines.map((line) => (
              <p key={line.testId}>
                <TxHash label={line.label} hash={line.hash} explorerUrl={explorer} testId={line.testId} /> · confirmed
              </p>
            ))}
          </div>
        </details>
        <div className="row paid-actions">
          <button type="button" onClick={startAgain}>
            Make another payment
          </button>
        </div>
      </div>
    );
  }

  if (review) {
    const coin = chainInfo(review.chainId).nativeCurrency.symbol;
    const topUpSent = review.token ? review.sent : 0n;
    return (
      <div data-testid="review">
        <h3>Review</h3>
        <dl className="review">
          <dt>To</dt>
          <dd>
            {recipient.source} · fingerprint <strong className="fingerprint-value" data-testid="review-fingerprint">{recipient.fingerprint}</strong>
          </dd>
          <dt>Amount</dt>
          <dd data-testid="review-amount">{review.token ? formatAmount(review.amount, review.token.decimals, review.token.symbol) : formatAmount(review.amount, 18, coin)}</dd>
          {topUpSent > 0n && (
            <>
              <dt>For their fees</dt>
              <dd data-testid="review-top-up">{show(topUpSent, 18, coin)}, so they can move the tokens later</dd>
            </>
          )}
          {review.token && topUpSent === 0n && review.feeInToken && (
            <>
              <dt>For their fees</dt>
              <dd data-testid="review-fee-in-token">
                No {coin} needed: they will pay the fee of moving the tokens in {review.token.symbol}, taken from what they receive.
              </dd>
            </>
          )}
          <dt>Network fees</dt>
          <dd data-testid="review-fees">at most {show(review.fee, 18, coin, true)}</dd>
          <dt className="total">Total</dt>
          <dd className="total" data-testid="review-total">
            {review.token
              ? `${formatAmount(review.amount, review.token.decimals, review.token.symbol)} and at most ${show(review.sent + review.fee, 18, coin, true)}`
              : `at most ${show(review.sent + review.fee, 18, coin, true)}`}
          </dd>
          <dt>On</dt>
          <dd>{chainLabel(chainInfo(review.chainId))}</dd>
        </dl>
        <p className="hint">Fees are what the network charges at today&apos;s price; your wallet shows its own figure before you confirm.</p>
        <p className="exact-toggle">{exactToggle}</p>
        <div className="row">
          <button type="button" onClick={onPay} disabled={busy !== null}>
            {busy === 'pay' ? 'Confirm in your wallet…' : 'Pay'}
          </button>
          <button type="button" className="secondary" onClick={() => setReview(null)} disabled={busy !== null}>
            Change
          </button>
        </div>
        {busy === 'pay' && (
          <p className="hint" aria-live="polite">
            Confirm in your wallet. The page waits until the chain confirms the payment.
          </p>
        )}
        {error && (
          <ErrorNotice error={error}>
            {error.afterWallet && ' If your wallet had already sent the payment, do not pay again: check its activity first, and keep this page open (this review is what announcing that payment needs; Advanced makes a new address, which would not match it).'}
          </ErrorNotice>
        )}
        <details className="more">
          <summary>Technical details</summary>
          <p className="hint">
            One-time address <code data-testid="review-address">{review.payment.stealthAddress}</code>, made in this browser for this payment only.
          </p>
          {review.feeInToken && topUpSent === 0n && (
            <p className="hint">
              The recipient&apos;s fee in {review.token?.symbol} is paid through this chain&apos;s ERC-4337 paymaster <code>{review.feeInToken.paymaster}</code> (EIP-7702, EntryPoint
              v0.8); its bundler sees the one-time address and the destination when they move the tokens.
            </p>
          )}
        </details>
      </div>
    );
  }

  return (
    <form onSubmit={onReview} noValidate>
      <h3>What to send</h3>
      <div className="row amount-row">
        <div className="field">
          <label htmlFor={ids.amount}>Amount</label>
          <input id={ids.amount} type="text" inputMode="decimal" placeholder="0.5" autoComplete="off" value={amount} onChange={(e) => setAmount(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={ids.asset}>Asset</label>
          <select id={ids.asset} value={choice} onChange={(e) => setChoice(e.target.value)}>
            <option value={COIN}>{symbol}</option>
            {listed.map((t) => (
              <option key={t.address} value={t.address}>
                {t.symbol}
              </option>
            ))}
            <option value={OTHER}>Another token…</option>
          </select>
        </div>
      </div>
      {choice === OTHER && (
        <div className="field">
          <label htmlFor={ids.token}>Token address</label>
          <input id={ids.token} type="text" placeholder="0x…" autoComplete="off" spellCheck={false} value={otherToken} onChange={(e) => setOtherToken(e.target.value)} aria-describedby={`${ids.token}-hint`} />
          <p className="hint" id={`${ids.token}-hint`}>
            {other ? `${other.info.symbol}, read from its contract.` : 'The token’s contract address on this chain: its name and your balance are read from it.'}
          </p>
        </div>
      )}
      <p className="asset-balance" data-testid="asset-balance">
        {chosenBalance !== null && (chosenToken || choice === COIN)
          ? `In your wallet: ${roundAmount(chosenBalance, chosenToken?.decimals ?? 18, chosenToken?.symbol ?? symbol)}`
          : choice === COIN || chosenToken
            ? 'Reading your balance…'
            : ''}
      </p>
      {choice !== COIN && (
        <details className="more">
          <summary>Coin for the recipient&apos;s fees</summary>
          <div className="field">
            <label htmlFor={ids.topUp}>Gas top-up ({symbol})</label>
            <input
              id={ids.topUp}
              type="text"
              inputMode="decimal"
              autoComplete="off"
              placeholder={routeFor(chosenToken) ? 'none' : 'automatic'}
              value={topUp}
              onChange={(e) => setTopUp(e.target.value)}
              aria-describedby={`${ids.topUp}-hint`}
            />
            <p className="hint" id={`${ids.topUp}-hint`}>
              {routeFor(chosenToken)
                ? `Left empty, none: on this chain the recipient can pay the fee of moving ${chosenToken!.symbol} in ${chosenToken!.symbol}. Add ${symbol} here to send some anyway.`
                : `A new address holds no ${symbol}, so some is sent along for the fee of moving the tokens. Left empty, it is twice what that costs on this chain now; 0 sends none.`}
            </p>
          </div>
        </details>
      )}
      <button type="submit" disabled={busy !== null}>
        {busy === 'review' ? 'Checking…' : 'Review payment'}
      </button>
      {error && <ErrorNotice error={error} />}
    </form>
  );
}

/** Whether a failed payment certainly moved nothing: the wallet declined, or the transfer reverted. */
const nothingSent = (cause: unknown) => isCancelledInWallet(cause) || (cause instanceof WraithError && cause.code === 'TRANSACTION_REVERTED');

/** What the payment's transactions cost the wallet, from their receipts (each transaction once); null when a receipt cannot be read. */
async function feesOf(connection: ChainWallet, hashes: readonly (`0x${string}` | null)[]): Promise<bigint | null> {
  try {
    const unique = [...new Set(hashes.filter((hash): hash is `0x${string}` => hash !== null))];
    const receipts = await Promise.all(unique.map((hash) => connection.client.getTransactionReceipt({ hash })));
    const fees = await Promise.all(receipts.map((receipt) => feePaidOf({ client: connection.client, receipt })));
    return fees.reduce((sum, fee) => sum + fee, 0n);
  } catch {
    return null;
  }
}
