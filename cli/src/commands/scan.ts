/**
 * `wraith scan`: find the payments made to a keystore's keys, scanning on this machine (the
 * viewing key never leaves it) from a Wraith server's registry (`--api`) or straight from a
 * chain's ERC-5564 Announcer (`--rpc`), with the SDK's streaming `scanRegistry` and its
 * WebAssembly kernel. `--cursor-file` saves the resume point after every page and continues
 * from it next time; Ctrl-C stops cleanly between pages.
 * @module
 */
import { scanRegistry, type AnnouncementInput, type Discovery, type RegistryPageSource, type ScanKernelName } from '@wraith-pq/sdk';
import { chainAnnouncementPages } from '@wraith-pq/sdk/evm';
import { bigintFlag, parseCommand, urlFlag } from '../args.js';
import { connectChain } from '../chain.js';
import { CliError, UsageError } from '../errors.js';
import { readCursorFile, writeCursorFile } from '../cursor-file.js';
import { erc8441KeysOfKeystore, openKeystoreFile } from '../keystore-file.js';
import { createProgressLine, info, result, resultJson } from '../output.js';
import { apiClient } from '../recipient.js';

export const USAGE = 'wraith scan --keystore <file> (--api <url> | --rpc <url> [--from-block <n>] [--to-block <n>]) [--cursor-file <file>] [--json] [--kernel auto|wasm|typescript]';
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
function discoveryJson(found: Discovery<Row>, fromChain: boolean) {
  const row = found.announcement;
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
  };
}

function discoveryLine(d: ReturnType<typeof discoveryJson>): string {
  const amount = d.note?.amount ?? d.amount;
  const parts = [`found ${d.stealth_address}`, `sui ${d.stealth_sui_address}`];
  if (amount !== null) parts.push(`amount ${amount}`);
  // The asset a version-1 note names (PROTOCOL.md 8.1), as the sender claims it.
  if (d.note?.token === 'coin') parts.push('of the coin');
  else if (d.note?.token) parts.push(`of token ${d.note.token}`);
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
    },
    0,
    USAGE,
  );
  if (values.keystore === undefined) throw new UsageError('--keystore is required', `usage: ${USAGE}`);
  const kernel = (values.kernel ?? 'auto') as ScanKernelName;
  if (!KERNELS.includes(kernel)) throw new UsageError(`--kernel must be one of ${KERNELS.join(', ')}`, `usage: ${USAGE}`);
  const rpcUrl = urlFlag(values.rpc, undefined, 'rpc', '', USAGE);
  const client = values.rpc === undefined ? apiClient(values.api, USAGE) : undefined;
  if (values.rpc !== undefined && values.api !== undefined) throw new UsageError('pass --api or --rpc, not both', `usage: ${USAGE}`);
  if (rpcUrl === undefined && client === undefined) throw new UsageError('scan needs a source: --api <url> (or WRAITH_API_URL) or --rpc <url>', `usage: ${USAGE}`);
  const fromBlock = bigintFlag(values['from-block'], 'from-block', USAGE);
  const toBlock = bigintFlag(values['to-block'], 'to-block', USAGE);
  if (rpcUrl === undefined && (fromBlock !== undefined || toBlock !== undefined)) throw new UsageError('--from-block and --to-block go with --rpc', `usage: ${USAGE}`);

  const keys = await openKeystoreFile(values.keystore);
  let source: RegistryPageSource<Row>;
  let sourceName: string;
  if (rpcUrl !== undefined) {
    const { chain, client: chainClient } = await connectChain(rpcUrl);
    sourceName = `chain:${chain.id}`;
    source = chainAnnouncementPages({
      client: chainClient,
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
        const json = discoveryJson(found, rpcUrl !== undefined);
        progressLine.done();
        if (values.json) resultJson(json);
        else result(discoveryLine(json));
      }
      totals = { scanned: batch.progress.scanned, discoveries: batch.progress.discoveries, malformed: batch.progress.malformed, cursor: batch.cursor };
      if (cursorFile !== undefined) await writeCursorFile(cursorFile, sourceName, batch.cursor);
      progressLine.update(`scanned ${batch.progress.scanned} · found ${batch.progress.discoveries} · ${Math.round(batch.progress.rate)}/s · cursor ${batch.cursor}`);
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    progressLine.done();
  }
  if (values.json) resultJson({ type: 'summary', source: sourceName, from_cursor: fromCursor, ...totals });
  else info(`scanned ${totals.scanned} announcements from ${sourceName}, found ${totals.discoveries}${totals.malformed > 0 ? `, skipped ${totals.malformed} malformed` : ''} (cursor ${totals.cursor})`);
}
