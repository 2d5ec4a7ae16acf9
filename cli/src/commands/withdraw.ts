/**
 * `wraith withdraw`: move what discovered payments hold (the coin and `--token` ERC-20s) to
 * destinations of the user's choosing, each transaction signed here with the payment's one-time
 * key `p`, derived on this machine from the keystore and the payment's announcement (never
 * written, never printed). Balances, prices and transactions all go through the user's `--rpc`,
 * never a Wraith server, which would otherwise learn which stealth addresses belong together.
 *
 * The run: find the payments (the announcements of `--discoveries`, a `wraith scan --json` file,
 * or a scan of the chain), read their balances, price every withdrawal and print it (amount,
 * fee exact or at most, what stays behind), ask (unless `--yes`), then withdraw payment by
 * payment, tokens before coin; a failure is reported and the run goes on; exit status 1 if any
 * payment failed.
 * @module
 */
import type { WithdrawalRecord } from '@wraith-pq/sdk';
import { stealthBalances } from '@wraith-pq/sdk/evm';
import type { Address, PublicClient } from 'viem';
import { formatAmount, NATIVE_UNIT, tokenUnit, type AssetUnit } from '../amounts.js';
import { bigintFlag, integerFlag, parseCommand, urlFlag } from '../args.js';
import { connectChain } from '../chain.js';
import { confirm } from '../confirm.js';
import { checkTemplate, derivationRule } from '../derivation.js';
import { assignDestinations, deriveDestinations } from '../destinations.js';
import { readDiscoveriesFile, type DiscoveriesFile } from '../discoveries-file.js';
import { CliError, UsageError } from '../errors.js';
import { addressFlag } from '../typed-address.js';
import { appendHistory, readHistoryState, type DestinationAssignment } from '../history-file.js';
import { openKeystoreWithPassword } from '../keystore-file.js';
import { info, result, resultJson } from '../output.js';
import { apiClient } from '../recipient.js';
import { readSecretInput } from '../secrets.js';
import { findSpendable, noteToken, type SpendableSource } from '../spendable.js';
import { estimateGaslessPayment, gaslessFlags, gaslessRoute, withdrawGaslessPayment } from '../gasless-run.js';
import { estimatePaymentWithdrawal, reasonOf, withdrawPayment, type PaymentEstimate, type PaymentResult, type StepEstimate, type StepResult } from '../withdrawal-run.js';

export const USAGE =
  'wraith withdraw --keystore <file> --rpc <url> [--discoveries <scan.json> | --from-block <n> [--to-block <n>]] (--all | --address <stealth address>…) (--to-file <addresses> | --to-derive <path template> [--from-index <n>] | --to <address> [--allow-linking]) [--token <address>…] [--gasless [--bundler <url> --paymaster <address>]] [--yes] [--dry-run] [--json]';

