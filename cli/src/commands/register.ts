/**
 * `wraith register`: publish the identity's meta-address in the ERC-6538 registry, so that anyone
 * can pay a plain `0x` address (ERC-8441 Section 2.3; PROTOCOL.md section 10). By default the
 * 1250-byte ERC-8441 form under scheme 3 (a Wraith sender can still pay it with scheme 1000);
 * `--scheme 1000` registers the 1218-byte form; `--clear` registers the empty value, which
 * senders read as unregistered.
 *
 *   direct    `registerKeys`, sent and paid by WRAITH_PRIVATE_KEY's account, the registrant.
 *   --sign    the registrant (WRAITH_PRIVATE_KEY) signs the EIP-712 registration for someone
 *             else to submit; sends nothing, needs no coin. The JSON printed holds no secret: it
 *             authorises exactly this registration, once (the registry's nonce).
 *   --relay f submit such a signature (`registerKeysOnBehalf`), paid by WRAITH_PRIVATE_KEY's
 *             account; no keystore needed.
 *
 * The price is shown before anything is signed: gas × max fee per gas, plus the L1 data fee on
 * the OP Stack (the bytes are stored on chain: about 0.96 M gas for a first 1250-byte
 * registration). A registration that changes nothing is not sent.
 * @module
 */
import { ERC6538_REGISTRY_ADDRESS, erc6538Abi, estimateTransactionFees, feePaidOf, registerKeysOnBehalfParameters, registerKeysParameters, signRegistration } from '@wraith-pq/sdk/evm';
import { BaseError, bytesToHex, getAddress, hexToBytes, isAddress, isHex, type Address, type Hex, type PublicClient } from 'viem';
import { formatAmount, NATIVE_UNIT } from '../amounts.js';
import { parseCommand, urlFlag } from '../args.js';
import { connectChain, senderWallet } from '../chain.js';
import { confirm } from '../confirm.js';
import { CliError, UsageError } from '../errors.js';
import { addressFlag } from '../typed-address.js';
import { parseJsonFile, readTextFile } from '../files.js';
import { erc8441KeysOfKeystore, openKeystoreFile } from '../keystore-file.js';
import { info, result, resultJson } from '../output.js';
import { readPrivateKey } from '../secrets.js';

export const USAGE =
  'wraith register --keystore <file> --rpc <url> [--scheme 3|1000] [--clear] [--sign] [--registry <address>] [--yes] [--json]\n       wraith register --relay <signature.json> --rpc <url> [--yes] [--json]   (the account paying: WRAITH_PRIVATE_KEY)';

