/**
 * Who a payment goes to: a `.eth` name (ENS, via the server's resolver), a `.sui` name (SuiNS),
 * or a meta-address given directly (`st:eth:0x02…` or hex). Names are looked up through the
 * server because it checks the downloaded bytes against the record's CID (API.md names).
 * @module
 */
import { createClient, decodeMetaAddress, type WraithClient } from '@wraith-pq/sdk';
import { urlFlag } from './args.js';
import { CliError, UsageError } from './errors.js';

/** A client of the server at `--api` or WRAITH_API_URL (API key from WRAITH_API_KEY), or undefined. */
export function apiClient(flag: string | undefined, usage: string): WraithClient | undefined {
  const url = urlFlag(flag, process.env.WRAITH_API_URL, 'api', 'WRAITH_API_URL', usage);
  if (url === undefined) return undefined;
  const apiKey = process.env.WRAITH_API_KEY;
  return createClient({ baseUrl: url, ...(apiKey ? { apiKey } : {}) });
}

export function requireApi(client: WraithClient | undefined, why: string, usage: string): WraithClient {
  if (client === undefined) throw new UsageError(`${why} needs a server: pass --api <url> or set WRAITH_API_URL`, `usage: ${usage}`);
  return client;
}

/** Whether `input` looks like a name rather than a meta-address. */
export function isName(input: string): boolean {
  return /\.(eth|sui)$/i.test(input.trim());
}

export type ResolvedRecipient = { metaAddress: Uint8Array; name: string | null; ipfsCid: string | null };

/** The meta-address of a `.eth`/`.sui` name (through the server). */
export async function resolveName(client: WraithClient, name: string): Promise<ResolvedRecipient> {
  const trimmed = name.trim();
  if (/\.eth$/i.test(trimmed)) {
    const answer = await client.resolveEns(trimmed);
    return { metaAddress: decodeMetaAddress(answer.meta_address).bytes, name: answer.ens_name, ipfsCid: answer.ipfs_cid };
  }
  if (/\.sui$/i.test(trimmed)) {
    const answer = await client.resolveSuins(trimmed);
    return { metaAddress: decodeMetaAddress(answer.meta_address).bytes, name: answer.suins_name, ipfsCid: answer.ipfs_cid };
  }
  throw new CliError('INVALID_NAME', `${JSON.stringify(trimmed.slice(0, 80))} is not a .eth or .sui name`, 'pass a name such as alice.eth or alice.sui');
}

/** A name (resolved through `client`) or a meta-address, as meta-address bytes. */
export async function resolveRecipient(input: string, client: WraithClient | undefined, usage: string): Promise<ResolvedRecipient> {
  if (isName(input)) return resolveName(requireApi(client, 'resolving a name', usage), input);
  return { metaAddress: decodeMetaAddress(input.trim()).bytes, name: null, ipfsCid: null };
}