const OPTIONS = {
  keystore: { type: 'string' },
  rpc: { type: 'string' },
  api: { type: 'string' },
  discoveries: { type: 'string' },
  'from-block': { type: 'string' },
  'to-block': { type: 'string' },
  all: { type: 'boolean' },
  address: { type: 'string', multiple: true },
  to: { type: 'string' },
  'to-file': { type: 'string' },
  'to-derive': { type: 'string' },
  'from-index': { type: 'string' },
  token: { type: 'string', multiple: true },
  'allow-linking': { type: 'boolean' },
  gasless: { type: 'boolean' },
  bundler: { type: 'string' },
  paymaster: { type: 'string' },
  yes: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

function addressList(values: string[] | undefined, flag: string): Address[] {
  return [...new Set((values ?? []).map((v) => addressFlag(v, flag, USAGE)))];
}

export async function withdrawCommand(argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, OPTIONS, 0, USAGE);
  if (values.keystore === undefined) throw new UsageError('--keystore is required', `usage: ${USAGE}`);
  const rpcUrl = urlFlag(values.rpc, process.env.WRAITH_RPC_URL, 'rpc', 'WRAITH_RPC_URL', USAGE);
  if (rpcUrl === undefined) throw new UsageError('withdraw needs --rpc <url> (or WRAITH_RPC_URL): balances and transactions go through your own node, never a Wraith server', `usage: ${USAGE}`);
  const selected = addressList(values.address, 'address');
  if ((values.all === true) === (selected.length > 0)) throw new UsageError('choose the payments: --all (every one with a balance) or --address <stealth address> (repeatable)', `usage: ${USAGE}`);
  const destinationFlags = [values.to, values['to-file'], values['to-derive']].filter((v) => v !== undefined).length;
  if (destinationFlags !== 1) throw new UsageError('pass one destination: --to-file <file of fresh addresses, one per payment>, --to-derive <path template> (addresses of your HD wallet) or --to <address>', `usage: ${USAGE}`);
  addressList(values.to === undefined ? [] : [values.to], 'to');
  const template = values['to-derive'] === undefined ? undefined : checkTemplate(values['to-derive'], USAGE);
  if (values['from-index'] !== undefined && template === undefined) throw new UsageError('--from-index goes with --to-derive', `usage: ${USAGE}`);
  const fromIndex = integerFlag(values['from-index'], 'from-index', 0, USAGE);
  const tokens = addressList(values.token, 'token');
  const fromBlock = bigintFlag(values['from-block'], 'from-block', USAGE);
  const toBlock = bigintFlag(values['to-block'], 'to-block', USAGE);
  if (values.discoveries !== undefined && (fromBlock !== undefined || toBlock !== undefined)) throw new UsageError('--from-block and --to-block scan the chain: leave them out with --discoveries', `usage: ${USAGE}`);
  const discoveries = values.discoveries === undefined ? null : await readDiscoveriesFile(values.discoveries);
  const gaslessFlagRoute = gaslessFlags(values, USAGE);

  const { keys, password } = await openKeystoreWithPassword(values.keystore);
  const rule = template === undefined ? undefined : derivationRule(await readSecretInput('WRAITH_DESTINATION_KEY', "destination wallet's extended public key or recovery phrase"), template, USAGE);
  const { chain, client } = await connectChain(rpcUrl);
  const source = spendableSource(discoveries, { client, chainId: chain.id, fromBlock, toBlock, api: values.api });
  info(source.kind === 'chain' ? `finding your payments on chain ${chain.id}…` : 'finding your payments in the registry (a full scan, on this machine)…');
  let payments = await findSpendable(keys, source);
  if (discoveries !== null) {
    const listed = new Set(discoveries.addresses);
    payments = payments.filter((p) => listed.has(p.stealthAddress));
  }
  if (selected.length > 0) {
    const mine = new Set(payments.map((p) => p.stealthAddress));
    const unknown = selected.find((a) => !mine.has(a));
    if (unknown !== undefined) throw new CliError('PAYMENT_NOT_FOUND', `${unknown} is not a payment of this keystore${discoveries === null ? ' in the blocks scanned' : ` in ${values.discoveries}`}`, 'check the address against `wraith scan` (and --from-block)');
    payments = selected.map((a) => payments.find((p) => p.stealthAddress === a)!);
  }

  // Tokens the notes name are withdrawn too: sweeping a token payment's coin alone would leave
  // its tokens without the gas to move them.
  for (const token of await Promise.all(payments.map((p) => noteToken(client, p)))) {
    if (token !== null && !tokens.includes(token)) tokens.push(token);
  }
  // What each holds; with --all only those holding something are withdrawn.
  const balances = payments.length === 0 ? [] : await stealthBalances({ client, addresses: payments.map((p) => p.stealthAddress), tokens });
  const holding = payments
    .map((payment, i) => ({ payment, holdings: balances[i]! }))
    .filter(({ holdings }) => holdings.native > 0n || holdings.tokens.some((t) => t.balance > 0n));
  const empty = payments.filter((p) => !holding.some((h) => h.payment === p));
  for (const p of selected.length > 0 ? empty : []) info(`${p.stealthAddress} holds nothing${tokens.length === 0 ? ' (of the coin; pass --token for ERC-20s)' : ''}: skipped`);
  if (holding.length === 0) {
    info(`nothing to withdraw: ${payments.length} payment${payments.length === 1 ? '' : 's'} found, none holding ${tokens.length === 0 ? 'the coin' : 'the coin or those tokens'}`);
    if (values.json) resultJson({ type: 'summary', chain_id: chain.id, payments: 0, done: 0, failed: 0, skipped: 0, not_started: 0 });
    return;
  }

  const { withdrawals: history, assignments: earlier } = await readHistoryState(values.keystore, password);
  // A resumed run must not hand a payment an address an earlier run already used.
  const isUsed = async (address: Address) =>
    history.some((r) => r.status === 'withdrawn' && r.destination === address) ||
    (await client.getTransactionCount({ address })) > 0 ||
    (await stealthBalances({ client, addresses: [address], tokens })).some((b) => b.native > 0n || b.tokens.some((t) => t.balance > 0n));
  let destinations: Address[];
  let assignments: DestinationAssignment[] = [];
  if (rule !== undefined) {
    ({ destinations, assignments } = await deriveDestinations({
      rule,
      fromIndex,
      chainId: chain.id,
      payments: holding.map((h) => h.payment.stealthAddress),
      stealthAddresses: payments.map((p) => p.stealthAddress),
      earlier,
      isUsed,
    }));
    info(`destinations: ${rule.template} of your ${rule.kind === 'xpub' ? 'extended public key' : 'recovery phrase'}, indices ${assignments.map((a) => a.index).join(', ')}: check the first (${destinations[0]}) in your wallet`);
  } else {
    destinations = await assignDestinations({
      ...(values.to === undefined ? {} : { to: values.to }),
      ...(values['to-file'] === undefined ? {} : { toFile: values['to-file'] }),
      count: holding.length,
      allowLinking: values['allow-linking'] === true,
      stealthAddresses: payments.map((p) => p.stealthAddress),
      isUsed,
      usage: USAGE,
    });
  }
  const units = new Map<Address, AssetUnit>(await Promise.all(tokens.map(async (t) => [t, await tokenUnit(client, t)] as const)));
  // --gasless: a bundler and a paymaster that takes its fee in the token pay the gas (src/gasless-run.ts).
  const route = values.gasless === true ? await gaslessRoute(gaslessFlagRoute, apiClient(values.api, USAGE), chain.id, USAGE) : undefined;
  const estimates: PaymentEstimate[] = [];
  for (const [i, { payment, holdings }] of holding.entries()) {
    estimates.push(route === undefined ? await estimatePaymentWithdrawal(client, payment, holdings, destinations[i]!, units) : await estimateGaslessPayment(client, payment, holdings, destinations[i]!, units, route));
  }

  const indexOf = (stealth: Address) => assignments.find((a) => a.stealth_address === stealth)?.index ?? null;
  showEstimates(estimates, chain.id, values.json === true, indexOf);
  if (values['dry-run']) return;
  const linked = new Set(destinations).size < destinations.length;
  if (values.yes !== true) {
    const question = linked
      ? `Withdraw ${estimates.length} payments? Several go to one destination: this links them on chain.`
      : `Withdraw ${estimates.length} payment${estimates.length === 1 ? '' : 's'} as shown?`;
    if (!(await confirm(question))) throw new CliError('CANCELLED', 'nothing was withdrawn', 'run the command again to withdraw');
  }

  // Kept before anything is signed: a run stopped by anything, even a crash, resumes with the same indices.
  await appendHistory(values.keystore, password, [], assignments);

  // Ctrl-C stops between payments: a transaction already broadcast is awaited and recorded, never abandoned.
  let stopping = false;
  const onInterrupt = () => {
    stopping = true;
    info('stopping after this payment (its transactions may already be out)…');
  };
  process.on('SIGINT', onInterrupt);
  const results: PaymentResult[] = [];
  const keystore = values.keystore;
  try {
    for (const [i, estimate] of estimates.entries()) {
      if (stopping) break;
      const label = `[${i + 1}/${estimates.length}] ${estimate.payment.stealthAddress}`;
      info(`${label} → ${estimate.destination}…`);
      const onStep = (step: StepResult) => info(`${label}: ${formatAmount(step.amount, unitOf(step.asset, units))} sent in ${step.hash} (fee ${formatAmount(step.feePaid, step.feeUnit ?? NATIVE_UNIT)})`);
      const done = route === undefined ? await withdrawPayment(client, estimate, onStep) : await withdrawGaslessPayment(client, estimate, route, onStep);
      results.push(done);
      if (done.error !== null) info(`${label}: FAILED: ${done.error.code}: ${done.error.message} — ${done.error.hint}`);
      if (done.status === 'skipped') info(`${label}: skipped: its ${formatAmount(done.leftBehind, NATIVE_UNIT)} would not pay the fee of moving it`);
      try {
        await appendHistory(keystore, password, historyRecords(done, chain.id, units));
      } catch (error) {
        // The money has moved either way: a history that cannot be written must not stop the run.
        const reason = reasonOf(error);
        info(`${label}: not recorded in the history: ${reason.code}: ${reason.message} — the result below is the record; keep it`);
      }
      if (values.json) resultJson(resultJsonOf(done, units));
      else result(resultLine(done, units));
    }
  } finally {
    process.off('SIGINT', onInterrupt);
  }

  const failed = results.filter((r) => r.status === 'failed').length;
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const withdrawn = results.length - failed - skipped;
  if (values.json) resultJson({ type: 'summary', chain_id: chain.id, payments: results.length, done: withdrawn, failed, skipped, not_started: estimates.length - results.length });
  info(`withdrew ${withdrawn} of ${results.length} payment${results.length === 1 ? '' : 's'}${failed > 0 ? `, ${failed} failed` : ''}${skipped > 0 ? `, ${skipped} skipped (dust)` : ''}; recorded in \`wraith history --keystore ${values.keystore}\``);
  if (results.length < estimates.length) {
    throw new CliError('INTERRUPTED', `stopped with ${estimates.length - results.length} payment${estimates.length - results.length === 1 ? '' : 's'} not started`, 'run the same command again to withdraw the rest', 130);
  }
  if (failed > 0) throw new CliError('WITHDRAWAL_FAILED', `${failed} of ${results.length} payments could not be withdrawn (reasons above)`, 'fix what each reason says and run the same command again: payments already withdrawn hold nothing and are skipped, --to-file addresses already used are passed over, and --to-derive gives each payment the index it was given');
}

