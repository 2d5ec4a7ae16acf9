/**
 * EVM addresses the user types (flags, `--to-file` lines, a recipient): one rule, the SDK's
 * `checksumProblem` (EIP-55). A mixed case that is not the address's checksum is a mistyped
 * character, and money sent there reaches an address nobody holds the key of, so it is refused;
 * one case throughout carries no checksum and is taken as is.
 * @module
 */
import { checksumProblem } from '@wraith-pq/sdk';
import { getAddress, type Address } from 'viem';
import { CliError, UsageError } from './errors.js';

/** The error for `what` (e.g. `--to 0x…`), whose mixed case is not its EIP-55 checksum. */
export function checksumError(what: string): CliError {
  return new CliError('INVALID_ADDRESS', `${what} fails its EIP-55 checksum (mixed case): a character is probably wrong`, 'copy the address again, or give it all in lowercase');
}

/** `--<flag> <value>` as a checksummed address; a usage error when it is not `0x` and 40 hex, a typo error when its checksum fails. */
export function addressFlag(value: string, flag: string, usage: string): Address {
  const problem = checksumProblem(value);
  if (problem === 'format') throw new UsageError(`--${flag} must be an EVM address (0x + 40 hex)`, `usage: ${usage}`);
  if (problem === 'checksum') throw checksumError(`--${flag} ${value}`);
  return getAddress(value);
}
