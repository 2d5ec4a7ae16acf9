/**
 * `wraith name register|change|release|show <name>`: a name at a Wraith server's ENS gateway
 * (issue 33), which any wallet can then pay at a fresh one-time address per lookup.
 *
 * A label under the server's parent name (`alice.<parent>`) is signed for with the keystore's
 * spending key (never sent: the signature is made here, over the SDK's
 * `nameRegistrationMessage`). By default the ERC-8441 form is registered (paid with scheme 3);
 * `--scheme 1000` registers the Wraith form. Before anything is signed the command says what the
 * server's operator will see.
 * @module
 */
import { bytesToHex, type GatewayNameJson } from '@wraith-pq/sdk';
import { privateKeyToAccount } from 'viem/accounts';
import { parseCommand } from '../args.js';
import { confirm } from '../confirm.js';
import { CliError, UsageError } from '../errors.js';
import { erc8441KeysOfKeystore, openKeystoreFile } from '../keystore-file.js';
import { info, result, resultJson } from '../output.js';
import { apiClient, requireApi } from '../recipient.js';

export const USAGE = 'wraith name (register|change|release|show) <name> --api <url> [--keystore <file>] [--scheme 3|1000] [--yes] [--json]';

/** What the operator of the gateway sees, said before a name is registered. */
export const OPERATOR_SEES =
  'the server\'s operator will see every one-time address it hands out for this name, hence every payment received that way and its amount, and each payer\'s IP address (not their wallet address); it cannot spend. For no third party, run your own deployment.';

const OPTIONS = { api: { type: 'string' }, keystore: { type: 'string' }, scheme: { type: 'string' }, yes: { type: 'boolean' }, json: { type: 'boolean' } } as const;

export async function nameCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand(argv, OPTIONS, 2, USAGE);
  const [action, name] = positionals;
  if (action === undefined || name === undefined || !['register', 'change', 'release', 'show'].includes(action)) {
    throw new UsageError('name needs an action (register, change, release or show) and a name', `usage: ${USAGE}`);
  }
  if (values.scheme !== undefined && values.scheme !== '3' && values.scheme !== '1000') throw new UsageError('--scheme must be 3 or 1000', `usage: ${USAGE}`);
  const client = requireApi(apiClient(values.api, USAGE), 'a name at an ENS gateway', USAGE);
  let answer: GatewayNameJson;
  if (action === 'show') answer = await client.showName(name);
  else {
    if (values.keystore === undefined) throw new UsageError(`name ${action} needs --keystore <file> (its spending key signs)`, `usage: ${USAGE}`);
    const keys = await openKeystoreFile(values.keystore);
    const account = privateKeyToAccount(`0x${bytesToHex(keys.spendingSecretKey)}`);
    const sign = (message: string) => account.signMessage({ message });
    if (action === 'release') answer = await client.releaseName({ name, sign });
    else {
      const erc8441 = erc8441KeysOfKeystore(keys);
      if (values.scheme !== '1000' && erc8441 === null) throw new CliError('NO_ERC8441_KEYS', 'this keystore holds no ML-KEM seed, so it has no ERC-8441 meta-address', 'pass --scheme 1000');
      const metaAddress = values.scheme === '1000' ? keys.metaAddress : erc8441!.metaAddress;
      info(`Before you ${action} ${name}: ${OPERATOR_SEES}`);
      if (!values.yes && !(await confirm(`${action} ${name}?`))) throw new CliError('CANCELLED', 'nothing was registered', 'run again and answer yes, or pass --yes');
      answer = await (action === 'register' ? client.registerName({ name, metaAddress, sign }) : client.changeName({ name, metaAddress, sign }));
    }
  }
  if (values.json) resultJson(answer);
  else result(answer.registered ? `${answer.name}: registered (${answer.kind}), paid at a fresh one-time address per lookup` : `${answer.name}: not registered`);
}
