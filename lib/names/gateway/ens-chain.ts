/**
 * The ENS chain: the chain of `ETH_RPC_URL`, where the ENS registry and the gateway's
 * OffchainResolver are deployed (mainnet in production, a testnet or anvil otherwise).
 *
 * Its EIP-155 id decides whether the gateway answers coin type 60 (`addr(bytes32)`, what plain
 * wallets and viem's `getEnsAddress` ask by default): ENSIP-9 coin type 60 is the native coin of
 * the chain the name resolves on, and an ordinary wallet pays the answer there (lookup.ts). The
 * id is read once and kept per URL; the start-up check (startup-check.ts) reads it first, and a
 * failed read is retried at most every {@link RETRY_MS}, so an unreachable RPC does not slow
 * every lookup down.
 */
import { createPublicClient, http } from 'viem';
import { withinTimeout } from '../../chain/rpc.ts';
import { processSingleton } from '../../server/singleton.ts';

const RETRY_MS = 30_000;

type Known = Map<string, { id: number } | { failedAt: number }>;

const known = (): Known => processSingleton<Known>('ensGatewayChainIds', () => new Map());

/** Remember the id `rpcUrl` answered (the start-up check read it already). */
export function rememberEnsChainId(rpcUrl: string, chainId: number): void {
  known().set(rpcUrl, { id: chainId });
}

/**
 * The ENS chain's id, or undefined while `rpcUrl` has not answered it.
 * @example
 * const id = await ensChainId(config.ethRpcUrl, config.upstreamTimeoutMs);
 */
export async function ensChainId(rpcUrl: string, timeoutMs: number, now = Date.now()): Promise<number | undefined> {
  const entry = known().get(rpcUrl);
  if (entry !== undefined && 'id' in entry) return entry.id;
  if (entry !== undefined && now - entry.failedAt < RETRY_MS) return undefined;
  try {
    const client = createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
    const id = await withinTimeout(() => client.getChainId(), timeoutMs);
    rememberEnsChainId(rpcUrl, id);
    return id;
  } catch {
    known().set(rpcUrl, { failedAt: now });
    return undefined;
  }
}
