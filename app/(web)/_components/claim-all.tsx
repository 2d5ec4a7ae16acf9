'use client';
/**
 * Claim several payments in one run: the payments on the wallet's chain that hold something,
 * selected (all with a balance by default), each to its own fresh destination (typed, or pasted
 * one per line) unless the user confirms the linking warning and types one destination for all.
 * The fees are shown before anything is signed, exact or a maximum; then each payment is claimed
 * in turn (claim-run.ts: tokens before coin, signed here with its one-time key, no wallet prompt),
 * with its progress, and a failure shown with its reason while the others go on. The run is kept
 * in the encrypted history (history-store.ts), so one cut short is resumed where it stopped.
 */
import { estimateWithdrawal } from '@wraith-pq/sdk/evm';
import { useId, useMemo, useRef, useState } from 'react';
import { getAddress, isAddress, type Address } from 'viem';
import { formatAmount } from '../_lib/amount';
import type { ChainReader } from '../_lib/chain-clients';
import { chainInfo, chainLabel } from '../_lib/chains';
import { claimPayment } from '../_lib/claim-run';
import { errorMessage } from '../_lib/error-message';
import { withWithdrawal, type ClaimRun, type ClaimRunItem } from '../_lib/history';
import { recordHistory, useHistory } from '../_lib/history-store';
import { readPaymentFunds, type PaymentFunds } from '../_lib/payment-funds';
import { chainIdOf, type SavedDiscovery } from '../_lib/scan-state';
import { assertWalletChain } from '../_lib/wallet-chain';
import { feeIsBound } from '../_lib/withdrawal-receipt';
import { Notice } from './notice';
import { TxHash } from './tx-hash';

export type ClaimAllProps = {
  discoveries: readonly SavedDiscovery[];
  reader: ChainReader;
  extraTokens: readonly Address[];
  /** A payment's one-time key, derived in this page. */
  secretKeyOf: (discovery: SavedDiscovery) => Promise<Uint8Array>;
  /** A run ended: the balances shown elsewhere on the page are stale. */
  onClaimed: () => void;
};

type Row = { discovery: SavedDiscovery; funds: PaymentFunds | null; error: string | null };
type Estimate = { fee: bigint; bound: boolean } | { error: string };

const hasBalance = (funds: PaymentFunds | null) => funds !== null && (funds.native > 0n || funds.tokens.some((t) => t.balance > 0n));

/** The destinations typed or pasted: one address per line (or separated by spaces and commas). */
function parseDestinations(text: string): string[] {
  return text.split(/[\s,;]+/).filter(Boolean);
}

