/**
 * The ENS gateway answers an address only for a chain whose payments it watches (issue 33): a
 * payment to an address on a chain nobody follows is never published, so its recipient would
 * never find it. Coin type 60 (`addr(bytes32)`, what plain wallets ask) is the ENS chain's coin
 * (`ETH_RPC_URL`); ENSIP-11 coin types are their chain's; ENSIP-19's "any EVM chain" is never
 * answered. Two anvils: the ENS chain (31337) and a second chain (id 10). Lookups go through the
 * route handler as Next.js calls it; the answers are decoded as the resolver would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAbiParameters, encodeFunctionData, getAddress, parseAbi, toHex, zeroAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { namehash, packetToBytes } from 'viem/ens';
import { erc8441KeysOf, generateKeys } from '@wraith-pq/sdk';
import * as ccipRoute from '../../app/api/v1/ccip/route.ts';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { getNameStore } from '../../lib/names/gateway/open.ts';
import { clearProcessSingleton } from '../../lib/server/singleton.ts';
import { call, configure } from '../helpers/api.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';

const NAME = 'alice.wraith.eth';
const RESOLVER = privateKeyToAddress(generatePrivateKey()).toLowerCase();
const GATEWAY = {
  ENS_GATEWAY_RESOLVER: RESOLVER,
  ENS_GATEWAY_PARENT: 'wraith.eth',
  ENS_GATEWAY_SIGNING_KEY: generatePrivateKey(),
  ENS_GATEWAY_SECRET: 'test-only gateway secret, 32+ characters long',
};
const ANY_EVM = 0x80000000n;
const coinTypeOf = (chainId: number) => ANY_EVM | BigInt(chainId);

let ensChain: Anvil;
let otherChain: Anvil;
beforeAll(async () => {
  [ensChain, otherChain] = await Promise.all([startAnvil(), startAnvil(['--chain-id', '10'])]);
});
afterAll(async () => {
  await Promise.all([ensChain?.stop(), otherChain?.stop()]);
});

/** Configure the gateway following `chains` (CHAINS entries with their ids), ENS on the first anvil, and register NAME. */
async function serve(chains: { name: string; rpc_url: string; chain_id: number }[], ethRpcUrl = ensChain.rpcUrl): Promise<void> {
  await configure({ ...GATEWAY, ETH_RPC_URL: ethRpcUrl, CHAINS: JSON.stringify(chains) });
  clearProcessSingleton('chains');
  clearProcessSingleton('ensGatewayStore');
  await (await getNameStore()).setName(NAME, 0, { kind: 'label', metaAddress: erc8441KeysOf(generateKeys()).metaAddress, owner: null }, 0);
}

/** The record the gateway signs for `addr(namehash(NAME))`, or `addr(namehash(NAME), coinType)`. */
async function answer(coinType?: bigint): Promise<Hex> {
  const inner =
    coinType === undefined
      ? encodeFunctionData({ abi: parseAbi(['function addr(bytes32) view returns (address)']), args: [namehash(NAME)] })
      : encodeFunctionData({ abi: parseAbi(['function addr(bytes32, uint256) view returns (bytes)']), args: [namehash(NAME), coinType] });
  const data = encodeFunctionData({ abi: parseAbi(['function resolve(bytes, bytes) view returns (bytes, uint64, bytes)']), args: [toHex(packetToBytes(NAME)), inner] });
  const response = await call(ccipRoute.POST, '/api/v1/ccip', { method: 'POST', body: { sender: RESOLVER, data } });
  expect(response.status, response.text).toBe(200);
  const [result] = decodeAbiParameters([{ type: 'bytes' }, { type: 'uint64' }, { type: 'bytes' }], response.json.data);
  return coinType === undefined ? getAddress(decodeAbiParameters([{ type: 'address' }], result)[0]) : decodeAbiParameters([{ type: 'bytes' }], result)[0];
}

