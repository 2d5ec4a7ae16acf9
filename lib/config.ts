/**
 * The server's configuration: every environment variable of API.md "Configuration",
 * validated once with zod.
 *
 * Why here and strict: a typo in `RATE_LIMIT_RPS` or `ALLOWED_ORIGINS` must stop the server at
 * boot with a message naming the variable (instrumentation.ts), not silently fall back to a
 * default that weakens the service. Messages name variables and rules, never values: `API_KEY`
 * and the pinning/Redis tokens are secrets, and URLs may carry credentials.
 * Empty variables (`API_KEY=` in a .env file) count as unset.
 */
import { z } from 'zod';
import { yellowConfigFrom, yellowEnvironment, type YellowConfig } from './channels/config.ts';
import { ensGatewayConfigFrom, ensGatewayEnvironment, type EnsGatewayConfig } from './names/gateway/config.ts';

/** Log levels in increasing severity; `silent` turns logging off. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Registry URL schemes API.md names (`openRegistryStore` picks the implementation). */
const REGISTRY_SCHEMES = ['memory', 'file', 'postgres', 'postgresql', 'libsql'];

/** The validated configuration, in the form the code uses. */
export type Config = {
  port: number;
  hostname: string;
  registryUrl: string;
  /** Most connections to a PostgreSQL registry per instance. */
  registryPoolSize: number;
  /** Limit for connecting to the registry database and for each statement (PostgreSQL), ms. */
  registryTimeoutMs: number;
  /** Unset: writes need no key (API.md "Authentication"). */
  apiKey: string | undefined;
  /** `'*'` or exact origins (`scheme://host[:port]`), lowercase. */
  allowedOrigins: '*' | string[];
  /** Tokens per second; 0 disables rate limiting. */
  rateLimitRps: number;
  rateLimitBurst: number;
  /** Proxy hops whose X-Forwarded-For entries are trusted; 0 = use the socket peer only. */
  trustProxy: number;
  upstash: { url: string; token: string } | undefined;
  /**
   * When the shared limiter's store (Upstash) fails: true = serve the request under this
   * instance's own bucket and log a warning; false = answer 503.
   */
  rateLimitFailOpen: boolean;
  /** How long one shared-limit check may take before it counts as a failure, ms. */
  rateLimitTimeoutMs: number;
  maxBodyBytes: number;
  ethRpcUrl: string;
  ensTextKey: string;
  /** ENS Universal Resolver contract (ENSIP-10/EIP-3668 aware), lowercase `0x` address. */
  ensUniversalResolver: `0x${string}`;
  suiRpcUrl: string | undefined;
  suiNetwork: 'mainnet' | 'testnet' | 'devnet' | 'localnet';
  pinningJwt: string | undefined;
  pinningGatewayUrl: string | undefined;
  pinningGatewayToken: string | undefined;
  /** Base URL of the pinning service API (Pinata's `pinning/pinFileToIPFS` lives under it). */
  pinningApiUrl: string;
  /** Directory of the embedded content-addressed store (used when pinning/gateway are unset). */
  ipfsStoreDir: string;
  ipfsCacheEntries: number;
  upstreamTimeoutMs: number;
  logLevel: LogLevel;
  /** How long a graceful shutdown waits for in-flight requests (server.mjs). */
  shutdownTimeoutMs: number;
  /** Private channels (`YELLOW_*`, lib/channels/config.ts). */
  yellow: YellowConfig;
  /**
   * The chains of payments and ERC-5564 announcements (PROTOCOL.md section 7), from `CHAINS` or
   * the one-chain shorthand `CHAIN_RPC_URL`; empty: no chain features.
   */
  chains: ChainConfig[];
  /** `REGISTRY_PUBLISH`: how HTTP publishes are treated (API.md "Configuration"). */
  registryPublish: RegistryPublishMode;
  /** The ENS gateway (`ENS_GATEWAY_*`, lib/names/gateway/config.ts); undefined: off. */
  ensGateway: EnsGatewayConfig | undefined;
};

/** `open`: the interface's HTTP publish; `verified`: only with an on-chain proof; `closed`: chain only. */
export type RegistryPublishMode = 'open' | 'verified' | 'closed';

