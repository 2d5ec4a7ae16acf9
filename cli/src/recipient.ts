/**
 * Who a payment goes to:
 *
 * - a meta-address given directly (`st:eth:0x…` or hex): 1218 bytes is Wraith's form (scheme
 *   1000), 1250 bytes ERC-8441's (scheme 3), told apart by length (PROTOCOL.md section 10);
 * - a plain `0x` address: its meta-address registered in the ERC-6538 registry, read through the
 *   user's own `--rpc` (so no Wraith server learns whom they pay), scheme 3 first (ERC-8441
 *   Section 2.3), then scheme 1000; an empty value is a cleared scheme, read as unregistered;
 * - a `.eth` or `.sui` name: with `--api`, the meta-address its record publishes, through the
 *   server, which checks the downloaded bytes against the record's CID (API.md names); a `.eth`
 *   name without `--api` but with `--rpc`: the name's address (ENS, through the RPC), then the
 *   registry as for a plain address;
 * - a CID (`bafkrei…`, `Qm…`, `ipfs://…`): the meta-address stored under it, through the server,
 *   checked against the CID on this machine (the SDK client's `getIpfsContent`);
 * - a payment link, `<origin>/send?to=<value>` (the web app's Send page): its value, any of the above.
 *
 * Each answer says where the meta-address came from, and whether it was typed: a typed (or
 * pasted) meta-address can carry a typo that still decodes, so `wraith pay` has its fingerprint
 * confirmed first (src/commands/pay.ts).
 * @module
 */
import { checksumProblem, createClient, decodeAnyMetaAddress, parseCid, formatErc8441MetaAddressUri, formatMetaAddressUri, type AnyMetaAddress, type WraithClient } from '@wraith-pq/sdk';
import { resolveRegisteredMetaAddress } from '@wraith-pq/sdk/evm';
import { getAddress, type Address, type PublicClient } from 'viem';
import { mainnet } from 'viem/chains';
import { normalize } from 'viem/ens';
import { urlFlag } from './args.js';
import { CliError, noteApiBaseUrl, UsageError } from './errors.js';
import { checksumError } from './typed-address.js';

/**
 * A client of the server at `--api` or WRAITH_API_URL (API key from WRAITH_API_KEY), or
 * undefined. The server's origin or its API's URL both work: a trailing `/api/v1` is the SDK
 * client's own prefix, so it is dropped rather than doubled.
 */
