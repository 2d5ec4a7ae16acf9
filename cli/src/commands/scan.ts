/**
 * `wraith scan`: find the payments made to a keystore's keys, scanning on this machine (the
 * viewing key never leaves it) from a Wraith server's registry (`--api`) or straight from a
 * chain's ERC-5564 Announcer (`--rpc`), with the SDK's streaming `scanRegistry` and its
 * WebAssembly kernel. `--cursor-file` saves the resume point after every page and continues
 * from it next time; Ctrl-C stops cleanly between pages.
 *
 * With a chain at hand (`--rpc`, also beside `--api`) each payment is shown in its unit (the
 * token its note's transfer names, its symbol and decimals read from the token) and with its
 * state: a payment already withdrawn is listed as `spent`, not as found. Without one, amounts are
 * labelled as base units. Every payment found is recorded as incoming in the keystore's history
 * (`wraith history`). `--out <file>` writes the results owner-only instead of to stdout.
 * @module
 */
import { scanRegistry, type AnnouncementInput, type Discovery, type PaymentRecord, type RegistryPageSource, type ScanKernelName } from '@wraith-pq/sdk';
import { formatUnits, type PublicClient } from 'viem';
import { chainAnnouncementPages } from '@wraith-pq/sdk/evm';
import { bigintFlag, parseCommand, urlFlag } from '../args.js';
import { connectChain } from '../chain.js';
import { CliError, UsageError, withHint } from '../errors.js';
import { readCursorFile, writeCursorFile } from '../cursor-file.js';
import { appendHistory } from '../history-file.js';
import { erc8441KeysOfKeystore, openKeystoreWithPassword } from '../keystore-file.js';
import { captureResults, createProgressLine, info, result, resultJson, writeCapturedResults } from '../output.js';
import { createStatusReader, type PaymentStatus } from '../payment-status.js';
import { apiClient } from '../recipient.js';

export const USAGE = 'wraith scan --keystore <file> (--api <url> [--rpc <url>] | --rpc <url> [--from-block <n>] [--to-block <n>]) [--cursor-file <file>] [--json] [--out <file>] [--kernel auto|wasm|typescript]';
const KERNELS: readonly string[] = ['auto', 'wasm', 'typescript', 'reference'];

/** Exit status after SIGINT (128 + 2), as shells report it. */
const EXIT_INTERRUPTED = 130;

type Row = AnnouncementInput & {
  id?: number;
  txHash?: string | null;
  amount?: string | null;
  chain?: string | null;
  timestamp?: number;
  blockNumber?: number | null;
  logIndex?: number | null;
};

/** What a script needs of a discovery: where the money is and what the sender said. No secrets. */
function discoveryJson(found: Discovery<Row>, fromChain: boolean, status: PaymentStatus | null) {
  const row = found.announcement;
  const amount = found.note?.amount?.toString() ?? row.amount ?? null;
  return {
    type: 'discovery' as const,
    scheme_id: found.schemeId,
    stealth_address: found.stealthAddress,
    stealth_sui_address: found.stealthSuiAddress,
    announcement_id: fromChain ? null : (row.id ?? null),
    tx_hash: row.txHash ?? null,
    amount: row.amount ?? null,
    chain: row.chain ?? null,
    timestamp: row.timestamp ?? null,
    block_number: row.blockNumber ?? null,
    log_index: row.logIndex ?? null,
    note_status: found.noteStatus,
    note:
      found.note === null
        ? null
        : { tx_hash: found.note.txHash, amount: found.note.amount?.toString() ?? null, chain_id: found.note.chainId?.toString() ?? null, token: found.note.token },
    stealth_address_mismatch: found.stealthAddressMismatch,
    // Read through --rpc; null without it.
    asset: status?.asset ?? null,
    symbol: status?.unit.symbol ?? null,
    decimals: status?.unit.decimals ?? null,
    amount_formatted: amount === null || status == null || status.unit.decimals === null ? null : formatUnits(BigInt(amount), status.unit.decimals),
    balance: status?.balance.toString() ?? null,
    state: status?.state ?? null,
  };
}

