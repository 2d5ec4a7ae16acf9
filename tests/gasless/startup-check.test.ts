/**
 * The start-up check of a chain's gasless settings (lib/server/gasless-check.ts) against a real
 * anvil with EntryPoint v0.8 and the project's paymaster (startGaslessChain, no bundler): a
 * paymaster address without code, a contract that is not a WraithTokenPaymaster, a token it sets
 * no price for or one without an EIP-2612 permit, and a bundler without EntryPoint v0.8 (or
 * serving another chain) are refused; a bundler that does not answer and an expired price are
 * warnings. The bundler here is a few lines of JSON-RPC answering fixed facts (the gasless tests
 * run the real one, alto).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainClients } from '../../lib/chain/rpc.ts';
import { loadConfig, type ChainConfig } from '../../lib/config.ts';
import { ChainIdentityError, startChains } from '../../lib/server/chain.ts';
import { checkGasless } from '../../lib/server/gasless-check.ts';
import { clearProcessSingleton } from '../../lib/server/singleton.ts';
import { configure } from '../helpers/api.ts';
import { projectArtifact, startGaslessChain, TOKEN_PER_ETH, type GaslessChain } from '../helpers/account-abstraction.ts';
import { getAddress, numberToHex, type Address } from 'viem';

const ENTRY_POINT_V07 = '0x0000000071727De22E5E9d8BAf0edAc6f37da032';
const ENTRY_POINT_V08 = '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108';
/** anvil's chain id. */
const CHAIN_ID = 31337;

let g: GaslessChain;
/** A contract with code that is no paymaster: the deterministic deployer anvil ships. */
const NOT_A_PAYMASTER = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
let bundler: Server;
let bundlerUrl: string;
/** What the stand-in bundler answers. */
let facts = { entryPoints: [ENTRY_POINT_V08], chainId: CHAIN_ID };

beforeAll(async () => {
  g = await startGaslessChain({ bundler: false });
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
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => bundler?.close(resolve));
  await g?.stop();
});

function chain(paymaster: string = g.paymaster, url = bundlerUrl, token: string = g.token): ChainConfig {
  return loadConfig({
    CHAINS: JSON.stringify([{ name: 'local', rpc_url: g.chain.rpcUrl, tokens: [{ address: token, symbol: 'USDC', decimals: 6 }], gasless: { bundler_url: url, paymaster, tokens: [token] } }]),
  }).chains[0]!;
}

const check = (config: ChainConfig) => checkGasless(config, createChainClients(g.chain.rpcUrl, 2_000), CHAIN_ID, 2_000);

/** Deploy a test contract of contracts/build; its address. */
async function deploy(name: string, args: readonly unknown[]): Promise<Address> {
  const artifact = projectArtifact(name);
  const hash = await g.chain.wallets[0]!.deployContract({ abi: artifact.abi as never, bytecode: artifact.bytecode, args: args as never });
  return getAddress((await g.chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
}

describe('the start-up check of gasless settings', () => {
  it('passes a paymaster with code and a bundler of EntryPoint v0.8 on the same chain', async () => {
    facts = { entryPoints: [ENTRY_POINT_V07, ENTRY_POINT_V08], chainId: CHAIN_ID };
    expect(await check(chain())).toEqual({ refusals: [], warnings: [] });
  });

  it('refuses a paymaster address with no code on the chain', async () => {
    facts = { entryPoints: [ENTRY_POINT_V08], chainId: CHAIN_ID };
    const { refusals } = await check(chain('0x70997970c51812dc3a010c7d01b50e0d17dc79c8'));
    expect(refusals).toEqual(['local: gasless.paymaster has no code on chain 31337 (not deployed there?)']);
  });

  it('refuses a bundler that lists no EntryPoint v0.8, or serves another chain', async () => {
    facts = { entryPoints: [ENTRY_POINT_V07], chainId: 10 };
    const { refusals } = await check(chain());
    expect(refusals).toEqual([
      'local: gasless.bundler_url does not list EntryPoint v0.8 in eth_supportedEntryPoints',
      'local: gasless.bundler_url serves chain id 10, but the chain\'s RPC answers 31337',
    ]);
  });

  it('only warns about a bundler that does not answer (it may come up later), without quoting its URL', async () => {
    const { refusals, warnings } = await check(chain(g.paymaster, 'http://127.0.0.1:1/key-s3cret'));
    expect(refusals).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/^local: gasless\.bundler_url did not answer eth_supportedEntryPoints/)]);
    expect(warnings.join()).not.toContain('s3cret');
  });
});

describe('the start-up check of the paymaster\'s tokens', () => {
  it('refuses a contract that is not a WraithTokenPaymaster', async () => {
    facts = { entryPoints: [ENTRY_POINT_V08], chainId: CHAIN_ID };
    const { refusals } = await check(chain(NOT_A_PAYMASTER));
    expect(refusals).toEqual(['local: gasless.paymaster does not answer prices(token): not a WraithTokenPaymaster (contracts/src)?']);
  });

  it('refuses a token the paymaster sets no price for', async () => {
    const unlisted = await deploy('MintableToken', ['Other', 'OTH', 6]);
    const { refusals } = await check(chain(g.paymaster, bundlerUrl, unlisted));
    expect(refusals).toEqual(['local: gasless.tokens: USDC is not accepted by gasless.paymaster (it sets no price for it)']);
  });

  it('refuses a listed token without an EIP-2612 permit: an address holding no coin could not pay the fee', async () => {
    const usdtLike = await deploy('NoBoolToken', [10n ** 12n]);
    const now = Number((await g.chain.publicClient.getBlock()).timestamp);
    await g.ownerCall('setToken', [usdtLike, TOKEN_PER_ETH, now + 86_400, 2_000]);
    const { refusals } = await check(chain(g.paymaster, bundlerUrl, usdtLike));
    expect(refusals).toEqual(['local: gasless.tokens: USDC has no EIP-2612 permit, so an address that holds no coin cannot pay the paymaster\'s fee']);
  });

  it('only warns about an expired price: its operator may renew it', async () => {
    const now = Number((await g.chain.publicClient.getBlock()).timestamp);
    await g.ownerCall('setToken', [g.token, TOKEN_PER_ETH, now + 10, 2_000]);
    try {
      await g.chain.rpc('evm_increaseTime', [numberToHex(60)]);
      await g.chain.mine();
      const { refusals, warnings } = await check(chain());
      expect(refusals).toEqual([]);
      expect(warnings).toEqual([expect.stringMatching(/^local: gasless\.tokens: USDC: the paymaster's price expired at .*; gasless withdrawals of it fail until its operator renews it$/)]);
    } finally {
      const later = Number((await g.chain.publicClient.getBlock()).timestamp);
      await g.ownerCall('setToken', [g.token, TOKEN_PER_ETH, later + 86_400, 2_000]);
    }
  });
});

describe('start-up', () => {
  it('stops the server when a chain\'s paymaster has no code, naming the chain and the setting', async () => {
    facts = { entryPoints: [ENTRY_POINT_V08], chainId: CHAIN_ID };
    const entry = { name: 'local', rpc_url: g.chain.rpcUrl, tokens: [{ address: g.token, symbol: 'USDC', decimals: 6 }], gasless: { bundler_url: bundlerUrl, paymaster: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', tokens: [g.token] } };
    await configure({ CHAINS: JSON.stringify([entry]) });
    clearProcessSingleton('chains');
    const refused = await startChains().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ChainIdentityError);
    expect((refused as Error).message).toContain('local: gasless.paymaster has no code on chain 31337');
  });
});
