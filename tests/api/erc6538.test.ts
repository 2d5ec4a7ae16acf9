/**
 * GET /api/v1/erc6538/:address through the real server (`node server.mjs`), reading the canonical
 * ERC-6538 registry's mainnet runtime bytecode placed on anvil (tests/fixtures/erc6538/SOURCE.md)
 * through the RPC of the chain the server follows: what a sender gets for an address that
 * registered scheme 3, scheme 1000, both, cleared them, or registered junk; which chain is read
 * when the server follows one or several; and what an RPC failure looks like (no URL in it).
 *
 * Needs a production build (`npm run build`).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http as viemHttp, parseEther, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { bytesToHex, erc8441KeysOf, generateKeys } from '@wraith-pq/sdk';
import { ERC6538_REGISTRY_ADDRESS, registerKeysParameters } from '@wraith-pq/sdk/evm';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { http, startServer, type RunningServer } from '../helpers/server.ts';

const REGISTRY_CODE = readFileSync(new URL('../fixtures/erc6538/registry.runtime.hex', import.meta.url), 'utf8').trim() as Hex;
const OTHER_CHAIN_ID = 31_338;

let anvil: Anvil;
/** A second chain, without the registry; stopped by the last test to make its RPC fail. */
let bare: Anvil;
let client: PublicClient;
/** Follows only `anvil`: chain_id may be left out. */
let single: RunningServer;
/** Follows `anvil` and `bare` (CHAINS): chain_id is required. */
let several: RunningServer;

beforeAll(async () => {
  [anvil, bare] = await Promise.all([startAnvil(), startAnvil(['--chain-id', String(OTHER_CHAIN_ID)])]);
  client = createPublicClient({ chain: foundry, transport: viemHttp(anvil.rpcUrl) }) as PublicClient;
  await client.request({ method: 'anvil_setCode' as never, params: [ERC6538_REGISTRY_ADDRESS, REGISTRY_CODE] as never });
  const common = { REGISTRY_URL: 'memory:', RATE_LIMIT_RPS: '0', LOG_LEVEL: 'warn' };
  [single, several] = await Promise.all([
    startServer({ env: { ...common, CHAIN_RPC_URL: anvil.rpcUrl, CHAIN_NAME: 'anvil', INDEXER_CONFIRMATIONS: '0' } }),
    startServer({
      env: { ...common, CHAINS: JSON.stringify([{ name: 'anvil', rpc_url: anvil.rpcUrl, confirmations: 0 }, { name: 'bare', rpc_url: bare.rpcUrl, confirmations: 0 }]) },
    }),
  ]);
}, 180_000);
afterAll(async () => {
  await Promise.allSettled([single?.stop(), several?.stop()]);
  await Promise.allSettled([anvil?.stop(), bare?.stop()]);
});

/** A fresh registrant with some ETH. */
async function registrant() {
  const account = privateKeyToAccount(generatePrivateKey());
  await client.request({ method: 'anvil_setBalance' as never, params: [account.address, `0x${parseEther('10').toString(16)}`] as never });
  const wallet = createWalletClient({ account, chain: foundry, transport: viemHttp(anvil.rpcUrl) });
  const send = async (data: Hex) => {
    const hash = await wallet.sendTransaction({ to: ERC6538_REGISTRY_ADDRESS, data });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
  };
  return {
    address: account.address,
    send,
    /** `registerKeys` of a meta-address under its own scheme, or of null (clear) under `schemeId`. */
    register: (value: Uint8Array | null, schemeId?: 3 | 1000) => send(registerKeysParameters({ metaAddress: value, ...(schemeId === undefined ? {} : { schemeId }) }).data),
  };
}

const identity = generateKeys();
const meta1218 = bytesToHex(identity.metaAddress);
const meta1250 = bytesToHex(erc8441KeysOf(identity).metaAddress);

