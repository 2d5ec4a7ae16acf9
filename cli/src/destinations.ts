/**
 * Where withdrawals go. Withdrawing several stealth addresses to one destination links them on
 * chain for anyone who looks (the payments are then known to have one owner), so by default each
 * payment goes to its own fresh address, read from `--to-file` (one address a line, used in
 * order, passing over any already used: a resumed run never reuses one) or derived from the
 * user's HD wallet (`--to-derive`, src/derivation.ts: one index per payment, kept so a resumed run
 * gives each payment the same one); one `--to` for several payments, or a repeated line in the
 * file, needs `--allow-linking` (umbra-protocol #107, #204: warn before withdrawing to a reused
 * address).
 * @module
 */
import { checksumProblem } from '@wraith-pq/sdk';
import { getAddress, type Address } from 'viem';
import type { DerivationRule } from './derivation.js';
import { CliError, UsageError } from './errors.js';
import { readTextFile } from './files.js';
import type { DestinationAssignment } from './history-file.js';
import { addressFlag, checksumError } from './typed-address.js';

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
    const address = addressFlag(to, 'to', usage);
    list = Array.from({ length: count }, () => address);
  } else {
    const lines = (await readTextFile(toFile!, '--to-file')).split('\n').map((l) => l.replace(/#.*/, '').trim()).filter((l) => l !== '');
    lines.forEach((line, i) => {
      const problem = checksumProblem(line);
      if (problem === 'format') throw new CliError('INVALID_FILE', `--to-file ${toFile}: line ${i + 1} is not an EVM address`, 'write one address (0x + 40 hex) per line');
      if (problem === 'checksum') throw checksumError(`--to-file ${toFile}: line ${i + 1} (${line})`);
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
  checkDestinations(list, options.stealthAddresses, allowLinking);
  return list;
}

/** Refuse a destination that is one of the payments, or one shared by several unless `allowLinking`. */
function checkDestinations(list: Address[], stealthAddresses: readonly Address[], allowLinking: boolean): void {
  const count = list.length;
  const own = new Set(stealthAddresses);
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
}

/** How far past used addresses the next fresh index is looked for. */
const MAX_INDICES_PASSED_OVER = 1000;

/**
 * One derived address per payment of `payments` (in order): the index an earlier run gave it
 * under the same rule and key, else the next index from `fromIndex` that no other payment was
 * given and whose address was never used. Returns the assignments to record before signing.
 */
export async function deriveDestinations(options: {
  rule: DerivationRule;
  fromIndex: number;
  chainId: number;
  payments: readonly Address[];
  stealthAddresses: readonly Address[];
  /** The assignments of earlier runs (from the history). */
  earlier: readonly DestinationAssignment[];
  isUsed: (address: Address) => Promise<boolean>;
}): Promise<{ destinations: Address[]; assignments: DestinationAssignment[] }> {
  const { rule, chainId } = options;
  // Only those made with this rule and this key (an index derives the recorded address).
  const earlier = options.earlier.filter((a) => a.rule === rule.template && a.chain_id === chainId && rule.addressAt(a.index) === a.destination);
  const taken = new Set(earlier.map((a) => a.index));
  // Every address any earlier run gave a payment, whatever its rule or chain: an xpub's `0/{i}` and
  // the phrase's `m/44'/60'/0'/0/{i}` name the same addresses, and a payment on another chain not yet
  // withdrawn has no activity here, so only the recorded address itself keeps two payments apart.
  const givenAway = new Set(options.earlier.map((a) => a.destination.toLowerCase()));
  const assignments: DestinationAssignment[] = [];
  let next = options.fromIndex;
  for (const payment of options.payments) {
    const prior = earlier.find((a) => a.stealth_address === payment);
    if (prior !== undefined) {
      assignments.push(prior);
      continue;
    }
    for (let passed = 0; ; next++, passed++) {
      if (passed > MAX_INDICES_PASSED_OVER) {
        throw new CliError('NOT_ENOUGH_DESTINATIONS', `no unused address among ${MAX_INDICES_PASSED_OVER} indices of ${rule.template} from ${options.fromIndex}`, 'pass --from-index past the addresses already used');
      }
      if (taken.has(next)) continue;
      const destination = rule.addressAt(next);
      if (givenAway.has(destination.toLowerCase()) || (await options.isUsed(destination))) continue;
      taken.add(next);
      assignments.push({ stealth_address: payment, chain_id: chainId, rule: rule.template, index: next, destination });
      break;
    }
  }
  const destinations = assignments.map((a) => a.destination as Address);
  checkDestinations(destinations, options.stealthAddresses, false);
  return { destinations, assignments };
}
