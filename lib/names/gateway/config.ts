/**
 * The ENS gateway's configuration (`ENS_GATEWAY_*`, issue 33): names paid from any wallet through
 * ENSIP-10 wildcard resolution and EIP-3668 CCIP-Read, each lookup answered with a fresh one-time
 * address.
 *
 * The gateway is off unless its four required variables are set together: the OffchainResolver it
 * signs for (`ENS_GATEWAY_RESOLVER`), the parent name it serves labels under (`ENS_GATEWAY_PARENT`),
 * the signing key the resolver trusts (`ENS_GATEWAY_SIGNING_KEY`) and the secret the one-time
 * payments are derived from (`ENS_GATEWAY_SECRET`). lib/config.ts spreads
 * {@link ensGatewayEnvironment} into the server's schema, so a bad value stops the server at boot;
 * messages never quote a value (two of them are secrets).
 */
import { hexToBytes } from 'viem';
import { normalize } from 'viem/ens';
import { privateKeyToAddress } from 'viem/accounts';
import { z } from 'zod';
import { validScalar } from './one-time-address.ts';

export type EnsGatewayConfig = {
  /** The OffchainResolver whose signer this gateway is (EIP-3668 `sender`), lowercase. */
  resolver: `0x${string}`;
  /** ENSIP-15 normalised, e.g. `wraith.eth`; labels are registered under it. */
  parent: string;
  /** secp256k1 key the resolver's signer set holds; never logged. */
  signingKey: `0x${string}`;
  /** The signing key's address (what the resolver was deployed with). */
  signerAddress: `0x${string}`;
  /** Key of the per-lookup randomness and of the requester keys (at least 32 bytes). */
  secret: Uint8Array;
  /** The ENS registry on `ETH_RPC_URL`: owners of own names are read from it. */
  ensRegistry: `0x${string}`;
  /** How long a signed answer stays valid, seconds (OffchainResolver checks `expires >= block.timestamp`). */
  answerTtlSeconds: number;
  /** How long an issued address is handed out and counts against the cap, seconds. */
  addressTtlSeconds: number;
  /**
   * How much longer an unpaid address is still watched after it expired, seconds: a payer who
   * resolved, waited and paid late is still published (`ENS_GATEWAY_GRACE_S`).
   */
  graceSeconds: number;
  /** A requester (IP) looking a name up again within this many seconds gets the same address. */
  sameRequesterSeconds: number;
  /** Most unpaid, unexpired addresses per name; beyond it lookups reuse the newest one. */
  maxUnpaidPerName: number;
  /** Most new addresses one requester (IP) is issued per hour, over all names. */
  newAddressesPerIpPerHour: number;
};

/** Seven days: a payer who resolved a name on Friday and pays on Monday is still published. */
const DEFAULT_GRACE_SECONDS = 7 * 86_400;

const unsetIfBlank = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const address = (fallback?: string) =>
  z.preprocess(
    unsetIfBlank,
    (fallback === undefined
      ? z.string().trim().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte contract address').optional()
      : z.string().trim().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte contract address').default(fallback)
    ).transform((value) => value?.toLowerCase() as `0x${string}` | undefined),
  );

