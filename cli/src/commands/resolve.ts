/**
 * `wraith resolve <name>`: the meta-address a `.eth` (ENS) or `.sui` (SuiNS) name publishes,
 * looked up by the server, which verifies the bytes against the record's IPFS CID.
 * @module
 */
import { bytesToHex, formatMetaAddressUri } from '@wraith-pq/sdk';
import { parseCommand } from '../args.js';
import { UsageError } from '../errors.js';
import { result, resultJson } from '../output.js';
import { apiClient, requireApi, resolveName } from '../recipient.js';

export const USAGE = 'wraith resolve <name.eth|name.sui> [--api <url>] [--json]';

export async function resolveCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand(argv, { api: { type: 'string' }, json: { type: 'boolean' } }, 1, USAGE);
  const name = positionals[0];
  if (name === undefined) throw new UsageError('resolve needs a name', `usage: ${USAGE}`);
  const client = requireApi(apiClient(values.api, USAGE), 'resolving a name', USAGE);
  const resolved = await resolveName(client, name);
  if (values.json) {
    resultJson({ name: resolved.name, meta_address: formatMetaAddressUri(resolved.metaAddress), meta_address_hex: bytesToHex(resolved.metaAddress), ipfs_cid: resolved.ipfsCid });
  } else {
    result(formatMetaAddressUri(resolved.metaAddress));
  }
}
