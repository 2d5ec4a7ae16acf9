/**
 * `wraith pay`: a one-time payment to a name or meta-address, created here (the recipient's
 * keys never leave them, the sender's never reach a server), and its announcement.
 *
 *   --announce none   (default) print the stealth address and what to send; `--save f` keeps
 *                     the payment so it can be announced once the transfer is made.
 *   --announce api    publish the announcement to the server's registry, naming the transfer's
 *                     `--tx-hash`, with a note sealed for the recipient (amount, tx, chain id,
 *                     and the asset when `--token <address|coin>` names it, PROTOCOL.md 8.1).
 *   --announce chain  with `--amount`: send the amount from WRAITH_PRIVATE_KEY to the stealth
 *                     address and announce it on the ERC-5564 Announcer (`payStealth`); with
 *                     `--token t` the amount is of that ERC-20, sent with a gas top-up in the
 *                     coin (default: the SDK's `estimateGasTopUp`) so the recipient can withdraw
 *                     it; the payer's token and coin balances are checked before anything is
 *                     signed (src/payer-funds.ts); the note names the asset paid. With
 *                     `--payment f` (already paid): the announcement alone, its note naming
 *                     the asset given by `--token <address|coin>`.
 *
 * Every payment is kept (its file, with the shared secret, owner-only; `--save f` or
 * `wraith-payment-<address>.json` here) before an address that can receive money is printed or
 * paid: money sent to an address whose payment was not kept could never be announced, so its
 * recipient would never find it. `--dry-run` shows the recipient, the amount and the fees and
 * creates nothing payable.
 *
 * The recipient's fingerprint (`metaAddressFingerprint`) is shown before anything is signed. A
 * meta-address typed or pasted (on the command line or in a payment link) is paid only once its
 * fingerprint is confirmed against the one the recipient shows (`wraith keys show`, the web
 * Receive page): at the prompt, or with `--fingerprint <value>` without one. One changed
 * character still decodes as a valid meta-address, and a payment to it is lost.
 * @module
 */
import { announcementForPayment, announcementMetadata, checksumProblem, createStealthPayment, fingerprintMatches, metaAddressFingerprint, type PaymentNoteInput } from '@wraith-pq/sdk';
import { announceParameters, payStealth } from '@wraith-pq/sdk/evm';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { formatAmount, NATIVE_UNIT, parseAmount, tokenUnit, type AssetUnit } from '../amounts.js';
import { bigintFlag, parseCommand, urlFlag } from '../args.js';
import { connectChain, senderWallet } from '../chain.js';
import { confirm } from '../confirm.js';
import { CliError, UsageError } from '../errors.js';
import { addressFlag } from '../typed-address.js';
import { info, result, resultJson } from '../output.js';
import { loadPaymentFile, savePaymentFile, type SavedPayment } from '../payment-file.js';
import { checkPayerFunds } from '../payer-funds.js';
import { apiClient, metaAddressUriOf, requireApi, resolveRecipient } from '../recipient.js';
import { registryFlags, REGISTRY_OPTIONS } from '../registry-flags.js';
import { readPrivateKey } from '../secrets.js';

export const USAGE =
  'wraith pay (<name|0x address|meta-address|CID|payment link> | --payment <file>) [--fingerprint <XXXX-XXXX-XXXX-XXXX> [--yes]] [--scheme 3|1000] [--registry <address>] [--ens-resolver <address>] [--amount <0.5 | 0.5ether | 100wei> [--base-units]] [--token <address|coin> [--gas-top-up <amount>]] [--announce none|api|chain] [--tx-hash <0x…>] [--api <url>] [--rpc <url>] [--chain-id <n>] [--chain <label>] [--save <file>] [--dry-run] [--json]';

const OPTIONS = {
  api: { type: 'string' },
  rpc: { type: 'string' },
  amount: { type: 'string' },
  announce: { type: 'string' },
  'tx-hash': { type: 'string' },
  'chain-id': { type: 'string' },
  chain: { type: 'string' },
  save: { type: 'string' },
  payment: { type: 'string' },
  token: { type: 'string' },
  'gas-top-up': { type: 'string' },
  force: { type: 'boolean' },
  json: { type: 'boolean' },
  scheme: { type: 'string' },
  fingerprint: { type: 'string' },
  yes: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'base-units': { type: 'boolean' },
  ...REGISTRY_OPTIONS,
} as const;

const SCHEME_NAMES = { 3: 'scheme 3 (ERC-8441, hybrid ML-KEM + ECDH)', 1000: 'scheme 1000 (Wraith)' } as const;

