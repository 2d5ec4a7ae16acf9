/**
 * How the Scan page names the asset a payment's note names (PROTOCOL.md 8.1) before any chain is
 * read: the chain's coin, a well-known token of that chain (a list this app ships), or a token the
 * server's `GET /api/v1/chains` names for the chain it follows. The note's token is the sender's
 * claim and never carries a name (8.1: "it never trusts a name carried in the note"); a token on
 * neither list (the server's, or the app's own in known-tokens.ts) is shown by its address until
 * a read through the user's wallet names it.
 *
 * Asking the server for its list of tokens tells it nothing about the user: every visitor gets the
 * same list, before and whatever the scan finds.
 * @module
 */
import { knownToken } from './known-tokens';

/** A token the page can name without reading its contract. */
export type NamedToken = { address: string; symbol: string; decimals: number };

/** The tokens the server names per chain id (`GET /api/v1/chains`), read by shape. */
export type ServerTokens = ReadonlyMap<number, readonly NamedToken[]>;

const isNamedToken = (t: unknown): t is NamedToken => {
  const v = t as Partial<NamedToken> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.address === 'string' &&
    /^0x[0-9a-fA-F]{40}$/.test(v.address) &&
    typeof v.symbol === 'string' &&
    /^[\w.\-+$ ]{1,16}$/.test(v.symbol) &&
    Number.isSafeInteger(v.decimals) &&
    v.decimals! >= 0 &&
    v.decimals! <= 36
  );
};

/**
 * The tokens `GET /api/v1/chains` names: `{ chains: [{ chain_id, tokens: [{ address, symbol, decimals }] }] }`.
 * Empty when the server has no such route or does not answer: the well-known list still names the usual tokens.
 */
export async function serverTokens(signal?: AbortSignal): Promise<ServerTokens> {
  try {
    const response = await fetch('/api/v1/chains', { cache: 'no-store', credentials: 'omit', headers: { accept: 'application/json' }, ...(signal ? { signal } : {}) });
    if (!response.ok) return new Map();
    const body = (await response.json()) as { chains?: unknown };
    const chains = Array.isArray(body) ? body : Array.isArray(body.chains) ? body.chains : [];
    const named = new Map<number, NamedToken[]>();
    for (const chain of chains as { chain_id?: unknown; id?: unknown; tokens?: unknown }[]) {
      const id = chain?.chain_id ?? chain?.id;
      if (!Number.isSafeInteger(id) || !Array.isArray(chain.tokens)) continue;
      named.set(id as number, chain.tokens.filter(isNamedToken).map(({ address, symbol, decimals }) => ({ address, symbol, decimals })));
    }
    return named;
  } catch {
    return new Map();
  }
}

/** The asset a note names: `native` (20 zero bytes in the note) or a token address; undefined for a note that names none (version 0). */
export type NoteAsset = 'native' | string;

/**
 * The unit of `asset` on chain `chainId`, when the page can name it without a chain read. `coin`:
 * the chain's coin (chains.ts, loaded after the page: null until then).
 */
export function namedUnit(
  chainId: number | null,
  asset: NoteAsset | null | undefined,
  server: ServerTokens,
  coin: { symbol: string; decimals: number } | null,
): { symbol: string; decimals: number } | null {
  if (asset === undefined || asset === null || chainId === null) return null;
  if (asset === 'native') return coin;
  const lower = asset.toLowerCase();
  const found = server.get(chainId)?.find((t) => t.address.toLowerCase() === lower) ?? knownToken(chainId, asset);
  return found ? { symbol: found.symbol, decimals: found.decimals } : null;
}
