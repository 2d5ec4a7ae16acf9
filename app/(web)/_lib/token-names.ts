/**
 * How the Scan page names the asset a payment's note names (PROTOCOL.md 8.1) before any chain is
 * read: the chain's coin, a well-known token of that chain (a list this app ships), or a token the
 * server's `GET /api/v1/chains` names for the chain it follows. The note's token is the sender's
 * claim and never carries a name (8.1: "it never trusts a name carried in the note"); a token on
 * neither list is shown by its address until a read through the user's wallet names it.
 *
 * Asking the server for its list of tokens tells it nothing about the user: every visitor gets the
 * same list, before and whatever the scan finds.
 * @module
 */
/** A token the page can name without reading its contract. */
export type NamedToken = { address: string; symbol: string; decimals: number };

/**
 * Well-known tokens per chain, checked against each issuer's published addresses. The Send page
 * keeps its own list (known-tokens.ts); the two are meant to become one.
 */
const WELL_KNOWN: Readonly<Record<number, readonly NamedToken[]>> = {
  1: [
    { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', symbol: 'USDC', decimals: 6 },
    { address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', symbol: 'USDT', decimals: 6 },
    { address: '0x6B175474E89094C44Da98b954EedeAC495271d0F', symbol: 'DAI', decimals: 18 },
    { address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', symbol: 'WETH', decimals: 18 },
  ],
  10: [{ address: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', symbol: 'USDC', decimals: 6 }],
  8453: [{ address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', symbol: 'USDC', decimals: 6 }],
  42161: [{ address: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', symbol: 'USDC', decimals: 6 }],
  137: [{ address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', symbol: 'USDC', decimals: 6 }],
  11155111: [{ address: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', symbol: 'USDC', decimals: 6 }],
};

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
  const found = [...(server.get(chainId) ?? []), ...(WELL_KNOWN[chainId] ?? [])].find((t) => t.address.toLowerCase() === lower);
  return found ? { symbol: found.symbol, decimals: found.decimals } : null;
}