describe('the coin types the ENS gateway answers', () => {
  it('answers no address for coin type 60 when the ENS chain is not followed, and an address for the followed chain\'s ENSIP-11 coin type', async () => {
    await serve([{ name: 'op', rpc_url: otherChain.rpcUrl, chain_id: 10 }]);
    expect(await answer(), 'addr(bytes32): a plain wallet would pay it on the ENS chain, which nobody watches').toBe(zeroAddress);
    expect(await answer(60n)).toBe('0x');
    expect(await answer(coinTypeOf(10))).toMatch(/^0x[0-9a-f]{40}$/);
    expect(await answer(coinTypeOf(137)), 'a chain not followed').toBe('0x');
  });

  it('never answers ENSIP-19\'s "any EVM chain" coin type (a client falls back to it for chains that have no address of their own)', async () => {
    await serve([{ name: 'op', rpc_url: otherChain.rpcUrl, chain_id: 10 }, { name: 'local', rpc_url: ensChain.rpcUrl, chain_id: 31337 }]);
    expect(await answer(ANY_EVM)).toBe('0x');
  });

  it('answers addr(bytes32) and coin type 60 when the ENS chain is followed, and no address for an unfollowed chain\'s coin type', async () => {
    await serve([{ name: 'local', rpc_url: ensChain.rpcUrl, chain_id: 31337 }]);
    expect(await answer()).not.toBe(zeroAddress);
    expect(await answer(60n)).toMatch(/^0x[0-9a-f]{40}$/);
    expect(await answer(coinTypeOf(31337))).toMatch(/^0x[0-9a-f]{40}$/);
    expect(await answer(coinTypeOf(10))).toBe('0x');
  });

  it('answers no address for coin type 60 while the ENS chain\'s RPC does not say which chain it is', async () => {
    await serve([{ name: 'local', rpc_url: ensChain.rpcUrl, chain_id: 31337 }], 'http://127.0.0.1:9/');
    expect(await answer()).toBe(zeroAddress);
    expect(await answer(coinTypeOf(31337)), 'ENSIP-11 coin types do not depend on the ENS chain').toMatch(/^0x[0-9a-f]{40}$/);
  });
});

describe('the ENS gateway\'s configuration', () => {
  it('refuses a gateway that follows no chain, naming CHAINS', () => {
    let refused: unknown;
    try {
      loadConfig({ ...GATEWAY, REGISTRY_URL: 'memory:' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toContain('CHAINS: the ENS gateway (ENS_GATEWAY_*) needs a followed chain (CHAINS or CHAIN_RPC_URL)');
    expect((refused as Error).message).not.toContain(GATEWAY.ENS_GATEWAY_SIGNING_KEY.slice(2));
    expect(loadConfig({ ...GATEWAY, REGISTRY_URL: 'memory:', CHAIN_RPC_URL: ensChain.rpcUrl }).ensGateway?.resolver).toBe(RESOLVER);
  });

  it('keeps its names beside a PostgreSQL registry too', () => {
    expect(loadConfig({ ...GATEWAY, REGISTRY_URL: 'postgres://wraith@127.0.0.1/wraith', CHAIN_RPC_URL: ensChain.rpcUrl }).ensGateway?.parent).toBe('wraith.eth');
  });

  it('watches unpaid addresses seven days past their expiry by default, and refuses a grace period over 90 days', () => {
    const env = { ...GATEWAY, REGISTRY_URL: 'memory:', CHAIN_RPC_URL: ensChain.rpcUrl };
    expect(loadConfig(env).ensGateway?.graceSeconds).toBe(7 * 86_400);
    expect(loadConfig({ ...env, ENS_GATEWAY_GRACE_S: '0' }).ensGateway?.graceSeconds).toBe(0);
    expect(() => loadConfig({ ...env, ENS_GATEWAY_GRACE_S: String(91 * 86_400) })).toThrow(/ENS_GATEWAY_GRACE_S: must be at most 7776000/);
  });
});
