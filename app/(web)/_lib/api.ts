/**
 * The browser's calls to this server's API (INTERFACE.md section 4, API.md). Only public data
 * travels: meta-addresses, names, announcements. Keys never leave the page.
 * @module
 */
import { decodeAnnouncementPage, verifyCidBytes, type RegistryAnnouncement } from '@wraith-pq/sdk';

/** An API error answer (API.md "Errors"), or a network failure (`status` 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Reads are retried this often when rate limited (429), waiting as `Retry-After` says. */
const READ_RETRIES = 3;
const MAX_RETRY_WAIT_MS = 10_000;

function wait(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

async function request(path: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  for (let attempt = 0; ; attempt++) {
    try {
      response = await fetch(path, { cache: 'no-store', ...init, credentials: 'omit' });
    } catch (cause) {
      if ((cause as Error)?.name === 'AbortError') throw cause;
      throw new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached. Check your connection and try again.');
    }
    const isRead = (init.method ?? 'GET') === 'GET';
    if (response.status !== 429 || !isRead || attempt >= READ_RETRIES) break;
    const seconds = Number(response.headers.get('retry-after'));
    await wait(Math.min(MAX_RETRY_WAIT_MS, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000), init.signal);
  }
  if (response.ok) return response;
  let code = 'HTTP_ERROR';
  let message = `The server answered ${response.status}.`;
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.code) code = body.error.code;
    if (body.error?.message) message = body.error.message;
  } catch {
    // not a JSON error body: keep the generic message
  }
  throw new ApiError(response.status, code, message);
}

async function json<T>(path: string, init: RequestInit = {}): Promise<T> {
  return (await request(path, { ...init, headers: { accept: 'application/json', ...init.headers } })).json() as Promise<T>;
}

const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export type UploadResult = { cid: string; text_record: string };

/** POST /api/v1/ipfs/upload: store the meta-address bytes, get the record to put in a name. */
export function uploadMetaAddress(metaAddressHex: string, name?: string): Promise<UploadResult> {
  return json('/api/v1/ipfs/upload', post({ meta_address: metaAddressHex, ...(name ? { name } : {}) }));
}

/**
 * GET /api/v1/ipfs/:cid: a published meta-address by its CID. The server checks the bytes
 * against the CID; so does this page (SDK `verifyCidBytes`), so neither the server nor a gateway
 * behind it can hand over someone else's key.
 */
export async function downloadMetaAddress(cid: string, signal?: AbortSignal): Promise<Uint8Array> {
  const response = await request(`/api/v1/ipfs/${encodeURIComponent(cid)}`, { headers: { accept: 'application/octet-stream' }, ...(signal ? { signal } : {}) });
  return verifyCidBytes(cid, new Uint8Array(await response.arrayBuffer()));
}

export type ResolvedName = {
  meta_address: string;
  spending_pk: string;
  viewing_pk: string;
  ipfs_cid?: string;
  ens_name?: string;
  suins_name?: string;
};

/** GET /api/v1/ens/resolve/:name or /api/v1/suins/resolve/:name. */
export function resolveName(service: 'ens' | 'suins', name: string): Promise<ResolvedName> {
  return json(`/api/v1/${service}/resolve/${encodeURIComponent(name)}`);
}

/** GET /api/v1/ens/address/:name: the address a .eth name sets, to look its ERC-6538 registration up through the wallet. */
export function resolveEnsAddress(name: string): Promise<{ ens_name: string; address: string }> {
  return json(`/api/v1/ens/address/${encodeURIComponent(name)}`);
}

export type PublishAnnouncementBody = {
  ephemeral_key: string;
  view_tag: number;
  tx_hash: string;
  /** Scheme 3 (ERC-8441) needs the announced one-time address: the scanner decides on it (API.md). */
  scheme_id?: 1000 | 3;
  stealth_address?: string;
  amount?: string;
  chain?: string;
  /** EIP-155 id of the chain the payment was made on (API.md "Several chains"). */
  chain_id?: number;
};

/** POST /api/v1/registry/announcements. */
export function publishAnnouncement(body: PublishAnnouncementBody): Promise<{ id: number; success: boolean }> {
  return json('/api/v1/registry/announcements', post(body));
}

/** A chain this deployment indexes: its EIP-155 id and the name its rows carry. */
export type FollowedChain = { id: number; name: string };

