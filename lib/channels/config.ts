/**
 * Private-channel configuration: the `YELLOW_*` environment variables (API.md "Configuration"),
 * served by GET /api/v1/yellow/config and used to validate channel tokens and amounts.
 *
 * Every variable has a public default (the Yellow ClearNode on Sepolia), so nothing needs to be
 * set. lib/config.ts spreads {@link yellowEnvironment} into the server's environment schema, so
 * a bad value stops the server at boot with a message naming the variable, never its value.
 *
 * `YELLOW_TOKENS` lists the tokens channels may be opened in, either as JSON
 * (`[{"symbol":"USDC","address":"0x…","decimals":6}]`) or as a comma-separated list of
 * `SYMBOL:address:decimals` (`USDC:0x1c7D…7238:6,ETH:0x0000…0000:18`). Symbols are matched
 * case-insensitively and must be unique; the zero address stands for the chain's native asset.
 */
import { checksumProblem, toChecksumAddress } from '@wraith-pq/sdk';
import { z } from 'zod';

/** A token channels can be opened in. `address` is EIP-55; the zero address is the native asset. */
export type SupportedToken = { symbol: string; address: string; decimals: number };

export type YellowConfig = {
  /** ClearNode WebSocket endpoint (`ws://` or `wss://`). */
  wsUrl: string;
  /** Custody contract, EIP-55. */
  custodyAddress: string;
  /** Adjudicator contract, EIP-55. */
  adjudicatorAddress: string;
  /** EIP-155 chain id of the custody and adjudicator contracts. */
  chainId: number;
  /** At least one; symbols unique ignoring case. */
  tokens: SupportedToken[];
};

/** Public defaults: Yellow's ClearNode and its Sepolia (chain 11155111) contracts. */
export const YELLOW_DEFAULTS = {
  wsUrl: 'wss://clearnet.yellow.com/ws',
  custodyAddress: '0x019B65A265EB3363822f2752141b3dF16131b262',
  adjudicatorAddress: '0x7c7ccbc98469190849BCC6c926307794fDfB11F2',
  chainId: 11155111,
  tokens: [
    { symbol: 'USDC', address: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', decimals: 6 }, // Circle's Sepolia USDC
    { symbol: 'ETH', address: '0x0000000000000000000000000000000000000000', decimals: 18 },
  ],
} as const satisfies YellowConfig;

/** Largest token precision accepted; real tokens use 0 to 24. */
export const MAX_TOKEN_DECIMALS = 36;
const SYMBOL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,15}$/;

/** Unset or blank becomes undefined, as in lib/config.ts. */
const unsetIfBlank = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** Why `text` is not an EVM address, or undefined when it is one (a mixed-case address must carry a valid EIP-55 checksum). */
function addressProblem(text: string): string | undefined {
  const problem = checksumProblem(text);
  if (problem === 'format') return 'must be 0x followed by 40 hex digits';
  if (problem === 'checksum') return 'has an invalid EIP-55 checksum (use all lowercase to skip the check)';
  return undefined;
}

function evmAddress(fallback: string) {
  return z.preprocess(
    unsetIfBlank,
    z
      .string()
      .trim()
      .default(fallback)
      .superRefine((value, ctx) => {
        const problem = addressProblem(value);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      })
      .transform((value) => toChecksumAddress(value)),
  );
}