/** Where the payments' announcements are: the file's blocks or registry, or the chain from --from-block. */
function spendableSource(
  discoveries: DiscoveriesFile | null,
  options: { client: PublicClient; chainId: number; fromBlock: bigint | undefined; toBlock: bigint | undefined; api: string | undefined },
): SpendableSource {
  const { client, chainId } = options;
  if (discoveries === null) {
    return { kind: 'chain', client, ...(options.fromBlock === undefined ? {} : { fromBlock: options.fromBlock }), ...(options.toBlock === undefined ? {} : { toBlock: options.toBlock }) };
  }
  const source = discoveries.source;
  if (source !== null && source.startsWith('api:')) {
    // A full scan of the registry: the server sees no more than `wraith scan` shows it.
    const server = apiClient(options.api ?? source.slice(4), USAGE)!;
    return { kind: 'registry', pages: server.announcementPages };
  }
  if (source !== null && source !== `chain:${chainId}`) {
    throw new CliError('CHAIN_MISMATCH', `the discoveries were scanned on ${source}, and --rpc is chain ${chainId}`, 'pass the RPC of the chain the payments were made on');
  }
  if (discoveries.blocks === null) throw new CliError('INVALID_FILE', 'the discoveries name no block and no registry', 'pass the output of `wraith scan --json`');
  return { kind: 'chain', client, fromBlock: discoveries.blocks.from, toBlock: discoveries.blocks.to };
}

