'use client';
/**
 * Scan: walk the registry with the unlocked keys in a Web Worker (registry-scan-worker.ts: the
 * SDK's `scanRegistry` over binary pages, fetched, decoded and scanned in that worker), with
 * progress, rate and time left, cancel and resume from the cursor saved in this browser. Found
 * payments are listed with their opened notes; a payment's spending key is shown only when asked
 * for. With a wallet chosen for chain reads, each payment shows its balances and a withdrawal
 * (discovery-funds.tsx), signed here with the payment's one-time key.
 */
import { bytesToHex, createScanner, hexToBytes } from '@wraith-pq/sdk';
import dynamic from 'next/dynamic';
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { Address } from 'viem';
import { announcementPage, announcementPageBytes, registryStats } from '../_lib/api';
import type { ChainReader } from '../_lib/chain-clients';
import { errorMessage } from '../_lib/error-message';
import { formatCount, formatEta, formatRate, formatTime, shortHex } from '../_lib/format';
import { noteAmountText } from '../_lib/amount';
import { upsertPayment, type PaymentRecord } from '../_lib/history';
import { openHistory, recordHistory, useHistory } from '../_lib/history-store';
import type { RegistryScanEvent, RegistryScanRequest } from '../_lib/registry-scan-protocol';
import { chainIdOf, clearScan, loadScan, saveScan, type SavedDiscovery, type SavedScan } from '../_lib/scan-state';
import { spareRegistryScanWorker } from '../_lib/scan-worker';
import { PAGE_SIZE, pumpRegistryPages, type RegistryPump } from '../_lib/registry-source';
import { setUnlockedKeys, useUnlockedKeys, type UnlockedKeys } from '../_lib/unlocked-keys';
import { CopyButton } from './copy-button';
import { HistoryPanel } from './history-panel';
import { TxHash } from './tx-hash';
import { Notice } from './notice';
import { UnlockKeys } from './unlock-keys';
import { WalletPicker } from './wallet-picker';

/** The money part (viem and the SDK's evm entry) loads only once a wallet is chosen: scanning alone does not need it. */
const DiscoveryFunds = dynamic(() => import('./discovery-funds').then((m) => m.DiscoveryFunds), {
  ssr: false,
  loading: () => <p className="hint">Loading…</p>,
});

/** Claiming several payments at once needs the same money code: loaded with it. */
const ClaimAll = dynamic(() => import('./claim-all').then((m) => m.ClaimAll), { ssr: false });

/** Names chains for the list: viem's chain table, loaded after the page (the scan does not need it). */
type ChainNames = typeof import('../_lib/chains');

/** "Base (chain id 8453)", or while the table loads "base (chain id 8453)" from the row's own name. */
function chainText(names: ChainNames | null, discovery: SavedDiscovery): string {
  const id = chainIdOf(discovery);
  if (id === null) return discovery.chain || '—';
  return names ? names.chainLabel(names.chainInfo(id, discovery.chain)) : `${discovery.chain || 'chain'} (chain id ${id})`;
}

