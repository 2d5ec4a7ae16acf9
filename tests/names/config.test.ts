/**
 * The settings added for names and IPFS (lib/config.ts, .env.example): defaults that work with
 * nothing configured, and bad values that stop the server with the variable's name.
 */
import { readFileSync } from 'node:fs';
import { mainnet } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.ts';

describe('names and IPFS configuration', () => {
  it('defaults to viem\'s mainnet Universal Resolver, Pinata\'s API and ./data/ipfs', () => {
    const config = loadConfig({});
    expect(config.ensUniversalResolver).toBe(mainnet.contracts.ensUniversalResolver.address.toLowerCase());
    expect(config.pinningApiUrl).toBe('https://api.pinata.cloud');
    expect(config.ipfsStoreDir).toBe('./data/ipfs');
  });

  it('accepts a checksummed Universal Resolver address and a pinning URL with a trailing slash', () => {
    const config = loadConfig({ ENS_UNIVERSAL_RESOLVER: '0xCe01f8eee7E479C928F8919abD53E553a36CeF67', PINNING_API_URL: 'https://pin.example/api/' });
    expect(config.ensUniversalResolver).toBe('0xce01f8eee7e479c928f8919abd53e553a36cef67');
    expect(config.pinningApiUrl).toBe('https://pin.example/api');
  });

  it.each([
    ['ENS_UNIVERSAL_RESOLVER', 'resolver.eth'],
    ['ENS_UNIVERSAL_RESOLVER', '0x1234'],
    ['PINNING_API_URL', 'ftp://pin.example'],
    ['PINNING_API_URL', 'not a url'],
  ])('refuses %s=%j, naming the variable but not the value', (name, value) => {
    try {
      loadConfig({ [name]: value });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toContain(name);
      expect((error as ConfigError).message).not.toContain(value);
    }
  });

  it('documents every new variable in .env.example', () => {
    const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    for (const name of ['ENS_UNIVERSAL_RESOLVER', 'PINNING_API_URL', 'IPFS_STORE_DIR']) expect(example).toMatch(new RegExp(`^${name}=`, 'm'));
  });
});