type Announce = 'none' | 'api' | 'chain';

function txHashFlag(value: string | undefined): Hex | undefined {
  if (value === undefined) return undefined;
  if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw new UsageError('--tx-hash must be 0x followed by 64 hex digits', `usage: ${USAGE}`);
  return value.toLowerCase() as Hex;
}

export async function payCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand(argv, OPTIONS, 1, USAGE);
  const announce = (values.announce ?? 'none') as Announce;
  if (!['none', 'api', 'chain'].includes(announce)) throw new UsageError('--announce must be none, api or chain', `usage: ${USAGE}`);
  const dryRun = values['dry-run'] === true;
  const amountOf = (unit: AssetUnit) => (values.amount === undefined ? undefined : parseAmount(values.amount, unit, { flag: '--amount', baseUnits: values['base-units'] === true }));
  // A coin amount reads now (a usage mistake costs nothing); a token's once its decimals are read.
  let amount = values.token === undefined ? amountOf(NATIVE_UNIT) : undefined;
  const chainId = bigintFlag(values['chain-id'], 'chain-id', USAGE);
  const txHash = txHashFlag(values['tx-hash']);
  const gasTopUp = values['gas-top-up'] === undefined ? undefined : parseAmount(values['gas-top-up'], NATIVE_UNIT, { flag: '--gas-top-up', baseUnits: values['base-units'] === true });
  // --token pays that ERC-20 (--announce chain with a recipient); in an announcement of a payment
  // made elsewhere (--announce api, --payment) it names the asset in the note (PROTOCOL.md 8.1).
  let token: Address | undefined;
  let noteToken: Address | 'coin' | undefined;
  if (values.token !== undefined) {
    if (values.token !== 'coin' && checksumProblem(values.token) === 'format') throw new UsageError('--token must be the ERC-20 contract\'s address (0x + 40 hex), or coin', `usage: ${USAGE}`);
    noteToken = values.token === 'coin' ? 'coin' : addressFlag(values.token, 'token', USAGE);
    if (announce === 'none') throw new UsageError('--token goes with --announce chain (it pays that ERC-20) or names the asset paid in the note of --announce api / --payment', `usage: ${USAGE}`);
    if (announce === 'chain' && values.payment === undefined && noteToken !== 'coin') token = noteToken;
  }
  if (gasTopUp !== undefined && token === undefined) throw new UsageError('--gas-top-up goes with --token (a coin payment needs no top-up)', `usage: ${USAGE}`);
  const client = apiClient(values.api, USAGE);
  const rpcUrl = urlFlag(values.rpc, process.env.WRAITH_RPC_URL, 'rpc', 'WRAITH_RPC_URL', USAGE);
  if (values.scheme !== undefined && values.scheme !== '3' && values.scheme !== '1000') throw new UsageError('--scheme must be 3 or 1000', `usage: ${USAGE}`);
  const scheme = values.scheme === undefined ? undefined : (Number(values.scheme) as 3 | 1000);
  const flags = registryFlags(values, USAGE);
  // One connection to --rpc for the registry lookup and the payment.
  let connected: ReturnType<typeof connectChain> | undefined;
  const chainOf = () => (connected ??= connectChain(rpcUrl!));

  // Check every flag before a name lookup or a transaction: a usage mistake costs nothing.
  const target = positionals[0];
  if ((target === undefined) === (values.payment === undefined)) throw new UsageError('pay needs a recipient (name or meta-address) or --payment <file>, not both', `usage: ${USAGE}`);
  if (values.payment !== undefined && announce === 'none') throw new UsageError('--payment is for announcing a saved payment: add --announce api or --announce chain', `usage: ${USAGE}`);
  if (announce === 'api') {
    requireApi(client, '--announce api', USAGE);
    if (txHash === undefined) throw new UsageError('--announce api needs --tx-hash (the transaction that paid the stealth address)', `usage: ${USAGE}`);
  }
  if (announce === 'chain') {
    if (rpcUrl === undefined) throw new UsageError('--announce chain needs --rpc <url> (or WRAITH_RPC_URL)', `usage: ${USAGE}`);
    if (values.payment === undefined && values.amount === undefined) throw new UsageError('--announce chain sends the payment: add --amount (e.g. --amount 0.5)', `usage: ${USAGE}`);
    if (!dryRun) readPrivateKey(); // fails now, before a name lookup, when the key is missing or malformed
  }
  if (values.yes === true && values.fingerprint === undefined) {
    throw new UsageError('--yes does not skip the fingerprint check: pass --fingerprint <the recipient\'s fingerprint> with it', `usage: ${USAGE}`);
  }
  if (dryRun && values.payment !== undefined) throw new UsageError('--dry-run shows a new payment: leave out --payment', `usage: ${USAGE}`);

  let payment: SavedPayment;
  let registrant: string | null = null;
  let fingerprint: string | null = null;
  let source: string | null = null;
  if (values.payment !== undefined) {
    payment = await loadPaymentFile(values.payment);
  } else {
    const recipient = await resolveRecipient(target!, {
      api: client,
      registry: rpcUrl === undefined ? undefined : async () => ({ client: (await chainOf()).client, ...(flags.registry === undefined ? {} : { registry: flags.registry }) }),
      ...(flags.ensUniversalResolver === undefined ? {} : { ensUniversalResolver: flags.ensUniversalResolver }),
      usage: USAGE,
    });
    // ERC-8441 Section 2.3: a recipient who offers scheme 3 is paid with it; 1000 only on request.
    if (scheme === 3 && recipient.meta.schemeId !== 3) throw new CliError('SCHEME_NOT_OFFERED', 'the recipient\'s meta-address is Wraith\'s 1218-byte form: it offers scheme 1000 only', 'leave out --scheme, or ask the recipient for their ERC-8441 (1250-byte) meta-address');
    const uri = metaAddressUriOf(recipient.meta);
    fingerprint = metaAddressFingerprint(recipient.meta.bytes);
    source = recipient.source;
    registrant = recipient.registrant;
    // Said first, on stdout with the results (stderr keeps one line for an error).
    if (!values.json) {
      result(`recipient: ${recipient.name ?? recipient.registrant ?? `a ${recipient.meta.bytes.length}-byte meta-address`}, ${recipient.source}`);
      result(`fingerprint: ${fingerprint}`);
    }
    await checkFingerprint(recipient.meta.bytes, fingerprint, { typed: recipient.typed, given: values.fingerprint, dryRun });
    payment = {
      ...createStealthPayment(recipient.meta, scheme === undefined ? {} : { schemeId: scheme }),
      recipient: recipient.name ?? recipient.registrant ?? uri,
      metaAddress: uri,
    };
    if (!values.json) result(`scheme: ${SCHEME_NAMES[payment.schemeId]}, for the recipient's ${recipient.meta.bytes.length}-byte meta-address`);
  }

  const summary: Record<string, unknown> = {
    recipient: payment.recipient,
    stealth_address: payment.stealthAddress,
    stealth_sui_address: payment.stealthSuiAddress,
    scheme_id: payment.schemeId,
    registrant,
    view_tag: payment.viewTag,
    amount: amount ?? null,
    announce,
    fingerprint,
    source,
  };

  if (dryRun) return dryRunReport({ payment, amount, amountOf, token, gasTopUp, rpcUrl, chainOf, announce, json: values.json === true, summary });
  // Kept before an address that can receive money is printed (or paid, after the funds check below).
  let kept = values.payment ?? null;
  const keep = async () => {
    kept = values.save ?? `wraith-payment-${payment.stealthAddress}.json`;
    await savePaymentFile(kept, payment, values.save !== undefined && values.force === true);
  };
  if (values.payment === undefined && announce !== 'chain') await keep();

  if (announce === 'none') {
    const what = amount === undefined ? 'the amount' : formatAmount(amount, NATIVE_UNIT);
    if (values.json) resultJson({ ...summary, ephemeral_key_bytes: payment.ephemeralCiphertext.length, saved: kept });
    else {
      result(`payment kept in ${kept}`);
      result(`stealth address (EVM): ${payment.stealthAddress}`);
      result(`stealth address (Sui): ${payment.stealthSuiAddress}`);
    }
    info(`Send ${what} to one of the addresses above (one payment per address), then announce it from the kept file (keep it until then: it is what lets the recipient find the money):`);
    info(`  wraith pay --payment ${kept} --announce chain --rpc <url>   (or --announce api --tx-hash <transfer hash> --api <url>)`);
    return;
  }

  if (announce === 'api') {
    // --token names the asset in the note: its amount reads by that asset's unit (a token's
    // decimals through --rpc; without it, base units only).
    if (amount === undefined && noteToken !== undefined) {
      amount = amountOf(noteToken === 'coin' ? NATIVE_UNIT : rpcUrl === undefined ? { symbol: 'the token (pass --rpc to read its decimals)', decimals: null } : await tokenUnit((await chainOf()).client, noteToken));
    }
    summary.amount = amount ?? null;
    const note: PaymentNoteInput = { txHash: txHash!, ...(amount === undefined ? {} : { amount }), ...(chainId === undefined ? {} : { chainId }), ...(noteToken === undefined ? {} : { token: noteToken }) };
    const published = await requireApi(client, '--announce api', USAGE).publishAnnouncement(
      announcementForPayment(payment, {
        txHash: txHash!,
        metadata: announcementMetadata(payment, note),
        ...(amount === undefined ? {} : { amount: amount.toString() }),
        ...(values.chain === undefined ? {} : { chain: values.chain }),
        ...(chainId === undefined ? {} : { chainId: Number(chainId) }),
      }),
    );
    if (values.json) resultJson({ ...summary, tx_hash: txHash, announcement_id: published.id });
    else {
      result(`stealth address (EVM): ${payment.stealthAddress}`);
      result(`stealth address (Sui): ${payment.stealthSuiAddress}`);
      result(`announced: registry id ${published.id}`);
    }
    return;
  }

  const { chain, client: chainClient } = await chainOf();
  const wallet = senderWallet(rpcUrl!, chain);
  let paymentHash: Hex | null = null;
  let topUpHash: Hex | null = null;
  let announcementHash: Hex;
  // The asset paid (--token with a recipient) or, announcing a payment made elsewhere, the one the note names.
  const unitToken = token ?? (noteToken !== undefined && noteToken !== 'coin' ? noteToken : undefined);
  const unit = unitToken === undefined ? NATIVE_UNIT : await tokenUnit(chainClient, unitToken);
  amount ??= amountOf(unit);
  summary.amount = amount ?? null;
  let paidTopUp = 0n;
  if (values.payment === undefined) {
    // Before the payment is kept or anything signed: a payment that must fail is refused here.
    const { asset, signWith } = await checkPayerFunds({ client: chainClient, payer: wallet.account.address, payment, amount: amount!, ...(token === undefined ? {} : { token }), ...(gasTopUp === undefined ? {} : { gasTopUp }) });
    if (asset.type === 'erc20') paidTopUp = asset.gasTopUp ?? 0n;
    // The payment is kept before money moves: should the announcement fail after the transfer, the
    // recipient could never find the funds, and this file is what announces them again.
    await keep();
    info(`payment kept in ${kept}; if the announcement fails: wraith pay --payment ${kept} --announce chain --rpc <url>`);
    ({ paymentHash, topUpHash, announcementHash } = await payStealth({ wallet, client: chainClient, payment, asset, signWith }));
  } else {
    const note: PaymentNoteInput = { chainId: chainId ?? BigInt(chain.id), ...(txHash === undefined ? {} : { txHash }), ...(amount === undefined ? {} : { amount }), ...(noteToken === undefined ? {} : { token: noteToken }) };
    announcementHash = await wallet.writeContract({ account: wallet.account, chain, ...announceParameters({ payment, note }) });
    const receipt = await chainClient.waitForTransactionReceipt({ hash: announcementHash });
    if (receipt.status !== 'success') throw new CliError('TX_REVERTED', `the announcement transaction ${announcementHash} reverted`, 'check that the ERC-5564 Announcer exists on this chain');
  }
  if (values.json) {
    const tokenFields = token === undefined ? {} : { token, symbol: unit.symbol, gas_top_up: paidTopUp, top_up_tx: topUpHash };
    resultJson({ ...summary, ...tokenFields, chain_id: chain.id, payment_tx: paymentHash, announcement_tx: announcementHash });
  } else {
    result(`stealth address (EVM): ${payment.stealthAddress}`);
    result(`stealth address (Sui): ${payment.stealthSuiAddress}`);
    if (paymentHash !== null) result(`paid: ${formatAmount(amount!, unit)} (${amount} base units${token === undefined ? '' : ` of ${token}`}) in ${paymentHash}`);
    if (topUpHash !== null) result(`gas top-up: ${formatAmount(paidTopUp, NATIVE_UNIT)} in ${topUpHash}`);
    // Through WraithPay the top-up goes with the payment, in the same transaction.
    else if (paidTopUp > 0n) result(`gas top-up: ${formatAmount(paidTopUp, NATIVE_UNIT)} with the payment`);
    result(`announced: ${announcementHash} (chain ${chain.id})`);
  }
}

