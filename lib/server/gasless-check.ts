/**
 * The start-up check of a chain's gasless settings (`gasless` of its `CHAINS` entry): a setting
 * that cannot take effect is reported when the server starts (API.md "Configuration"), not
 * discovered by a recipient at claim time.
 *
 * - A paymaster address without code on the chain cannot sponsor anything: refused.
 * - A bundler that answers `eth_supportedEntryPoints` without EntryPoint v0.8 (ERC-4337 v0.8, the
 *   version whose user operations carry an EIP-7702 authorization), or that serves another chain
 *   (`eth_chainId`), would refuse or misroute every operation: refused.
 * - A paymaster that does not answer `prices(token)` is not a WraithTokenPaymaster; a token it
 *   sets no price for, or one without an EIP-2612 permit (the paymaster takes its fee with the
 *   one-time address's permit: an address holding no coin cannot send an `approve`), can never be
 *   claimed that way: refused. A price that expired: a warning (its operator may renew it).
 * - A bundler that does not answer, or a chain read that fails, may come up later: a warning, and
 *   clients see the error themselves when they use it.
 *
 * Messages name the chain and the setting, never the bundler URL (it may carry an API key).
 */
import { withinTimeout, chainErrorSummary, type ChainClients } from '../chain/rpc.ts';
import type { ChainConfig } from '../config.ts';

/** EntryPoint v0.8's canonical address (eth-infinitism/account-abstraction v0.8.0, CREATE2). */
export const ENTRY_POINT_V08 = '0x4337084d9e255ff0702461cf8895ce9e3b5ff108';

export type GaslessCheck = {
  /** The settings cannot work: the server stops at start-up (logged as an error if found later). */
  refusals: string[];
  /** The bundler did not answer; it may later. */
  warnings: string[];
};

/**
 * Check `chain`'s gasless settings against its RPC (`clients`) and its bundler, each read within
 * `timeoutMs`. A chain without `gasless` passes with nothing to say.
 * @example
 * const { refusals, warnings } = await checkGasless(chain.config, chain.clients, chainId, 5_000);
 */
export async function checkGasless(chain: ChainConfig, clients: ChainClients, chainId: number, timeoutMs: number): Promise<GaslessCheck> {
  const result: GaslessCheck = { refusals: [], warnings: [] };
  const gasless = chain.gasless;
  if (gasless === undefined) return result;
  const [code, bundler] = await Promise.allSettled([
    withinTimeout(() => clients.reads.getCode({ address: gasless.paymaster }), timeoutMs),
    withinTimeout(() => bundlerFacts(gasless.bundlerUrl, timeoutMs), timeoutMs),
  ]);
  if (code.status === 'rejected') {
    result.warnings.push(`${chain.name}: gasless.paymaster: its code could not be read (${chainErrorSummary(code.reason)})`);
  } else if (code.value === undefined || code.value === '0x') {
    result.refusals.push(`${chain.name}: gasless.paymaster has no code on chain ${chainId} (not deployed there?)`);
  } else {
    await checkTokens(chain, clients, timeoutMs, result);
  }
  if (bundler.status === 'rejected') {
    result.warnings.push(`${chain.name}: gasless.bundler_url did not answer eth_supportedEntryPoints (${chainErrorSummary(bundler.reason)}); gasless withdrawals fail until it does`);
  } else {
    if (!bundler.value.entryPoints.includes(ENTRY_POINT_V08)) {
      result.refusals.push(`${chain.name}: gasless.bundler_url does not list EntryPoint v0.8 in eth_supportedEntryPoints`);
    }
    if (bundler.value.chainId !== chainId) {
      result.refusals.push(`${chain.name}: gasless.bundler_url serves chain id ${bundler.value.chainId}, but the chain's RPC answers ${chainId}`);
    }
  }
  return result;
}

const paymasterPricesAbi = [
  {
    type: 'function',
    name: 'prices',
    stateMutability: 'view',
    inputs: [{ name: 'token', type: 'address' }],
    outputs: [{ name: 'tokenPerEth', type: 'uint192' }, { name: 'validUntil', type: 'uint48' }, { name: 'maxMoveBps', type: 'uint16' }],
  },
] as const;
const domainSeparatorAbi = [{ type: 'function', name: 'DOMAIN_SEPARATOR', stateMutability: 'view', inputs: [], outputs: [{ type: 'bytes32' }] }] as const;