function discoveryLine(d: ReturnType<typeof discoveryJson>): string {
  const amount = d.note?.amount ?? d.amount;
  const verb = d.state === 'spent' ? 'spent' : d.state === 'empty' ? 'empty' : 'found';
  const parts = [`${verb} ${d.stealth_address}`, `sui ${d.stealth_sui_address}`];
  if (amount !== null) parts.push(d.amount_formatted !== null ? `amount ${d.amount_formatted} ${d.symbol}` : d.symbol !== null ? `amount ${amount} base units of ${d.symbol}` : `amount ${amount} base units (pass --rpc for the unit)`);
  if (d.state === 'spent') parts.push('(withdrawn: holds nothing now)');
  if (d.state === 'empty') parts.push('(holds nothing: announced, never paid)');
  // The asset a version-1 note names (PROTOCOL.md 8.1), as the sender claims it, when --rpc read no unit.
  if (d.symbol === null && d.note?.token === 'coin') parts.push('of the coin');
  else if (d.symbol === null && d.note?.token) parts.push(`of token ${d.note.token}`);
  const tx = d.note?.tx_hash ?? d.tx_hash;
  if (tx !== null) parts.push(`tx ${tx}`);
  parts.push(d.block_number === null ? `id ${d.announcement_id}` : `block ${d.block_number}`);
  if (d.stealth_address_mismatch) parts.push('WARNING: the announcement named another address');
  return parts.join('  ');
}

