/**
 * `wraith keys new | show | from-signature`: recipient keys in an encrypted keystore file.
 * Only public values are printed (the meta-address, the spending public key); the secrets stay
 * in the file, sealed under the password.
 * @module
 */
import { existsSync } from 'node:fs';
import { bytesToHex, deriveKeysFromSignature, formatMetaAddressUri, generateKeys, type RecipientKeys } from '@wraith-pq/sdk';
import { parseCommand } from '../args.js';
import { CliError, UsageError } from '../errors.js';
import { openKeystoreFile, writeKeystoreFile, type OpenedKeys } from '../keystore-file.js';
import { info, result, resultJson } from '../output.js';
import { readSecretInput } from '../secrets.js';

const USAGES = {
  new: 'wraith keys new --out <keystore.json> [--kdf pbkdf2|scrypt] [--force] [--json]',
  show: 'wraith keys show --keystore <keystore.json> [--json]',
  fromSignature: 'wraith keys from-signature --out <keystore.json> [--kdf pbkdf2|scrypt] [--force] [--json]  (signature from WRAITH_SIGNATURE or stdin)',
};

export const USAGE = Object.values(USAGES).join('\n       ');

/** The public face of a key set. */
function describeKeys(keys: Pick<RecipientKeys, 'metaAddress' | 'spendingPublicKey' | 'viewingPublicKey'>) {
  return {
    meta_address: formatMetaAddressUri(keys.metaAddress),
    spending_public_key: bytesToHex(keys.spendingPublicKey),
    viewing_public_key_bytes: keys.viewingPublicKey.length,
  };
}

function printKeys(keys: OpenedKeys | RecipientKeys, json: boolean, keystore: string): void {
  const described = describeKeys(keys);
  if (json) resultJson({ keystore, ...described });
  else result(described.meta_address);
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
    case 'show': {
      const { values } = parseCommand(rest, { keystore: { type: 'string' }, json: { type: 'boolean' } }, 0, USAGES.show);
      if (values.keystore === undefined) throw new UsageError('--keystore is required', `usage: ${USAGES.show}`);
      printKeys(await openKeystoreFile(values.keystore), values.json === true, values.keystore);
      return;
    }
    default:
      throw new UsageError(sub === undefined ? 'keys needs a subcommand' : `unknown keys subcommand ${JSON.stringify(sub)}`, `usage: ${USAGES.new} | ${USAGES.show} | ${USAGES.fromSignature}`);
  }
}
