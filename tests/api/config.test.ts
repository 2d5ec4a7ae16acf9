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
    for (const name of ['REGISTRY_URL', 'UPSTASH_REDIS_REST_URL', 'RATE_LIMIT_FAIL_OPEN', 'API_KEY', 'PINNING_JWT']) expect(readme).toContain(name);
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
