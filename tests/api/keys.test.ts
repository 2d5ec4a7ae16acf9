/**
 * POST /api/v1/keys/generate (INTERFACE.md 4.1, PROTOCOL.md section 2).
 */
import { computeViewTag, decodeMetaAddress, hexToBytes } from '@wraith-pq/sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { configure } from '../helpers/api.ts';
import { generateKeys, request } from '../helpers/routes.ts';

beforeEach(() => configure());

describe('POST /api/v1/keys/generate', () => {
  it('returns exactly the fields of the key bundle, the identity under ERC-8441 among them', async () => {
    const keys = await generateKeys();
    expect(Object.keys(keys).sort()).toEqual(['erc8441_meta_address', 'meta_address', 'spending_pk', 'spending_sk', 'tracking_key', 'view_tag', 'viewing_pk', 'viewing_sk']);
    expect(keys.tracking_key).toMatch(/^[0-9a-f]{192}$/);
    expect(keys.erc8441_meta_address).toMatch(/^[0-9a-f]{2500}$/);
    // The same spending key under both forms (PROTOCOL.md section 10).
    expect(keys.erc8441_meta_address.slice(0, 66)).toBe(keys.spending_pk);
  });

  it('encodes every key as lowercase hex without 0x, with the lengths of PROTOCOL.md section 2', async () => {
    const keys = await generateKeys();
    const lengths = { spending_pk: 33, spending_sk: 32, viewing_pk: 1184, viewing_sk: 2400, meta_address: 1218 };
    for (const [field, bytes] of Object.entries(lengths)) {
      expect(keys[field as keyof typeof lengths], field).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
    }
  });

  it('returns a meta-address that decodes to the returned public keys', async () => {
    const keys = await generateKeys();
    const meta = decodeMetaAddress(keys.meta_address);
    expect(Buffer.from(meta.spendingPublicKey).toString('hex')).toBe(keys.spending_pk);
    expect(Buffer.from(meta.viewingPublicKey).toString('hex')).toBe(keys.viewing_pk);
  });

  it('returns the base view tag of the viewing public key as view_tag', async () => {
    const keys = await generateKeys();
    expect(keys.view_tag).toBe(computeViewTag(hexToBytes(keys.viewing_pk)));
  });

  it('creates a fresh identity on every call', async () => {
    const [a, b] = [await generateKeys(), await generateKeys()];
    expect(a.spending_sk).not.toBe(b.spending_sk);
    expect(a.viewing_sk).not.toBe(b.viewing_sk);
  });

  it('stores nothing in the registry', async () => {
    await generateKeys();
    const stats = await request('stats', 'GET');
    expect(stats.json.total_announcements).toBe(0);
  });

  it('forbids caching of the response that carries secret keys', async () => {
    const response = await request('keys', 'POST');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('ignores a request body', async () => {
    const response = await request('keys', 'POST', { body: { anything: 1 } });
    expect(response.status).toBe(200);
  });

  it('refuses GET with 405 and says POST is allowed', async () => {
    const response = await request('keys', 'GET');
    expect(response.status).toBe(405);
    expect(response.json.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
  });
});
