/**
 * Fresh destinations from a derivation rule (`wraith withdraw --to-derive`), at the level of the
 * function that hands out indices: an address an earlier run gave one payment is never given to
 * another, whatever rule or chain it was recorded under (an xpub's `0/{i}` and the phrase's full
 * path name the same addresses; a payment on another chain shows no activity on this one).
 * And the destinations typed (`--to`, `--to-file`): a mixed case that is not the EIP-55 checksum is a typo, refused.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { assignDestinations, deriveDestinations } from '../../cli/src/destinations.ts';
import { temporaryDirectory } from '../helpers/server.ts';
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

describe('assignDestinations', () => {
  // EIP-55's example address, and the same with one letter's case changed: a mistyped character.
  const good = '0x52908400098527886E0F7030069857D2E4169EE7';
  const typo = '0x52908400098527886e0F7030069857D2E4169EE7';
  const base = { count: 1, allowLinking: false, stealthAddresses: [stealth(9)], isUsed: async () => false, usage: 'wraith withdraw' };

  it('refuses a --to whose mixed case is not its EIP-55 checksum, and takes the checksummed or one-case address', async () => {
    await expect(assignDestinations({ ...base, to: typo })).rejects.toMatchObject({ code: 'INVALID_ADDRESS', message: expect.stringContaining('EIP-55 checksum') });
    expect(await assignDestinations({ ...base, to: good })).toEqual([good]);
    expect(await assignDestinations({ ...base, to: good.toLowerCase() })).toEqual([good]);
    await expect(assignDestinations({ ...base, to: '0x5290' })).rejects.toMatchObject({ code: 'USAGE' });
  });

  it('refuses a --to-file line whose mixed case is not its EIP-55 checksum, naming the line', async () => {
    const dir = temporaryDirectory('wraith-destinations-');
    try {
      const file = join(dir.path, 'to.txt');
      writeFileSync(file, `${good.toLowerCase()}\n${typo}\n`);
      await expect(assignDestinations({ ...base, count: 2, toFile: file })).rejects.toMatchObject({ code: 'INVALID_ADDRESS', message: expect.stringContaining('line 2') });
      writeFileSync(file, `${good}\n${stealth(7)}\n`);
      expect(await assignDestinations({ ...base, count: 2, toFile: file })).toEqual([good, getAddress(stealth(7))]);
    } finally {
      dir.remove();
    }
  });
});
