/**
 * The ENS gateway's start-up check on the ENS chain (lib/names/gateway/startup-check.ts) against
 * a real anvil with the ENS registry and OffchainResolver from their npm artifacts: a resolver
 * without code, a resolver that does not trust the signing key, and a parent name whose resolver
 * is another are refused in plain words that never quote the key; an ENS chain that does not
 * answer is a warning (it may come up later), as for the gasless start-up check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, type PublicClient, type WalletClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { loadConfig } from '../../lib/config.ts';
import { ensChainId } from '../../lib/names/gateway/ens-chain.ts';
import { checkGatewayAtStartup } from '../../lib/names/gateway/start.ts';
import { checkGateway } from '../../lib/names/gateway/startup-check.ts';
import { runShutdownHooks } from '../../lib/server/shutdown.ts';
import { clearProcessSingleton } from '../../lib/server/singleton.ts';
import { captureLog, configure } from '../helpers/api.ts';
import { DEV_KEYS } from '../helpers/announcer-chain.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { deployGatewayEns, type GatewayEns } from '../helpers/ens-gateway-chain.ts';

const PARENT = 'wraith.eth';
const SIGNING_KEY = generatePrivateKey();

let anvil: Anvil;
let ens: GatewayEns;
beforeAll(async () => {
  anvil = await startAnvil();
  const wallet = createWalletClient({ account: privateKeyToAccount(DEV_KEYS[0]!), chain: anvilChain, transport: http(anvil.rpcUrl) }) as WalletClient;
  const client = createPublicClient({ chain: anvilChain, transport: http(anvil.rpcUrl) }) as PublicClient;
  ens = await deployGatewayEns(wallet, client, { url: 'http://127.0.0.1:1/api/v1/ccip/{sender}/{data}.json', signers: [privateKeyToAddress(SIGNING_KEY)], parent: PARENT });
  // Another parent whose resolver is not the gateway's (the deployer's own address).
  await ens.register('elsewhere.eth', privateKeyToAccount(DEV_KEYS[0]!).address, privateKeyToAccount(DEV_KEYS[1]!).address);
}, 120_000);
afterAll(async () => {
  await anvil?.stop();
});

function env(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    REGISTRY_URL: 'memory:',
    CHAIN_RPC_URL: anvil.rpcUrl,
    ETH_RPC_URL: anvil.rpcUrl,
    ENS_REGISTRY: ens.registry,
    ENS_GATEWAY_RESOLVER: ens.resolver,
    ENS_GATEWAY_PARENT: PARENT,
    ENS_GATEWAY_SIGNING_KEY: SIGNING_KEY,
    ENS_GATEWAY_SECRET: 'test-only gateway secret, 32+ characters long',
    ...overrides,
  };
}

const check = (overrides: Record<string, string> = {}) => {
  const config = loadConfig(env(overrides));
  return checkGateway(config.ensGateway!, config.ethRpcUrl, 2_000);
};

describe('the ENS gateway\'s start-up check', () => {
  it('passes a deployed resolver that trusts the signing key and resolves the parent name, and learns the ENS chain\'s id', async () => {
    expect(await check()).toEqual({ refusals: [], warnings: [], chainId: 31337 });
  });

  it('refuses a signing key the resolver does not trust, naming its address but never the key', async () => {
    const other = generatePrivateKey();
    const { refusals } = await check({ ENS_GATEWAY_SIGNING_KEY: other });
    expect(refusals).toEqual([
      `ENS_GATEWAY_SIGNING_KEY: its address ${privateKeyToAddress(other)} is not a signer of ENS_GATEWAY_RESOLVER on chain 31337, so the resolver would refuse every answer`,
    ]);
    expect(refusals.join()).not.toContain(other.slice(2));
  });

  it('refuses a resolver address with no code on the ENS chain', async () => {
    const { refusals } = await check({ ENS_GATEWAY_RESOLVER: privateKeyToAddress(generatePrivateKey()) });
    expect(refusals).toEqual(['ENS_GATEWAY_RESOLVER has no code on the ENS chain (chain id 31337, ETH_RPC_URL): not deployed there?']);
  });

  it('refuses a contract that is not an OffchainResolver', async () => {
    const { refusals } = await check({ ENS_GATEWAY_RESOLVER: ens.registry });
    expect(refusals[0]).toMatch(/^ENS_GATEWAY_RESOLVER does not answer signers\(address\) on chain 31337: not an OffchainResolver/);
  });

  it('refuses a parent name whose resolver in the ENS registry is another', async () => {
    const { refusals } = await check({ ENS_GATEWAY_PARENT: 'elsewhere.eth' });
    expect(refusals).toEqual([
      `ENS_GATEWAY_PARENT: its resolver in the ENS registry on chain 31337 is ${privateKeyToAccount(DEV_KEYS[1]!).address.toLowerCase()}, not ENS_GATEWAY_RESOLVER, so no lookup of its labels reaches this gateway`,
    ]);
  });

  it('only warns when the ENS chain does not answer (it may come up later), without quoting its URL', async () => {
    const result = await check({ ETH_RPC_URL: 'http://127.0.0.1:9/key-s3cret' });
    expect(result.refusals).toEqual([]);
    expect(result.warnings).toEqual([expect.stringMatching(/^ENS_GATEWAY_RESOLVER: not checked, the ENS chain \(ETH_RPC_URL\) did not answer/)]);
    expect(result.warnings.join()).not.toContain('s3cret');
  });
});

describe('start-up with the ENS gateway', () => {
  it('warns once that addr(bytes32) answers no address when the ENS chain is not followed', async () => {
    const other = await startAnvil(['--chain-id', '10']);
    try {
      const warning = 'ens gateway answers no address to addr(bytes32) (coin type 60): the ENS chain is not followed';
      await configure({ ...env(), CHAIN_RPC_URL: undefined, CHAINS: JSON.stringify([{ name: 'op', rpc_url: other.rpcUrl }]), LOG_LEVEL: 'warn' });
      clearProcessSingleton('chains');
      const notFollowed = await captureLog(() => checkGatewayAtStartup());
      expect(notFollowed.result).toEqual([]);
      expect(notFollowed.log).toContain(warning);
      await runShutdownHooks();
      await configure({ ...env(), LOG_LEVEL: 'warn' });
      clearProcessSingleton('chains');
      const followed = await captureLog(() => checkGatewayAtStartup());
      expect(followed.result).toEqual([]);
      expect(followed.log).not.toContain(warning);
    } finally {
      await runShutdownHooks();
      clearProcessSingleton('chains');
      await other.stop();
    }
  });

  it('returns the refusals boot stops on, and keeps the ENS chain\'s id for lookups', async () => {
    await configure(env({ ENS_GATEWAY_SIGNING_KEY: generatePrivateKey() }));
    expect(await checkGatewayAtStartup()).toEqual([expect.stringContaining('is not a signer of ENS_GATEWAY_RESOLVER')]);
    await anvil.stop(); // the id is kept: lookups do not depend on the RPC answering again
    expect(await ensChainId(anvil.rpcUrl, 1_000)).toBe(31337);
  });
});
