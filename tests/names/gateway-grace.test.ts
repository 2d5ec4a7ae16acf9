/**
 * A payer who resolves a gateway name, waits past the address's expiry
 * (`ENS_GATEWAY_ADDRESS_TTL_S`) and pays then is still published (issue 33): the watcher keeps
 * watching unpaid addresses for `ENS_GATEWAY_GRACE_S` more, and past that a raised grace period
 * finds coin still sitting at the address. On anvil, with the route handler answering the lookup
 * and the watcher's tick run at chosen clock times; the recipient finds the payment through the
 * server's ordinary scan. The flow runs with a memory registry and with PostgreSQL (registry and
 * gateway names both there). The watcher's balance reads go out in JSON-RPC batches, counted
 * through a proxy in front of anvil.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, decodeAbiParameters, encodeFunctionData, getAddress, hexToBytes, http, parseAbi, parseEther, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { namehash, packetToBytes } from 'viem/ens';
import * as ccipRoute from '../../app/api/v1/ccip/route.ts';
import { createChainClients } from '../../lib/chain/rpc.ts';
import { gatewayPayment, requesterKey } from '../../lib/names/gateway/one-time-address.ts';
import { getNameStore } from '../../lib/names/gateway/open.ts';
import { watchChainOnce, type WatchDependencies } from '../../lib/names/gateway/watcher.ts';
import type { FollowedChain } from '../../lib/server/chain.ts';
import type { NameStore } from '../../lib/names/gateway/store.ts';
import { getConfig } from '../../lib/server/config.ts';
import { getRegistry } from '../../lib/server/registry.ts';
import { clearProcessSingleton } from '../../lib/server/singleton.ts';
import { call, configure } from '../helpers/api.ts';
import { DEV_KEYS } from '../helpers/announcer-chain.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { describeWithPostgres } from '../helpers/postgres.ts';
import { startRpcFaultProxy } from '../helpers/rpc-fault-proxy.ts';
import { generateKeys, request, scanKeys, type KeyBundle } from '../helpers/routes.ts';

const NAME = 'late.wraith.eth';
const RESOLVER = privateKeyToAddress(generatePrivateKey()).toLowerCase();
const SECRET = 'test-only gateway secret, 32+ characters long';
const TTL_S = 60;
const GRACE_S = 3_600;

let anvil: Anvil;
beforeAll(async () => {
  anvil = await startAnvil();
});
afterAll(async () => {
  await anvil?.stop();
});

const secret = new TextEncoder().encode(SECRET);

/** What the gateway's configuration needs for these tests, with the chain at `rpcUrl`. */
function gatewayEnv(rpcUrl: string): Record<string, string> {
  return {
    ENS_GATEWAY_RESOLVER: RESOLVER,
    ENS_GATEWAY_PARENT: 'wraith.eth',
    ENS_GATEWAY_SIGNING_KEY: generatePrivateKey(),
    ENS_GATEWAY_SECRET: SECRET,
    ENS_GATEWAY_ADDRESS_TTL_S: String(TTL_S),
    ENS_GATEWAY_GRACE_S: String(GRACE_S),
    ETH_RPC_URL: anvil.rpcUrl,
    CHAINS: JSON.stringify([{ name: 'local', rpc_url: rpcUrl, chain_id: 31337 }]),
  };
}

/** Issue an address of NAME to `ip` at `now`, as a lookup would. */
function issueAt(names: NameStore, ip: string, now: number) {
  return names.issue({
    name: NAME,
    requester: requesterKey(secret, ip),
    now,
    sameRequesterSeconds: 0,
    addressTtlSeconds: TTL_S,
    maxUnpaid: 1_000,
    mayIssueNew: true,
    derive: (counter, metaAddress) => gatewayPayment(secret, NAME, counter, metaAddress).stealthAddress,
  });
}

/** The followed chain of the configuration, identified, as the watcher sees it. */
function followed(rpcUrl: string): FollowedChain {
  return { config: getConfig().chains[0]!, clients: createChainClients(rpcUrl, 5_000), chainId: 31337, identified: true, refused: false, indexer: undefined, problem: null };
}

async function pay(to: string, value: bigint): Promise<void> {
  const wallet = createWalletClient({ account: privateKeyToAccount(DEV_KEYS[0]!), chain: anvilChain, transport: http(anvil.rpcUrl) });
  const client = createPublicClient({ chain: anvilChain, transport: http(anvil.rpcUrl) });
  await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: to as Address, value }) });
}