function unitOf(asset: StepEstimate['asset'], units: Map<Address, AssetUnit>): AssetUnit {
  return asset === 'native' ? NATIVE_UNIT : units.get(asset)!;
}

/**
 * The fee as it can honestly be promised. Every transaction is priced again when it is signed,
 * at the gas price of that moment: the first one of the run is signed at the price read now, so
 * an exact fee is "exactly" that; every later one is signed after earlier legs were mined, which
 * moves the base fee (EIP-1559), so its figure holds "at today's prices" only. A gasless
 * withdrawal's fee is in the token, through the bundler.
 */
function feeText(step: StepEstimate, first: boolean): string {
  const l1 = step.l1Fee > 0n ? ` (L1 data fee ${formatAmount(step.l1Fee, NATIVE_UNIT)} of it)` : '';
  const fee = formatAmount(step.fee, step.feeUnit ?? NATIVE_UNIT);
  const via = step.feeUnit === undefined ? '' : ', paid in the token through the bundler';
  if (first) return `fee ${step.feeKind === 'exact' ? 'exactly' : 'at most'} ${fee}${via}${l1}`;
  return `fee ${step.feeKind === 'exact' ? 'about' : 'at most'} ${fee} at today's prices${via}${l1}`;
}

/** The estimate, before anything is signed: on stderr as text, or as `estimate` JSON lines. */
function showEstimates(estimates: PaymentEstimate[], chainId: number, json: boolean, indexOf: (stealth: Address) => number | null): void {
  // The run's first transaction: the only one signed at the price read for this estimate.
  const firstStep = estimates.find((e) => e.problem === null && e.steps.length > 0)?.steps[0];
  if (json) {
    for (const e of estimates) {
      resultJson({
        type: 'estimate',
        stealth_address: e.payment.stealthAddress,
        destination: e.destination,
        destination_index: indexOf(e.payment.stealthAddress),
        destination_used: e.destinationUsed,
        withdrawals: e.steps.map((s) => ({ asset: s.asset, symbol: s.unit.symbol, amount: s.amount, fee: s.fee, fee_asset: s.feeUnit === undefined ? 'native' : s.asset, fee_kind: s.feeKind, max_remainder: s.maxRemainder, l1_fee: s.l1Fee, after_token_fees: s.afterTokens, at_todays_prices: s !== firstStep })),
        stays_behind: { dust: e.dust, max_remainder: e.steps.find((s) => s.asset === 'native')?.maxRemainder ?? 0n },
        problem: e.problem,
      });
    }
  }
  info(`${estimates.length} payment${estimates.length === 1 ? '' : 's'} to withdraw on chain ${chainId}:`);
  for (const [i, e] of estimates.entries()) {
    const index = indexOf(e.payment.stealthAddress);
    info(`  ${i + 1}. ${e.payment.stealthAddress} → ${e.destination}${index === null ? '' : ` (index ${index})`}${e.destinationUsed ? '  (this destination was used before: not a fresh address)' : ''}`);
    for (const s of e.steps) {
      const about = s.afterTokens ? ' (about, at today\'s prices: the coin left once the token withdrawal has paid its gas)' : '';
      const behind = s.asset === 'native' ? `; ${s.maxRemainder === 0n ? '0 wei stays behind' : `at most ${formatAmount(s.maxRemainder, NATIVE_UNIT)} stays behind`}` : '';
      const along = s.coin !== undefined && s.coin > 0n ? `; its ${formatAmount(s.coin, NATIVE_UNIT)} of the coin goes along` : '';
      info(`       ${formatAmount(s.amount, s.unit)}${about}, ${feeText(s, s === firstStep)}${behind}${along}`);
    }
    if (e.dust > 0n) info(`       ${formatAmount(e.dust, NATIVE_UNIT)} of the coin stays behind: less than the fee of moving it`);
    if (e.problem !== null) info(`       cannot withdraw: ${e.problem.code}: ${e.problem.message} — ${e.problem.hint}`);
  }
}