export function ClaimAll({ discoveries, reader, extraTokens, secretKeyOf, onClaimed }: ClaimAllProps) {
  const ids = { paste: useId(), single: useId(), linking: useId() };
  const history = useHistory();
  const symbol = reader.chain.nativeCurrency.symbol;
  const explorerUrl = chainInfo(reader.chainId).explorerUrl;
  const here = useMemo(() => discoveries.filter((d) => d.chain !== 'sui' && (chainIdOf(d) ?? reader.chainId) === reader.chainId), [discoveries, reader.chainId]);
  const elsewhere = discoveries.filter((d) => d.chain !== 'sui').length - here.length;
  const [rows, setRows] = useState<Row[] | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [destinations, setDestinations] = useState<Record<number, string>>({});
  const [pasted, setPasted] = useState('');
  const [oneForAll, setOneForAll] = useState(false);
  const [single, setSingle] = useState('');
  const [linkingAccepted, setLinkingAccepted] = useState(false);
  const [estimates, setEstimates] = useState<Map<number, Estimate> | null>(null);
  const [busy, setBusy] = useState<'reading' | 'estimating' | 'claiming' | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Held while a review or a claim runs, from the click on: `busy` shows only after the first await. */
  const acting = useRef(false);
  const run = history?.run && history.run.chainId === reader.chainId ? history.run : null;
  const unfinished = run?.items.filter((i) => i.status !== 'done') ?? [];

  /** The accounts the wallet already shares with this page (no prompt); none when it shares none. */
  async function walletAccounts(): Promise<string[]> {
    try {
      const accounts = await reader.source.provider.request({ method: 'eth_accounts' });
      return Array.isArray(accounts) ? accounts.filter((a): a is string => typeof a === 'string') : [];
    } catch {
      return [];
    }
  }

  async function readAll() {
    setBusy('reading');
    setError(null);
    setEstimates(null);
    try {
      await assertWalletChain(reader.source.provider, reader.walletName, reader.chainId);
      const read = await Promise.all(
        here.map(async (discovery): Promise<Row> => {
          try {
            const funds = await readPaymentFunds({ client: reader.client, stealthAddress: getAddress(discovery.stealthAddress), txHash: discovery.note?.txHash, extraTokens });
            return { discovery, funds, error: null };
          } catch (cause) {
            return { discovery, funds: null, error: errorMessage(cause) };
          }
        }),
      );
      setRows(read);
      setSelected(new Set(read.filter((r) => hasBalance(r.funds)).map((r) => r.discovery.id)));
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(null);
    }
  }

  const chosen = rows?.filter((r) => selected.has(r.discovery.id)) ?? [];

  function fillPasted() {
    const list = parseDestinations(pasted);
    const next = { ...destinations };
    chosen.forEach((row, i) => {
      if (list[i] !== undefined) next[row.discovery.id] = list[i]!;
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
    for (const row of chosen) {
      const text = (oneForAll ? single : (destinations[row.discovery.id] ?? '')).trim();
      const name = `the payment at ${row.discovery.stealthAddress}`;
      if (!isAddress(text, { strict: false })) return { error: `Enter a destination for ${name}: an address of 0x and 40 hex digits.` };
      const to = getAddress(text);
      // A payment's own earlier destination (its tokens went there, say) links nothing new.
      const usedByAnother = withdrawn.some((w) => w.destination.toLowerCase() === to.toLowerCase() && w.stealthAddress.toLowerCase() !== row.discovery.stealthAddress.toLowerCase());
      if (stealth.includes(to.toLowerCase())) return { error: `The destination of ${name} is one of your stealth addresses: enter a fresh address.` };
      if (!linkingAccepted && own.some((a) => a.toLowerCase() === to.toLowerCase())) {
        return { error: `${to} is ${reader.walletName}'s own account: withdrawing there links ${name} to it on chain. Use a fresh address, or confirm the linking warning.` };
      }
      if (!linkingAccepted && (seen.has(to.toLowerCase()) || usedByAnother)) {
        return { error: `${to} is the destination of another payment${usedByAnother ? ' already' : ''}: that links the payments on chain. Use a fresh address for each, or confirm the linking warning.` };
      }
      seen.add(to.toLowerCase());
      items.push({ announcementId: row.discovery.id, stealthAddress: getAddress(row.discovery.stealthAddress), destination: to, status: 'pending', error: null });
    }
    return { items };
  }

  async function review() {
    setError(null);
    setEstimates(null);
    const plan = planned(await walletAccounts());
    if ('error' in plan) return setError(plan.error);
    setBusy('estimating');
    try {
      await assertWalletChain(reader.source.provider, reader.walletName, reader.chainId);
      const result = new Map<number, Estimate>();
      for (const item of plan.items) {
        const row = chosen.find((r) => r.discovery.id === item.announcementId)!;
        try {
          let fee = 0n;
          let bound = false;
          // Tokens first, then the coin: each fee bound as the SDK prices it now.
          for (const t of row.funds?.tokens ?? []) {
            if (t.balance === 0n) continue;
            const e = await estimateWithdrawal({ client: reader.client, from: item.stealthAddress, to: item.destination, token: t.info.address });
            fee += e.fee;
            bound ||= feeIsBound(e);
          }
          if ((row.funds?.native ?? 0n) > fee) {
            const e = await estimateWithdrawal({ client: reader.client, from: item.stealthAddress, to: item.destination });
            fee += e.fee;
            bound ||= feeIsBound(e);
          }
          result.set(item.announcementId, { fee, bound });
        } catch (cause) {
          result.set(item.announcementId, { error: errorMessage(cause) });
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
      for (const item of items) {
        const discovery = discoveries.find((d) => d.id === item.announcementId);
        await setItem(item.announcementId, { status: 'running', error: null });
        try {
          if (!discovery) throw new Error('This payment is no longer in the scan: scan again, then claim it.');
          // The wallet's chain, checked before each payment (and by the connection before each broadcast).
          await assertWalletChain(reader.source.provider, reader.walletName, reader.chainId);
          const { dust } = await claimPayment({
            client: reader.client,
            stealthAddress: item.stealthAddress as Address,
            destination: item.destination as Address,
            txHash: discovery.note?.txHash,
            extraTokens,
            coin: { symbol, decimals: 18 },
            secretKey: () => secretKeyOf(discovery),
            onWithdrawal: (asset, outcome) =>
              void recordHistory((h) =>
                withWithdrawal(
                  h,
                  {
                    announcementId: item.announcementId,
                    chainId: reader.chainId,
                    stealthAddress: item.stealthAddress,
                    destination: item.destination,
                    asset: asset.token ?? 'native',
                    symbol: asset.symbol,
                    decimals: asset.decimals,
                  },
                  outcome,
                ),
              ),
          });
          await setItem(item.announcementId, { status: 'done', error: dust > 0n ? `${formatAmount(dust, 18, symbol)} stays: less than the fee of moving it.` : null });
        } catch (cause) {
          await setItem(item.announcementId, { status: 'failed', error: errorMessage(cause) });
        }
      }
    } finally {
      setBusy(null);
      onClaimed();
    }
    if (rows) await readAll(); // what is left now, for the next run
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

  return (
    <div className="claim-all" data-testid="claim-all">
      <h3>Claim several payments</h3>
      <p className="hint">
        Withdraws every selected payment on {chainLabel(chainInfo(reader.chainId))} in one run: tokens first, then the {symbol}, each signed in this page with
        its own one-time key (your wallet is not asked to sign), each to its own fresh address.
        {elsewhere > 0 && ` ${elsewhere} payment${elsewhere === 1 ? ' is' : 's are'} on other chains: switch the wallet to claim ${elsewhere === 1 ? 'it' : 'them'}.`}
      </p>
      {run && (
        <div className="claim-run" data-testid="claim-run">
          <p>
            Claim run of {new Date(run.startedAt).toLocaleString()}: {run.items.filter((i) => i.status === 'done').length} of {run.items.length} done
            {unfinished.some((i) => i.status === 'failed') ? `, ${unfinished.filter((i) => i.status === 'failed').length} failed` : ''}.
          </p>
          <ul className="claim-items">
            {run.items.map((item) => (
              <li key={item.announcementId} data-testid="claim-item" data-status={item.status}>
                <code>{item.stealthAddress}</code> → <code>{item.destination}</code>:{' '}
                <strong data-testid="claim-status">{{ pending: 'waiting', running: 'withdrawing…', done: 'done', failed: 'failed' }[item.status]}</strong>
                {item.error && <span data-testid="claim-error"> — {item.error}</span>}
                {(history?.withdrawals ?? [])
                  .filter((w) => w.announcementId === item.announcementId && w.hash && w.date >= run.startedAt)
                  .map((w) => (
                    <div key={w.hash}>
                      <TxHash label={`Withdrawal (${formatAmount(BigInt(w.amount ?? '0'), w.decimals ?? 18, w.symbol ?? symbol)}, fee ${formatAmount(BigInt(w.feePaid ?? '0'), 18, symbol)})`} hash={w.hash!} explorerUrl={explorerUrl} testId="claim-tx" />
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
      <button type="button" className="secondary" onClick={readAll} disabled={busy !== null || here.length === 0}>
        {busy === 'reading' ? 'Reading balances…' : rows ? 'Read the balances again' : 'Find payments with a balance'}
      </button>
      {rows && (
        <>
          <ul className="claim-rows">
            {rows.map((row) => {
              const id = row.discovery.id;
              const estimate = estimates?.get(id);
              return (
                <li key={id} data-testid="claim-row">
                  <label>
                    <input
                      type="checkbox"
                      checked={selected.has(id)}
                      onChange={(e) => {
                        const next = new Set(selected);
                        if (e.target.checked) next.add(id);
                        else next.delete(id);
                        setSelected(next);
                        setEstimates(null);
                      }}
                    />{' '}
                    <code>{row.discovery.stealthAddress}</code>:{' '}
                    {row.funds
                      ? [formatAmount(row.funds.native, 18, symbol), ...row.funds.tokens.map((t) => formatAmount(t.balance, t.info.decimals, t.info.symbol))].join(' · ')
                      : `could not read: ${row.error}`}
                    {row.funds?.incomplete && ` (could not read every token: ${row.funds.incomplete})`}
                  </label>
                  {selected.has(id) && !oneForAll && (
                    <input
                      type="text"
                      aria-label={`Destination for ${getAddress(row.discovery.stealthAddress)}`}
                      placeholder="0x… a fresh address of yours"
                      autoComplete="off"
                      spellCheck={false}
                      value={destinations[id] ?? ''}
                      onChange={(e) => {
                        setDestinations({ ...destinations, [id]: e.target.value });
                        setEstimates(null);
                      }}
                    />
                  )}
                  {estimate && (
                    <p className="hint" data-testid="claim-estimate">
                      {'error' in estimate ? `Will fail as things stand: ${estimate.error}` : `Network fee ${estimate.bound ? 'at most' : 'exactly'} ${formatAmount(estimate.fee, 18, symbol)}`}
                    </p>
                  )}
                </li>
              );
            })}
          </ul>
          <div className="row">
            <button
              type="button"
              className="secondary small"
              onClick={() => {
                setSelected(new Set(rows.filter((r) => hasBalance(r.funds)).map((r) => r.discovery.id)));
                setEstimates(null);
              }}
            >
              Select all with a balance
            </button>
          </div>
          {!oneForAll && (
            <div className="field">
              <label htmlFor={ids.paste}>Fresh destinations, one per line</label>
              <textarea id={ids.paste} rows={3} spellCheck={false} value={pasted} onChange={(e) => setPasted(e.target.value)} />
              <button type="button" className="secondary small" onClick={fillPasted}>
                Fill in the destinations
              </button>
            </div>
          )}
          <label>
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
          {oneForAll && (
            <>
              <Notice kind="info">
                <span data-testid="claim-linking-warning">
                  Withdrawing several payments to one address links them on chain: anyone can then see that they went to the same person.
                </span>
              </Notice>
              <label htmlFor={ids.linking}>
                <input id={ids.linking} type="checkbox" checked={linkingAccepted} onChange={(e) => setLinkingAccepted(e.target.checked)} /> I understand: link these
                payments
              </label>
              {linkingAccepted && (
                <div className="field">
                  <label htmlFor={ids.single}>Destination for all</label>
                  <input id={ids.single} type="text" placeholder="0x…" autoComplete="off" spellCheck={false} value={single} onChange={(e) => setSingle(e.target.value)} />
                </div>
              )}
            </>
          )}
          <div className="row">
            <button type="button" className="secondary" onClick={() => void once(review)} disabled={busy !== null}>
              {busy === 'estimating' ? 'Estimating the fees…' : 'Review the claim'}
            </button>
            {estimates && (
              <button type="button" onClick={() => void once(start)} disabled={busy !== null}>
                {busy === 'claiming' ? 'Claiming…' : `Claim ${chosen.length} payment${chosen.length === 1 ? '' : 's'}`}
              </button>
            )}
          </div>
          {estimates && (
            <p data-testid="claim-fee-total">
              Network fees {anyBound ? 'at most' : 'exactly'} {formatAmount(feeTotal, 18, symbol)} in all, paid from each stealth address&apos;s own {symbol}
              {anyBound ? ' (a maximum: the chain charges what it uses)' : ''}.
            </p>
          )}
        </>
      )}
      {error && <Notice kind="error">{error}</Notice>}
    </div>
  );
}