describe('GET /api/v1/erc6538/:address on a server that follows one chain', () => {
  it('answers the 1250-byte meta-address an address registered under scheme 3, for its address in any accepted case', async () => {
    const who = await registrant();
    await who.register(erc8441KeysOf(identity).metaAddress);
    for (const written of [who.address, who.address.toLowerCase(), `0x${who.address.slice(2).toUpperCase()}`]) {
      const response = await http(single, `/api/v1/erc6538/${written}`);
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ registrant: who.address, chain_id: 31_337, scheme_id: 3, meta_address: meta1250 });
    }
    // Only scheme 1000 asked: this address registered none.
    const only1000 = await http(single, `/api/v1/erc6538/${who.address}?scheme_id=1000`);
    expect(only1000.status).toBe(404);
    expect(only1000.json.error.code).toBe('NO_STEALTH_RECORD');
    expect(only1000.json.error.message).toContain('scheme 1000');
  });

  it('prefers scheme 3 to 1000, answers each when asked, and treats a cleared scheme (empty value) as unregistered', async () => {
    const who = await registrant();
    await who.register(identity.metaAddress);
    expect((await http(single, `/api/v1/erc6538/${who.address}`)).json).toMatchObject({ scheme_id: 1000, meta_address: meta1218 });
    await who.register(erc8441KeysOf(identity).metaAddress);
    expect((await http(single, `/api/v1/erc6538/${who.address}`)).json).toMatchObject({ scheme_id: 3, meta_address: meta1250 });
    expect((await http(single, `/api/v1/erc6538/${who.address}?scheme_id=1000&chain_id=31337`)).json).toMatchObject({ scheme_id: 1000, meta_address: meta1218 });

    await who.register(null, 3);
    expect((await http(single, `/api/v1/erc6538/${who.address}`)).json).toMatchObject({ scheme_id: 1000, meta_address: meta1218 });
    const cleared3 = await http(single, `/api/v1/erc6538/${who.address}?scheme_id=3`);
    expect([cleared3.status, cleared3.json.error.code]).toEqual([404, 'NO_STEALTH_RECORD']);
    await who.register(null, 1000);
    const none = await http(single, `/api/v1/erc6538/${who.address}`);
    expect([none.status, none.json.error.code]).toEqual([404, 'NO_STEALTH_RECORD']);
    expect(none.json.error.message).toMatch(/no meta-address registered under scheme 3 or 1000 .* on chain 31337/);
  });

  it('refuses junk someone registered with a clear error naming the scheme, never a 500 and never the bytes', async () => {
    const who = await registrant();
    const valid = erc8441KeysOf(identity).metaAddress;
    const junk = valid.slice();
    junk.set([0x02, ...new Uint8Array(31), 0x05], 33); // a viewing point that is not on the curve
    // The registry takes any bytes: the call of a valid registration with the bytes swapped.
    await who.send(registerKeysParameters({ metaAddress: valid }).data.replace(bytesToHex(valid), bytesToHex(junk)) as Hex);
    const response = await http(single, `/api/v1/erc6538/${who.address}`);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_META_ADDRESS');
    expect(response.json.error.message).toMatch(/registered under scheme 3 \(1250 bytes\) is not a valid ERC-8441/);
    expect(response.text).not.toContain(bytesToHex(junk).slice(66, 200));

    // A valid 1218-byte meta-address filed under scheme 3: the wrong form for that scheme.
    const misfiled = await registrant();
    const scheme1000 = `${1000n.toString(16).padStart(64, '0')}`;
    const scheme3 = `${3n.toString(16).padStart(64, '0')}`;
    await misfiled.send(registerKeysParameters({ metaAddress: identity.metaAddress }).data.replace(scheme1000, scheme3) as Hex);
    const wrongForm = await http(single, `/api/v1/erc6538/${misfiled.address}`);
    expect([wrongForm.status, wrongForm.json.error.code]).toEqual([400, 'INVALID_META_ADDRESS']);
    expect(wrongForm.json.error.message).toContain('scheme 3 (1218 bytes)');
  });

  it('refuses a malformed address, chain id or scheme id with 400 on that field, and a chain it does not follow with 422', async () => {
    const cases: [string, string][] = [
      ['/api/v1/erc6538/alice.eth', 'address'],
      ['/api/v1/erc6538/0x1234', 'address'],
      [`/api/v1/erc6538/0x${'g'.repeat(40)}`, 'address'],
      // Mixed case with a wrong EIP-55 checksum (one letter's case flipped).
      ['/api/v1/erc6538/0x6538e6bf4B0eBd30A8Ea093027Ac2422ce5d6538', 'address'],
      [`/api/v1/erc6538/${ERC6538_REGISTRY_ADDRESS}?chain_id=0`, 'chain_id'],
      [`/api/v1/erc6538/${ERC6538_REGISTRY_ADDRESS}?chain_id=1e3`, 'chain_id'],
      [`/api/v1/erc6538/${ERC6538_REGISTRY_ADDRESS}?scheme_id=1`, 'scheme_id'],
    ];
    for (const [path, field] of cases) {
      const response = await http(single, path);
      expect(response.status, path).toBe(400);
      expect(response.json.error.code).toBe('VALIDATION_ERROR');
      expect(response.json.error.details.map((d: { path: string }) => d.path)).toEqual([field]);
    }
    const elsewhere = await http(single, `/api/v1/erc6538/${ERC6538_REGISTRY_ADDRESS}?chain_id=8453`);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.json.error.code).toBe('CHAIN_NOT_FOLLOWED');
    expect(elsewhere.json.error.message).toContain('it follows 31337');
  });
});

describe('GET /api/v1/erc6538/:address on a server that follows several chains', () => {
  it('needs chain_id, reads the registry of the chain it names, and says so where no registry is deployed', async () => {
    const who = await registrant();
    await who.register(erc8441KeysOf(identity).metaAddress);
    const unnamed = await http(several, `/api/v1/erc6538/${who.address}`);
    expect(unnamed.status).toBe(400);
    expect(unnamed.json.error.details).toEqual([{ path: 'chain_id', issue: expect.stringContaining('several chains') }]);
    expect((await http(several, `/api/v1/erc6538/${who.address}?chain_id=31337`)).json).toEqual({
      registrant: who.address,
      chain_id: 31_337,
      scheme_id: 3,
      meta_address: meta1250,
    });
    const noRegistry = await http(several, `/api/v1/erc6538/${who.address}?chain_id=${OTHER_CHAIN_ID}`);
    expect(noRegistry.status).toBe(404);
    expect(noRegistry.json.error.code).toBe('NO_STEALTH_RECORD');
    expect(noRegistry.json.error.message).toContain(`not deployed on chain ${OTHER_CHAIN_ID}`);
  });

  it('answers 502 UPSTREAM_ERROR when that chain\'s RPC fails, without its URL, and keeps reading the other chain', async () => {
    const who = await registrant();
    await who.register(identity.metaAddress);
    await bare.stop();
    const failed = await http(several, `/api/v1/erc6538/${who.address}?chain_id=${OTHER_CHAIN_ID}`);
    expect(failed.status).toBe(502);
    expect(failed.json.error.code).toBe('UPSTREAM_ERROR');
    expect(failed.json.error.message).toContain('chain RPC');
    const port = new URL(bare.rpcUrl).port;
    expect(failed.text).not.toContain(port);
    expect(failed.text).not.toContain('127.0.0.1');
    expect(several.log()).not.toContain(bare.rpcUrl);
    expect((await http(several, `/api/v1/erc6538/${who.address}?chain_id=31337`)).json).toMatchObject({ scheme_id: 1000, meta_address: meta1218 });
  }, 60_000);
});