const OPTIONS = {
  keystore: { type: 'string' },
  rpc: { type: 'string' },
  scheme: { type: 'string' },
  clear: { type: 'boolean' },
  sign: { type: 'boolean' },
  relay: { type: 'string' },
  registry: { type: 'string' },
  yes: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** What `--sign` prints and `--relay` reads: public data only. */
type SignatureFileJson = {
  kind: 'wraith-erc6538-registration';
  chain_id: number;
  registry: Address;
  registrant: Address;
  scheme_id: number;
  /** Hex of the bytes registered ("0x" clears the scheme). */
  meta_address: Hex;
  nonce: string;
  signature: Hex;
};

export async function registerCommand(argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, OPTIONS, 0, USAGE);
  const rpcUrl = urlFlag(values.rpc, process.env.WRAITH_RPC_URL, 'rpc', 'WRAITH_RPC_URL', USAGE);
  if (rpcUrl === undefined) throw new UsageError('register needs --rpc <url> (or WRAITH_RPC_URL)', `usage: ${USAGE}`);
  if (values.scheme !== undefined && values.scheme !== '3' && values.scheme !== '1000') throw new UsageError('--scheme must be 3 or 1000', `usage: ${USAGE}`);
  const registryFlag = values.registry === undefined ? undefined : addressFlag(values.registry, 'registry', USAGE);
  if (values.relay !== undefined) {
    if (values.keystore !== undefined || values.sign || values.clear || values.scheme !== undefined || values.registry !== undefined) {
      throw new UsageError('--relay submits a signed registration as it is: leave out --keystore, --sign, --clear, --scheme and --registry', `usage: ${USAGE}`);
    }
  } else if (values.keystore === undefined) {
    throw new UsageError('--keystore is required (or --relay <signature.json>)', `usage: ${USAGE}`);
  }
  readPrivateKey(); // fails now, before the keystore is opened, when missing or malformed

  const { chain, client } = await connectChain(rpcUrl);
  const wallet = senderWallet(rpcUrl, chain);
  let call: { address: Address; data: Hex; schemeId: number };
  let registrant: Address;
  let value: Hex;
  if (values.relay !== undefined) {
    const signed = await readSignatureFile(values.relay);
    if (signed.chain_id !== chain.id) throw new CliError('CHAIN_MISMATCH', `the registration was signed for chain ${signed.chain_id}, and --rpc is chain ${chain.id}`, 'pass the RPC of the chain it was signed for');
    ({ registrant, meta_address: value } = signed);
    const metaAddress = value === '0x' ? null : hexToBytes(value);
    call = registerKeysOnBehalfParameters({ registrant, signature: signed.signature, metaAddress, schemeId: signed.scheme_id, registry: signed.registry });
  } else {
    const keys = await openKeystoreFile(values.keystore!);
    const schemeId = values.scheme === '1000' ? 1000 : 3;
    let metaAddress: Uint8Array | null = null;
    if (!values.clear) {
      const erc8441 = erc8441KeysOfKeystore(keys);
      if (schemeId === 3 && erc8441 === null) throw new CliError('NO_ERC8441_KEYS', 'this keystore holds no ML-KEM seed, so it has no ERC-8441 meta-address', 'register --scheme 1000, or make a new keystore (wraith keys new)');
      metaAddress = schemeId === 3 ? erc8441!.metaAddress : keys.metaAddress;
    }
    const registry = registryFlag ?? ERC6538_REGISTRY_ADDRESS;
    registrant = wallet.account.address;
    value = metaAddress === null ? '0x' : bytesToHex(metaAddress);
    if (values.sign) {
      const signed = await signRegistration({ wallet, client, metaAddress, schemeId, registry });
      const json: SignatureFileJson = { kind: 'wraith-erc6538-registration', chain_id: chain.id, registry, registrant, scheme_id: schemeId, meta_address: value, nonce: signed.nonce.toString(), signature: signed.signature };
      info(`signed the registration of ${describeValue(value, schemeId)} for ${registrant} on chain ${chain.id} (nonce ${signed.nonce}); nothing was sent`);
      info('whoever submits it (wraith register --relay <file>) pays the gas; it is spent by one registration');
      resultJson(json);
      return;
    }
    call = registerKeysParameters({ metaAddress, schemeId, registry });
  }

  const current = await client.readContract({ address: call.address, abi: erc6538Abi, functionName: 'stealthMetaAddressOf', args: [registrant, BigInt(call.schemeId)] });
  if (current.toLowerCase() === value.toLowerCase()) {
    info(`${registrant} already has ${describeValue(value, call.schemeId)} registered under scheme ${call.schemeId}: nothing to send`);
    if (values.json) resultJson({ registrant, scheme_id: call.schemeId, registry: call.address, tx_hash: null, unchanged: true });
    else result(`unchanged: ${registrant} scheme ${call.schemeId}`);
    return;
  }

  const sender = wallet.account.address;
  const gas = await estimateGas(client, sender, call);
  const price = await estimateTransactionFees({ client, from: sender, transactions: [{ to: call.address, data: call.data, gas }] });
  const balance = await client.getBalance({ address: sender });
  const l1 = price.l1Fee > 0n ? `, of which ${formatAmount(price.l1Fee, NATIVE_UNIT)} L1 data fee` : '';
  info(`register ${describeValue(value, call.schemeId)} under scheme ${call.schemeId} for ${registrant} on chain ${chain.id}${values.relay === undefined ? '' : ` (relayed: ${sender} pays)`}:`);
  info(`  ${gas} gas, fee at most ${formatAmount(price.total, NATIVE_UNIT)}${l1}; ${sender} holds ${formatAmount(balance, NATIVE_UNIT)}`);
  if (call.schemeId === 3 && value !== '0x') info('  the registration links this address to your meta-address in public: anyone can pay it, and anyone can see it receives stealth payments');
  if (balance < price.total) {
    throw new CliError('INSUFFICIENT_FUNDS', `${sender} holds ${formatAmount(balance, NATIVE_UNIT)}, and the registration needs up to ${formatAmount(price.total, NATIVE_UNIT)}; nothing was sent`, 'fund the account with the chain\'s coin, or have someone relay it: wraith register --sign, then wraith register --relay');
  }
  if (values.yes !== true && !(await confirm('Send the registration?'))) throw new CliError('CANCELLED', 'nothing was registered', 'run the command again to register');

  const hash = await wallet.sendTransaction({ account: wallet.account, chain, to: call.address, data: call.data, gas });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new CliError('TRANSACTION_REVERTED', `the registration ${hash} reverted`, 'check the registry address and the signature, then try again');
  const stored = await client.readContract({ address: call.address, abi: erc6538Abi, functionName: 'stealthMetaAddressOf', args: [registrant, BigInt(call.schemeId)] });
  if (stored.toLowerCase() !== value.toLowerCase()) throw new CliError('REGISTRATION_NOT_STORED', `the registry does not hold the registered value after ${hash}`, 'check --registry: it may not be an ERC-6538 registry');
  const feePaid = await feePaidOf({ client, receipt });
  if (values.json) resultJson({ registrant, scheme_id: call.schemeId, registry: call.address, chain_id: chain.id, tx_hash: hash, gas_used: receipt.gasUsed, fee_paid: feePaid, cleared: value === '0x' });
  else result(`${value === '0x' ? 'cleared' : 'registered'}: ${registrant} scheme ${call.schemeId} in ${hash} (${receipt.gasUsed} gas, fee ${formatAmount(feePaid, NATIVE_UNIT)})`);
}