function resultJsonOf(r: PaymentResult, units: Map<Address, AssetUnit>) {
  return {
    type: 'withdrawal',
    stealth_address: r.stealthAddress,
    destination: r.destination,
    status: r.status,
    withdrawals: r.withdrawals.map((w) => ({ asset: w.asset, symbol: unitOf(w.asset, units).symbol, hash: w.hash, amount: w.amount, fee: w.fee, fee_asset: w.feeUnit === undefined ? 'native' : w.asset, fee_kind: w.feeKind, fee_paid: w.feePaid })),
    left_behind: r.leftBehind,
    error: r.error,
  };
}

function resultLine(r: PaymentResult, units: Map<Address, AssetUnit>): string {
  const parts = r.withdrawals.map((w) => `${formatAmount(w.amount, unitOf(w.asset, units))} in ${w.hash} (fee ${formatAmount(w.feePaid, w.feeUnit ?? NATIVE_UNIT)})`);
  if (r.status === 'skipped') return `skipped ${r.stealthAddress}: ${formatAmount(r.leftBehind, NATIVE_UNIT)} stays, less than the fee of moving it`;
  if (r.status === 'done') return `withdrew ${r.stealthAddress} → ${r.destination}: ${parts.join(', ') || 'nothing'}`;
  return `FAILED ${r.stealthAddress} → ${r.destination}: ${r.error!.code}: ${r.error!.message} — ${r.error!.hint}${parts.length > 0 ? ` (done before the failure: ${parts.join(', ')})` : ''}`;
}

/** The run's lines of the history: one per transaction, and one per failure (public data only). */
function historyRecords(r: PaymentResult, chainId: number, units: Map<Address, AssetUnit>): WithdrawalRecord[] {
  const date = new Date().toISOString();
  const base = { date, announcementId: null, chainId, stealthAddress: r.stealthAddress, destination: r.destination };
  const records: WithdrawalRecord[] = r.withdrawals.map((w) => {
    const unit = unitOf(w.asset, units);
    // The history's fees are in the coin: a gasless withdrawal paid none (its fee in the token is balance - amount).
    const coinFee = w.feeUnit === undefined;
    return { ...base, status: 'withdrawn', asset: w.asset, symbol: unit.symbol, decimals: unit.decimals, amount: w.amount.toString(), feePaid: coinFee ? w.feePaid.toString() : '0', feeBound: coinFee ? w.fee.toString() : '0', feeKind: coinFee ? w.feeKind : 'exact', hash: w.hash, error: null };
  });
  if (r.error !== null) records.push({ ...base, status: 'failed', asset: 'native', symbol: null, decimals: null, amount: null, feePaid: null, feeBound: null, feeKind: null, hash: null, error: `${r.error.code}: ${r.error.message}` });
  return records;
}