/** One followed chain (an entry of `CHAINS`, or `CHAIN_RPC_URL`) and its indexer's settings (lib/chain/indexer.ts). */
export type ChainConfig = {
  rpcUrl: string;
  /** The `chain` value of indexed rows; unique among the chains. */
  name: string;
  /**
   * The EIP-155 id the RPC must answer (`chain_id` of a `CHAINS` entry); undefined: whatever it
   * answers (read at start-up, lib/server/chain.ts).
   */
  chainId?: number;
  /** The Announcer contract, lowercase `0x` address. */
  announcer: `0x${string}`;
  /** This format's scheme id (1000 unless configured otherwise): it names the indexer's cursor. */
  schemeId: bigint;
  /** Every scheme id followed: this format's and, by default, ERC-8441's 3 (ANNOUNCER_SCHEME_IDS). */
  schemeIds: readonly bigint[];
  startBlock: number;
  /** Blocks the indexer stays behind the head. */
  confirmations: number;
  /** Tokens the operator names for this chain (`tokens` of its entry), shown by symbol in the web app; none when unset. */
  tokens?: ChainToken[];
  /** Gasless withdrawals (ERC-4337 v0.8 + EIP-7702) offered on this chain, or undefined (`gasless` of its entry). */
  gasless?: GaslessConfig;
  /** Pause between polls when the indexer has caught up, ms. */
  pollMs: number;
  /** Largest eth_getLogs range the indexer asks for (it shrinks on refusal). */
  maxBlockRange: number;
  /** How long an instance's indexer lease lasts without renewal (another instance takes over after it), ms. */
  leaseMs: number;
};

/** One ERC-20 the operator names for a chain. */
export type ChainToken = { address: `0x${string}`; symbol: string; decimals: number };

/**
 * A chain's gasless withdrawals: the ERC-4337 bundler clients send user operations to, and the
 * paymaster (contracts/src/WraithTokenPaymaster.sol) that pays their gas for a fee in one of
 * `tokens`. Both are public: clients read them from GET /api/v1/chains.
 */
export type GaslessConfig = {
  /** The bundler's JSON-RPC URL; shown to every client, so it must carry no secret. */
  bundlerUrl: string;
  /** The paymaster contract, lowercase `0x` address. */
  paymaster: `0x${string}`;
  /** Tokens the paymaster takes its fee in (each one of the chain's `tokens`), lowercase. */
  tokens: `0x${string}`[];
};

/**
 * Default `INDEXER_CONFIRMATIONS`: 12 blocks (about 2.4 minutes on Ethereum mainnet). Deeper
 * reorganisations are still undone (lib/chain/indexer.ts), but announcements appear later; set 0
 * against a local dev chain.
 */
export const DEFAULT_CONFIRMATIONS = 12;

/** Default largest `eth_getLogs` range: what most hosted providers accept (it shrinks on refusal anyway). */
export const DEFAULT_MAX_BLOCK_RANGE = 5_000;

/** Raised when the environment does not validate; the message lists every problem. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration (see .env.example):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

/** Unset or blank becomes undefined, so defaults and "unset" rules apply to `VAR=`. */
const unsetIfBlank = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

function integer(min: number, max: number, fallback: number) {
  return z.preprocess(
    unsetIfBlank,
    z
      .string()
      .trim()
      .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
      .transform(Number)
      .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
      .optional()
      .transform((value) => value ?? fallback),
  );
}

function decimal(min: number, max: number, fallback: number) {
  return z.preprocess(
    unsetIfBlank,
    z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, `must be a number from ${min} to ${max}`)
      .transform(Number)
      .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
      .optional()
      .transform((value) => value ?? fallback),
  );
}

function flag(fallback: boolean) {
  return z.preprocess(
    (value) => (typeof unsetIfBlank(value) === 'string' ? String(value).trim().toLowerCase() : undefined),
    z
      .enum(['true', 'false', '1', '0'], 'must be true or false')
      .optional()
      .transform((value) => (value === undefined ? fallback : value === 'true' || value === '1')),
  );
}

const optionalText = z.preprocess(unsetIfBlank, z.string().trim().optional());

