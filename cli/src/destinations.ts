/**
 * Where withdrawals go. Withdrawing several stealth addresses to one destination links them on
 * chain for anyone who looks (the payments are then known to have one owner), so by default each
 * payment goes to its own fresh address, read from `--to-file` (one address a line, used in
 * order, passing over any already used: a resumed run never reuses one); one `--to` for several payments, or a repeated line in the file, needs
 * `--allow-linking` (umbra-protocol #107, #204: warn before withdrawing to a reused address).
 * @module
 */
import { getAddress, isAddress, type Address } from 'viem';
import { CliError, UsageError } from './errors.js';
import { readTextFile } from './files.js';

/** One address per payment, in the order of `count` payments; refuses what would link them unless `allowLinking`. */
export async function assignDestinations(options: {
  to?: string;
  toFile?: string;
  count: number;
  allowLinking: boolean;
  stealthAddresses: readonly Address[];
  /** Whether a `--to-file` address was used already (by an earlier run, or on chain): such addresses are passed over. */
  isUsed: (address: Address) => Promise<boolean>;
  usage: string;
}): Promise<Address[]> {
  const { to, toFile, count, allowLinking, usage } = options;
  if ((to === undefined) === (toFile === undefined)) throw new UsageError('pass a destination: --to <address> or --to-file <file of fresh addresses, one per payment>', `usage: ${usage}`);
  let list: Address[];
  if (to !== undefined) {
    if (!isAddress(to, { strict: false })) throw new UsageError('--to must be an EVM address (0x + 40 hex)', `usage: ${usage}`);
    list = Array.from({ length: count }, () => getAddress(to));
  } else {
    const lines = (await readTextFile(toFile!, '--to-file')).split('\n').map((l) => l.replace(/#.*/, '').trim()).filter((l) => l !== '');
    lines.forEach((line, i) => {
      if (!isAddress(line, { strict: false })) throw new CliError('INVALID_FILE', `--to-file ${toFile}: line ${i + 1} is not an EVM address`, 'write one address (0x + 40 hex) per line');
    });
    // Fresh means unused: a resumed run passes over the addresses earlier runs filled.
    const unused: Address[] = [];
    for (const line of lines) {
      if (unused.length === count) break;
      const address = getAddress(line);
      if (!unused.includes(address) && !(await options.isUsed(address))) unused.push(address);
    }
    if (unused.length < count) {
      throw new CliError('NOT_ENOUGH_DESTINATIONS', `--to-file ${toFile} has ${unused.length} unused address${unused.length === 1 ? '' : 'es'} for ${count} payments`, 'add one fresh address per payment (addresses already used are passed over)');
    }
    list = unused;
  }
  const own = new Set(options.stealthAddresses);
  const ownDestination = list.find((a) => own.has(a));
  if (ownDestination !== undefined) throw new CliError('INVALID_DESTINATION', `the destination ${ownDestination} is one of the stealth addresses being withdrawn`, 'withdraw to an address of your own wallet');
  const repeated = list.find((a, i) => list.indexOf(a) !== i);
  if (repeated !== undefined && !allowLinking) {
    throw new CliError(
      'WOULD_LINK_PAYMENTS',
      `${count} payments would go to one destination (${repeated}): that links them on chain, anyone can then see they belong to one person`,
      'use --to-file with one fresh address per payment, or pass --allow-linking to accept the link',
    );
  }
  return list;
}