function describeValue(value: Hex, schemeId: number): string {
  if (value === '0x') return 'the empty value (clearing the scheme)';
  return `the ${(value.length - 2) / 2}-byte ${schemeId === 3 ? 'ERC-8441' : 'Wraith'} meta-address`;
}

/** The gas of the registration; a refusal by the registry (a bad or spent signature) is named as such. */
async function estimateGas(client: PublicClient, from: Address, call: { address: Address; data: Hex }): Promise<bigint> {
  try {
    return await client.estimateGas({ account: from, to: call.address, data: call.data });
  } catch (error) {
    if (error instanceof BaseError && /revert/i.test(`${error.shortMessage} ${error.details ?? ''}`)) {
      throw new CliError('REGISTRATION_REFUSED', 'the registry refuses this registration: the signature does not match the registrant, scheme, bytes and current nonce (spent, revoked, or for another registry)', 'ask the registrant to sign again (wraith register --sign)');
    }
    throw error;
  }
}

async function readSignatureFile(path: string): Promise<SignatureFileJson> {
  const json = parseJsonFile(await readTextFile(path, '--relay'), path, '--relay') as Partial<SignatureFileJson> | null;
  const ok =
    typeof json === 'object' && json !== null && json.kind === 'wraith-erc6538-registration' &&
    Number.isSafeInteger(json.chain_id) && Number.isSafeInteger(json.scheme_id) &&
    typeof json.registry === 'string' && isAddress(json.registry, { strict: false }) &&
    typeof json.registrant === 'string' && isAddress(json.registrant, { strict: false }) &&
    typeof json.meta_address === 'string' && isHex(json.meta_address) &&
    typeof json.signature === 'string' && /^0x[0-9a-fA-F]{130}$/.test(json.signature);
  if (!ok) throw new CliError('INVALID_FILE', `--relay ${path} is not a signed registration`, 'pass the JSON printed by `wraith register --sign`');
  return { ...(json as SignatureFileJson), registry: getAddress(json!.registry!), registrant: getAddress(json!.registrant!) };
}
