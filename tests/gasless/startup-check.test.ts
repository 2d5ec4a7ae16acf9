/**
 * The start-up check of a chain's gasless settings (lib/server/gasless-check.ts) against a real
 * anvil: a paymaster address without code and a bundler without EntryPoint v0.8 (or serving
 * another chain) are refused; a bundler that does not answer is a warning. The bundler here is a
 * few lines of JSON-RPC answering fixed facts (tests/gasless/alto.test.ts runs the real one).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainClients } from '../../lib/chain/rpc.ts';
import { loadConfig, type ChainConfig } from '../../lib/config.ts';
import { ChainIdentityError, startChains } from '../../lib/server/chain.ts';
import { checkGasless } from '../../lib/server/gasless-check.ts';
import { clearProcessSingleton } from '../../lib/server/singleton.ts';
import { configure } from '../helpers/api.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';

const ENTRY_POINT_V07 = '0x0000000071727De22E5E9d8BAf0edAc6f37da032';
const ENTRY_POINT_V08 = '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108';
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
/** anvil's chain id. */
const CHAIN_ID = 31337;

let anvil: Anvil;
let bundler: Server;
let bundlerUrl: string;
/** What the stand-in bundler answers. */
let facts = { entryPoints: [ENTRY_POINT_V08], chainId: CHAIN_ID };

beforeAll(async () => {
  anvil = await startAnvil();
  bundler = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      const result = method === 'eth_supportedEntryPoints' ? facts.entryPoints : `0x${facts.chainId.toString(16)}`;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    });
  });
  await new Promise<void>((resolve) => bundler.listen(0, '127.0.0.1', resolve));
  bundlerUrl = `http://127.0.0.1:${(bundler.address() as { port: number }).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => bundler?.close(resolve));
  await anvil?.stop();
});

function chain(paymaster: string, url = bundlerUrl): ChainConfig {
  return loadConfig({
    CHAINS: JSON.stringify([{ name: 'local', rpc_url: anvil.rpcUrl, tokens: [{ address: TOKEN, symbol: 'USDC', decimals: 6 }], gasless: { bundler_url: url, paymaster, tokens: [TOKEN] } }]),
  }).chains[0]!;
}

const check = (config: ChainConfig) => checkGasless(config, createChainClients(anvil.rpcUrl, 2_000), CHAIN_ID, 2_000);

describe('the start-up check of gasless settings', () => {
  it('passes a paymaster with code and a bundler of EntryPoint v0.8 on the same chain', async () => {
    facts = { entryPoints: [ENTRY_POINT_V07, ENTRY_POINT_V08], chainId: CHAIN_ID };
    // anvil's dev accounts have no code; the deterministic deployer it ships with does.
    expect(await check(chain('0x4e59b44847b379578588920ca78fbf26c0b4956c'))).toEqual({ refusals: [], warnings: [] });
  });

  it('refuses a paymaster address with no code on the chain', async () => {
    facts = { entryPoints: [ENTRY_POINT_V08], chainId: CHAIN_ID };
    const { refusals } = await check(chain('0x70997970c51812dc3a010c7d01b50e0d17dc79c8'));
    expect(refusals).toEqual(['local: gasless.paymaster has no code on chain 31337 (not deployed there?)']);
  });

  it('refuses a bundler that lists no EntryPoint v0.8, or serves another chain', async () => {
    facts = { entryPoints: [ENTRY_POINT_V07], chainId: 10 };
    const { refusals } = await check(chain('0x4e59b44847b379578588920ca78fbf26c0b4956c'));
    expect(refusals).toEqual([
      'local: gasless.bundler_url does not list EntryPoint v0.8 in eth_supportedEntryPoints',
      'local: gasless.bundler_url serves chain id 10, but the chain\'s RPC answers 31337',
    ]);
  });

  it('only warns about a bundler that does not answer (it may come up later), without quoting its URL', async () => {
    const { refusals, warnings } = await check(chain('0x4e59b44847b379578588920ca78fbf26c0b4956c', 'http://127.0.0.1:1/key-s3cret'));
    expect(refusals).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/^local: gasless\.bundler_url did not answer eth_supportedEntryPoints/)]);
    expect(warnings.join()).not.toContain('s3cret');
  });
});

describe('start-up', () => {
  it('stops the server when a chain\'s paymaster has no code, naming the chain and the setting', async () => {
    facts = { entryPoints: [ENTRY_POINT_V08], chainId: CHAIN_ID };
    const entry = { name: 'local', rpc_url: anvil.rpcUrl, tokens: [{ address: TOKEN, symbol: 'USDC', decimals: 6 }], gasless: { bundler_url: bundlerUrl, paymaster: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', tokens: [TOKEN] } };
    await configure({ CHAINS: JSON.stringify([entry]) });
    clearProcessSingleton('chains');
    const refused = await startChains().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ChainIdentityError);
    expect((refused as Error).message).toContain('local: gasless.paymaster has no code on chain 31337');
  });
});