export async function scanCommand(argv: string[]): Promise<void> {
  const { values } = parseCommand(
    argv,
    {
      keystore: { type: 'string' },
      api: { type: 'string' },
      rpc: { type: 'string' },
      'from-block': { type: 'string' },
      'to-block': { type: 'string' },
      'cursor-file': { type: 'string' },
      kernel: { type: 'string' },
      json: { type: 'boolean' },
      out: { type: 'string' },
    },
    0,
    USAGE,
  );
  if (values.keystore === undefined) throw new UsageError('--keystore is required', `usage: ${USAGE}`);
  const kernel = (values.kernel ?? 'auto') as ScanKernelName;
  if (!KERNELS.includes(kernel)) throw new UsageError(`--kernel must be one of ${KERNELS.join(', ')}`, `usage: ${USAGE}`);
  const rpcUrl = urlFlag(values.rpc, undefined, 'rpc', '', USAGE);
  // --api names the source; --rpc beside it is the chain payments are read on (units, spent).
  const client = values.rpc === undefined || values.api !== undefined ? apiClient(values.api, USAGE) : undefined;
  if (rpcUrl === undefined && client === undefined) throw new UsageError('scan needs a source: --api <url> (or WRAITH_API_URL) or --rpc <url>', `usage: ${USAGE}`);
  const fromBlock = bigintFlag(values['from-block'], 'from-block', USAGE);
  const toBlock = bigintFlag(values['to-block'], 'to-block', USAGE);
  if ((rpcUrl === undefined || client !== undefined) && (fromBlock !== undefined || toBlock !== undefined)) throw new UsageError('--from-block and --to-block go with --rpc alone (a chain scan)', `usage: ${USAGE}`);

  const { keys, password } = await openKeystoreWithPassword(values.keystore);
  let source: RegistryPageSource<Row>;
  let sourceName: string;
  let chainClient: PublicClient | null = null;
  let chainId: number | null = null;
  if (rpcUrl !== undefined) ({ client: chainClient, chain: { id: chainId } } = await connectChain(rpcUrl));
  if (client === undefined) {
    sourceName = `chain:${chainId}`;
    source = chainAnnouncementPages({
      client: chainClient!,
      // Both schemes: this format's and ERC-8441's (PROTOCOL.md section 10), one filter.
      schemeId: [1000n, 3n],
      ...(fromBlock === undefined ? {} : { fromBlock }),
      ...(toBlock === undefined ? {} : { toBlock }),
    });
  } else {
    sourceName = `api:${client!.baseUrl}`;
    source = client!.announcementPages;
  }

  const cursorFile = values['cursor-file'];
  const fromCursor = cursorFile === undefined ? 0 : await readCursorFile(cursorFile, sourceName);
  if (fromCursor > 0) info(`resuming ${sourceName} after cursor ${fromCursor}`);

  const controller = new AbortController();
  const onInterrupt = () =>
    controller.abort(new CliError('INTERRUPTED', 'scan interrupted', cursorFile === undefined ? 'run it again (add --cursor-file to resume where it stopped)' : 'run the same command again to resume from --cursor-file', EXIT_INTERRUPTED));
  process.once('SIGINT', onInterrupt);
  const progressLine = createProgressLine();
  const statusOf = chainClient === null ? null : createStatusReader(chainClient);
  const incoming: PaymentRecord[] = [];
  if (values.out !== undefined) captureResults();
  let totals = { scanned: 0, discoveries: 0, malformed: 0, cursor: fromCursor };
  try {
    // View-only keys: finding a payment needs the viewing secret and the spending public key, not the spending secret.
    // View-only under both schemes: scheme 3 is scanned with the identity's tracking key (PROTOCOL.md
    // section 10), derived here; old keystores without the ML-KEM seed scan scheme 1000 alone.
    const erc8441 = erc8441KeysOfKeystore(keys);
    const scanKeys = {
      viewingSecretKey: keys.viewingSecretKey,
      spendingPublicKey: keys.spendingPublicKey,
      ...(erc8441 === null ? {} : { erc8441: { trackingKey: erc8441.trackingKey, metaAddress: erc8441.metaAddress } }),
    };
    for await (const batch of scanRegistry(source, scanKeys, { kernel, fromCursor, signal: controller.signal })) {
      for (const found of batch.discoveries) {
        const status = statusOf === null ? null : await statusOf({ stealthAddress: found.stealthAddress, noteTxHash: found.note?.txHash ?? null, noteAsset: found.note?.token ?? null });
        const json = discoveryJson(found, client === undefined, status);
        incoming.push(incomingRecord(json, chainId));
        progressLine.done();
        if (values.json) resultJson(json);
        else result(discoveryLine(json));
      }
      totals = { scanned: batch.progress.scanned, discoveries: batch.progress.discoveries, malformed: batch.progress.malformed, cursor: batch.cursor };
      if (cursorFile !== undefined) await writeCursorFile(cursorFile, sourceName, batch.cursor);
      progressLine.update(`scanned ${batch.progress.scanned} · found ${batch.progress.discoveries} · ${Math.round(batch.progress.rate)}/s · cursor ${batch.cursor}`);
    }
  } catch (error) {
    // A server that cannot be scanned is not the only way: the Announcer's logs are on chain.
    if (client !== undefined && !(error instanceof CliError)) throw withHint(error, 'check --api and that the server is running, or scan the chain itself through your own node: wraith scan --keystore <file> --rpc <url>');
    throw error;
  } finally {
    process.off('SIGINT', onInterrupt);
    progressLine.done();
    // What was found is the recipient's record, also when the scan stopped part way.
    try {
      await appendHistory(values.keystore, password, [], [], incoming);
    } catch (error) {
      info(`the payments found were not recorded in the history: ${error instanceof Error ? error.message : 'unknown error'}`);
    }
  }
  if (values.json) resultJson({ type: 'summary', source: sourceName, from_cursor: fromCursor, ...totals });
  if (values.out !== undefined) await writeCapturedResults(values.out);
  if (!values.json) info(`scanned ${totals.scanned} announcements from ${sourceName}, found ${totals.discoveries}${totals.malformed > 0 ? `, skipped ${totals.malformed} malformed` : ''} (cursor ${totals.cursor})`);
}

/** A found payment as an incoming record of the history (the SDK's type, shared with the web app). */
function incomingRecord(d: ReturnType<typeof discoveryJson>, chainId: number | null): PaymentRecord {
  const seconds = d.timestamp;
  return {
    announcementId: d.announcement_id,
    chainId: chainId ?? (d.note?.chain_id == null ? null : Number(d.note.chain_id)),
    stealthAddress: d.stealth_address,
    // Registry rows carry the announcement's time (Unix seconds); a chain scan records when it found the payment.
    date: typeof seconds === 'number' ? new Date(seconds < 1e12 ? seconds * 1000 : seconds).toISOString() : new Date().toISOString(),
    amount: d.note?.amount ?? d.amount,
    asset: d.asset,
    symbol: d.symbol,
    decimals: d.decimals,
    paymentTx: d.note?.tx_hash ?? null,
    announcementTx: d.tx_hash,
  };
}