const httpUrlText = z
  .string()
  .trim()
  .refine((value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

/** An optional http(s) URL. */
const httpUrl = () => z.preprocess(unsetIfBlank, httpUrlText.optional());

/** An http(s) URL with a default. */
const httpUrlOr = (fallback: string) => z.preprocess(unsetIfBlank, httpUrlText.default(fallback));

/** `*` or a comma-separated list of origins such as `https://app.example`. */
const allowedOrigins = z.preprocess(
  unsetIfBlank,
  z
    .string()
    .default('*')
    .transform((value, ctx): '*' | string[] => {
      const entries = value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      if (entries.length === 0 || entries.includes('*')) return '*';
      const origins: string[] = [];
      for (const entry of entries) {
        const origin = originOf(entry);
        if (origin === undefined) {
          ctx.addIssue({ code: 'custom', message: 'must be * or comma-separated origins like https://app.example (scheme://host[:port], no path)' });
          return z.NEVER;
        }
        origins.push(origin);
      }
      return origins;
    }),
);

/** The serialised origin of `entry` when `entry` is exactly an origin, else undefined. */
function originOf(entry: string): string | undefined {
  try {
    const url = new URL(entry);
    if (!['http:', 'https:'].includes(url.protocol)) return undefined;
    return url.origin === entry.toLowerCase().replace(/\/$/, '') ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Keys of one `CHAINS` entry (API.md "Configuration"). */
const CHAIN_ENTRY_KEYS = ['name', 'rpc_url', 'start_block', 'confirmations', 'max_block_range', 'chain_id', 'tokens', 'gasless'] as const;

/** A chain's name: the `chain` value of its rows, and part of its indexer key. */
const chainName = z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters').regex(/^[A-Za-z0-9_.:-]+$/, 'must be letters, digits, _ . : -');

const wholeNumber = (min: number, max: number) =>
  z.int(`must be a whole number from ${min} to ${max}`).min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

/** A contract address in a `CHAINS` entry, kept lowercase. */
const entryAddress = z
  .string('must be a 0x-prefixed 20-byte address')
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address')
  .transform((value) => value.toLowerCase() as `0x${string}`);

/** Refuses keys a strict object does not know, naming them only when they look like key names. */
const unknownKeys = (allowed: readonly string[]) => (issue: z.core.$ZodRawIssue) => {
  if (issue.code !== 'unrecognized_keys') return undefined;
  // Key names are shown only when they look like key names: a misplaced URL is never echoed.
  const named = issue.keys.filter((key) => /^[A-Za-z_]{1,32}$/.test(key));
  const what = named.length === issue.keys.length ? `unknown key ${named.join(', ')}` : 'unknown keys';
  return `${what} (allowed: ${allowed.join(', ')})`;
};

const TOKEN_KEYS = ['address', 'symbol', 'decimals'] as const;
const GASLESS_KEYS = ['bundler_url', 'paymaster', 'tokens'] as const;

/** `tokens` of a `CHAINS` entry: ERC-20s the operator names, unique by address and by symbol. */
const chainTokens = z
  .array(
    z.strictObject(
      {
        address: entryAddress,
        symbol: z.string().trim().min(1, 'must not be empty').max(16, 'must be at most 16 characters').regex(/^[A-Za-z0-9._-]+$/, 'must be letters, digits, . _ -'),
        decimals: wholeNumber(0, 36),
      },
      { error: unknownKeys(TOKEN_KEYS) },
    ),
    `must be a JSON array of {${TOKEN_KEYS.join(', ')}} objects`,
  )
  .superRefine((tokens, ctx) => {
    const addresses = new Set<string>();
    const symbols = new Set<string>();
    tokens.forEach((token, index) => {
      if (addresses.has(token.address)) ctx.addIssue({ code: 'custom', path: [index, 'address'], message: 'addresses must be unique: this token is listed twice' });
      if (symbols.has(token.symbol.toLowerCase())) ctx.addIssue({ code: 'custom', path: [index, 'symbol'], message: `symbols must be unique: ${token.symbol} appears more than once` });
      addresses.add(token.address);
      symbols.add(token.symbol.toLowerCase());
    });
  });

/** `gasless` of a `CHAINS` entry (lib/server/gasless-check.ts checks it against the chain at start-up). */
const chainGasless = z.strictObject(
  {
    // Served to every client by GET /api/v1/chains: a URL that carries a credential would hand it out.
    bundler_url: httpUrlText.refine((value) => {
      try {
        const url = new URL(value);
        return url.username === '' && url.password === '' && url.search === '';
      } catch {
        return true; // httpUrlText says what is wrong
      }
    }, 'is given to every browser and CLI that asks (GET /api/v1/chains): it must carry no user, password or query string (a bundler API key belongs to a proxy, not to this URL)'),
    paymaster: entryAddress,
    tokens: z.array(entryAddress, 'must be a JSON array of token addresses').min(1, 'must name at least one token the paymaster accepts'),
  },
  {
    error: (issue) => unknownKeys(GASLESS_KEYS)(issue) ?? (issue.code === 'invalid_type' ? `must be an object {${GASLESS_KEYS.join(', ')}}` : undefined),
  },
);

/** One `CHAINS` entry: unknown (e.g. misspelt) keys are refused, so a typo cannot silently fall back to a default. */
const chainEntry = z.strictObject(
  {
    name: chainName,
    rpc_url: httpUrlText,
    start_block: wholeNumber(0, Number.MAX_SAFE_INTEGER).optional(),
    confirmations: wholeNumber(0, 10_000).optional(),
    max_block_range: wholeNumber(1, 1_000_000).optional(),
    chain_id: wholeNumber(1, Number.MAX_SAFE_INTEGER).optional(),
    tokens: chainTokens.optional(),
    gasless: chainGasless.optional(),
  },
  {
    error: (issue) => unknownKeys(CHAIN_ENTRY_KEYS)(issue) ?? (issue.code === 'invalid_type' ? `must be an object {${CHAIN_ENTRY_KEYS.join(', ')}}` : undefined),
  },
).superRefine((entry, ctx) => {
  // The web app shows an accepted token by its symbol and amounts in its decimals: both come from `tokens`.
  const named = new Set((entry.tokens ?? []).map((token) => token.address));
  entry.gasless?.tokens.forEach((address, index) => {
    if (!named.has(address)) ctx.addIssue({ code: 'custom', path: ['gasless', 'tokens', index], message: 'must be one of this chain\'s tokens (add it to tokens with its symbol and decimals)' });
  });
});

export type ChainEntry = z.output<typeof chainEntry>;

/** `CHAINS`: a JSON array of entries with unique names, or unset. */
const chainsVariable = z.preprocess(
  unsetIfBlank,
  z
    .string()
    .transform((text, ctx): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        // JSON.parse's message quotes the text, which holds RPC URLs (often with API keys).
        ctx.addIssue({ code: 'custom', message: 'must be a JSON array of {"name", "rpc_url", …} objects (the text is not JSON)' });
        return z.NEVER;
      }
    })
    .pipe(
      z
        .array(chainEntry, 'must be a JSON array of {"name", "rpc_url", …} objects')
        .min(1, 'must list at least one chain (or leave CHAINS unset)')
        .superRefine((entries, ctx) => {
          const seen = new Set<string>();
          entries.forEach((entry, index) => {
            if (seen.has(entry.name)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `names must be unique: ${entry.name} appears more than once` });
            seen.add(entry.name);
          });
          const ids = new Map<number, string>();
          entries.forEach((entry, index) => {
            if (entry.chain_id === undefined) return;
            const other = ids.get(entry.chain_id);
            if (other !== undefined) ctx.addIssue({ code: 'custom', path: [index, 'chain_id'], message: `chain ids must be unique: ${entry.name} and ${other} both say ${entry.chain_id}` });
            ids.set(entry.chain_id, entry.name);
          });
        }),
    )
    .optional(),
);

/** The one-chain shorthand: refused beside `CHAINS`, where each entry carries these settings. */
const SHORTHAND_VARIABLES = ['CHAIN_RPC_URL', 'CHAIN_NAME', 'INDEXER_START_BLOCK', 'INDEXER_CONFIRMATIONS', 'INDEXER_MAX_BLOCK_RANGE'] as const;

/** `CHAINS.0.rpc_url` → `CHAINS[0].rpc_url`. */
function variablePath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}