/**
 * The chains this server follows, from the public `chains` of GET /health (API.md): ids and
 * names only (the server never says which RPC it reads them through). Empty when the server
 * follows none, names none, or does not answer: the page then offers the wallet's own chain.
 */
export async function followedChains(signal?: AbortSignal): Promise<FollowedChain[]> {
  try {
    const body = await json<{ chains?: unknown }>('/health', signal ? { signal } : {});
    if (!Array.isArray(body.chains)) return [];
    return body.chains.flatMap((entry: { chain_id?: unknown; name?: unknown }) =>
      Number.isSafeInteger(entry?.chain_id) && (entry.chain_id as number) > 0 ? [{ id: entry.chain_id as number, name: typeof entry.name === 'string' ? entry.name : '' }] : [],
    );
  } catch {
    return [];
  }
}

/** A token this server names for a chain (GET /api/v1/chains `tokens`). */
export type NamedToken = { address: `0x${string}`; symbol: string; decimals: number };

/**
 * The tokens this server's operator names for chain `chainId` (GET /api/v1/chains, API.md):
 * shown by symbol on Send. Empty when the server names none for it or does not answer: the page's
 * own list of well-known tokens (known-tokens.ts) still applies.
 */
export async function namedTokens(chainId: number, signal?: AbortSignal): Promise<NamedToken[]> {
  try {
    const body = await json<{ chains?: { chain_id?: unknown; tokens?: unknown }[] }>('/api/v1/chains', signal ? { signal } : {});
    const tokens = body.chains?.find((c) => c.chain_id === chainId)?.tokens;
    if (!Array.isArray(tokens)) return [];
    return tokens.filter(
      (t): t is NamedToken => typeof t?.address === 'string' && /^0x[0-9a-fA-F]{40}$/.test(t.address) && typeof t.symbol === 'string' && Number.isInteger(t.decimals),
    );
  } catch {
    return [];
  }
}

/** GET /api/v1/registry/stats. */
export function registryStats(signal?: AbortSignal): Promise<{ total_announcements: number }> {
  return json('/api/v1/registry/stats', signal ? { signal } : {});
}

/**
 * A binary page of announcements with ids above `afterId` (ascending), as bytes: the Scan page
 * hands them to its worker to decode (registry-source.ts). Not kept in the HTTP cache: a scan
 * reads the registry once and then resumes from its cursor, and writing 1.1 kB per announcement
 * into the disk cache slows the first scan.
 */
export async function announcementPageBytes(afterId: number, limit: number, signal?: AbortSignal): Promise<ArrayBuffer> {
  const response = await request(`/api/v1/registry/announcements?after_id=${afterId}&limit=${limit}`, {
    headers: { accept: 'application/octet-stream' },
    cache: 'no-store',
    ...(signal ? { signal } : {}),
  });
  return response.arrayBuffer();
}

/** The same page, decoded. */
export async function announcementPage(afterId: number, limit: number, signal?: AbortSignal): Promise<RegistryAnnouncement[]> {
  return decodeAnnouncementPage(new Uint8Array(await announcementPageBytes(afterId, limit, signal)));
}

/** A chain's gasless route (GET /api/v1/chains `gasless`): the bundler, the paymaster and the tokens it takes its fee in. */
export type GaslessRouteInfo = { bundlerUrl: string; paymaster: `0x${string}`; tokens: `0x${string}`[] };

/**
 * The gasless route this server's operator configured for chain `chainId`, or null when it offers
 * none (or does not answer: the claim then takes the ordinary route, paid in the chain's coin).
 */
export async function gaslessRoute(chainId: number, signal?: AbortSignal): Promise<GaslessRouteInfo | null> {
  try {
    const body = await json<{ chains?: { chain_id?: unknown; gasless?: { bundler_url?: unknown; paymaster?: unknown; tokens?: unknown } | null }[] }>('/api/v1/chains', signal ? { signal } : {});
    const gasless = body.chains?.find((c) => c.chain_id === chainId)?.gasless;
    const isAddress = (a: unknown): a is `0x${string}` => typeof a === 'string' && /^0x[0-9a-fA-F]{40}$/.test(a);
    if (!gasless || typeof gasless.bundler_url !== 'string' || !isAddress(gasless.paymaster) || !Array.isArray(gasless.tokens)) return null;
    return { bundlerUrl: gasless.bundler_url, paymaster: gasless.paymaster, tokens: gasless.tokens.filter(isAddress) };
  } catch {
    return null;
  }
}