export function apiClient(flag: string | undefined, usage: string): WraithClient | undefined {
  const given = urlFlag(flag, process.env.WRAITH_API_URL, 'api', 'WRAITH_API_URL', usage);
  if (given === undefined) return undefined;
  // fetch refuses a URL with credentials, and an error would print them: the key goes in WRAITH_API_KEY.
  if (/^https?:\/\/[^/?#]*@/i.test(given)) throw new UsageError('--api must not carry a user name or password', 'set the server\'s API key in WRAITH_API_KEY instead');
  const url = given.replace(/\/api\/v1\/?(?=$|[?#])/i, '');
  noteApiBaseUrl(url);
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

/** Whether `input` is a plain EVM address (a registrant of the ERC-6538 registry). */
export function isPlainAddress(input: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(input.trim());
}

/** `st:eth:0x…` of either form. */
export function metaAddressUriOf(meta: AnyMetaAddress): string {
  return meta.schemeId === 3 ? formatErc8441MetaAddressUri(meta.bytes) : formatMetaAddressUri(meta.bytes);
}

export type ResolvedRecipient = {
  meta: AnyMetaAddress;
  /** Where the meta-address came from, for the person: "from ENS alice.eth", "typed on the command line". */
  source: string;
  /** Whether the meta-address itself was given (typed, pasted, or in a link): no lookup vouches for it. */
  typed: boolean;
  name: string | null;
  ipfsCid: string | null;
  /** The ERC-6538 registrant it was read for, or null when the meta-address came otherwise. */
  registrant: Address | null;
};

function viaIpfs(cid: string | null): string {
  return cid === null ? '' : ` (IPFS ${cid}, content checked by the server)`;
}

/** Whether `input` looks like a CID (CIDv0 `Qm…`, base32 CIDv1 `b…`, or `ipfs://…`) rather than a meta-address or name. */
export function isCid(input: string): boolean {
  return /^(ipfs:\/\/)?(Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]{40,100})$/.test(input.trim());
}

/** The meta-address stored under `cid`, fetched through the server and checked against the CID here. */
export async function resolveCid(client: WraithClient, input: string): Promise<ResolvedRecipient> {
  const cid = parseCid(input.trim()).toString();
  const bytes = await client.getIpfsContent(cid);
  return { meta: decodeAnyMetaAddress(bytes), source: `from IPFS ${cid}, content checked`, typed: false, name: null, ipfsCid: cid, registrant: null };
}

/**
 * The recipient a payment link names: `<origin>/send?to=<value>`, the link the web app's Receive
 * page shares (value: a CID, a name or a meta-address); null when `input` is not a URL.
 */
export function paymentLinkTarget(input: string): string | null {
  if (!/^https?:\/\//i.test(input.trim())) return null;
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new CliError('INVALID_LINK', 'the payment link is not a URL', 'copy the whole link again, or pass the name or meta-address it names');
  }
  const to = url.searchParams.get('to');
  if (!/\/send\/?$/.test(url.pathname) || to === null || to.trim() === '') {
    throw new CliError('INVALID_LINK', 'a payment link is <origin>/send?to=<name, CID or meta-address>, and this one names no recipient', 'copy the whole link again, or pass the name or meta-address it names');
  }
  return to.trim();
}

/** The meta-address of a `.eth`/`.sui` name (through the server). */
export async function resolveName(client: WraithClient, name: string): Promise<ResolvedRecipient> {
  const trimmed = name.trim();
  if (/\.eth$/i.test(trimmed)) {
    const answer = await client.resolveEns(trimmed);
    return { meta: decodeAnyMetaAddress(answer.meta_address), source: `from ENS ${answer.ens_name}${viaIpfs(answer.ipfs_cid)}`, typed: false, name: answer.ens_name, ipfsCid: answer.ipfs_cid, registrant: null };
  }
  if (/\.sui$/i.test(trimmed)) {
    const answer = await client.resolveSuins(trimmed);
    return { meta: decodeAnyMetaAddress(answer.meta_address), source: `from SuiNS ${answer.suins_name}${viaIpfs(answer.ipfs_cid)}`, typed: false, name: answer.suins_name, ipfsCid: answer.ipfs_cid, registrant: null };
  }
  throw new CliError('INVALID_NAME', `${JSON.stringify(trimmed.slice(0, 80))} is not a .eth or .sui name`, 'pass a name such as alice.eth or alice.sui');
}

/** What reads the registry (and ENS): the user's own RPC, with the registry's address when not the canonical one. */
export type RegistryReader = { client: PublicClient; registry?: Address };

/** The meta-address `registrant` registered in ERC-6538: scheme 3 when registered, else 1000. */
export async function resolveRegistrant(reader: RegistryReader, registrant: Address, name: string | null): Promise<ResolvedRecipient> {
  const found = await resolveRegisteredMetaAddress({ client: reader.client, registrant, ...(reader.registry === undefined ? {} : { registry: reader.registry }) });
  const who = name === null ? registrant : `${name} (${registrant})`;
  if (found.status === 'unregistered') {
    throw new CliError('NOT_REGISTERED', `${who} has no meta-address in the ERC-6538 registry on this chain (scheme 3 and 1000 empty or cleared)`, 'ask the recipient to run `wraith register`, or for their meta-address (st:eth:0x…)');
  }
  if (found.status === 'invalid') {
    throw new CliError('INVALID_REGISTRATION', `${who} registered under scheme ${found.schemeId} a value that is not a valid meta-address (${found.reason.replace(/\.$/, '')}); nothing was paid`, 'ask the recipient to register again, or for their meta-address (st:eth:0x…)');
  }
  // The registrant is named beside the source (`recipient: 0x…`): said once.
  const source = name === null ? 'from the ERC-6538 registry' : `from ENS ${name} (${registrant}), its ERC-6538 registration`;
  return { meta: found.metaAddress, source, typed: false, name, ipfsCid: null, registrant };
}

/** The address a `.eth` name points to, through the RPC's ENS (mainnet's Universal Resolver on chain 1, else `ensUniversalResolver`). */
async function ensAddress(client: PublicClient, name: string, ensUniversalResolver: Address | undefined): Promise<Address> {
  const chainId = await client.getChainId();
  const universalResolverAddress = ensUniversalResolver ?? (chainId === mainnet.id ? mainnet.contracts.ensUniversalResolver.address : undefined);
  if (universalResolverAddress === undefined) {
    throw new CliError('ENS_UNAVAILABLE', `chain ${chainId} has no known ENS Universal Resolver to look ${name} up`, 'pass --rpc of Ethereum mainnet, --ens-resolver <address>, or --api <url> to resolve the name through a server');
  }
  const address = await client.getEnsAddress({ name: normalize(name), universalResolverAddress });
  if (address === null) throw new CliError('NAME_NOT_FOUND', `${name} has no address`, 'check the spelling of the name');
  return getAddress(address);
}

/**
 * A recipient as meta-address bytes: given directly, read from the registry (a plain address, or
 * a `.eth` name's address without `--api`), or a name's record through the server.
 */
export async function resolveRecipient(
  input: string,
  options: { api: WraithClient | undefined; registry: (() => Promise<RegistryReader>) | undefined; ensUniversalResolver?: Address; usage: string },
): Promise<ResolvedRecipient> {
  const link = paymentLinkTarget(input);
  if (link !== null) {
    if (paymentLinkTarget(link) !== null) throw new CliError('INVALID_LINK', 'the payment link names another link', 'pass the name or meta-address the link names');
    const resolved = await resolveRecipient(link, options);
    return { ...resolved, source: resolved.typed ? 'the meta-address in the payment link' : `${resolved.source}, named by the payment link` };
  }
  const trimmed = input.trim();
  const needRegistry = (why: string) => {
    if (options.registry === undefined) throw new UsageError(`${why} needs --rpc <url> (or WRAITH_RPC_URL): the ERC-6538 registry is read from your own node`, `usage: ${options.usage}`);
    return options.registry();
  };
  if (isPlainAddress(trimmed)) {
    // A mixed-case address carries an EIP-55 checksum: a typo in it must not send money elsewhere.
    if (checksumProblem(trimmed) !== null) throw checksumError(trimmed);
    return resolveRegistrant(await needRegistry('paying a plain address'), getAddress(trimmed), null);
  }
  if (isName(trimmed)) {
    if (options.api === undefined && /\.eth$/i.test(trimmed) && options.registry !== undefined) {
      const reader = await options.registry();
      return resolveRegistrant(reader, await ensAddress(reader.client, trimmed, options.ensUniversalResolver), trimmed);
    }
    return resolveName(requireApi(options.api, 'resolving a name', options.usage), trimmed);
  }
  if (isCid(trimmed)) return resolveCid(requireApi(options.api, 'fetching a meta-address from IPFS', options.usage), trimmed);
  return { meta: decodeAnyMetaAddress(trimmed), source: 'typed on the command line', typed: true, name: null, ipfsCid: null, registrant: null };
}
