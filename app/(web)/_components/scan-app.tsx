'use client';
/**
 * Scan: unlocking the keys starts the scan. It walks the registry in a Web Worker
 * (registry-scan-worker.ts: the SDK's `scanRegistry` over binary pages, fetched, decoded and
 * scanned in that worker), with progress, rate and time left, cancel and resume from the cursor
 * saved in this browser. Each payment found reads as what its sender's note says ("0.5 ETH",
 * "100 TST": token-names.ts) at once, with no wallet; a total per asset sums them. A browser
 * wallet found on the page is used, without a click, to read what each payment holds now (its
 * connection to the chain, never this server's), and the one claim flow (claim-all.tsx) withdraws
 * the selected payments, each signed here with its one-time key.
 */
import { bytesToHex, createScanner, hexToBytes } from '@wraith-pq/sdk';
import dynamic from 'next/dynamic';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { announcementPage, announcementPageBytes, registryStats } from '../_lib/api';
import type { ChainReader } from '../_lib/chain-clients';
import { errorMessage } from '../_lib/error-message';
import { formatCount, formatEta, formatRate, shortHex } from '../_lib/format';
import { formatAmount, noteAmountText, type AmountUnit } from '../_lib/amount';
import { upsertPayment, type PaymentRecord } from '../_lib/history';
import { openHistory, recordHistory, useHistory } from '../_lib/history-store';
import type { RegistryScanEvent, RegistryScanRequest } from '../_lib/registry-scan-protocol';
import { chainIdOf, clearScan, loadScan, saveScan, type SavedDiscovery, type SavedScan } from '../_lib/scan-state';
import { spareRegistryScanWorker } from '../_lib/scan-worker';
import { PAGE_SIZE, pumpRegistryPages, type RegistryPump } from '../_lib/registry-source';
import { namedUnit, serverTokens, type ServerTokens } from '../_lib/token-names';
import { setUnlockedKeys, useUnlockedKeys, type UnlockedKeys } from '../_lib/unlocked-keys';
import { DiscoveryItem } from './discovery-item';
import { HistoryPanel } from './history-panel';
import { Notice } from './notice';
import { UnlockKeys } from './unlock-keys';
import { WalletPicker } from './wallet-picker';

/** Claiming needs the money code (viem and the SDK's evm entry): loaded once a wallet is found, not with the page. */
const ClaimAll = dynamic(() => import('./claim-all').then((m) => m.ClaimAll), {
  ssr: false,
  loading: () => <p className="hint">Loading…</p>,
});

/** Names chains for the list: viem's chain table, loaded after the page (the scan does not need it). */
type ChainNames = typeof import('../_lib/chains');

/** "Base (chain id 8453)", or while the table loads "base (chain id 8453)" from the row's own name. */
function chainText(names: ChainNames | null, discovery: SavedDiscovery): string {
  const id = chainIdOf(discovery);
  if (id === null) return discovery.chain || '—';
  return names ? names.chainLabel(names.chainInfo(id, discovery.chain)) : `${discovery.chain || 'chain'} (chain id ${id})`;
}

const KERNEL_NAMES: Record<string, string> = { wasm: 'WebAssembly SIMD', typescript: 'TypeScript', reference: 'reference' };

/** How the page words a payment's amount: its unit from a chain read (the history) or from the note's asset and the lists. */
export type AmountOf = (discovery: SavedDiscovery) => { text: string | null; unit: AmountUnit | null };

export function ScanApp() {
  const keys = useUnlockedKeys();
  if (!keys) return <UnlockKeys why="Scanning needs your viewing key to recognise your payments. It runs in this browser; the key is not sent anywhere." />;
  return <Scanner key={bytesToHex(keys.spendingPublicKey)} keys={keys} />;
}

type Run = { phase: 'idle' } | { phase: 'starting' | 'cancelling' } | { phase: 'running'; scanned: number; rate: number };
type Message = { kind: 'error' | 'success' | 'info'; text: string };

