/**
 * The API's contract with itself (issue 32, item 4): the `announcement` POST /stealth/create
 * returns publishes as it is through POST /registry/announcements, with only `tx_hash` filled in,
 * for both schemes, with and without a note; the row the registry then lists is that
 * announcement with its id, tx_hash and timestamp. Before, a scheme-1000 announcement carried
 * `stealth_address`, which publish refuses ("is taken from the chain for scheme 1000 rows"): a
 * client that published what it was given lost the announcement, and its recipient the payment.
 */
import { bytesToHex, erc8441KeysOf, generateKeys } from '@wraith-pq/sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { configure } from '../helpers/api.ts';
import { request, txHash } from '../helpers/routes.ts';

beforeEach(() => configure());

const identity = generateKeys();
const recipients = { 1000: bytesToHex(identity.metaAddress), 3: bytesToHex(erc8441KeysOf(identity).metaAddress) } as const;

describe('what stealth/create returns publishes as it is', () => {
  for (const scheme of [1000, 3] as const) {
    for (const note of [undefined, { amount: '500000000000000000', chain_id: '8453' }]) {
      it(`scheme ${scheme}, ${note === undefined ? 'without' : 'with'} a note: the announcement with its tx_hash is accepted and listed as returned`, async () => {
        const created = await request('create', 'POST', { body: { meta_address: recipients[scheme], ...(note === undefined ? {} : { note }) } });
        expect(created.status).toBe(200);
        const { announcement } = created.json as { announcement: Record<string, unknown> };
        expect(announcement['scheme_id']).toBe(scheme);
        const hash = txHash();
        const published = await request('announcements', 'POST', { body: { ...announcement, tx_hash: hash } });
        expect(published.status, JSON.stringify(published.json)).toBe(201);
        const listed = await request('announcements', 'GET', { query: `scheme_id=${scheme}` });
        const row = (listed.json.announcements as Record<string, unknown>[]).find((r) => r['tx_hash'] === hash);
        const { id: _id, timestamp: _timestamp, tx_hash: _tx, ...expected } = announcement;
        expect(row).toMatchObject(expected);
        expect(row).toMatchObject({ id: published.json.id, tx_hash: hash });
      });
    }
  }
});
