/**
 * `wraith pay`: a one-time payment to a name or meta-address, created here (the recipient's
 * keys never leave them, the sender's never reach a server), and its announcement.
 *
 *   --announce none   (default) print the stealth address and what to send; `--save f` keeps
 *                     the payment so it can be announced once the transfer is made.
 *   --announce api    publish the announcement to the server's registry, naming the transfer's
 *                     `--tx-hash`, with a note sealed for the recipient (amount, tx, chain id).
 *   --announce chain  with `--amount`: send the amount from WRAITH_PRIVATE_KEY to the stealth
 *                     address and announce it on the ERC-5564 Announcer (`payStealth`); with
 *                     `--token t` the amount is of that ERC-20, sent with a gas top-up in the
 *                     coin (default: the SDK's `estimateGasTopUp`) so the recipient can withdraw
 *                     it; the payer's token and coin balances are checked before anything is
 *                     signed (src/payer-funds.ts). With `--payment f` (already paid): the
 *                     announcement alone.
 * @module
 */
import { announcementForPayment, announcementMetadata, createStealthPayment, type PaymentNoteInput } from '@wraith-pq/sdk';
import { announceParameters, payStealth } from '@wraith-pq/sdk/evm';
import { getAddress, isAddress, type Address, type Hex } from 'viem';
import { formatAmount, NATIVE_UNIT, tokenUnit } from '../amounts.js';
import { bigintFlag, parseCommand, urlFlag } from '../args.js';
import { connectChain, senderWallet } from '../chain.js';
import { CliError, UsageError } from '../errors.js';
import { info, result, resultJson } from '../output.js';
import { loadPaymentFile, savePaymentFile, type SavedPayment } from '../payment-file.js';
import { checkPayerFunds } from '../payer-funds.js';
import { apiClient, metaAddressUriOf, requireApi, resolveRecipient } from '../recipient.js';
import { registryFlags, REGISTRY_OPTIONS } from '../registry-flags.js';
import { readPrivateKey } from '../secrets.js';

export const USAGE =
  'wraith pay (<name|0x address|meta-address> | --payment <file>) [--scheme 3|1000] [--registry <address>] [--ens-resolver <address>] [--amount <base units>] [--token <address> [--gas-top-up <wei>]] [--announce none|api|chain] [--tx-hash <0x…>] [--api <url>] [--rpc <url>] [--chain-id <n>] [--chain <label>] [--save <file>] [--json]';

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
  const amount = bigintFlag(values.amount, 'amount', USAGE);
  const chainId = bigintFlag(values['chain-id'], 'chain-id', USAGE);
  const txHash = txHashFlag(values['tx-hash']);
  const gasTopUp = bigintFlag(values['gas-top-up'], 'gas-top-up', USAGE);
  let token: Address | undefined;
  if (values.token !== undefined) {
    if (!isAddress(values.token, { strict: false })) throw new UsageError('--token must be the ERC-20 contract\'s address (0x + 40 hex)', `usage: ${USAGE}`);
    token = getAddress(values.token);
    if (announce !== 'chain' || values.payment !== undefined) throw new UsageError('--token pays an ERC-20 with --announce chain (and a recipient, not --payment)', `usage: ${USAGE}`);
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
    if (values.payment === undefined && amount === undefined) throw new UsageError('--announce chain sends the payment: add --amount <wei>', `usage: ${USAGE}`);
    readPrivateKey(); // fails now, before a name lookup, when the key is missing or malformed
  }

  let payment: SavedPayment;
  let registrant: string | null = null;
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
    payment = {
      ...createStealthPayment(recipient.meta, scheme === undefined ? {} : { schemeId: scheme }),
      recipient: recipient.name ?? recipient.registrant ?? uri,
      metaAddress: uri,
    };
    registrant = recipient.registrant;
    const from = recipient.registrant === null ? '' : ` registered by ${recipient.registrant} in the ERC-6538 registry`;
    // Said first, on stdout with the results (stderr keeps one line for an error).
    if (!values.json) result(`scheme: ${SCHEME_NAMES[payment.schemeId]}, for the recipient's ${recipient.meta.bytes.length}-byte meta-address${from}`);
    if (values.save !== undefined) await savePaymentFile(values.save, payment, values.force === true);
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
  };

  if (announce === 'none') {
    const what = amount === undefined ? 'the amount' : `${amount} (base units)`;
    if (values.json) resultJson({ ...summary, ephemeral_key_bytes: payment.ephemeralCiphertext.length, saved: values.save ?? null });
    else {
      result(`stealth address (EVM): ${payment.stealthAddress}`);
      result(`stealth address (Sui): ${payment.stealthSuiAddress}`);
    }
    info(`Send ${what} to one of the addresses above (one payment per address), then announce it:`);
    info(
      values.save === undefined
        ? '  run pay again with --save <file> to keep this payment for announcing, or use --announce chain to pay and announce in one step'
        : `  wraith pay --payment ${values.save} --announce api --tx-hash <transfer hash> --api <url>   (or --announce chain --rpc <url>)`,
    );
    return;
  }

  if (announce === 'api') {
    const note: PaymentNoteInput = { txHash: txHash!, ...(amount === undefined ? {} : { amount }), ...(chainId === undefined ? {} : { chainId }) };
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
  const unit = token === undefined ? NATIVE_UNIT : await tokenUnit(chainClient, token);
  let paidTopUp = 0n;
  if (values.payment === undefined) {
    // Before the payment is kept or anything signed: a payment that must fail is refused here.
    const { asset, signWith } = await checkPayerFunds({ client: chainClient, payer: wallet.account.address, payment, amount: amount!, ...(token === undefined ? {} : { token }), ...(gasTopUp === undefined ? {} : { gasTopUp }) });
    if (asset.type === 'erc20') paidTopUp = asset.gasTopUp ?? 0n;
    // The payment is kept before money moves: should the announcement fail after the transfer, the
    // recipient could never find the funds, and this file is what announces them again.
    const kept = values.save ?? `wraith-payment-${payment.stealthAddress}.json`;
    if (values.save === undefined) await savePaymentFile(kept, payment, false);
    info(`payment kept in ${kept}; if the announcement fails: wraith pay --payment ${kept} --announce chain --rpc <url>`);
    ({ paymentHash, topUpHash, announcementHash } = await payStealth({ wallet, client: chainClient, payment, asset, signWith }));
  } else {
    const note: PaymentNoteInput = { chainId: chainId ?? BigInt(chain.id), ...(txHash === undefined ? {} : { txHash }), ...(amount === undefined ? {} : { amount }) };
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