const KERNEL_NAMES: Record<string, string> = { wasm: 'WebAssembly SIMD', typescript: 'TypeScript', reference: 'reference' };

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
  const tokensId = useId();
  /** Chain reads and withdrawals go through this wallet's provider (never this server). */
  const [reader, setReader] = useState<ChainReader | null>(null);
  const [chainNames, setChainNames] = useState<ChainNames | null>(null);
  useEffect(() => {
    void import('../_lib/chains').then(setChainNames);
  }, []);
  const [tokensText, setTokensText] = useState('');
  /** Destinations withdrawn to in this tab, with the stealth address each took (to warn before linking two). */
  const [destinations, setDestinations] = useState<ReadonlyMap<string, string>>(new Map());
  const typedTokens = tokensText.split(/[\s,]+/).filter(Boolean);
  // Invalid entries are counted below; the valid ones are still read.
  const extraTokens = useMemo(() => tokensText.split(/[\s,]+/).filter((t): t is Address => /^0x[0-9a-fA-F]{40}$/.test(t)), [tokensText]);
  const badTokens = typedTokens.length - extraTokens.length;
  const history = useHistory();
  /** Claim runs ended in this tab: each payment's balances are read again after one. */
  const [claims, setClaims] = useState(0);
  useEffect(() => {
    void openHistory(keys);
  }, [keys]);
  // Every payment found goes into the history (its unit is added once a chain read names it).
  useEffect(() => {
    if (!history) return;
    void recordHistory((h) => saved.discoveries.reduce((next, d) => upsertPayment(next, paymentRecordOf(d)), h));
  }, [history === null, saved.discoveries]); // eslint-disable-line react-hooks/exhaustive-deps
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
        setMessage({
          kind: 'success',
          text: `Scan complete: checked every announcement up to #${current.cursor}; ${found === 0 ? 'no new payments' : `${found} new payment${found === 1 ? '' : 's'}`}.`,
        });
      } catch (cause) {
        if (abort.signal.aborted) {
          setMessage({
            kind: 'info',
            text:
              current.cursor > 0
                ? `Scan cancelled after announcement #${current.cursor}. Resume continues from there.`
                : 'Scan cancelled before the first page finished.',
          });
        } else {
          setMessage({ kind: 'error', text: `The scan stopped: ${errorMessage(cause)} Resume continues from the last saved point.` });
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

  function cancel() {
    setRun({ phase: 'cancelling' });
    controller.current?.abort(new DOMException('Scan cancelled', 'AbortError'));
  }

  const busy = run.phase !== 'idle';
  const done = saved.scanned;
  const max = Math.max(total ?? 0, done);
  const left = Math.max(0, max - done);
  const rate = run.phase === 'running' ? run.rate : 0;

  return (
    <>
      <section className="panel" aria-labelledby="scan-heading">
        <h2 id="scan-heading">Scan the registry</h2>
        <p className="hint">
          Keys <code>{shortHex(keyId)}</code>. Announcements are downloaded in pages and checked in a Web Worker on this
          device
          {kernel && (
            <span data-testid="scan-kernel">
              {' '}
              with the {KERNEL_NAMES[kernel] ?? kernel} kernel
            </span>
          )}
          .
        </p>
        <dl className="stats">
          <div className="stat">
            <dt>In the registry</dt>
            <dd data-testid="registry-total">{total === null ? '…' : formatCount(max)}</dd>
          </div>
          <div className="stat">
            <dt>Checked</dt>
            <dd data-testid="scanned-count">{formatCount(done)}</dd>
          </div>
          <div className="stat">
            <dt>Payments found</dt>
            <dd data-testid="found-count">{formatCount(saved.discoveries.length)}</dd>
          </div>
        </dl>
        <label htmlFor="scan-progress" className="visually-hidden">
          Scan progress
        </label>
        <progress id="scan-progress" max={max || 1} value={Math.min(done, max || 1)} />
        <p className="progress-text" aria-live="polite" data-testid="progress-text">
          {run.phase === 'starting'
            ? 'Starting the scan worker…'
            : run.phase === 'cancelling'
              ? 'Cancelling…'
              : run.phase === 'running'
                ? `${formatCount(done)} of ${formatCount(max)} checked · ${formatRate(rate)} · ${rate > 0 ? formatEta(left / rate) : 'estimating…'} left`
                : left === 0 && done > 0
                  ? 'Up to date.'
                  : done > 0
                    ? `Stopped after announcement #${saved.cursor}: ${formatCount(left)} left to check.`
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
                {saved.cursor > 0 ? (left > 0 ? 'Resume scan' : 'Check for new payments') : 'Start scan'}
              </button>
              {saved.cursor > 0 && (
                <button type="button" className="secondary" onClick={() => start(true)}>
                  Scan again from the start
                </button>
              )}
              <button
                type="button"
                className="secondary"
                onClick={() => setUnlockedKeys(null)}
              >
                Lock keys
              </button>
            </>
          )}
        </div>
        {message && <Notice kind={message.kind}>{message.text}</Notice>}
      </section>

      <section className="panel" aria-labelledby="found-heading">
        <h2 id="found-heading">Your payments</h2>
        {saved.discoveries.length === 0 ? (
          <p className="hint">No payments found yet.</p>
        ) : (
          <>
            <div className="funds-controls">
              <h3>Balances and withdrawals</h3>
              <p className="hint">
                Balances are read, and withdrawals sent, through a wallet&apos;s connection to the chain, never through this server (it must
                not learn which addresses are yours). The wallet&apos;s own account is not used: each withdrawal is signed in this page with
                that payment&apos;s one-time key. Each payment is read and withdrawn on its own chain: for one on another chain than the
                wallet&apos;s, the wallet is asked to switch first.
              </p>
              <WalletPicker mode="read" connection={reader} onConnected={setReader} />
              {reader && (
                <div className="field">
                  <label htmlFor={tokensId}>Other tokens to check (optional)</label>
                  <input
                    id={tokensId}
                    type="text"
                    placeholder="0x… token addresses, separated by commas"
                    autoComplete="off"
                    spellCheck={false}
                    value={tokensText}
                    onChange={(e) => setTokensText(e.target.value)}
                    aria-describedby={`${tokensId}-hint`}
                  />
                  <p className="hint" id={`${tokensId}-hint`}>
                    Tokens a payment&apos;s own transaction shows are read anyway.{badTokens > 0 ? ` ${badTokens} entry is not a token address.` : ''}
                  </p>
                </div>
              )}
              <Notice kind="info">
                <span data-testid="linking-notice">
                  Withdrawing several of these addresses to one destination links them on chain: anyone can then see that those payments
                  went to the same person. Use a fresh destination for each payment where that matters.
                </span>
              </Notice>
            </div>
            {reader && (
              <ClaimAll
                discoveries={saved.discoveries}
                reader={reader}
                extraTokens={extraTokens}
                secretKeyOf={(d) => spendingKeyOf(keys, d, secrets.current.get(d.id))}
                onClaimed={() => setClaims((n) => n + 1)}
              />
            )}
            <ul className="discoveries">
              {saved.discoveries.map((d) => (
                <DiscoveryItem
                  key={d.id}
                  discovery={d}
                  keys={keys}
                  known={secrets.current.get(d.id)}
                  reader={reader}
                  onReaderChange={setReader}
                  chainText={chainText(chainNames, d)}
                  record={history?.payments.find((p) => p.announcementId === d.id)}
                  explorerUrl={explorerOf(chainIdOf(d))}
                  claims={claims}
                  extraTokens={extraTokens}
                  destinations={destinations}
                  onWithdrawn={(to) => setDestinations((current) => new Map(current).set(to, d.stealthAddress))}
                />
              ))}
            </ul>
          </>
        )}
      </section>
      {history && <HistoryPanel history={history} chainName={chainName} explorerOf={explorerOf} />}
    </>
  );
}