const wsUrl = z.preprocess(
  unsetIfBlank,
  z
    .string()
    .trim()
    .default(YELLOW_DEFAULTS.wsUrl)
    .refine((value) => {
      try {
        return ['ws:', 'wss:'].includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, 'must be a ws:// or wss:// URL'),
);

const chainId = z.preprocess(
  unsetIfBlank,
  z
    .string()
    .trim()
    .regex(/^[1-9]\d{0,15}$/, 'must be a positive whole number (an EIP-155 chain id)')
    .transform(Number)
    .pipe(z.number().int().max(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}`))
    .optional()
    .transform((value) => value ?? YELLOW_DEFAULTS.chainId),
);

type TokenEntry = { symbol: unknown; address: unknown; decimals: unknown };

/** The entries of `YELLOW_TOKENS` before validation: JSON objects or `SYMBOL:address:decimals` items. */
function tokenEntries(text: string): TokenEntry[] | string {
  if (text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return 'is not valid JSON (expected [{"symbol","address","decimals"}, ...])';
    }
    if (!Array.isArray(parsed) || parsed.some((item) => typeof item !== 'object' || item === null || Array.isArray(item))) {
      return 'must be a JSON array of {"symbol","address","decimals"} objects';
    }
    return parsed as TokenEntry[];
  }
  const entries: TokenEntry[] = [];
  for (const item of text.split(',').map((part) => part.trim())) {
    if (item === '') continue;
    const parts = item.split(':').map((part) => part.trim());
    if (parts.length !== 3) return 'must be a JSON array or a comma-separated list of SYMBOL:address:decimals';
    const [symbol, address, decimals] = parts as [string, string, string];
    entries.push({ symbol, address, decimals: /^\d{1,3}$/.test(decimals) ? Number(decimals) : decimals });
  }
  return entries;
}

/** Validate the entries; problems name the entry by position, never by value. */
function tokensFrom(entries: TokenEntry[]): { tokens: SupportedToken[] } | { problems: string[] } {
  const problems: string[] = [];
  const tokens: SupportedToken[] = [];
  const seen = new Set<string>();
  if (entries.length === 0) return { problems: ['must list at least one token'] };
  entries.forEach((entry, index) => {
    const where = `token ${index + 1}`;
    const { symbol, address, decimals } = entry;
    if (typeof symbol !== 'string' || !SYMBOL.test(symbol)) {
      problems.push(`${where}: symbol must be 1-16 letters, digits, '.', '_' or '-'`);
    } else if (seen.has(symbol.toUpperCase())) {
      problems.push(`${where}: symbol is listed twice (symbols are compared ignoring case)`);
    } else {
      seen.add(symbol.toUpperCase());
    }
    const addressIssue = typeof address === 'string' ? addressProblem(address) : 'must be a string';
    if (addressIssue !== undefined) problems.push(`${where}: address ${addressIssue}`);
    if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > MAX_TOKEN_DECIMALS) {
      problems.push(`${where}: decimals must be a whole number from 0 to ${MAX_TOKEN_DECIMALS}`);
    }
    if (problems.length === 0) {
      tokens.push({ symbol: symbol as string, address: toChecksumAddress(address as string), decimals: decimals as number });
    }
  });
  return problems.length > 0 ? { problems } : { tokens };
}

const tokens = z.preprocess(
  unsetIfBlank,
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx): SupportedToken[] => {
      if (value === undefined) return YELLOW_DEFAULTS.tokens.map((token) => ({ ...token }));
      const entries = tokenEntries(value);
      const result = typeof entries === 'string' ? { problems: [entries] } : tokensFrom(entries);
      if ('problems' in result) {
        for (const message of result.problems) ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return result.tokens;
    }),
);

/** The `YELLOW_*` entries of the server's environment schema (lib/config.ts). */
export const yellowEnvironment = {
  YELLOW_WS_URL: wsUrl,
  YELLOW_CUSTODY_ADDRESS: evmAddress(YELLOW_DEFAULTS.custodyAddress),
  YELLOW_ADJUDICATOR_ADDRESS: evmAddress(YELLOW_DEFAULTS.adjudicatorAddress),
  YELLOW_CHAIN_ID: chainId,
  YELLOW_TOKENS: tokens,
};

type YellowEnvironment = { [K in keyof typeof yellowEnvironment]: z.output<(typeof yellowEnvironment)[K]> };

/** The channel configuration from the validated environment. */
export function yellowConfigFrom(env: YellowEnvironment): YellowConfig {
  return {
    wsUrl: env.YELLOW_WS_URL,
    custodyAddress: env.YELLOW_CUSTODY_ADDRESS,
    adjudicatorAddress: env.YELLOW_ADJUDICATOR_ADDRESS,
    chainId: env.YELLOW_CHAIN_ID,
    tokens: env.YELLOW_TOKENS,
  };
}
