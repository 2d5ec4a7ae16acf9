/**
 * Fresh destinations from a derivation rule (`wraith withdraw --to-derive`), at the level of the
 * function that hands out indices: an address an earlier run gave one payment is never given to
 * another, whatever rule or chain it was recorded under (an xpub's `0/{i}` and the phrase's full
 * path name the same addresses; a payment on another chain shows no activity on this one).
 */
import { describe, expect, it } from 'vitest';
import { privateKeyToAddress } from 'viem/accounts';
import { deriveDestinations } from '../../cli/src/destinations.ts';
import type { DerivationRule } from '../../cli/src/derivation.ts';
import type { DestinationAssignment } from '../../cli/src/history-file.ts';

const addressAt = (i: number) => privateKeyToAddress(`0x${(i + 1).toString(16).padStart(64, '0')}`);
const rule: DerivationRule = { template: "m/44'/60'/0'/0/{i}", kind: 'mnemonic', addressAt };
const stealth = (n: number) => `0x${n.toString(16).padStart(40, 'a')}` as const;

describe('deriveDestinations', () => {
  it('passes over an address an earlier run gave a payment under another template or on another chain', async () => {
    const earlier: DestinationAssignment[] = [
      { stealth_address: stealth(1), chain_id: 10, rule: "m/44'/60'/0'/0/{i}", index: 0, destination: addressAt(0) }, // another chain
      { stealth_address: stealth(2), chain_id: 31337, rule: '0/{i}', index: 1, destination: addressAt(1).toLowerCase() }, // the xpub's template
    ];
    const { destinations, assignments } = await deriveDestinations({
      rule,
      fromIndex: 0,
      chainId: 31337,
      payments: [stealth(3), stealth(4)],
      stealthAddresses: [stealth(3), stealth(4)],
      earlier,
      isUsed: async () => false,
    });
    expect(destinations).toEqual([addressAt(2), addressAt(3)]);
    expect(assignments.map((a) => a.index)).toEqual([2, 3]);
  });

  it('gives a payment the index an earlier run gave it under this rule and chain', async () => {
    const earlier: DestinationAssignment[] = [{ stealth_address: stealth(5), chain_id: 31337, rule: rule.template, index: 7, destination: addressAt(7) }];
    const { destinations } = await deriveDestinations({ rule, fromIndex: 0, chainId: 31337, payments: [stealth(5), stealth(6)], stealthAddresses: [stealth(5), stealth(6)], earlier, isUsed: async (a) => a === addressAt(0) });
    expect(destinations).toEqual([addressAt(7), addressAt(1)]);
  });
});