/**
 * The fingerprint check before a payment is created: a `--fingerprint` given must match; a typed
 * meta-address without one is confirmed at the terminal (refused without one). A dry run creates
 * nothing payable, so it only shows the fingerprint.
 */
async function checkFingerprint(meta: Uint8Array, shown: string, options: { typed: boolean; given: string | undefined; dryRun: boolean }): Promise<void> {
  if (options.given !== undefined) {
    if (!fingerprintMatches(meta, options.given)) {
      throw new CliError('FINGERPRINT_MISMATCH', `the meta-address's fingerprint is ${shown}, not the ${options.given.slice(0, 40)} given; nothing was created or paid`, 'the meta-address is probably mistyped: copy it again from the recipient, or pay their name');
    }
    return;
  }
  if (!options.typed || options.dryRun) return;
  if (!process.stdin.isTTY) {
    throw new CliError(
      'FINGERPRINT_REQUIRED',
      `a meta-address given directly must be checked against the fingerprint its recipient shows (this one's is ${shown}); nothing was created or paid`,
      'ask the recipient for the fingerprint (wraith keys show, or the Receive page) and pass it as --fingerprint <value>, or pay their name',
    );
  }
  if (!(await confirm(`Does the recipient show the fingerprint ${shown}? (a different one means a mistyped meta-address)`))) {
    throw new CliError('CANCELLED', 'nothing was created or paid', 'copy the meta-address again from the recipient, or pay their name');
  }
}

