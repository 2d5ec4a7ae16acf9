/**
 * How the web app words amounts for people (app/(web)/_lib/amount.ts, token-names.ts): fees
 * rounded to four significant digits and never rounded down, and a note's asset named without a
 * chain read for the chain's coin, the well-known tokens and those the server names.
 */
import { describe, expect, it } from 'vitest';
import { roundedAmount } from '../../app/(web)/_lib/amount.ts';
import { namedUnit } from '../../app/(web)/_lib/token-names.ts';

const ETH = { symbol: 'ETH', decimals: 18 };

describe('amounts for people', () => {
  it('rounds a fee to four significant digits, up, so it is never shown below what it may cost', () => {
    expect(roundedAmount(187_626_626_241_912n, 18, 'ETH')).toBe('0.0001877 ETH');
    expect(roundedAmount(21_000_000_000_000n, 18, 'ETH')).toBe('0.000021 ETH');
    expect(roundedAmount(500_000_000_000_000_000n, 18, 'ETH')).toBe('0.5 ETH');
    expect(roundedAmount(12_345_678_900_000_000_000n, 18, 'ETH')).toBe('12.3457 ETH');
    expect(roundedAmount(0n, 18, 'ETH')).toBe('0 ETH');
    expect(roundedAmount(1n, 18, 'ETH')).toBe('0.000000000000000001 ETH');
  });

  it('names a note\'s asset before any chain read: the coin, a well-known token, a token the server names; any other stays unnamed', () => {
    const server = new Map([[31337, [{ address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', symbol: 'TST', decimals: 18 }]]]);
    expect(namedUnit(1, 'native', new Map(), ETH)).toEqual(ETH);
    expect(namedUnit(1, '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', new Map(), ETH)).toEqual({ symbol: 'USDC', decimals: 6 });
    expect(namedUnit(8453, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', new Map(), ETH)).toEqual({ symbol: 'USDC', decimals: 6 });
    expect(namedUnit(31337, '0x5fbdb2315678afecb367f032d93f642f64180aa3', server, ETH)).toEqual({ symbol: 'TST', decimals: 18 });
    // The same address on another chain is another contract: not named.
    expect(namedUnit(1, '0x5fbdb2315678afecb367f032d93f642f64180aa3', server, ETH)).toBeNull();
    expect(namedUnit(10, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', new Map(), ETH)).toBeNull();
    // A note that names no asset (version 0), or a payment of unknown chain.
    expect(namedUnit(1, undefined, server, ETH)).toBeNull();
    expect(namedUnit(null, 'native', server, ETH)).toBeNull();
  });
});
