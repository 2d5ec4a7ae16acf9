/**
 * `wraith keys new | show | from-signature`: recipient keys in an encrypted keystore file.
 * Only public values are printed (the meta-address, the spending public key); the secrets stay
 * in the file, sealed under the password.
 *
 * One identity has two meta-address forms (PROTOCOL.md section 10): Wraith's 1218-byte form
 * (scheme 1000) and ERC-8441's 1250-byte form (scheme 3), which `wraith register` publishes.
 * `keys show --tracking-key` also prints the ERC-8441 tracking key (96 bytes): it cannot spend,
 * but whoever holds it finds every scheme-3 payment of the identity and so links them all.
 *
 * Each form is shown with its fingerprint (`metaAddressFingerprint`, on stderr beside the
 * stdout lines, in `--json` as `fingerprint`): a payer who copies the meta-address compares it
 * before paying (`wraith pay --fingerprint`), as one mistyped character still decodes.
 * @module
 */
import { existsSync } from 'node:fs';
import { bytesToHex, deriveKeysFromSignature, formatErc8441MetaAddressUri, formatMetaAddressUri, generateKeys, metaAddressFingerprint, type RecipientKeys } from '@wraith-pq/sdk';
import { parseCommand } from '../args.js';
import { CliError, UsageError } from '../errors.js';
import { erc8441KeysOfKeystore, openKeystoreFile, writeKeystoreFile, type OpenedKeys } from '../keystore-file.js';
import { info, result, resultJson } from '../output.js';
import { readSecretInput } from '../secrets.js';

const USAGES = {
  new: 'wraith keys new --out <keystore.json> [--kdf pbkdf2|scrypt] [--force] [--json]',
  show: 'wraith keys show --keystore <keystore.json> [--scheme 3|1000] [--tracking-key] [--json]',
  fromSignature: 'wraith keys from-signature --out <keystore.json> [--kdf pbkdf2|scrypt] [--force] [--json]  (signature from WRAITH_SIGNATURE or stdin)',
};

export const USAGE = Object.values(USAGES).join('\n       ');

/** The public face of a key set. */
function describeKeys(keys: Pick<RecipientKeys, 'metaAddress' | 'spendingPublicKey' | 'viewingPublicKey'>) {
  return {
    meta_address: formatMetaAddressUri(keys.metaAddress),
    fingerprint: metaAddressFingerprint(keys.metaAddress),
    spending_public_key: bytesToHex(keys.spendingPublicKey),
    viewing_public_key_bytes: keys.viewingPublicKey.length,
  };
}

function printKeys(keys: OpenedKeys | RecipientKeys, json: boolean, keystore: string): void {
  const described = describeKeys(keys);
  if (json) resultJson({ keystore, ...described });
  else {
    result(described.meta_address);
    info(`fingerprint: ${described.fingerprint} (payers compare it before paying this meta-address)`);
  }
}

function kdfOf(value: string | undefined, usage: string): 'pbkdf2' | 'scrypt' | undefined {
  if (value === undefined || value === 'pbkdf2' || value === 'scrypt') return value;
  throw new UsageError('--kdf must be pbkdf2 or scrypt', `usage: ${usage}`);
}

async function sealNew(argv: string[], usage: string, make: () => Promise<RecipientKeys>): Promise<void> {
  const { values } = parseCommand(argv, { out: { type: 'string' }, kdf: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } }, 0, usage);
  if (values.out === undefined) throw new UsageError('--out is required', `usage: ${usage}`);
  const kdf = kdfOf(values.kdf, usage);
  if (!values.force && existsSync(values.out)) throw new CliError('FILE_EXISTS', `--out ${values.out} already exists`, 'choose another path, or pass --force to replace it');
  const keys = await make();
  await writeKeystoreFile(values.out, keys, { overwrite: values.force === true, ...(kdf === undefined ? {} : { kdf }) });
  info(`keystore written to ${values.out} (encrypted; keep a backup and the password)`);
  printKeys(keys, values.json === true, values.out);
}

export async function keysCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'new':
      return sealNew(rest, USAGES.new, async () => generateKeys());
    case 'from-signature':
      return sealNew(rest, USAGES.fromSignature, async () => deriveKeysFromSignature(await readSecretInput('WRAITH_SIGNATURE', 'wallet signature')));
    case 'show':
      return showKeys(rest);
    default:
      throw new UsageError(sub === undefined ? 'keys needs a subcommand' : `unknown keys subcommand ${JSON.stringify(sub)}`, `usage: ${USAGES.new} | ${USAGES.show} | ${USAGES.fromSignature}`);
  }
}

/**
 * Both meta-address forms, one a line on stdout (Wraith's, then ERC-8441's; `--scheme` prints
 * one), or JSON; the tracking key only with `--tracking-key`, with a warning.
 */
async function showKeys(argv: string[]): Promise<void> {
  const usage = USAGES.show;
  const { values } = parseCommand(argv, { keystore: { type: 'string' }, json: { type: 'boolean' }, scheme: { type: 'string' }, 'tracking-key': { type: 'boolean' } }, 0, usage);
  if (values.keystore === undefined) throw new UsageError('--keystore is required', `usage: ${usage}`);
  if (values.scheme !== undefined && values.scheme !== '3' && values.scheme !== '1000') throw new UsageError('--scheme must be 3 or 1000', `usage: ${usage}`);
  const keys = await openKeystoreFile(values.keystore);
  const erc8441 = erc8441KeysOfKeystore(keys);
  if ((values.scheme === '3' || values['tracking-key']) && erc8441 === null) {
    throw new CliError('NO_ERC8441_KEYS', 'this keystore holds no ML-KEM seed, so it has no ERC-8441 meta-address or tracking key', 'make a new keystore (wraith keys new) to receive under scheme 3');
  }
  const wraithForm = formatMetaAddressUri(keys.metaAddress);
  const erc8441Form = erc8441 === null ? null : formatErc8441MetaAddressUri(erc8441.metaAddress);
  if (values['tracking-key']) {
    info('the tracking key cannot spend, but it finds every scheme-3 payment of these keys and so links them all: give it only to a scanning service you trust with that');
  }
  if (values.json) {
    resultJson({
      keystore: values.keystore,
      ...describeKeys(keys),
      erc8441_meta_address: erc8441Form,
      erc8441_fingerprint: erc8441 === null ? null : metaAddressFingerprint(erc8441.metaAddress),
      ...(values['tracking-key'] ? { tracking_key: `0x${bytesToHex(erc8441!.trackingKey)}` } : {}),
    });
    return;
  }
  if (values.scheme !== '3') result(wraithForm);
  if (values.scheme !== '1000' && erc8441Form !== null) result(erc8441Form);
  const wraithPrint = metaAddressFingerprint(keys.metaAddress);
  const erc8441Print = erc8441 === null ? null : metaAddressFingerprint(erc8441.metaAddress);
  if (values.scheme === undefined) {
    info(`line 1: Wraith's form (1218 bytes, scheme 1000), fingerprint ${wraithPrint}${erc8441Print === null ? '' : `; line 2: ERC-8441's form (1250 bytes, scheme 3), the one \`wraith register\` publishes, fingerprint ${erc8441Print}`}`);
  } else info(`fingerprint: ${values.scheme === '3' ? erc8441Print : wraithPrint}`);
  info('a payer who copies a meta-address compares its fingerprint before paying (wraith pay --fingerprint)');
  if (values['tracking-key']) result(`tracking key: 0x${bytesToHex(erc8441!.trackingKey)}`);
}