/** `--dry-run`: the payment and its fees as they would be, with nothing kept, printed payable or signed. */
async function dryRunReport(options: {
  payment: SavedPayment;
  amount: bigint | undefined;
  amountOf: (unit: AssetUnit) => bigint | undefined;
  token: Address | undefined;
  gasTopUp: bigint | undefined;
  rpcUrl: string | undefined;
  chainOf: () => ReturnType<typeof connectChain>;
  announce: Announce;
  json: boolean;
  summary: Record<string, unknown>;
}): Promise<void> {
  const { payment, token, gasTopUp, rpcUrl, json } = options;
  let amount = options.amount;
  let unit = NATIVE_UNIT;
  let fees: { fee: bigint; l1Fee: bigint; coinNeeded: bigint; gasTopUp: bigint } | null = null;
  let feeNote = 'fees: pass --rpc and --amount, and set WRAITH_PRIVATE_KEY, to price them';
  if (rpcUrl !== undefined) {
    const { client } = await options.chainOf();
    if (token !== undefined) unit = await tokenUnit(client, token);
    amount ??= options.amountOf(unit);
    const key = process.env.WRAITH_PRIVATE_KEY;
    if (amount !== undefined && key !== undefined && key !== '' && options.announce === 'chain') {
      const checked = await checkPayerFunds({ client, payer: privateKeyToAccount(readPrivateKey()).address, payment, amount, ...(token === undefined ? {} : { token }), ...(gasTopUp === undefined ? {} : { gasTopUp }) });
      fees = { fee: checked.fee, l1Fee: checked.l1Fee, coinNeeded: checked.coinNeeded, gasTopUp: checked.asset.type === 'erc20' ? (checked.asset.gasTopUp ?? 0n) : 0n };
    } else if (options.announce !== 'chain') feeNote = 'fees: paid by the wallet that sends the transfer (and the announcement)';
  }
  // No address is shown: an address printed is an address someone can pay.
  if (json) {
    resultJson({
      ...options.summary,
      stealth_address: null,
      stealth_sui_address: null,
      dry_run: true,
      amount: amount ?? null,
      symbol: unit.symbol,
      ...(fees === null ? {} : { fee_at_most: fees.fee, l1_fee: fees.l1Fee, coin_needed_at_most: fees.coinNeeded, gas_top_up: fees.gasTopUp }),
    });
    return;
  }
  if (amount !== undefined) result(`amount: ${formatAmount(amount, unit)}${token === undefined ? '' : ` (${amount} base units of ${token})`}`);
  if (fees !== null) {
    if (token !== undefined) result(`gas top-up: ${formatAmount(fees.gasTopUp, NATIVE_UNIT)}`);
    result(`fees: at most ${formatAmount(fees.fee, NATIVE_UNIT)}${fees.l1Fee > 0n ? ` (L1 data fee ${formatAmount(fees.l1Fee, NATIVE_UNIT)} of it)` : ''}; the paying account needs at most ${formatAmount(fees.coinNeeded, NATIVE_UNIT)} of the coin`);
  } else result(feeNote);
  result(`dry run: scheme ${payment.schemeId}; nothing was kept or signed, and no address to pay was created`);
}
