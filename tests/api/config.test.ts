/**
 * Configuration (API.md "Configuration"): every variable validated at start-up; a bad value
 * stops the server with a message naming the variable and never quoting the value.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../lib/config.ts';
import { boot } from '../../lib/server/boot.ts';
import { configure } from '../helpers/api.ts';

afterEach(() => vi.restoreAllMocks());

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected the configuration to be refused');
}

describe('loadConfig', () => {
  it('runs everything locally with nothing set, using the defaults of API.md', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3001,
      hostname: '0.0.0.0',
      registryUrl: 'file:./data/registry.db',
      apiKey: undefined,
      allowedOrigins: '*',
      rateLimitRps: 10,
      rateLimitBurst: 30,
      trustProxy: 0,
      upstash: undefined,
      maxBodyBytes: 65536,
      ensTextKey: 'stealth-meta',
      suiNetwork: 'mainnet',
      ipfsCacheEntries: 1000,
      upstreamTimeoutMs: 10000,
      logLevel: 'info',
    });
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ API_KEY: '', RATE_LIMIT_RPS: ' ', ALLOWED_ORIGINS: '' })).toMatchObject({
      apiKey: undefined,
      rateLimitRps: 10,
      allowedOrigins: '*',
    });
  });

  it('reads a list of origins, normalised, and * anywhere in it as any origin', () => {
    expect(loadConfig({ ALLOWED_ORIGINS: ' https://App.example , http://localhost:3000/ ' }).allowedOrigins).toEqual([
      'https://app.example',
      'http://localhost:3000',
    ]);
    expect(loadConfig({ ALLOWED_ORIGINS: 'https://app.example,*' }).allowedOrigins).toBe('*');
  });

  it('accepts RATE_LIMIT_RPS=0 (disabled) and fractional rates', () => {
    expect(loadConfig({ RATE_LIMIT_RPS: '0' }).rateLimitRps).toBe(0);
    expect(loadConfig({ RATE_LIMIT_RPS: '0.5' }).rateLimitRps).toBe(0.5);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['RATE_LIMIT_RPS', '-1'],
    ['RATE_LIMIT_RPS', 'ten'],
    ['RATE_LIMIT_BURST', '0'],
    ['RATE_LIMIT_BURST', '1.5'],
    ['TRUST_PROXY', 'true'],
    ['MAX_BODY_BYTES', '10'],
    ['MAX_BODY_BYTES', '1e9'],
    ['REGISTRY_URL', 'mysql://db/registry'],
    ['REGISTRY_URL', './registry.db'],
    ['ALLOWED_ORIGINS', 'app.example'],
    ['ALLOWED_ORIGINS', 'https://app.example/path'],
    ['LOG_LEVEL', 'verbose'],
    ['SUI_NETWORK', 'moon'],
    ['ETH_RPC_URL', 'ftp://rpc.example'],
    ['UPSTREAM_TIMEOUT_MS', '0'],
    ['IPFS_CACHE_ENTRIES', '-5'],
  ])('refuses %s=%s and names the variable', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('reports every bad variable at once', () => {
    expect(problemsOf({ PORT: 'x', LOG_LEVEL: 'y', TRUST_PROXY: 'z' }).map((p) => p.split(':')[0]).sort()).toEqual([
      'LOG_LEVEL',
      'PORT',
      'TRUST_PROXY',
    ]);
  });

  it('refuses an API key shorter than 16 characters without quoting it', () => {
    const problems = problemsOf({ API_KEY: 'hunter2' });
    expect(problems[0]).toMatch(/^API_KEY: must be at least 16 characters/);
    expect(problems.join()).not.toContain('hunter2');
  });

  it('never quotes a refused URL, which may carry credentials', () => {
    const problems = problemsOf({ REGISTRY_URL: 'mysql://admin:s3cret@db/registry', ETH_RPC_URL: 'gopher://key-s3cret@rpc' });
    expect(problems.join()).not.toContain('s3cret');
  });

  it.each([
    ['UPSTASH_REDIS_REST_URL', { UPSTASH_REDIS_REST_URL: 'https://redis.example' }],
    ['UPSTASH_REDIS_REST_URL', { UPSTASH_REDIS_REST_TOKEN: 'token' }],
    ['PINNING_GATEWAY_URL', { PINNING_GATEWAY_TOKEN: 'token' }],
  ])('refuses half of the %s pair', (name, env) => {
    expect(problemsOf(env)[0]).toContain(name);
  });
});

describe('CHAINS: several chains at once', () => {
  const base = { name: 'base', rpc_url: 'https://base.example/v2/key-s3cret' };
  const optimism = { name: 'optimism', rpc_url: 'https://op.example', start_block: 120, confirmations: 3, max_block_range: 2_000, chain_id: 10 };

  it('reads every entry, with the defaults of the one-chain settings for what an entry leaves out', () => {
    const chains = loadConfig({ CHAINS: JSON.stringify([base, optimism]) }).chains;
    expect(chains).toEqual([
      expect.objectContaining({ name: 'base', rpcUrl: base.rpc_url, startBlock: 0, confirmations: 12, maxBlockRange: 5_000 }),
      expect.objectContaining({ name: 'optimism', rpcUrl: 'https://op.example', startBlock: 120, confirmations: 3, maxBlockRange: 2_000, chainId: 10 }),
    ]);
    expect(chains[0]).not.toHaveProperty('chainId');
  });

  it('keeps CHAIN_RPC_URL and its siblings as the one-chain shorthand, and no chain when neither is set', () => {
    expect(loadConfig({ CHAIN_RPC_URL: 'http://127.0.0.1:8545', CHAIN_NAME: 'anvil', INDEXER_START_BLOCK: '7', INDEXER_CONFIRMATIONS: '0' }).chains).toEqual([
      expect.objectContaining({ name: 'anvil', rpcUrl: 'http://127.0.0.1:8545', startBlock: 7, confirmations: 0 }),
    ]);
    expect(loadConfig({}).chains).toEqual([]);
  });

  it.each([
    ['a misspelt key', [{ name: 'base', rcp_url: 'https://base.example' }], ['CHAINS[0].rpc_url: is required', 'CHAINS[0]: unknown key rcp_url']],
    ['an unknown key', [{ ...base, confirmation: 3 }], ['CHAINS[0]: unknown key confirmation']],
    ['two entries with one name', [base, { ...optimism, name: 'base' }], ['CHAINS[1].name: names must be unique: base appears more than once']],
    ['two entries with one chain_id', [{ ...base, chain_id: 10 }, optimism], ['CHAINS[1].chain_id: chain ids must be unique']],
    ['a URL that is not http(s)', [{ ...base, rpc_url: 'wss://base.example/key-s3cret' }], ['CHAINS[0].rpc_url: must be an http(s) URL']],
    ['a negative start block', [{ ...base, start_block: -1 }], ['CHAINS[0].start_block: must be at least 0']],
    ['a fractional range', [{ ...base, max_block_range: 1.5 }], ['CHAINS[0].max_block_range: must be a whole number']],
    ['a name with spaces', [{ ...base, name: 'base mainnet' }], ['CHAINS[0].name: must be letters, digits']],
    ['an entry that is not an object', ['https://base.example/key-s3cret'], ['CHAINS[0]: must be an object']],
    ['an empty list', [], ['CHAINS: must list at least one chain']],
  ])('refuses %s, naming the entry and the rule', (_, chains, expected) => {
    const problems = problemsOf({ CHAINS: JSON.stringify(chains) });
    expect(problems).toHaveLength(expected.length);
    expected.forEach((start, i) => expect(problems[i]).toContain(start));
    expect(problems.join()).not.toContain('s3cret');
  });

  it('refuses text that is not JSON without quoting it (RPC URLs carry API keys)', () => {
    const problems = problemsOf({ CHAINS: 'https://base.example/v2/key-s3cret' });
    expect(problems).toEqual([expect.stringMatching(/^CHAINS: must be a JSON array/)]);
    expect(problems.join()).not.toContain('s3cret');
  });

  it('never echoes an unknown key that is not a key name (a URL pasted in the wrong place)', () => {
    const problems = problemsOf({ CHAINS: JSON.stringify([{ ...base, 'https://k3y-s3cret@rpc.example': 1 }]) });
    expect(problems).toEqual(['CHAINS[0]: unknown keys (allowed: name, rpc_url, start_block, confirmations, max_block_range, chain_id, tokens, gasless)']);
  });

  it.each(['CHAIN_RPC_URL', 'CHAIN_NAME', 'INDEXER_START_BLOCK', 'INDEXER_CONFIRMATIONS', 'INDEXER_MAX_BLOCK_RANGE'])(
    'refuses CHAINS beside the shorthand %s, saying which to unset',
    (name) => {
      const value = name === 'CHAIN_RPC_URL' ? 'http://127.0.0.1:8545' : name === 'CHAIN_NAME' ? 'anvil' : '3';
      expect(problemsOf({ CHAINS: JSON.stringify([base]), [name]: value })).toEqual([expect.stringMatching(new RegExp(`^CHAINS: set either CHAINS or the one-chain shorthand, not both; unset ${name} `))]);
    },
  );

  it('accepts CHAINS beside blank shorthand variables (a copied .env.example)', () => {
    expect(loadConfig({ CHAINS: JSON.stringify([base]), CHAIN_RPC_URL: '', CHAIN_NAME: ' ' }).chains).toHaveLength(1);
  });

  it('lets REGISTRY_PUBLISH=verified or closed run with CHAINS, and refuses them with no chain at all', () => {
    expect(loadConfig({ CHAINS: JSON.stringify([base]), REGISTRY_PUBLISH: 'verified' }).registryPublish).toBe('verified');
    expect(problemsOf({ REGISTRY_PUBLISH: 'closed' })).toEqual([expect.stringMatching(/^REGISTRY_PUBLISH: closed needs a chain, CHAINS or CHAIN_RPC_URL/)]);
  });
});

describe('the scheme ids followed (ANNOUNCER_SCHEME_IDS)', () => {
  const chain = (env: Record<string, string>) => loadConfig({ REGISTRY_URL: 'memory:', CHAIN_RPC_URL: 'http://127.0.0.1:8545', ...env }).chains[0]!;

  it('follows this format (1000) and ERC-8441 (3) by default, the cursor still named by 1000', () => {
    expect(chain({})).toMatchObject({ schemeId: 1000n, schemeIds: [1000n, 3n] });
  });

  it('takes a list, and the older ANNOUNCER_SCHEME_ID alone keeps meaning that id only', () => {
    expect(chain({ ANNOUNCER_SCHEME_IDS: '3, 7' })).toMatchObject({ schemeId: 7n, schemeIds: [3n, 7n] });
    expect(chain({ ANNOUNCER_SCHEME_IDS: '3' })).toMatchObject({ schemeId: 1000n, schemeIds: [3n] });
    expect(chain({ ANNOUNCER_SCHEME_ID: '42' })).toMatchObject({ schemeId: 42n, schemeIds: [42n] });
  });

  it('refuses both forms at once, a malformed list and two ids for this format, naming the variable', () => {
    for (const [env, name] of [
      [{ ANNOUNCER_SCHEME_ID: '1000', ANNOUNCER_SCHEME_IDS: '1000,3' }, 'ANNOUNCER_SCHEME_ID and ANNOUNCER_SCHEME_IDS'],
      [{ ANNOUNCER_SCHEME_IDS: '1000;3' }, 'ANNOUNCER_SCHEME_IDS'],
      [{ ANNOUNCER_SCHEME_IDS: '1000,1001' }, 'ANNOUNCER_SCHEME_IDS'],
    ] as const) {
      expect(() => chain(env)).toThrow(ConfigError);
      expect(() => chain(env)).toThrow(name);
    }
  });
});

describe('the documentation of the configuration', () => {
  const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
  const documented = [...example.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, name, value]) => [name!, value!] as const);

  it('lists every variable the server reads in .env.example, and nothing it does not read', () => {
    expect(documented.map(([name]) => name).sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('gives values in .env.example that the server accepts, so copying it as .env works', () => {
    expect(() => loadConfig(Object.fromEntries(documented))).not.toThrow();
  });

  it('explains in the README the settings an operator changes first and the ones for several instances', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const name of ['REGISTRY_URL', 'UPSTASH_REDIS_REST_URL', 'RATE_LIMIT_FAIL_OPEN', 'API_KEY', 'PINNING_JWT', 'CHAINS', 'CHAIN_RPC_URL']) expect(readme).toContain(name);
  });
});

describe('start-up (instrumentation.ts register → boot)', () => {
  it('stops the process with status 1 and a message naming the bad variable', async () => {
    await configure({ RATE_LIMIT_BURST: 'lots' });
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => {
      throw new Error('exit');
    }) as never);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await expect(boot()).rejects.toThrow('exit');
    expect(exit).toHaveBeenCalledWith(1);
    expect(String(stderr.mock.calls[0]?.[0])).toContain('RATE_LIMIT_BURST');
  });

  it('opens the registry when the configuration is valid', async () => {
    await configure();
    const exit = vi.spyOn(process, 'exit');
    await boot();
    expect(exit).not.toHaveBeenCalled();
  });
});