/** Each gasless token: priced by the paymaster (not expired) and with an EIP-2612 permit. */
async function checkTokens(chain: ChainConfig, clients: ChainClients, timeoutMs: number, result: GaslessCheck): Promise<void> {
  const gasless = chain.gasless!;
  const symbolOf = (address: string) => chain.tokens?.find((t) => t.address.toLowerCase() === address.toLowerCase())?.symbol ?? address;
  const read = <T>(call: () => Promise<T>) => withinTimeout(call, timeoutMs).then(
    (value) => ({ value }) as const,
    (error: unknown) => ({ error, reverted: contractAnswered(error) }) as const,
  );
  const [block, ...facts] = await Promise.all([
    read(() => clients.reads.getBlock({ blockTag: 'latest' })),
    ...gasless.tokens.map(async (token) => ({
      token,
      price: await read(() => clients.reads.readContract({ address: gasless.paymaster, abi: paymasterPricesAbi, functionName: 'prices', args: [token] })),
      permit: await read(() => clients.reads.readContract({ address: token, abi: domainSeparatorAbi, functionName: 'DOMAIN_SEPARATOR' })),
    })),
  ]);
  const now = 'value' in block ? block.value.timestamp : undefined;
  let notAPaymaster = false;
  for (const { token, price, permit } of facts) {
    const name = `${chain.name}: gasless.tokens: ${symbolOf(token)}`;
    if ('error' in price) {
      if (price.reverted) notAPaymaster = true;
      else result.warnings.push(`${name}: its price could not be read (${chainErrorSummary(price.error)})`);
    } else if (price.value[0] === 0n) {
      result.refusals.push(`${name} is not accepted by gasless.paymaster (it sets no price for it)`);
    } else if (now !== undefined && BigInt(price.value[1]) <= now) {
      result.warnings.push(`${name}: the paymaster's price expired at ${new Date(price.value[1] * 1000).toISOString()}; gasless withdrawals of it fail until its operator renews it`);
    }
    if ('error' in permit) {
      if (permit.reverted) result.refusals.push(`${name} has no EIP-2612 permit, so an address that holds no coin cannot pay the paymaster's fee`);
      else result.warnings.push(`${name}: its permit could not be checked (${chainErrorSummary(permit.error)})`);
    }
  }
  if (notAPaymaster) result.refusals.unshift(`${chain.name}: gasless.paymaster does not answer prices(token): not a WraithTokenPaymaster (contracts/src)?`);
}

/** The contract answered (reverted, or returned nothing): not a network failure worth retrying. */
function contractAnswered(error: unknown): boolean {
  for (let e = error as { name?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.name === 'ContractFunctionRevertedError' || e.name === 'ContractFunctionZeroDataError') return true;
  }
  return false;
}

/** The bundler's entry points (lowercase) and chain id. */
async function bundlerFacts(url: string, timeoutMs: number): Promise<{ entryPoints: string[]; chainId: number }> {
  const [entryPoints, chainId] = await Promise.all([rpc(url, 'eth_supportedEntryPoints', timeoutMs), rpc(url, 'eth_chainId', timeoutMs)]);
  if (!Array.isArray(entryPoints) || !entryPoints.every((e) => typeof e === 'string')) throw new BundlerAnswerError('eth_supportedEntryPoints is not a list of addresses');
  if (typeof chainId !== 'string' || !/^0x[0-9a-fA-F]+$/.test(chainId)) throw new BundlerAnswerError('eth_chainId is not a hex quantity');
  return { entryPoints: entryPoints.map((e: string) => e.toLowerCase()), chainId: Number(BigInt(chainId)) };
}

class BundlerAnswerError extends Error {
  override name = 'BundlerAnswerError';
  readonly shortMessage: string;
  constructor(message: string) {
    super(message);
    this.shortMessage = message;
  }
}

async function rpc(url: string, method: string, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new BundlerAnswerError(`HTTP ${response.status}`);
  const body = (await response.json().catch(() => undefined)) as { result?: unknown; error?: { message?: unknown } } | undefined;
  if (body === undefined || typeof body !== 'object') throw new BundlerAnswerError('the answer is not JSON-RPC');
  if (body.error !== undefined) throw new BundlerAnswerError(`${method} refused`);
  return body.result;
}