/** What the history keeps of a saved discovery (its unit stays unknown until a chain read names it). */
function paymentRecordOf(d: SavedDiscovery): PaymentRecord {
  return {
    announcementId: d.id,
    chainId: chainIdOf(d),
    stealthAddress: d.stealthAddress,
    date: new Date(d.timestamp * 1000).toISOString(),
    amount: d.note?.amount ?? null,
    asset: null,
    symbol: null,
    decimals: null,
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

type DiscoveryItemProps = {
  discovery: SavedDiscovery;
  keys: UnlockedKeys;
  known: Uint8Array | undefined;
  reader: ChainReader | null;
  /** The wallet was switched to another chain (or found on one): its new connection. */
  onReaderChange: (reader: ChainReader) => void;
  /** The payment's chain, as shown. */
  chainText: string;
  /** The history's record of this payment: the note's unit once a chain read named it. */
  record: PaymentRecord | undefined;
  explorerUrl: string | null;
  /** Bumped when a claim run ends: read the balances again. */
  claims: number;
  extraTokens: readonly Address[];
  destinations: ReadonlyMap<string, string>;
  onWithdrawn: (to: Address) => void;
};

function DiscoveryItem({ discovery, keys, known, reader, onReaderChange, chainText, record, explorerUrl, claims, extraTokens, destinations, onWithdrawn }: DiscoveryItemProps) {
  const [secret, setSecret] = useState<string | null>(null);
  const [baseUnits, setBaseUnits] = useState(false);
  const noteAmount = discovery.note?.amount ?? null;
  const unit = record?.symbol && record.decimals !== null ? { symbol: record.symbol, decimals: record.decimals } : null;
  const announcementTx = discovery.txHash && discovery.txHash !== discovery.note?.txHash ? discovery.txHash : null;
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function reveal() {
    setBusy(true);
    setError(null);
    try {
      setSecret(`0x${bytesToHex(await spendingKeyOf(keys, discovery, known))}`);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setBusy(false);
    }
  }

  return (
    <li className="discovery" data-testid="discovery">
      <dl>
        <dt>EVM address</dt>
        <dd>
          <code data-testid="discovery-address">{discovery.stealthAddress}</code> <CopyButton value={discovery.stealthAddress} label="EVM address" />
        </dd>
        <dt>Sui address</dt>
        <dd>
          <code data-testid="discovery-sui-address">{discovery.stealthSuiAddress}</code>
        </dd>
        <dt>Amount</dt>
        <dd>
          {noteAmount !== null ? (
            <>
              <span data-testid="note-amount">{noteAmountText(noteAmount, unit)}</span>
              {unit === null && <span className="hint"> (its unit shows once the balances are read through a wallet)</span>}{' '}
              {baseUnits && (
                <>
                  · <code data-testid="note-amount-base">{noteAmount}</code> base units{' '}
                </>
              )}
              {unit && (
                <button type="button" className="secondary small" onClick={() => setBaseUnits(!baseUnits)}>
                  {baseUnits ? 'Hide base units' : 'Show base units'}
                </button>
              )}
            </>
          ) : (
            discovery.amount || '—'
          )}
        </dd>
        <dt>Chain</dt>
        <dd data-testid="discovery-chain">{chainText}</dd>
        <dt>Time</dt>
        <dd>{formatTime(discovery.timestamp)}</dd>
        <dt>Transactions</dt>
        <dd data-testid="discovery-note">
          {discovery.note?.txHash && (
            <div>
              <TxHash label="Payment" hash={discovery.note.txHash} explorerUrl={explorerUrl} testId="note-tx" />
            </div>
          )}
          {announcementTx && (
            <div>
              <TxHash label="Announcement" hash={announcementTx} explorerUrl={explorerUrl} testId="announcement-tx" />
            </div>
          )}
          {discovery.txHash && !announcementTx && !discovery.note?.txHash && (
            <div>
              <TxHash label="Payment (as the sender announced it)" hash={discovery.txHash} explorerUrl={explorerUrl} />
            </div>
          )}
          <div>
            Announcement #{discovery.id}
            {discovery.note?.chainId ? <> · the note names chain id {discovery.note.chainId}</> : null}
            {!discovery.note && ' · no note from the sender'}
          </div>
        </dd>
      </dl>
      {reader && discovery.chain !== 'sui' && (
        <DiscoveryFunds
          discovery={discovery}
          chainId={chainIdOf(discovery)}
          reader={reader}
          onReaderChange={onReaderChange}
          extraTokens={extraTokens}
          secretKey={() => spendingKeyOf(keys, discovery, known)}
          refresh={claims}
          destinations={destinations}
          onWithdrawn={onWithdrawn}
        />
      )}
      {secret ? (
        <div className="secret">
          <p>
            <strong>Spending key</strong> — anyone who sees it can take these funds. Import it into a wallet only when you
            spend.
          </p>
          <code data-testid="spending-key">{secret}</code>
          <div className="row">
            <CopyButton value={secret} label="spending key" />
            <button type="button" className="secondary small" onClick={() => setSecret(null)}>
              Hide key
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="secondary small" onClick={reveal} disabled={busy}>
          {busy ? 'Deriving…' : 'Reveal spending key'}
        </button>
      )}
      {error && <Notice kind="error">{error}</Notice>}
    </li>
  );
}
