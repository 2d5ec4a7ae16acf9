'use client';
/**
 * The one way to claim payments on the Scan page. With a wallet found on the page, what each
 * payment on the wallet's chain holds is read at once through the wallet's connection (never this
 * server); every payment with something left is selected, and each can be deselected. A payment
 * with nothing left is shown as claimed and cannot be selected; one on another chain offers to
 * switch the wallet there first. Each selected payment goes to its own fresh destination (typed,
 * or pasted one per line) unless the user confirms the linking warning and types one destination
 * for all. The fees are shown before anything is signed; then each payment is claimed in turn
 * (claim-run.ts: tokens before coin, signed here with its one-time key, no wallet prompt), with
 * its progress, and a failure shown with its reason while the others go on. The run is kept in
 * the encrypted history (history-store.ts), so one cut short is resumed where it stopped.
 *
 * Gasless (issue 31): a payment whose coin cannot pay its own token withdrawal is claimed through
 * the chain's paymaster when GET /api/v1/chains offers one that takes its token: the review shows
 * the fee in the token, the one-time key signs here (no wallet prompt), and the page says once that
 * the bundler sees the one-time address and the destination.
 */
import { estimateGaslessWithdrawal, estimateWithdrawal } from '@wraith-pq/sdk/evm';
import { useCallback, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { getAddress, isAddress, isAddressEqual, type Address } from 'viem';
import { formatAmount, roundedAmount } from '../_lib/amount';
import { gaslessRoute, type GaslessRouteInfo } from '../_lib/api';
import { connectReader, type ChainReader } from '../_lib/chain-clients';
import { chainInfo, chainLabel } from '../_lib/chains';
import { claimPayment } from '../_lib/claim-run';
import { errorMessage } from '../_lib/error-message';
import { upsertPayment, withWithdrawal, type ClaimRun, type ClaimRunItem } from '../_lib/history';
import { recordHistory, useHistory } from '../_lib/history-store';
import { noteAsset } from '../_lib/payment-asset';
import { readPaymentFunds, type PaymentFunds } from '../_lib/payment-funds';
import { chainIdOf, type SavedDiscovery } from '../_lib/scan-state';
import { assertWalletChain, WrongChainError } from '../_lib/wallet-chain';
import { feeIsBound } from '../_lib/withdrawal-receipt';
import { ChainSwitch } from './chain-switch';
import { Notice } from './notice';
import type { AmountOf } from './scan-app';
import { TxHash } from './tx-hash';

export type ClaimAllProps = {
  discoveries: readonly SavedDiscovery[];
  reader: ChainReader;
  /** The wallet's connection on the chain it moved to (after a switch). */
  onReaderChange: (reader: ChainReader) => void;
  /** A payment's one-time key, derived in this page. */
  secretKeyOf: (discovery: SavedDiscovery) => Promise<Uint8Array>;
  amountOf: AmountOf;
  /** The page's card of one payment, with the claim's parts in it. */
  item: (discovery: SavedDiscovery, extra: { done?: boolean; lead?: ReactNode; children?: ReactNode }) => ReactNode;
};

type Read = { funds: PaymentFunds | null; error: string | null };
/** `gasless`: claimed through the paymaster, its fee (at most) in the token. */
type Estimate = { fee: bigint; bound: boolean } | { gasless: { fee: bigint; token: Address; symbol: string; decimals: number } } | { error: string };

/** A gasless claim's fee bound is its quote plus a quarter (1/4): see gaslessEstimate. */
const GASLESS_FEE_HEADROOM = 4n;

const hasBalance = (funds: PaymentFunds | null) => funds !== null && (funds.native > 0n || funds.tokens.some((t) => t.balance > 0n));

/** The destinations typed or pasted: one address per line (or separated by spaces and commas). */
function parseDestinations(text: string): string[] {
  return text.split(/[\s,;]+/).filter(Boolean);
}

/** A URL's host, as people read where something goes (the whole text when it is no URL). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function ClaimAll({ discoveries, reader, onReaderChange, secretKeyOf, amountOf, item }: ClaimAllProps) {
  const ids = { paste: useId(), single: useId(), linking: useId(), tokens: useId() };
  const history = useHistory();
  const symbol = reader.chain.nativeCurrency.symbol;
  const explorerUrl = chainInfo(reader.chainId).explorerUrl;
  const here = useMemo(() => discoveries.filter((d) => d.chain !== 'sui' && (chainIdOf(d) ?? reader.chainId) === reader.chainId), [discoveries, reader.chainId]);
  const [tokensText, setTokensText] = useState('');
  const typedTokens = tokensText.split(/[\s,]+/).filter(Boolean);
  // Invalid entries are counted below; the valid ones are still read.
  const extraTokens = useMemo(() => tokensText.split(/[\s,]+/).filter((t): t is Address => /^0x[0-9a-fA-F]{40}$/.test(t)), [tokensText]);
  const extraKey = extraTokens.join(',');
  const badTokens = typedTokens.length - extraTokens.length;
  const [reads, setReads] = useState<ReadonlyMap<number, Read>>(new Map());
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [destinations, setDestinations] = useState<Record<number, string>>({});
  const [pasted, setPasted] = useState('');
  const [oneForAll, setOneForAll] = useState(false);
  const [single, setSingle] = useState('');
  const [linkingAccepted, setLinkingAccepted] = useState(false);
  const [estimates, setEstimates] = useState<Map<number, Estimate> | null>(null);
  const [route, setRoute] = useState<GaslessRouteInfo | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    setRoute(null);
    void gaslessRoute(reader.chainId, abort.signal).then((r) => !abort.signal.aborted && setRoute(r));
    return () => abort.abort();
  }, [reader.chainId]);
  const [busy, setBusy] = useState<'reading' | 'estimating' | 'claiming' | null>(null);
  /** What stopped a review or a claim (kept when the balances are read again, on whatever chain). */
  const [error, setError] = useState<string | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  /** Held while a review or a claim runs, from the click on: `busy` shows only after the first await. */
  const acting = useRef(false);
  const run = history?.run && history.run.chainId === reader.chainId ? history.run : null;
  const unfinished = run?.items.filter((i) => i.status !== 'done') ?? [];
  /** Payments a run claimed whose coin left is less than moving it would cost: done, not offered again. */
  const dustDone = useMemo(() => new Set(run?.items.filter((i) => i.status === 'done').map((i) => i.announcementId) ?? []), [run]);

  /** The accounts the wallet already shares with this page (no prompt); none when it shares none. */
  async function walletAccounts(): Promise<string[]> {
    try {
      const accounts = await reader.source.provider.request({ method: 'eth_accounts' });
      return Array.isArray(accounts) ? accounts.filter((a): a is string => typeof a === 'string') : [];
    } catch {
      return [];
    }
  }

  /**
   * Before each read, review and payment: is the wallet still on the chain this connection is for?
   * A wallet that moved without saying so (no `chainChanged`) is connected again where it is now,
   * so the page shows which payments it can claim there, and the step is refused with a sentence.
   */
  const onConnectionChain = useCallback(async () => {
    try {
      await assertWalletChain(reader.source.provider, reader.walletName, reader.chainId);
    } catch (cause) {
      if (cause instanceof WrongChainError) void connectReader(reader.source).then(onReaderChange, () => {});
      throw cause;
    }
  }, [reader, onReaderChange]);

  /** A payment is claimed: nothing left, or only coin worth less than moving it after a claim. */
  const isDone = useCallback(
    (id: number, funds: PaymentFunds | null) => funds !== null && (!hasBalance(funds) || (dustDone.has(id) && funds.tokens.every((t) => t.balance === 0n))),
    [dustDone],
  );

  /** The note's asset, named by the chain read: kept in the history so the amount reads "100 TST" from now on. */
  function recordUnit(discovery: SavedDiscovery, funds: PaymentFunds) {
    const paid = noteAsset(funds.received, discovery.note?.amount);
    const info = paid?.type === 'erc20' ? funds.tokens.map((t) => t.info).find((i) => isAddressEqual(i.address, paid.token)) : undefined;
    if (!paid || (paid.type === 'erc20' && !info)) return;
    void recordHistory((h) =>
      upsertPayment(h, {
        announcementId: discovery.id,
        chainId: reader.chainId,
        stealthAddress: getAddress(discovery.stealthAddress),
        date: new Date(discovery.timestamp * 1000).toISOString(),
        amount: discovery.note?.amount ?? null,
        asset: info ? info.address : 'native',
        symbol: info ? info.symbol : symbol,
        decimals: info ? info.decimals : 18,
        paymentTx: discovery.note?.txHash ?? null,
        announcementTx: discovery.txHash,
      }),
    );
  }

  const readAll = useCallback(async () => {
    setBusy('reading');
    setReadError(null);
    setEstimates(null);
    try {
      await onConnectionChain();
      const read = new Map<number, Read>();
      await Promise.all(
        here.map(async (discovery) => {
          try {
            // The token the note names (PROTOCOL.md 8.1) is read as well: a payment through WraithPay is
            // its own announcement, so its note names no separate transaction to read it from.
            const noted = discovery.note?.asset && discovery.note.asset !== 'native' ? [discovery.note.asset] : [];
            const funds = await readPaymentFunds({
              client: reader.client,
              stealthAddress: getAddress(discovery.stealthAddress),
              txHash: discovery.note?.txHash ?? discovery.txHash,
              extraTokens: [...noted, ...extraKey.split(',').filter(Boolean)],
            });
            read.set(discovery.id, { funds, error: null });
            recordUnit(discovery, funds);
          } catch (cause) {
            read.set(discovery.id, { funds: null, error: errorMessage(cause) });
          }
        }),
      );
      setReads(read);
      setSelected(new Set(here.filter((d) => hasBalance(read.get(d.id)?.funds ?? null) && !isDone(d.id, read.get(d.id)?.funds ?? null)).map((d) => d.id)));
    } catch (cause) {
      setReadError(errorMessage(cause));
    } finally {
      setBusy(null);
    }
  }, [here, reader, extraKey, onConnectionChain]); // eslint-disable-line react-hooks/exhaustive-deps

  // Read as soon as the wallet is found, on every chain it moves to, and for every payment the scan adds.
  useEffect(() => {
    void readAll();
  }, [readAll]);

  const chosen = here.filter((d) => selected.has(d.id) && reads.get(d.id)?.funds);

  function fillPasted() {
    const list = parseDestinations(pasted);
    const next = { ...destinations };
    chosen.forEach((d, i) => {
      if (list[i] !== undefined) next[d.id] = list[i]!;
    });
    setDestinations(next);
    setEstimates(null);
    if (list.length < chosen.length) setError(`${list.length} address${list.length === 1 ? '' : 'es'} for ${chosen.length} payments: enter one fresh address for each.`);
    else setError(null);
  }

  /**
   * Each chosen payment's destination, or the sentence that says what is wrong (nothing is signed
   * then). `own`: the wallet's accounts (`eth_accounts`, no prompt): withdrawing to one of them ties
   * the payment to that account, as reusing a destination ties two payments (umbra-protocol #107, #204).
   */
  function planned(own: readonly string[]): { items: ClaimRunItem[] } | { error: string } {
    if (chosen.length === 0) return { error: 'Select at least one payment to claim.' };
    const stealth = discoveries.map((d) => d.stealthAddress.toLowerCase());
    const withdrawn = (history?.withdrawals ?? []).filter((w) => w.status === 'withdrawn');
    const items: ClaimRunItem[] = [];
    const seen = new Set<string>();
    for (const d of chosen) {
      const text = (oneForAll ? single : (destinations[d.id] ?? '')).trim();
      const name = `the payment at ${d.stealthAddress}`;
      if (!isAddress(text, { strict: false })) return { error: `Enter where ${name} goes: an address of 0x and 40 hex digits.` };
      const to = getAddress(text);
      // A payment's own earlier destination (its tokens went there, say) links nothing new.
      const usedByAnother = withdrawn.some((w) => w.destination.toLowerCase() === to.toLowerCase() && w.stealthAddress.toLowerCase() !== d.stealthAddress.toLowerCase());
      if (stealth.includes(to.toLowerCase())) return { error: `The destination of ${name} is one of the addresses you were paid at: enter a fresh address.` };
      if (!linkingAccepted && own.some((a) => a.toLowerCase() === to.toLowerCase())) {
        return { error: `${to} is ${reader.walletName}'s own account: claiming there links ${name} to it on chain. Use a fresh address, or confirm the linking warning.` };
      }
      if (!linkingAccepted && (seen.has(to.toLowerCase()) || usedByAnother)) {
        return { error: `${to} is the destination of another payment${usedByAnother ? ' already' : ''}: that links the payments on chain. Use a fresh address for each, or confirm the linking warning.` };
      }
      seen.add(to.toLowerCase());
      items.push({ announcementId: d.id, stealthAddress: getAddress(d.stealthAddress), destination: to, status: 'pending', error: null });
    }
    return { items };
  }

  /**
   * The gasless route's quote for a payment holding one token its coin cannot move (the ordinary
   * token withdrawal costs more coin than it holds), when the chain's paymaster takes that token;
   * null otherwise (the ordinary route, and its reason when it fails).
   */
  async function gaslessEstimate(planItem: ClaimRunItem, funds: PaymentFunds | null) {
    const held = funds?.tokens.filter((t) => t.balance > 0n) ?? [];
    if (!route || !funds || held.length !== 1) return null;
    const { info, balance } = held[0]!;
    if (!route.tokens.some((t) => isAddressEqual(t, info.address))) return null;
    const from = planItem.stealthAddress as Address;
    const to = planItem.destination as Address;
    const coinPays = await estimateWithdrawal({ client: reader.client, from, to, token: info.address }).then(
      (e) => e.fee <= funds.native,
      () => false,
    );
    if (coinPays) return null;
    const quote = await estimateGaslessWithdrawal({ client: reader.client, from, to, token: info.address, bundler: route.bundlerUrl, paymaster: route.paymaster });
    // The fee shown, and signed as the most taken (maxFee), is a quarter above today's quote: each
    // claim mined moves the base fee, and the claims after the first of a run were refused when the
    // bound was the quote itself (the fee taken is the quote at signing, at most this).
    const bound = quote.fee + quote.fee / GASLESS_FEE_HEADROOM;
    return { fee: bound > balance ? balance : bound, token: info.address, symbol: info.symbol, decimals: info.decimals };
  }

  async function review() {
    setError(null);
    setEstimates(null);
    const plan = planned(await walletAccounts());
    if ('error' in plan) return setError(plan.error);
    setBusy('estimating');
    try {
      await onConnectionChain();
      const result = new Map<number, Estimate>();
      for (const planItem of plan.items) {
        const funds = reads.get(planItem.announcementId)?.funds ?? null;
        try {
          const gasless = await gaslessEstimate(planItem, funds);
          if (gasless) {
            result.set(planItem.announcementId, { gasless });
            continue;
          }
          let fee = 0n;
          let bound = false;
          // Tokens first, then the coin: each fee bound as the SDK prices it now.
          for (const t of funds?.tokens ?? []) {
            if (t.balance === 0n) continue;
            const e = await estimateWithdrawal({ client: reader.client, from: planItem.stealthAddress, to: planItem.destination, token: t.info.address });
            fee += e.fee;
            bound ||= feeIsBound(e);
          }
          if ((funds?.native ?? 0n) > fee) {
            const e = await estimateWithdrawal({ client: reader.client, from: planItem.stealthAddress, to: planItem.destination });
            fee += e.fee;
            bound ||= feeIsBound(e);
          }
          result.set(planItem.announcementId, { fee, bound });
        } catch (cause) {
          result.set(planItem.announcementId, { error: errorMessage(cause) });
        }
      }
      setEstimates(result);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(null);
    }
  }

  async function setItem(announcementId: number, change: Partial<ClaimRunItem>) {
    await recordHistory((h) =>
      h.run ? { ...h, run: { ...h.run, items: h.run.items.map((i) => (i.announcementId === announcementId ? { ...i, ...change } : i)) } } : h,
    );
  }

  async function claim(items: readonly ClaimRunItem[], fresh: ClaimRun | null) {
    setBusy('claiming');
    setError(null);
    try {
      if (fresh) await recordHistory((h) => ({ ...h, run: fresh }));
      for (const runItem of items) {
        const discovery = discoveries.find((d) => d.id === runItem.announcementId);
        await setItem(runItem.announcementId, { status: 'running', error: null });
        try {
          if (!discovery) throw new Error('This payment is no longer in the scan: scan again, then claim it.');
          // The wallet's chain, checked before each payment (and by the connection before each broadcast).
          await onConnectionChain();
          const { dust } = await claimPayment({
            client: reader.client,
            stealthAddress: runItem.stealthAddress as Address,
            destination: runItem.destination as Address,
            txHash: discovery.note?.txHash ?? discovery.txHash,
            extraTokens: discovery.note?.asset && discovery.note.asset !== 'native' ? [discovery.note.asset, ...extraTokens] : extraTokens,
            coin: { symbol, decimals: 18 },
            ...gaslessOf(runItem.announcementId),
            secretKey: () => secretKeyOf(discovery),
            onWithdrawal: (asset, outcome) =>
              void recordHistory((h) =>
                withWithdrawal(
                  h,
                  {
                    announcementId: runItem.announcementId,
                    chainId: reader.chainId,
                    stealthAddress: runItem.stealthAddress,
                    destination: runItem.destination,
                    asset: asset.token ?? 'native',
                    symbol: asset.symbol,
                    decimals: asset.decimals,
                  },
                  outcome,
                ),
              ),
          });
          await setItem(runItem.announcementId, { status: 'done', error: dust > 0n ? `${roundedAmount(dust, 18, symbol)} stays: less than the fee of moving it.` : null });
        } catch (cause) {
          await setItem(runItem.announcementId, { status: 'failed', error: errorMessage(cause) });
          // On another chain now: every other payment would be refused the same way. Said once; the run resumes once the wallet is back.
          if (cause instanceof WrongChainError) {
            setError(errorMessage(cause));
            break;
          }
        }
      }
    } finally {
      setBusy(null);
    }
    await readAll(); // what is left now, for the next run
  }

  /** The reviewed gasless quote of a payment, as claimPayment takes it (the fee quoted is the most taken). */
  function gaslessOf(announcementId: number) {
    const estimate = estimates?.get(announcementId);
    if (!route || !estimate || !('gasless' in estimate)) return {};
    return { gasless: { bundler: route.bundlerUrl, paymaster: route.paymaster, token: estimate.gasless.token, maxFee: estimate.gasless.fee } };
  }

  async function start() {
    const plan = planned(await walletAccounts());
    if ('error' in plan) return setError(plan.error);
    await claim(plan.items, { startedAt: new Date().toISOString(), chainId: reader.chainId, items: plan.items });
  }

  /** Run `step` unless one is running: a double click starts one run, not two. */
  async function once(step: () => Promise<void>) {
    if (acting.current) return;
    acting.current = true;
    try {
      await step();
    } finally {
      acting.current = false;
    }
  }

  const fees = estimates ? [...estimates.values()] : [];
  const feeTotal = fees.reduce((sum, e) => sum + ('fee' in e ? e.fee : 0n), 0n);
  const anyBound = fees.some((e) => 'bound' in e && e.bound);
  const anyGasless = fees.some((e) => 'gasless' in e);
  const bundlerHost = route ? hostOf(route.bundlerUrl) : '';
  const selectable = here.filter((d) => hasBalance(reads.get(d.id)?.funds ?? null) && !isDone(d.id, reads.get(d.id)?.funds ?? null));
  const held = new Map<string, { decimals: number; symbol: string; value: bigint }>();
  for (const d of here) {
    const funds = reads.get(d.id)?.funds;
    if (!funds) continue;
    const add = (key: string, decimals: number, unit: string, value: bigint) => value > 0n && held.set(key, { decimals, symbol: unit, value: (held.get(key)?.value ?? 0n) + value });
    add('native', 18, symbol, funds.native);
    for (const t of funds.tokens) add(t.info.address, t.info.decimals, t.info.symbol, t.balance);
  }
  const toggle = (id: number, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
    setEstimates(null);
  };

  return (
    <div className="claim-all" data-testid="claim-all">
      <p data-testid="holdings">
        {busy === 'reading' && reads.size === 0
          ? `Reading what your payments hold through ${reader.walletName}…`
          : held.size === 0
            ? `Nothing left to claim on ${chainLabel(chainInfo(reader.chainId))}.`
            : (
                <>
                  At your payments&apos; addresses now: <strong>{[...held.values()].map((v) => formatAmount(v.value, v.decimals, v.symbol)).join(' · ')}</strong>
                </>
              )}
      </p>
      <ul className="discoveries claim-rows">
        {discoveries.map((d) => {
          if (d.chain === 'sui') {
            return item(d, { children: <p className="hint">Paid on Sui: claim it with a Sui wallet and this payment&apos;s key (under Advanced).</p> });
          }
          const chainId = chainIdOf(d);
          if (chainId !== null && chainId !== reader.chainId) {
            const target = chainInfo(chainId, d.chain);
            return item(d, {
              children: (
                <div className="funds" data-testid="funds-other-chain">
                  <p className="hint">
                    This payment is on {chainLabel(target)}; {reader.walletName} is on {chainLabel(chainInfo(reader.chainId))}. Switch it to read and claim this one.
                  </p>
                  <ChainSwitch wallet={reader.source} target={target} onSwitched={async () => onReaderChange(await connectReader(reader.source))} />
                </div>
              ),
            });
          }
          const read = reads.get(d.id);
          const funds = read?.funds ?? null;
          const done = isDone(d.id, funds);
          const canSelect = hasBalance(funds) && !done;
          const estimate = estimates?.get(d.id);
          const address = getAddress(d.stealthAddress);
          const runItem = run?.items.find((i) => i.announcementId === d.id);
          return item(d, {
            done,
            lead: canSelect ? (
              <input
                type="checkbox"
                className="claim-check"
                aria-label={`Claim ${amountOf(d).text ?? 'the payment'} at ${address}`}
                checked={selected.has(d.id)}
                onChange={(e) => toggle(d.id, e.target.checked)}
                data-testid="claim-select"
              />
            ) : null,
            children: (
              <div className="funds" data-testid="claim-row" data-selectable={canSelect ? 'true' : 'false'}>
                {read?.error ? (
                  <Notice kind="error">Could not read what this payment holds: {read.error}</Notice>
                ) : !funds ? (
                  <p className="hint">Reading its balance…</p>
                ) : (
                  <>
                    <p className="balance">
                      Holds now: <strong data-testid="balance-native">{formatAmount(funds.native, 18, symbol)}</strong>
                      {funds.tokens.map((t) => (
                        <span key={t.info.address}>
                          {' · '}
                          <strong data-testid="balance-token">{formatAmount(t.balance, t.info.decimals, t.info.symbol)}</strong>
                        </span>
                      ))}
                      {funds.received.length > 0 && (
                        <span className="hint" data-testid="received">
                          {' '}
                          (the payment brought{' '}
                          {funds.received
                            .map((r) => (r.type === 'native' ? formatAmount(r.amount, 18, symbol) : ((t) => (t ? formatAmount(r.amount, t.info.decimals, t.info.symbol) : `${r.amount} of ${r.token}`))(funds.tokens.find((t) => isAddressEqual(t.info.address, r.token)))))
                            .join(' and ')}
                          )
                        </span>
                      )}
                    </p>
                    {funds.incomplete && (
                      <Notice kind="error">
                        <span data-testid="balance-incomplete">Could not read every token this address holds: {funds.incomplete}. Read again before claiming it.</span>
                      </Notice>
                    )}
                    {done && runItem?.error && <p className="hint">{runItem.error}</p>}
                  </>
                )}
                {canSelect && selected.has(d.id) && !oneForAll && (
                  <div className="field">
                    <label htmlFor={`${ids.single}-${d.id}`}>Send to</label>
                    <input
                      id={`${ids.single}-${d.id}`}
                      type="text"
                      aria-label={`Destination for ${address}`}
                      aria-describedby={`${ids.single}-${d.id}-hint`}
                      autoComplete="off"
                      spellCheck={false}
                      value={destinations[d.id] ?? ''}
                      onChange={(e) => {
                        setDestinations({ ...destinations, [d.id]: e.target.value });
                        setEstimates(null);
                      }}
                    />
                    <p className="hint" id={`${ids.single}-${d.id}-hint`}>
                      A fresh address of yours (0x…), used for nothing else.
                    </p>
                  </div>
                )}
                {estimate && (
                  <p className="hint" data-testid="claim-estimate">
                    {'error' in estimate
                      ? `Will fail as things stand: ${estimate.error}`
                      : 'gasless' in estimate
                        ? `No ${symbol} needed: fee at most ${formatAmount(estimate.gasless.fee, estimate.gasless.decimals, estimate.gasless.symbol)}, taken from the tokens`
                        : `Network fee ${estimate.bound ? 'at most' : 'exactly'} ${roundedAmount(estimate.fee, 18, symbol)}`}
                  </p>
                )}
              </div>
            ),
          });
        })}
      </ul>

      {selectable.length > 0 && (
        <section className="claim-controls" aria-labelledby={`${ids.paste}-heading`}>
          <h3 id={`${ids.paste}-heading`}>Claim</h3>
          <p className="hint">
            {chosen.length} of {selectable.length} payment{selectable.length === 1 ? '' : 's'} selected. Each is sent on {chainLabel(chainInfo(reader.chainId))} to its own destination, tokens first, then the{' '}
            {symbol}, with its own key in this page: your wallet is not asked to sign.
          </p>
          <Notice kind="info">
            <span data-testid="linking-notice">
              Sending several payments to one address links them on chain: anyone can then see that they went to the same person. Use a fresh
              address for each payment where that matters.
            </span>
          </Notice>
          <label className="check">
            <input
              type="checkbox"
              checked={oneForAll}
              onChange={(e) => {
                setOneForAll(e.target.checked);
                setLinkingAccepted(false);
                setEstimates(null);
              }}
            />{' '}
            One destination for all
          </label>
          {oneForAll ? (
            <>
              <Notice kind="info">
                <span data-testid="claim-linking-warning">
                  Sending these payments to one address links them on chain: anyone can then see that they went to the same person.
                </span>
              </Notice>
              <label className="check" htmlFor={ids.linking}>
                <input id={ids.linking} type="checkbox" checked={linkingAccepted} onChange={(e) => setLinkingAccepted(e.target.checked)} /> I understand: link these payments
              </label>
              {linkingAccepted && (
                <div className="field">
                  <label htmlFor={ids.single}>Destination for all</label>
                  <input id={ids.single} type="text" autoComplete="off" spellCheck={false} value={single} onChange={(e) => setSingle(e.target.value)} />
                </div>
              )}
            </>
          ) : (
            <details className="more">
              <summary>Paste several destinations</summary>
              <div className="field">
                <label htmlFor={ids.paste}>Fresh destinations, one per line</label>
                <textarea id={ids.paste} rows={3} spellCheck={false} value={pasted} onChange={(e) => setPasted(e.target.value)} />
              </div>
              <button type="button" className="secondary small" onClick={fillPasted}>
                Fill in the destinations
              </button>
            </details>
          )}
          <div className="row actions">
            <button type="button" className="secondary" onClick={() => void once(review)} disabled={busy !== null}>
              {busy === 'estimating' ? 'Estimating the fees…' : 'Review the claim'}
            </button>
            {estimates && (
              <button type="button" onClick={() => void once(start)} disabled={busy !== null}>
                {busy === 'claiming' ? 'Claiming…' : `Claim ${chosen.length} payment${chosen.length === 1 ? '' : 's'}`}
              </button>
            )}
          </div>
          {estimates && fees.some((e) => 'fee' in e) && (
            <p data-testid="claim-fee-total">
              Network fees {anyBound ? 'at most' : 'exactly'} {roundedAmount(feeTotal, 18, symbol)} in all, paid from each payment&apos;s own {symbol}
              {anyBound ? ' (a maximum: the chain charges what it uses)' : ''}.
            </p>
          )}
          {anyGasless && (
            <Notice kind="info">
              <span data-testid="gasless-notice">
                Payments with no {symbol} for gas are claimed through the bundler at {bundlerHost}: it sees each one&apos;s one-time address and
                destination before the claim is mined. Its fee is taken from the tokens; your wallet is not asked to sign.
              </span>
            </Notice>
          )}
        </section>
      )}

      {run && (
        <div className="claim-run" data-testid="claim-run">
          <p>
            Claim of {new Date(run.startedAt).toLocaleString()}: {run.items.filter((i) => i.status === 'done').length} of {run.items.length} done
            {unfinished.some((i) => i.status === 'failed') ? `, ${unfinished.filter((i) => i.status === 'failed').length} failed` : ''}.
          </p>
          <ul className="claim-items">
            {run.items.map((runItem) => (
              <li key={runItem.announcementId} data-testid="claim-item" data-status={runItem.status}>
                <code>{runItem.stealthAddress}</code> → <code>{runItem.destination}</code>:{' '}
                <strong data-testid="claim-status">{{ pending: 'waiting', running: 'claiming…', done: 'done', failed: 'failed' }[runItem.status]}</strong>
                {runItem.error && <span data-testid="claim-error"> — {runItem.error}</span>}
                {(history?.withdrawals ?? [])
                  .filter((w) => w.announcementId === runItem.announcementId && w.hash && w.date >= run.startedAt)
                  .map((w) => (
                    <div key={w.hash}>
                      <TxHash
                        label={`Sent ${formatAmount(BigInt(w.amount ?? '0'), w.decimals ?? 18, w.symbol ?? symbol)}, fee ${roundedAmount(BigInt(w.feePaid ?? '0'), 18, symbol)}`}
                        hash={w.hash!}
                        explorerUrl={explorerUrl}
                        testId="claim-tx"
                      />
                    </div>
                  ))}
              </li>
            ))}
          </ul>
          {unfinished.length > 0 && busy === null && (
            <button type="button" onClick={() => void once(() => claim(unfinished, null))}>
              Resume the claim ({unfinished.length} left)
            </button>
          )}
        </div>
      )}
      <div className="row">
        <button type="button" className="secondary small" onClick={() => void readAll()} disabled={busy !== null || here.length === 0}>
          {busy === 'reading' ? 'Reading balances…' : 'Read the balances again'}
        </button>
      </div>
      <details className="more">
        <summary>Other tokens to check</summary>
        <div className="field">
          <label htmlFor={ids.tokens}>Token addresses (optional)</label>
          <input
            id={ids.tokens}
            type="text"
            autoComplete="off"
            spellCheck={false}
            value={tokensText}
            onChange={(e) => setTokensText(e.target.value)}
            aria-describedby={`${ids.tokens}-hint`}
          />
          <p className="hint" id={`${ids.tokens}-hint`}>
            0x… addresses, separated by commas. The tokens a payment brought are read anyway.{badTokens > 0 ? ` ${badTokens} entry is not a token address.` : ''}
          </p>
        </div>
      </details>
      {readError && readError !== error && <Notice kind="error">{readError}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
    </div>
  );
}
