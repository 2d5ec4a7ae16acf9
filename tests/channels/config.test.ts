/**
 * GET /api/v1/yellow/config serves the YELLOW_* settings, with public defaults, and a bad value
 * stops the server at start-up with a message naming the variable (lib/config.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { YELLOW_DEFAULTS } from '../../lib/channels/config.ts';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { configureChannels, send } from './helpers.ts';

const USDC_SEPOLIA = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

describe('GET /api/v1/yellow/config', () => {
  it('serves the public ClearNode defaults when nothing is set', async () => {
    await configureChannels();
    const response = await send('config');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      ws_url: 'wss://clearnet.yellow.com/ws',
      custody_address: '0x019B65A265EB3363822f2752141b3dF16131b262',
      adjudicator_address: '0x7c7ccbc98469190849BCC6c926307794fDfB11F2',
      chain_id: 11155111,
      supported_tokens: [
        { symbol: 'USDC', address: USDC_SEPOLIA, decimals: 6 },
        { symbol: 'ETH', address: ZERO_ADDRESS, decimals: 18 },
      ],
    });
  });

  it('reflects every YELLOW_* override, with addresses in EIP-55 form', async () => {
    await configureChannels({
      YELLOW_WS_URL: 'ws://localhost:8000/ws',
      YELLOW_CUSTODY_ADDRESS: '0x019b65a265eb3363822f2752141b3df16131b262',
      YELLOW_ADJUDICATOR_ADDRESS: '0X7C7CCBC98469190849BCC6C926307794FDFB11F2',
      YELLOW_CHAIN_ID: '137',
      YELLOW_TOKENS: 'usdt:0xdac17f958d2ee523a2206206994597c13d831ec7:6, WBTC:0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599:8',
    });
    expect((await send('config')).json).toEqual({
      ws_url: 'ws://localhost:8000/ws',
      custody_address: '0x019B65A265EB3363822f2752141b3dF16131b262',
      adjudicator_address: '0x7c7ccbc98469190849BCC6c926307794fDfB11F2',
      chain_id: 137,
      supported_tokens: [
        { symbol: 'usdt', address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
        { symbol: 'WBTC', address: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599', decimals: 8 },
      ],
    });
  });

  it('accepts YELLOW_TOKENS as a JSON array', async () => {
    await configureChannels({ YELLOW_TOKENS: JSON.stringify([{ symbol: 'DAI', address: '0x6b175474e89094c44da98b954eedeac495271d0f', decimals: 18 }]) });
    expect((await send('config')).json.supported_tokens).toEqual([{ symbol: 'DAI', address: '0x6B175474E89094C44Da98b954EedeAC495271d0F', decimals: 18 }]);
  });

  it('opens channels only in the configured tokens, matched ignoring case, with their precision', async () => {
    await configureChannels({ YELLOW_TOKENS: 'WBTC:0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599:8' });
    const keys = (await send('keys', undefined, { method: 'POST' })).json;
    const usdc = await send('create', { recipient: keys.meta_address, token: 'USDC', amount: '1' });
    expect(usdc.status).toBe(400);
    expect(usdc.json.error.message).toContain('WBTC');
    const tooPrecise = await send('create', { recipient: keys.meta_address, token: 'wbtc', amount: '0.000000001' });
    expect(tooPrecise.status).toBe(400);
    const wbtc = await send('create', { recipient: keys.meta_address, token: 'wbtc', amount: '0.00000001' });
    expect(wbtc.status).toBe(201);
    expect(wbtc.json).toMatchObject({ token: 'WBTC', amount: '0.00000001' });
  });

  it('is a public read: no API key needed even when writes require one', async () => {
    await configureChannels({ API_KEY: 'k'.repeat(32) });
    expect((await send('config')).status).toBe(200);
  });
});

describe('YELLOW_* validation at start-up', () => {
  const base = { REGISTRY_URL: 'memory:' };

  it.each([
    ['YELLOW_WS_URL', 'https://clearnet.yellow.com/ws'],
    ['YELLOW_WS_URL', 'not a url'],
    ['YELLOW_CUSTODY_ADDRESS', '0x1234'],
    ['YELLOW_CUSTODY_ADDRESS', '019B65A265EB3363822f2752141b3dF16131b262'],
    ['YELLOW_ADJUDICATOR_ADDRESS', '0x7c7ccbc98469190849BCC6c926307794fDfB11F3'], // mixed case, checksum broken
    ['YELLOW_CHAIN_ID', '0'],
    ['YELLOW_CHAIN_ID', '-1'],
    ['YELLOW_CHAIN_ID', '1.5'],
    ['YELLOW_CHAIN_ID', 'sepolia'],
    ['YELLOW_TOKENS', '[{"symbol":"USDC"'],
    ['YELLOW_TOKENS', '{"symbol":"USDC"}'],
    ['YELLOW_TOKENS', '[]'],
    ['YELLOW_TOKENS', 'USDC:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'],
    ['YELLOW_TOKENS', 'USDC:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238:six'],
    ['YELLOW_TOKENS', 'USDC:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238:37'],
    ['YELLOW_TOKENS', 'USDC:0x1c7d:6'],
    ['YELLOW_TOKENS', 'US DC:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238:6'],
    ['YELLOW_TOKENS', 'USDC:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238:6,usdc:0x0000000000000000000000000000000000000000:18'],
    ['YELLOW_TOKENS', '[{"symbol":"ETH","address":"0x0000000000000000000000000000000000000000","decimals":"18"}]'],
  ])('refuses %s=%s with a ConfigError naming the variable but not the value', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ ...base, [name]: value });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) {
      expect(problem.startsWith(`${name}:`)).toBe(true);
      if (value.length > 4) expect(problem).not.toContain(value);
    }
  });

  it('treats blank variables as unset and falls back to the defaults', () => {
    const config = loadConfig({ ...base, YELLOW_WS_URL: ' ', YELLOW_CHAIN_ID: '', YELLOW_TOKENS: '' });
    expect(config.yellow.wsUrl).toBe('wss://clearnet.yellow.com/ws');
    expect(config.yellow.chainId).toBe(11155111);
    expect(config.yellow.tokens.map((t) => t.symbol)).toEqual(['USDC', 'ETH']);
  });

  it('loads the YELLOW_* values documented in .env.example as the defaults', () => {
    const documented: Record<string, string> = {};
    for (const line of readFileSync(new URL('../../.env.example', import.meta.url), 'utf8').split('\n')) {
      const match = /^(YELLOW_[A-Z_]+)=(.*)$/.exec(line);
      if (match) documented[match[1]!] = match[2]!;
    }
    expect(Object.keys(documented).sort()).toEqual(['YELLOW_ADJUDICATOR_ADDRESS', 'YELLOW_CHAIN_ID', 'YELLOW_CUSTODY_ADDRESS', 'YELLOW_TOKENS', 'YELLOW_WS_URL']);
    expect(loadConfig({ ...base, ...documented }).yellow).toEqual(YELLOW_DEFAULTS);
  });
});
