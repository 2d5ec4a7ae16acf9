/**
 * GET /api/v1/chains (API.md `CHAINS`): each followed chain's tokens and gasless withdrawal
 * settings, in EIP-55 form, never its RPC URL; and the `tokens` / `gasless` rules of a `CHAINS`
 * entry, refused at start-up with a message naming the entry.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import * as chainsRoute from '../../app/api/v1/chains/route.ts';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { clearProcessSingleton } from '../../lib/server/singleton.ts';
import { call, configure } from '../helpers/api.ts';

const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const DAI = '0x6b175474e89094c44da98b954eedeac495271d0f';
const PAYMASTER = '0x1111111111111111111111111111111111111111';
const base = { name: 'base', rpc_url: 'https://base.example/v2/key-s3cret', chain_id: 8453 };
const usdc = { address: USDC, symbol: 'USDC', decimals: 6 };
const dai = { address: DAI, symbol: 'DAI', decimals: 18 };
const gasless = { bundler_url: 'https://bundler.example/rpc', paymaster: PAYMASTER, tokens: [USDC] };

async function chains(env: Record<string, string>) {
  await configure(env);
  clearProcessSingleton('chains');
  return call(chainsRoute.GET, '/api/v1/chains');
}

function problemsOf(entries: unknown[]): string[] {
  try {
    loadConfig({ CHAINS: JSON.stringify(entries) });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected the configuration to be refused');
}

beforeEach(() => clearProcessSingleton('chains'));

describe('GET /api/v1/chains', () => {
  it('lists every followed chain with its tokens and gasless settings in EIP-55 form, and never an RPC URL', async () => {
    const response = await chains({
      CHAINS: JSON.stringify([
        { ...base, tokens: [usdc, dai], gasless },
        { name: 'optimism', rpc_url: 'https://op.example/key-s3cret', chain_id: 10 },
      ]),
    });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      chains: [
        {
          name: 'base',
          chain_id: 8453,
          tokens: [
            { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', symbol: 'USDC', decimals: 6 },
            { address: '0x6B175474E89094C44Da98b954EedeAC495271d0F', symbol: 'DAI', decimals: 18 },
          ],
          gasless: {
            bundler_url: 'https://bundler.example/rpc',
            entry_point: '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108',
            paymaster: '0x1111111111111111111111111111111111111111',
            tokens: ['0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'],
          },
        },
        { name: 'optimism', chain_id: 10, tokens: [], gasless: null },
      ],
    });
    expect(response.text).not.toContain('s3cret');
  });

  it('lists the one-chain shorthand with no tokens, its id null until the RPC answered, and nothing without a chain', async () => {
    expect((await chains({ CHAIN_RPC_URL: 'http://127.0.0.1:1', CHAIN_NAME: 'anvil' })).json).toEqual({
      chains: [{ name: 'anvil', chain_id: null, tokens: [], gasless: null }],
    });
    expect((await chains({})).json).toEqual({ chains: [] });
  });

  it('needs no API key even when the server sets one', async () => {
    const response = await chains({ API_KEY: 'k'.repeat(32), CHAINS: JSON.stringify([base]) });
    expect(response.status).toBe(200);
  });
});

describe('CHAINS tokens and gasless', () => {
  it('reads tokens and gasless settings, addresses lowercase', () => {
    const [chain] = loadConfig({ CHAINS: JSON.stringify([{ ...base, tokens: [{ ...usdc, address: USDC.toUpperCase().replace('0X', '0x') }], gasless }]) }).chains;
    expect(chain).toMatchObject({ tokens: [usdc], gasless: { bundlerUrl: gasless.bundler_url, paymaster: PAYMASTER, tokens: [USDC] } });
  });

  it.each([
    ['a gasless token the chain does not name', [{ ...base, tokens: [dai], gasless }], ['CHAINS[0].gasless.tokens[0]: must be one of this chain\'s tokens']],
    ['a gasless entry with no token', [{ ...base, tokens: [usdc], gasless: { ...gasless, tokens: [] } }], ['CHAINS[0].gasless.tokens: must name at least one token']],
    ['a misspelt gasless key', [{ ...base, tokens: [usdc], gasless: { ...gasless, bundler: 'x' } }], ['CHAINS[0].gasless: unknown key bundler']],
    ['a bundler URL that is not http(s)', [{ ...base, tokens: [usdc], gasless: { ...gasless, bundler_url: 'wss://bundler.example/key-s3cret' } }], ['CHAINS[0].gasless.bundler_url: must be an http(s) URL']],
    ['a bundler URL carrying an API key in its query', [{ ...base, tokens: [usdc], gasless: { ...gasless, bundler_url: 'https://bundler.example/rpc?apikey=s3cret' } }], ['CHAINS[0].gasless.bundler_url: is given to every browser and CLI that asks']],
    ['a bundler URL carrying a password', [{ ...base, tokens: [usdc], gasless: { ...gasless, bundler_url: 'https://user:s3cret@bundler.example/rpc' } }], ['CHAINS[0].gasless.bundler_url: is given to every browser and CLI that asks']],
    ['a paymaster that is not an address', [{ ...base, tokens: [usdc], gasless: { ...gasless, paymaster: '0x1234' } }], ['CHAINS[0].gasless.paymaster: must be a 0x-prefixed 20-byte address']],
    ['one token listed twice', [{ ...base, tokens: [usdc, { ...usdc, symbol: 'USDC2' }] }], ['CHAINS[0].tokens[1].address: addresses must be unique']],
    ['one symbol for two tokens', [{ ...base, tokens: [usdc, { ...dai, symbol: 'usdc' }] }], ['CHAINS[0].tokens[1].symbol: symbols must be unique']],
    ['decimals out of range', [{ ...base, tokens: [{ ...usdc, decimals: 77 }] }], ['CHAINS[0].tokens[0].decimals: must be at most 36']],
    ['a token without a symbol', [{ ...base, tokens: [{ address: USDC, decimals: 6 }] }], ['CHAINS[0].tokens[0].symbol: is required']],
  ])('refuses %s, naming the entry and the rule', (_, entries, expected) => {
    const problems = problemsOf(entries);
    expect(problems).toHaveLength(expected.length);
    expected.forEach((start, i) => expect(problems[i]).toContain(start));
    expect(problems.join()).not.toContain('s3cret');
  });
});
