/**
 * What Send makes of what a sender typed (app/(web)/_lib/recipient.ts): a plain address in one
 * case, or with a right EIP-55 checksum, is looked up in the registry; a mixed-case address whose
 * checksum is wrong is a typo, refused as the server (INVALID_ADDRESS) and the CLI refuse it.
 */
import { describe, expect, it } from 'vitest';
import { cidForBytes, generateKeys } from '@wraith-pq/sdk';
import { classifyRecipient } from '../../app/(web)/_lib/recipient.ts';
import { paymentLink } from '../../app/(web)/_lib/share-link.ts';

const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'; // EIP-55's own example

describe('the recipient a sender types on Send', () => {
  it('takes an address in one case or with its checksum, and refuses a wrong checksum', () => {
    for (const address of [CHECKSUMMED, CHECKSUMMED.toLowerCase(), `0x${CHECKSUMMED.slice(2).toUpperCase()}`]) expect(classifyRecipient(` ${address} `)).toEqual({ kind: 'address', address });
    const typo = CHECKSUMMED.replace('aAeb', 'aaeb');
    expect(classifyRecipient(typo)).toEqual({ kind: 'invalid', reason: expect.stringContaining('wrong EIP-55 checksum') });
  });

  it('tells names and meta-addresses apart', () => {
    expect(classifyRecipient('alice.eth')).toEqual({ kind: 'ens', name: 'alice.eth' });
    expect(classifyRecipient('alice.sui')).toEqual({ kind: 'suins', name: 'alice.sui' });
    expect(classifyRecipient('st:eth:0x02ab').kind).toBe('meta-address');
    expect(classifyRecipient('').kind).toBe('invalid');
  });

  it('takes a payment link, the CID it carries or a name it carries, and refuses a cut-off code or a link that names no one', () => {
    const cid = cidForBytes(generateKeys().metaAddress).toString();
    expect(classifyRecipient(cid)).toEqual({ kind: 'cid', cid });
    expect(classifyRecipient(`ipfs://${cid}`)).toEqual({ kind: 'cid', cid });
    expect(classifyRecipient(paymentLink('https://pay.example/', cid))).toEqual({ kind: 'cid', cid });
    expect(classifyRecipient(paymentLink('http://127.0.0.1:3000', 'alice.eth'))).toEqual({ kind: 'ens', name: 'alice.eth' });
    expect(classifyRecipient(cid.slice(0, -10))).toEqual({ kind: 'invalid', reason: expect.stringContaining('cut off') });
    expect(classifyRecipient('https://pay.example/send')).toEqual({ kind: 'invalid', reason: expect.stringContaining('does not say whom to pay') });
    expect(classifyRecipient('https://pay.example/send?to=bob.btc').kind).toBe('invalid');
  });
});
