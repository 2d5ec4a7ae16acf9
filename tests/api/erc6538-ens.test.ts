/**
 * GET /api/v1/ens/address/:name against a real chain with ENS (anvil, tests/helpers/ens-anvil.ts):
 * the address a sender then looks up in the ERC-6538 registry through their own wallet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseAbi, type Address } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { namehash } from 'viem/ens';
import * as ensAddressRoute from '../../app/api/v1/ens/address/[name]/route.ts';
import { DEV_KEYS } from '../helpers/announcer-chain.ts';
import { call, configure } from '../helpers/api.ts';
import { startEnsChain, type EnsChain } from '../helpers/ens-anvil.ts';

let chain: EnsChain;
beforeAll(async () => {
  chain = await startEnsChain();
});
afterAll(async () => {
  await chain?.stop();
});

/** Set the name's ENSIP-1 address record, as its owner (the deployer, anvil's first dev account). */
async function setAddr(name: string, address: Address): Promise<void> {
  const wallet = createWalletClient({ account: privateKeyToAccount(DEV_KEYS[0]!), chain: foundry, transport: http(chain.rpcUrl) });
  const hash = await wallet.writeContract({ address: chain.publicResolver, abi: parseAbi(['function setAddr(bytes32 node, address a)']), functionName: 'setAddr', args: [namehash(name), address] });
  await createPublicClient({ chain: foundry, transport: http(chain.rpcUrl) }).waitForTransactionReceipt({ hash });
}

const resolve = (name: string) => call(ensAddressRoute.GET, `/api/v1/ens/address/${encodeURIComponent(name)}`);

describe('GET /api/v1/ens/address/:name', () => {
  it('answers the address a name sets, normalised name beside it', async () => {
    await configure({ ETH_RPC_URL: chain.rpcUrl, ENS_UNIVERSAL_RESOLVER: chain.universalResolver });
    const owner = privateKeyToAccount(generatePrivateKey()).address;
    await chain.register('carol-address.eth');
    await setAddr('carol-address.eth', owner);
    const response = await resolve('Carol-Address.eth');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ ens_name: 'carol-address.eth', address: owner });
  });

  it('answers 404 NAME_NOT_FOUND for a name without an address and for an unregistered name, 400 for a name that is not .eth', async () => {
    await configure({ ETH_RPC_URL: chain.rpcUrl, ENS_UNIVERSAL_RESOLVER: chain.universalResolver });
    await chain.register('no-address.eth');
    const none = await resolve('no-address.eth');
    expect([none.status, none.json.error.code]).toEqual([404, 'NAME_NOT_FOUND']);
    expect(none.json.error.message).toContain('sets no Ethereum address');
    // A resolver that is no contract (an account's address) holds no address either.
    await chain.register('eoa-resolver.eth', { resolver: '0x000000000000000000000000000000000000dEaD' });
    const eoa = await resolve('eoa-resolver.eth');
    expect([eoa.status, eoa.json.error.code]).toEqual([404, 'NAME_NOT_FOUND']);
    const unregistered = await resolve('never-registered.eth');
    expect([unregistered.status, unregistered.json.error.code]).toEqual([404, 'NAME_NOT_FOUND']);
    const other = await resolve('alice.example');
    expect([other.status, other.json.error.code]).toEqual([400, 'INVALID_NAME']);
  });

  it('answers 502 UPSTREAM_ERROR without the RPC URL when the ENS RPC is down', async () => {
    const down = 'http://127.0.0.1:9/secret-key-in-path';
    await configure({ ETH_RPC_URL: down, ENS_UNIVERSAL_RESOLVER: chain.universalResolver, UPSTREAM_TIMEOUT_MS: '2000' });
    const response = await resolve('carol-address.eth');
    expect([502, 504]).toContain(response.status);
    expect(response.text).not.toContain('secret-key-in-path');
    expect(response.text).not.toContain('127.0.0.1');
  });
});