function Scanner({ keys }: { keys: UnlockedKeys }) {
  const keyId = bytesToHex(keys.spendingPublicKey);
  const [saved, setSaved] = useState<SavedScan>(() => loadScan(keyId));
  const [total, setTotal] = useState<number | null>(null);
  const [run, setRun] = useState<Run>({ phase: 'idle' });
  const [message, setMessage] = useState<Message | null>(null);
  /** The kernel the workers reported running (WebAssembly SIMD where the browser has it). */
  const [kernel, setKernel] = useState<string | null>(null);
  /** Spending keys of payments found in this tab, by announcement id (memory only). */
  const secrets = useRef(new Map<number, Uint8Array>());
  const controller = useRef<AbortController | null>(null);
  /** Chain reads and withdrawals go through this wallet's provider (never this server). */
  const [reader, setReader] = useState<ChainReader | null>(null);
  const [chainNames, setChainNames] = useState<ChainNames | null>(null);
  /** The tokens the server names per chain (the same list for everyone: asking reveals nothing). */
  const [named, setNamed] = useState<ServerTokens>(new Map());
  useEffect(() => {
    void import('../_lib/chains').then(setChainNames);
    const abort = new AbortController();
    void serverTokens(abort.signal).then(setNamed);
    return () => abort.abort();
  }, []);
  const history = useHistory();
  useEffect(() => {
    void openHistory(keys);
  }, [keys]);
  const coinOf = useCallback((chainId: number) => (chainNames ? chainNames.chainInfo(chainId).nativeCurrency : null), [chainNames]);
  /** The unit of a payment: named by a chain read (kept in the history), else by the note's asset and the lists. */
  const unitOf = useCallback(
    (d: SavedDiscovery): AmountUnit | null => {
      const record = history?.payments.find((p) => p.announcementId === d.id);
      if (record?.symbol && record.decimals !== null) return { symbol: record.symbol, decimals: record.decimals };
      const chainId = chainIdOf(d);
      return namedUnit(chainId, d.note?.asset, named, chainId === null ? null : coinOf(chainId));
    },
    [history, named, coinOf],
  );
  const amountOf: AmountOf = useCallback(
    (d) => {
      const unit = unitOf(d);
      const amount = d.note?.amount ?? null;
      return { unit, text: amount !== null ? noteAmountText(amount, unit, d.note?.asset) : d.amount || null };
    },
    [unitOf],
  );
  // Every payment found goes into the history, with its asset's name where the note and the lists give it.
  useEffect(() => {
    if (!history) return;
    void recordHistory((h) => saved.discoveries.reduce((next, d) => upsertPayment(next, paymentRecordOf(d, unitOf(d))), h));
  }, [history === null, saved.discoveries, named, chainNames]); // eslint-disable-line react-hooks/exhaustive-deps
  const explorerOf = (chainId: number | null) => (chainId !== null && chainNames ? chainNames.chainInfo(chainId).explorerUrl : null);
  const chainName = (chainId: number | null) => (chainId === null ? '—' : chainNames ? chainNames.chainLabel(chainNames.chainInfo(chainId)) : `chain id ${chainId}`);

  /** The next scan's worker, loaded while the user reads the page (scan-worker.ts). */
  const spareWorker = useRef<ReturnType<typeof spareRegistryScanWorker> | null>(null);
  useEffect(() => {
    const spare = spareRegistryScanWorker();
    spareWorker.current = spare;
    spare.prepare();
    return () => {
      spare.dispose();
      if (spareWorker.current === spare) spareWorker.current = null;
    };
  }, []);

  useEffect(() => {
    const stats = new AbortController();
    registryStats(stats.signal)
      .then((s) => setTotal(s.total_announcements))
      .catch(() => {});
    return () => {
      stats.abort();
      controller.current?.abort(); // leaving the page cancels a running scan; its cursor is saved
    };
  }, []);

  const start = useCallback(
    async (fromScratch: boolean) => {
      const abort = new AbortController();
      controller.current = abort;
      setMessage(null);
      setRun({ phase: 'starting' });
      let current: SavedScan = fromScratch ? { cursor: 0, scanned: 0, discoveries: [] } : loadScan(keyId);
      if (fromScratch) {
        clearScan(keyId);
        setSaved(current);
      }
      const spare = spareWorker.current;
      const worker = spare?.take() ?? spareRegistryScanWorker().take();
      /** The worker's events for this loop ('consumed' goes to the pump, in the listener). */
      const events: Exclude<RegistryScanEvent, { type: 'consumed' }>[] = [];
      let wake: (() => void) | null = null;
      /** This page fetches the registry and hands the worker its pages (registry-source.ts). */
      let pump: RegistryPump | null = null;
      const stopPump = new AbortController(); // at the end of the run, or at once when it is cancelled
      abort.signal.addEventListener('abort', () => stopPump.abort(), { once: true });
      worker.addEventListener('message', (event: MessageEvent<RegistryScanEvent>) => {
        if (event.data.type === 'consumed') {
          pump?.consumed();
          return;
        }
        const data = event.data;
        if (data.type === 'batch') pump?.seen(data.cursor);
        events.push(data);
        wake?.();
      });
      worker.addEventListener('error', (event) => {
        event.preventDefault();
        events.push({ type: 'failed', message: 'The scan worker could not start in this browser.' });
        wake?.();
      });
      const nextEvent = async (): Promise<(typeof events)[number]> => {
        while (events.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        return events.shift()!;
      };
      // Cancelling ends the run at once (the worker is terminated below); every page it finished
      // is saved already, so a resume loses nothing.
      abort.signal.addEventListener(
        'abort',
        () => {
          worker.postMessage({ type: 'cancel' } satisfies RegistryScanRequest);
          events.unshift({ type: 'cancelled' });
          wake?.();
        },
        { once: true },
      );
      try {
        const { viewingSecretKey, spendingPublicKey, spendingSecretKey, viewingSeed } = keys;
        // The viewing seed gives the scanner the identity's scheme-3 (ERC-8441) keys too (PROTOCOL.md section 10).
        const scanKeys = { viewingSecretKey, spendingPublicKey, spendingSecretKey, ...(viewingSeed ? { viewingSeed } : {}) };
        worker.postMessage({ type: 'start', keys: scanKeys, fromCursor: current.cursor } satisfies RegistryScanRequest);
        registryStats(abort.signal)
          .then((stats) => setTotal((t) => Math.max(t ?? 0, stats.total_announcements)))
          .catch(() => {});
        pump = pumpRegistryPages({
          fetchPage: announcementPageBytes,
          send: (message, transfer) => worker.postMessage(message satisfies RegistryScanRequest, transfer),
          fromCursor: current.cursor,
          signal: stopPump.signal,
          describe: errorMessage,
        });
        let found = 0;
        for (;;) {
          const event = await nextEvent();
          if (event.type === 'ready') {
            setKernel(event.kernel);
            setRun({ phase: 'running', scanned: 0, rate: 0 });
            continue;
          }
          if (event.type === 'failed') throw new Error(event.message);
          if (event.type === 'cancelled') throw abort.signal.reason ?? new DOMException('Scan cancelled', 'AbortError');
          if (event.type === 'done') break;
          for (const [id, secret] of event.secrets) secrets.current.set(id, secret);
          found += event.discoveries.length;
          current = { cursor: event.cursor, scanned: current.scanned + event.scanned, discoveries: [...current.discoveries, ...event.discoveries] };
          saveScan(keyId, current);
          setSaved(current);
          setTotal((t) => Math.max(t ?? 0, current.scanned));
          setRun({ phase: 'running', scanned: event.progress.scanned, rate: event.progress.rate });
        }
        setMessage({ kind: 'success', text: `Scan complete: ${found === 0 ? 'no new payments' : `${found} new payment${found === 1 ? '' : 's'}`}.` });
      } catch (cause) {
        if (abort.signal.aborted) {
          setMessage({
            kind: 'info',
            text: current.cursor > 0 ? 'Scan cancelled. The next scan continues from where this one stopped.' : 'Scan cancelled before anything was checked.',
          });
        } else {
          setMessage({ kind: 'error', text: `The scan stopped: ${errorMessage(cause)} Resume continues from where it stopped.` });
        }
      } finally {
        stopPump.abort();
        worker.terminate();
        spare?.prepare(); // the next scan's worker (none once the page has gone: dispose ran)
        if (controller.current === abort) controller.current = null;
        setRun({ phase: 'idle' });
      }
    },
    [keyId, keys],
  );

  // Unlocking starts the scan (and so does coming back to this page with the keys unlocked): it
  // resumes from the saved cursor, so a scan that is up to date only checks what is new.
  const autoStarted = useRef(false);
  useEffect(() => {
    if (autoStarted.current) return;
    autoStarted.current = true;
    void start(false);
  }, [start]);

  function cancel() {
    setRun({ phase: 'cancelling' });
    controller.current?.abort(new DOMException('Scan cancelled', 'AbortError'));
  }

  const busy = run.phase !== 'idle';
  const done = saved.scanned;
  const max = Math.max(total ?? 0, done);
  const left = Math.max(0, max - done);
  const rate = run.phase === 'running' ? run.rate : 0;
  const evm = saved.discoveries.filter((d) => d.chain !== 'sui');
  const secretKeyOf = (d: SavedDiscovery) => spendingKeyOf(keys, d, secrets.current.get(d.id));
  const itemOf = (d: SavedDiscovery, extra: { done?: boolean; lead?: ReactNode; children?: ReactNode } = {}) => (
    <DiscoveryItem
      key={d.id}
      discovery={d}
      amountText={amountOf(d).text}
      chainText={chainText(chainNames, d)}
      explorerUrl={explorerOf(chainIdOf(d))}
      secretKey={() => secretKeyOf(d)}
      {...extra}
    />
  );

  return (
    <>
      <section className="panel" aria-labelledby="scan-heading">
        <h2 id="scan-heading">Find your payments</h2>
        <p className="hint">Every payment announced to anyone is checked on this device, to find the ones meant for you. Nothing about which ones are yours leaves this browser.</p>
        <dl className="stats">
          <div className="stat">
            <dt>Payments announced</dt>
            <dd data-testid="registry-total">{total === null ? '…' : formatCount(max)}</dd>
          </div>
          <div className="stat">
            <dt>Checked</dt>
            <dd data-testid="scanned-count">{formatCount(done)}</dd>
          </div>
          <div className="stat">
            <dt>Yours</dt>
            <dd data-testid="found-count">{formatCount(saved.discoveries.length)}</dd>
          </div>
        </dl>
        <label htmlFor="scan-progress" className="visually-hidden">
          Scan progress
        </label>
        <progress id="scan-progress" max={max || 1} value={Math.min(done, max || 1)} />
        <p className="progress-text" aria-live="polite" data-testid="progress-text" data-cursor={saved.cursor}>
          {run.phase === 'starting'
            ? 'Starting the scan…'
            : run.phase === 'cancelling'
              ? 'Cancelling…'
              : run.phase === 'running'
                ? `${formatCount(done)} of ${formatCount(max)} checked · ${formatRate(rate)} · ${rate > 0 ? formatEta(left / rate) : 'estimating…'} left`
                : left === 0 && (done > 0 || message?.kind === 'success')
                  ? 'Up to date.'
                  : done > 0
                    ? `Stopped part way: ${formatCount(left)} left to check.`
                    : 'Not scanned yet.'}
        </p>
        <div className="row">
          {busy ? (
            <button type="button" className="danger" onClick={cancel} disabled={run.phase === 'cancelling'}>
              Cancel scan
            </button>
          ) : (
            <>
              <button type="button" onClick={() => start(false)}>
                {saved.cursor > 0 || message?.kind === 'success' ? (left > 0 ? 'Resume scan' : 'Check for new payments') : 'Start scan'}
              </button>
              {saved.cursor > 0 && (
                <button type="button" className="secondary" onClick={() => start(true)}>
                  Scan again from the start
                </button>
              )}
              <button type="button" className="secondary" onClick={() => setUnlockedKeys(null)}>
                Lock keys
              </button>
            </>
          )}
        </div>
        {message && <Notice kind={message.kind}>{message.text}</Notice>}
        <details className="more">
          <summary>Technical details</summary>
          <p className="hint">
            Keys <code>{shortHex(keyId)}</code>. The registry&apos;s announcements are downloaded in pages of {formatCount(PAGE_SIZE)} and checked
            with the viewing key in a Web Worker
            {kernel && (
              <span data-testid="scan-kernel">
                {' '}
                with the {KERNEL_NAMES[kernel] ?? kernel} kernel
              </span>
            )}
            . Checked up to registry entry #{saved.cursor}.
          </p>
        </details>
      </section>

      <section className="panel" aria-labelledby="found-heading">
        <h2 id="found-heading">Your payments</h2>
        {saved.discoveries.length === 0 ? (
          <p className="hint">No payments found yet.</p>
        ) : (
          <>
            <Totals discoveries={saved.discoveries} amountOf={amountOf} />
            <div className="funds-controls">
              <WalletPicker mode="read" auto connection={reader} onConnected={setReader} />
              <p className="hint">
                {reader
                  ? 'Balances are read through your wallet, never through this server. Your wallet is not asked to sign anything: each payment is moved with its own key, in this page.'
                  : 'With a browser wallet, this page reads what each payment holds now and lets you claim it. Reading asks the wallet for nothing; this server never learns which addresses are yours.'}
              </p>
            </div>
            {reader && evm.length > 0 ? (
              <ClaimAll
                discoveries={saved.discoveries}
                reader={reader}
                onReaderChange={setReader}
                secretKeyOf={secretKeyOf}
                amountOf={amountOf}
                item={itemOf}
              />
            ) : (
              <ul className="discoveries">{saved.discoveries.map((d) => itemOf(d))}</ul>
            )}
          </>
        )}
      </section>
      {history && <HistoryPanel history={history} chainName={chainName} explorerOf={explorerOf} />}
    </>
  );
}

/** What arrived, per asset, as the senders' notes say: "0.75 ETH · 100 TST". */
function Totals({ discoveries, amountOf }: { discoveries: readonly SavedDiscovery[]; amountOf: AmountOf }) {
  const sums = new Map<string, { unit: AmountUnit; value: bigint }>();
  let unnamed = 0;
  for (const d of discoveries) {
    const { unit } = amountOf(d);
    const amount = d.note?.amount;
    if (!amount || !/^\d+$/.test(amount)) continue; // no note: the sender's own words, shown as they are
    if (!unit) {
      unnamed += 1;
      continue;
    }
    const key = `${unit.symbol}/${unit.decimals}`;
    const sum = sums.get(key) ?? { unit, value: 0n };
    sums.set(key, { unit, value: sum.value + BigInt(amount) });
  }
  if (sums.size === 0) return null;
  return (
    <p className="totals" data-testid="totals">
      Received in all:{' '}
      {[...sums.values()].map(({ unit, value }, i) => (
        <span key={`${unit.symbol}/${unit.decimals}`}>
          {i > 0 && ' · '}
          <strong data-testid="total">{formatAmount(value, unit.decimals, unit.symbol)}</strong>
        </span>
      ))}
      {unnamed > 0 && <span className="hint"> (and {unnamed} payment{unnamed === 1 ? '' : 's'} whose asset is not known yet)</span>}
    </p>
  );
}

/** What the history keeps of a saved discovery: its unit where the note and the lists name it, else once a chain read does. */
function paymentRecordOf(d: SavedDiscovery, unit: AmountUnit | null): PaymentRecord {
  return {
    announcementId: d.id,
    chainId: chainIdOf(d),
    stealthAddress: d.stealthAddress,
    date: new Date(d.timestamp * 1000).toISOString(),
    amount: d.note?.amount ?? null,
    asset: unit ? (d.note?.asset ?? null) : null,
    symbol: unit?.symbol ?? null,
    decimals: unit?.decimals ?? null,
    paymentTx: d.note?.txHash ?? null,
    announcementTx: d.txHash,
  };
}

/**
 * Derive a payment's spending key again from its announcement (after a reload, say), from the
 * ciphertext the scan saved in this browser: nothing is asked of the server, which would learn
 * which announcement is this user's just before a withdrawal from it shows on chain. Scans saved
 * before the ciphertext was kept fall back to fetching the whole registry page the scan read,
 * never the one announcement.
 */
async function spendingKeyOf(keys: UnlockedKeys, discovery: SavedDiscovery, known?: Uint8Array): Promise<Uint8Array> {
  if (known) return known;
  let announcement: { ephemeralKey: Uint8Array; viewTag: number } | undefined;
  if (discovery.ephemeralKey !== undefined && discovery.viewTag !== undefined) {
    announcement = { ephemeralKey: hexToBytes(discovery.ephemeralKey), viewTag: discovery.viewTag };
  } else {
    const afterId = Math.floor((discovery.id - 1) / PAGE_SIZE) * PAGE_SIZE;
    announcement = (await announcementPage(afterId, PAGE_SIZE)).find((a) => a.id === discovery.id);
    if (announcement === undefined) throw new Error('The announcement is no longer in the registry.');
  }
  // One announcement on the main thread: the TypeScript kernel (WebAssembly is for the worker only, see next.config.mjs).
  const [found] = createScanner(keys, { kernel: 'typescript' }).scan([announcement]).discoveries;
  if (!found?.stealthSecretKey) throw new Error('This announcement is not for these keys.');
  return found.stealthSecretKey;
}