const environmentSchema = z.object({
  PORT: integer(0, 65535, 3001),
  HOSTNAME: z.preprocess(unsetIfBlank, z.string().trim().default('0.0.0.0')),
  REGISTRY_URL: z.preprocess(
    unsetIfBlank,
    z
      .string()
      .trim()
      .default('file:./data/registry.db')
      .refine(
        (value) => REGISTRY_SCHEMES.includes(/^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase() ?? ''),
        'must start with memory:, file:, postgres://, postgresql:// or libsql://',
      ),
  ),
  REGISTRY_POOL_SIZE: integer(1, 1000, 10),
  REGISTRY_TIMEOUT_MS: integer(100, 600_000, 5_000),
  API_KEY: z.preprocess(
    unsetIfBlank,
    z.string().min(16, 'must be at least 16 characters (use a random key, e.g. openssl rand -hex 32)').optional(),
  ),
  ALLOWED_ORIGINS: allowedOrigins,
  RATE_LIMIT_RPS: decimal(0, 1_000_000, 10),
  RATE_LIMIT_BURST: integer(1, 1_000_000, 30),
  TRUST_PROXY: integer(0, 32, 0),
  UPSTASH_REDIS_REST_URL: httpUrl(),
  UPSTASH_REDIS_REST_TOKEN: optionalText,
  RATE_LIMIT_FAIL_OPEN: flag(true),
  RATE_LIMIT_TIMEOUT_MS: integer(10, 60_000, 1_000),
  MAX_BODY_BYTES: integer(1024, 16 * 1024 * 1024, 65536),
  ETH_RPC_URL: httpUrlOr('https://ethereum-rpc.publicnode.com'),
  ENS_TEXT_KEY: z.preprocess(unsetIfBlank, z.string().trim().max(256, 'must be at most 256 characters').default('stealth-meta')),
  // viem's mainnet default (chains/definitions/mainnet.ts); point it at your own deployment on other chains.
  ENS_UNIVERSAL_RESOLVER: z.preprocess(
    unsetIfBlank,
    z
      .string()
      .trim()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte contract address')
      .default('0xeeeeeeee14d718c2b47d9923deab1335e144eeee')
      .transform((value) => value.toLowerCase() as `0x${string}`),
  ),
  SUI_RPC_URL: httpUrl(),
  SUI_NETWORK: z.preprocess(
    unsetIfBlank,
    z.enum(['mainnet', 'testnet', 'devnet', 'localnet'], 'must be mainnet, testnet, devnet or localnet').default('mainnet'),
  ),
  PINNING_JWT: optionalText,
  PINNING_GATEWAY_URL: httpUrl(),
  PINNING_GATEWAY_TOKEN: optionalText,
  PINNING_API_URL: httpUrlOr('https://api.pinata.cloud'),
  IPFS_STORE_DIR: z.preprocess(unsetIfBlank, z.string().trim().default('./data/ipfs')),
  IPFS_CACHE_ENTRIES: integer(0, 10_000_000, 1000),
  UPSTREAM_TIMEOUT_MS: integer(1, 600_000, 10_000),
  LOG_LEVEL: z.preprocess(
    (value) => (typeof unsetIfBlank(value) === 'string' ? String(value).trim().toLowerCase() : undefined),
    z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`).default('info'),
  ),
  SHUTDOWN_TIMEOUT_MS: integer(0, 600_000, 10_000),
  ...yellowEnvironment,
  CHAINS: chainsVariable,
  CHAIN_RPC_URL: httpUrl(),
  CHAIN_NAME: z.preprocess(unsetIfBlank, chainName.default('ethereum')),
  ANNOUNCER_ADDRESS: z.preprocess(
    unsetIfBlank,
    z
      .string()
      .trim()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte contract address')
      .default('0x55649E01B5Df198D18D95b5cc5051630cfD45564')
      .transform((value) => value.toLowerCase() as `0x${string}`),
  ),
  /** One scheme id (this format's), the older form of ANNOUNCER_SCHEME_IDS: it follows that id alone. */
  ANNOUNCER_SCHEME_ID: z.preprocess(
    unsetIfBlank,
    z
      .string()
      .trim()
      .regex(/^\d{1,78}$/, 'must be a whole number (a uint256)')
      .transform((value) => BigInt(value))
      .refine((value) => value < 2n ** 256n, 'must fit in a uint256')
      .optional(),
  ),
  /** The scheme ids followed (API.md): this format's (1000) and ERC-8441's 3, comma-separated. */
  ANNOUNCER_SCHEME_IDS: z.preprocess(
    unsetIfBlank,
    z
      .string()
      .trim()
      .regex(/^\d{1,78}( *, *\d{1,78})*$/, 'must be scheme ids separated by commas, e.g. 1000,3')
      .transform((value) => [...new Set(value.split(',').map((id) => BigInt(id.trim())))])
      .refine((ids) => ids.every((id) => id < 2n ** 256n), 'each must fit in a uint256')
      .refine((ids) => ids.filter((id) => id !== 3n).length <= 1, 'may name one id for this format beside 3 (ERC-8441)')
      .optional(),
  ),
  INDEXER_START_BLOCK: integer(0, Number.MAX_SAFE_INTEGER, 0),
  INDEXER_CONFIRMATIONS: integer(0, 10_000, DEFAULT_CONFIRMATIONS),
  INDEXER_POLL_MS: integer(50, 3_600_000, 4_000),
  INDEXER_MAX_BLOCK_RANGE: integer(1, 1_000_000, DEFAULT_MAX_BLOCK_RANGE),
  INDEXER_LEASE_MS: integer(1_000, 3_600_000, 15_000),
  REGISTRY_PUBLISH: z.preprocess(
    (value) => (typeof unsetIfBlank(value) === 'string' ? String(value).trim().toLowerCase() : undefined),
    z.enum(['open', 'verified', 'closed'], 'must be open, verified or closed').default('open'),
  ),
  ...ensGatewayEnvironment,
});

/** Every variable the server reads (documented in .env.example; a test keeps the two in step). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(environmentSchema.shape);

/**
 * Validate an environment (default `process.env`) into a {@link Config}.
 * @throws {ConfigError} listing every invalid variable, without its value.
 * @example
 * const config = loadConfig({ REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '0' });
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = environmentSchema.safeParse(env, {
    // zod's default messages are generic; keep them but never let one quote a value.
    error: (issue) => (issue.code !== 'invalid_type' ? undefined : issue.input === undefined ? 'is required' : `must be a ${issue.expected}`),
  });
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${variablePath(issue.path)}: ${issue.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  if ((e.UPSTASH_REDIS_REST_URL === undefined) !== (e.UPSTASH_REDIS_REST_TOKEN === undefined)) {
    problems.push('UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN: set both or neither');
  }
  if (e.ANNOUNCER_SCHEME_ID !== undefined && e.ANNOUNCER_SCHEME_IDS !== undefined) {
    problems.push('ANNOUNCER_SCHEME_ID and ANNOUNCER_SCHEME_IDS: set one (ANNOUNCER_SCHEME_IDS, e.g. 1000,3), not both');
  }
  if ((e.PINNING_GATEWAY_URL === undefined) !== (e.PINNING_GATEWAY_TOKEN === undefined)) {
    problems.push('PINNING_GATEWAY_URL and PINNING_GATEWAY_TOKEN: set both or neither');
  }
  if (e.CHAINS !== undefined) {
    const beside = SHORTHAND_VARIABLES.filter((name) => unsetIfBlank(env[name]) !== undefined);
    if (beside.length > 0) {
      problems.push(
        `CHAINS: set either CHAINS or the one-chain shorthand, not both; unset ${beside.join(', ')} (each CHAINS entry has its own name, rpc_url, start_block, confirmations and max_block_range)`,
      );
    }
  }
  if (e.REGISTRY_PUBLISH !== 'open' && e.CHAINS === undefined && e.CHAIN_RPC_URL === undefined) {
    problems.push(`REGISTRY_PUBLISH: ${e.REGISTRY_PUBLISH} needs a chain, CHAINS or CHAIN_RPC_URL (the chain that proves or feeds announcements)`);
  }
  const ensGateway = ensGatewayConfigFrom(e, chainsOf(e).length > 0);
  problems.push(...ensGateway.problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: e.PORT,
    hostname: e.HOSTNAME,
    registryUrl: e.REGISTRY_URL,
    registryPoolSize: e.REGISTRY_POOL_SIZE,
    registryTimeoutMs: e.REGISTRY_TIMEOUT_MS,
    apiKey: e.API_KEY,
    allowedOrigins: e.ALLOWED_ORIGINS,
    rateLimitRps: e.RATE_LIMIT_RPS,
    rateLimitBurst: e.RATE_LIMIT_BURST,
    trustProxy: e.TRUST_PROXY,
    upstash:
      e.UPSTASH_REDIS_REST_URL !== undefined && e.UPSTASH_REDIS_REST_TOKEN !== undefined
        ? { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN }
        : undefined,
    rateLimitFailOpen: e.RATE_LIMIT_FAIL_OPEN,
    rateLimitTimeoutMs: e.RATE_LIMIT_TIMEOUT_MS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    ethRpcUrl: e.ETH_RPC_URL,
    ensTextKey: e.ENS_TEXT_KEY,
    ensUniversalResolver: e.ENS_UNIVERSAL_RESOLVER,
    suiRpcUrl: e.SUI_RPC_URL,
    suiNetwork: e.SUI_NETWORK,
    pinningJwt: e.PINNING_JWT,
    pinningGatewayUrl: e.PINNING_GATEWAY_URL,
    pinningGatewayToken: e.PINNING_GATEWAY_TOKEN,
    pinningApiUrl: e.PINNING_API_URL.replace(/\/+$/, ''),
    ipfsStoreDir: e.IPFS_STORE_DIR,
    ipfsCacheEntries: e.IPFS_CACHE_ENTRIES,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    yellow: yellowConfigFrom(e),
    chains: chainsOf(e),
    registryPublish: e.REGISTRY_PUBLISH,
    ensGateway: ensGateway.config,
  };
}

/** The followed chains: the `CHAINS` entries, or the one chain of `CHAIN_RPC_URL`, or none. */
function chainsOf(e: z.output<typeof environmentSchema>): ChainConfig[] {
  // ANNOUNCER_SCHEME_ID alone keeps its old meaning (that id only); the default follows both schemes.
  const schemeIds = e.ANNOUNCER_SCHEME_IDS ?? (e.ANNOUNCER_SCHEME_ID === undefined ? [1000n, 3n] : [e.ANNOUNCER_SCHEME_ID]);
  // This format's id names the indexer's cursor (lib/chain/indexer.ts indexerKey), as before scheme 3.
  const schemeId = schemeIds.find((id) => id !== 3n) ?? 1000n;
  const shared = { announcer: e.ANNOUNCER_ADDRESS, schemeId, schemeIds, pollMs: e.INDEXER_POLL_MS, leaseMs: e.INDEXER_LEASE_MS };
  if (e.CHAINS !== undefined) {
    return e.CHAINS.map((entry) => ({
      ...shared,
      rpcUrl: entry.rpc_url,
      name: entry.name,
      ...(entry.chain_id === undefined ? {} : { chainId: entry.chain_id }),
      startBlock: entry.start_block ?? 0,
      confirmations: entry.confirmations ?? DEFAULT_CONFIRMATIONS,
      maxBlockRange: entry.max_block_range ?? DEFAULT_MAX_BLOCK_RANGE,
      tokens: entry.tokens ?? [],
      ...(entry.gasless === undefined ? {} : { gasless: { bundlerUrl: entry.gasless.bundler_url, paymaster: entry.gasless.paymaster, tokens: entry.gasless.tokens } }),
    }));
  }
  if (e.CHAIN_RPC_URL === undefined) return [];
  return [
    {
      ...shared,
      rpcUrl: e.CHAIN_RPC_URL,
      name: e.CHAIN_NAME,
      startBlock: e.INDEXER_START_BLOCK,
      confirmations: e.INDEXER_CONFIRMATIONS,
      maxBlockRange: e.INDEXER_MAX_BLOCK_RANGE,
    },
  ];
}
