/**
 * `wraith resolve <name|address>`: the meta-address a `.eth` (ENS) or `.sui` (SuiNS) name
 * publishes, looked up by the server, which verifies the bytes against the record's IPFS CID;
 * or the one a plain `0x` address (or, without `--api`, a `.eth` name's address) registered in the
 * ERC-6538 registry, read through `--rpc` (scheme 3 first, then 1000).
 * @module
 */
import { bytesToHex } from '@wraith-pq/sdk';
import { parseCommand, urlFlag } from '../args.js';
import { UsageError } from '../errors.js';
import { result, resultJson } from '../output.js';
import { registryReader, registryFlags, REGISTRY_OPTIONS } from '../registry-flags.js';
import { apiClient, isPlainAddress, metaAddressUriOf, requireApi, resolveName, resolveRecipient } from '../recipient.js';

export const USAGE = 'wraith resolve (<name.eth|name.sui> --api <url> | <0x address|name.eth> --rpc <url> [--registry <address>] [--ens-resolver <address>]) [--json]';

export async function resolveCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand(argv, { api: { type: 'string' }, rpc: { type: 'string' }, json: { type: 'boolean' }, ...REGISTRY_OPTIONS }, 1, USAGE);
  const name = positionals[0];
  if (name === undefined) throw new UsageError('resolve needs a name or an address', `usage: ${USAGE}`);
  const rpcUrl = urlFlag(values.rpc, process.env.WRAITH_RPC_URL, 'rpc', 'WRAITH_RPC_URL', USAGE);
  const flags = registryFlags(values, USAGE);
  const api = apiClient(values.api, USAGE);
  // A registry lookup for a plain address, or a .eth name's address without a server; else the server resolves the name.
  const fromRegistry = isPlainAddress(name) || (/\.eth$/i.test(name.trim()) && api === undefined && rpcUrl !== undefined);
  const resolved = fromRegistry
    ? await resolveRecipient(name, {
        api,
        registry: rpcUrl === undefined ? undefined : () => registryReader(rpcUrl, flags),
        ...(flags.ensUniversalResolver === undefined ? {} : { ensUniversalResolver: flags.ensUniversalResolver }),
        usage: USAGE,
      })
    : await resolveName(requireApi(api, 'resolving a name', USAGE), name);
  const uri = metaAddressUriOf(resolved.meta);
  if (values.json) {
    resultJson({ name: resolved.name, registrant: resolved.registrant, scheme_id: resolved.meta.schemeId, meta_address: uri, meta_address_hex: bytesToHex(resolved.meta.bytes), ipfs_cid: resolved.ipfsCid });
  } else {
    result(uri);
  }
}