/** A wallet's lookup of `addr(namehash(NAME))` through the gateway route: the address answered. */
async function lookUp(): Promise<string> {
  const inner = encodeFunctionData({ abi: parseAbi(['function addr(bytes32) view returns (address)']), args: [namehash(NAME)] });
  const data = encodeFunctionData({ abi: parseAbi(['function resolve(bytes, bytes) view returns (bytes, uint64, bytes)']), args: [toHex(packetToBytes(NAME)), inner] });
  const response = await call(ccipRoute.POST, '/api/v1/ccip', { method: 'POST', body: { sender: RESOLVER, data } });
  expect(response.status, response.text).toBe(200);
  const [result] = decodeAbiParameters([{ type: 'bytes' }, { type: 'uint64' }, { type: 'bytes' }], response.json.data as Hex);
  return getAddress(decodeAbiParameters([{ type: 'address' }], result)[0]);
}

async function found(keys: KeyBundle): Promise<string[]> {
  const response = await request('scan', 'POST', { body: scanKeys(keys) });
  expect(response.status).toBe(200);
  return (response.json.discoveries as { stealth_address: string }[]).map((d) => getAddress(d.stealth_address)).sort();
}

describe('an address paid after its answer expired', () => {
  it('is published and found by the recipient\'s scan when paid within the grace period, and past it once the grace period is raised', { timeout: 60_000 }, () => latePayment('memory:'));

  it('reads the balances of 250 watched addresses in three JSON-RPC batch requests, not 250', { timeout: 60_000 }, async () => {
    const proxy = await startRpcFaultProxy({ target: anvil.rpcUrl });
    try {
      await configure(gatewayEnv(proxy.url));
      clearProcessSingleton('ensGatewayStore');
      const names = await getNameStore();
      const keys = await generateKeys();
      await names.setName(NAME, 0, { kind: 'label', metaAddress: hexToBytes(`0x${keys.meta_address.replace(/^0x/, '')}`), owner: null }, 0);
      const now = Math.floor(Date.now() / 1000);
      for (let i = 0; i < 250; i++) await issueAt(names, `203.0.113.${i}`, now - 2 * TTL_S); // all expired, all inside the grace period
      proxy.resetStats();
      expect(await watchChainOnce(followed(proxy.url), { config: getConfig().ensGateway!, names, registry: await getRegistry() }, now)).toBe(0);
      expect(proxy.stats.methods['eth_getBalance']).toBe(250);
      // eth_blockNumber, three eth_getLogs (100 addresses each) and three balance batches.
      expect(proxy.stats.requests).toBeLessThanOrEqual(7);
    } finally {
      await proxy.close();
    }
  });
});

describeWithPostgres('an address paid after its answer expired, with a PostgreSQL registry', (postgres) => {
  it('is published and found by the recipient\'s scan, its row kept in PostgreSQL', { timeout: 60_000 }, async () => latePayment(await postgres().freshSchema()));
});

/** Resolve, pay late, watch, scan: the whole flow of a late payment with the registry (and the gateway's names) at `registryUrl`. */
async function latePayment(registryUrl: string): Promise<void> {
  await configure({ ...gatewayEnv(anvil.rpcUrl), REGISTRY_URL: registryUrl });
  clearProcessSingleton('ensGatewayStore');
  const keys = await generateKeys();
  const names = await getNameStore();
  const meta = hexToBytes(`0x${keys.meta_address.replace(/^0x/, '')}`);
  await names.setName(NAME, 0, { kind: 'label', metaAddress: meta, owner: null }, 0);
  const issuedAt = Math.floor(Date.now() / 1000);

  // Resolved now; paid after its expiry, inside the grace period.
  const late = await lookUp();
  // Resolved long ago: expired longer than the grace period when it is paid.
  const ancient = await issueAt(names, '192.0.2.77', issuedAt - TTL_S - GRACE_S - 1_000);
  const tooLate = getAddress(ancient.address!.address);
  await pay(late, parseEther('0.3'));
  await pay(tooLate, parseEther('0.2'));

  const chain = followed(anvil.rpcUrl);
  const deps: WatchDependencies = { config: getConfig().ensGateway!, names, registry: await getRegistry() };
  const tenMinutesPastExpiry = issuedAt + TTL_S + 600;
  expect(await watchChainOnce(chain, deps, tenMinutesPastExpiry)).toBe(1);
  expect(await found(keys)).toEqual([late]);
  const again = await watchChainOnce(chain, deps, tenMinutesPastExpiry + 5);
  expect(again, 'a published address is not watched again').toBe(0);

  // Recovery: the operator raises the grace period; the coin still at the address is found at
  // the head (the watcher reads new blocks only, so one is mined, as any live chain would).
  await fetch(anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }) });
  expect(await watchChainOnce(chain, { ...deps, config: { ...deps.config, graceSeconds: 3 * GRACE_S } }, tenMinutesPastExpiry + 10)).toBe(1);
  expect(await found(keys)).toEqual([late, tooLate].sort());
  await names.close();
}