const wholeNumber = (min: number, max: number, fallback: number) =>
  z.preprocess(
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

/** The `ENS_GATEWAY_*` entries of the server's environment schema (lib/config.ts). */
export const ensGatewayEnvironment = {
  ENS_GATEWAY_RESOLVER: address(),
  ENS_GATEWAY_PARENT: z.preprocess(
    unsetIfBlank,
    z
      .string()
      .trim()
      .transform((value, ctx) => {
        try {
          const name = normalize(value);
          if (name.split('.').length >= 2 && !name.split('.').includes('')) return name;
        } catch {
          // reported below
        }
        ctx.addIssue({ code: 'custom', message: 'must be an ENS name with at least two labels (ENSIP-15), e.g. wraith.eth' });
        return z.NEVER;
      })
      .optional(),
  ),
  ENS_GATEWAY_SIGNING_KEY: z.preprocess(
    unsetIfBlank,
    z
      .string()
      .trim()
      .refine((value) => /^0x[0-9a-fA-F]{64}$/.test(value) && validScalar(hexToBytes(value as `0x${string}`)), 'must be a 0x-prefixed 32-byte secp256k1 private key')
      .transform((value) => value.toLowerCase() as `0x${string}`)
      .optional(),
  ),
  ENS_GATEWAY_SECRET: z.preprocess(
    unsetIfBlank,
    z.string().trim().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional(),
  ),
  // The ENS registry's address on mainnet and its testnets (ENS deployments).
  ENS_REGISTRY: address('0x00000000000c2e074ec69a0dfb2997ba6c7d2e1e'),
  ENS_GATEWAY_ANSWER_TTL_S: wholeNumber(10, 3_600, 60),
  ENS_GATEWAY_ADDRESS_TTL_S: wholeNumber(60, 30 * 86_400, 86_400),
  // Bounded: every watched address costs one balance read per watcher tick (watcher.ts).
  ENS_GATEWAY_GRACE_S: wholeNumber(0, 90 * 86_400, DEFAULT_GRACE_SECONDS),
  ENS_GATEWAY_SAME_REQUESTER_S: wholeNumber(0, 86_400, 300),
  ENS_GATEWAY_MAX_UNPAID: wholeNumber(1, 100_000, 100),
  ENS_GATEWAY_IP_HOURLY: wholeNumber(1, 1_000_000, 30),
};

type EnsGatewayEnvironment = { [K in keyof typeof ensGatewayEnvironment]?: z.output<(typeof ensGatewayEnvironment)[K]> };

const REQUIRED = ['ENS_GATEWAY_RESOLVER', 'ENS_GATEWAY_PARENT', 'ENS_GATEWAY_SIGNING_KEY', 'ENS_GATEWAY_SECRET'] as const;

/**
 * The gateway's configuration, undefined when it is off; problems when it is set in part, or set
 * while the server follows no chain (`followsChain`: `CHAINS` or `CHAIN_RPC_URL` set): its
 * addresses are published only when a followed chain's watcher sees them paid, so without one
 * every payment to a name would be stranded.
 */
export function ensGatewayConfigFrom(env: EnsGatewayEnvironment, followsChain: boolean): { config: EnsGatewayConfig | undefined; problems: string[] } {
  const set = REQUIRED.filter((name) => env[name] !== undefined);
  if (set.length === 0) return { config: undefined, problems: [] };
  if (set.length < REQUIRED.length) {
    const missing = REQUIRED.filter((name) => env[name] === undefined);
    return { config: undefined, problems: [`${REQUIRED.join(', ')}: set all four to run the ENS gateway, or none (missing ${missing.join(', ')})`] };
  }
  if (!followsChain) {
    return {
      config: undefined,
      problems: ['CHAINS: the ENS gateway (ENS_GATEWAY_*) needs a followed chain (CHAINS or CHAIN_RPC_URL): it publishes a payment only when it sees it on a chain it follows, so without one every payment to a name would be lost to its recipient'],
    };
  }
  const signingKey = env.ENS_GATEWAY_SIGNING_KEY!;
  return {
    problems: [],
    config: {
      resolver: env.ENS_GATEWAY_RESOLVER!,
      parent: env.ENS_GATEWAY_PARENT!,
      signingKey,
      signerAddress: privateKeyToAddress(signingKey),
      secret: new TextEncoder().encode(env.ENS_GATEWAY_SECRET!),
      ensRegistry: env.ENS_REGISTRY ?? '0x00000000000c2e074ec69a0dfb2997ba6c7d2e1e',
      answerTtlSeconds: env.ENS_GATEWAY_ANSWER_TTL_S ?? 60,
      addressTtlSeconds: env.ENS_GATEWAY_ADDRESS_TTL_S ?? 86_400,
      graceSeconds: env.ENS_GATEWAY_GRACE_S ?? DEFAULT_GRACE_SECONDS,
      sameRequesterSeconds: env.ENS_GATEWAY_SAME_REQUESTER_S ?? 300,
      maxUnpaidPerName: env.ENS_GATEWAY_MAX_UNPAID ?? 100,
      newAddressesPerIpPerHour: env.ENS_GATEWAY_IP_HOURLY ?? 30,
    },
  };
}

