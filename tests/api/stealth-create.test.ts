/**
 * POST /api/v1/stealth/create (INTERFACE.md 4.2, PROTOCOL.md sections 3 and 4).
 */
import {
  bytesToHex,
  CIPHERTEXT_BYTES,
  createErc8441Scanner,
  createScanner,
  erc8441KeysOf,
  formatErc8441MetaAddressUri,
  formatMetaAddressUri,
  generateKeys as sdkKeys,
  hexToBytes,
  openNote,
} from '@wraith-pq/sdk';
import { getAddress } from 'viem';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configure } from '../helpers/api.ts';
import { createPayment, generateKeys, request, type KeyBundle } from '../helpers/routes.ts';

let keys: KeyBundle;
beforeAll(async () => {
  await configure();
  keys = await generateKeys();
});
beforeEach(() => configure());

const create = (body: unknown) => request('create', 'POST', { body });

describe('POST /api/v1/stealth/create', () => {
  it('returns the stealth addresses, ciphertext, view tag and an announcement ready to publish', async () => {
    const before = Math.floor(Date.now() / 1000);
    const payment = await createPayment(keys.meta_address);
    const after = Math.floor(Date.now() / 1000);
    expect(Object.keys(payment).sort()).toEqual(['announcement', 'ephemeral_ciphertext', 'metadata', 'scheme_id', 'stealth_address', 'stealth_sui_address', 'view_tag']);
    expect(payment.scheme_id).toBe(1000);
    // ERC-5564 metadata: the view tag, then a sealed (here empty) note: 93 bytes.
    expect(payment.metadata).toMatch(/^[0-9a-f]{186}$/);
    expect(parseInt(payment.metadata.slice(0, 2), 16)).toBe(payment.view_tag);
    expect(payment.stealth_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(payment.stealth_sui_address).toMatch(/^0x[0-9a-f]{64}$/);
    expect(payment.ephemeral_ciphertext).toMatch(new RegExp(`^[0-9a-f]{${CIPHERTEXT_BYTES * 2}}$`));
    expect(Number.isInteger(payment.view_tag) && payment.view_tag >= 0 && payment.view_tag <= 255).toBe(true);
    const { timestamp, ...rest } = payment.announcement as { timestamp: number };
    expect(rest).toEqual({
      id: 0,
      scheme_id: 1000,
      ephemeral_key: payment.ephemeral_ciphertext,
      view_tag: payment.view_tag,
      channel_id: null,
      tx_hash: null,
      amount: null,
      chain: null,
      chain_id: null,
      // Taken from the chain for scheme 1000, never from a publish: the announcement publishes as it is.
      stealth_address: null,
      metadata: payment.metadata.slice(2),
      block_number: null,
      log_index: null,
    });
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(after);
  });

  it('pays an ERC-8441 (1250-byte) recipient with scheme 3, in hex or as a URI, and with scheme 1000 when asked', async () => {
    const identity = sdkKeys();
    const erc8441 = erc8441KeysOf(identity);
    const scanner = createErc8441Scanner({ trackingKey: erc8441.trackingKey, metaAddress: erc8441.metaAddress });
    for (const metaAddress of [bytesToHex(erc8441.metaAddress), formatErc8441MetaAddressUri(erc8441.metaAddress, 'base')]) {
      const response = await create({ meta_address: metaAddress, note: { amount: '25', chain_id: '8453' } });
      expect(response.status).toBe(200);
      const payment = response.json;
      expect(payment.scheme_id).toBe(3);
      expect(payment.ephemeral_ciphertext).toMatch(/^(02|03)[0-9a-f]{2240}$/);
      expect(payment.announcement).toMatchObject({ scheme_id: 3, ephemeral_key: payment.ephemeral_ciphertext, stealth_address: payment.stealth_address, view_tag: payment.view_tag });
      // The recipient finds it under the ERC's rules and opens the note sealed with ss.
      const found = scanner.check({ ephemeralPubKey: hexToBytes(payment.ephemeral_ciphertext), metadata: hexToBytes(payment.metadata), stealthAddress: payment.stealth_address });
      expect(found.match).toBe(true);
      if (found.match) expect(openNote(found.sharedSecret, hexToBytes(payment.metadata).subarray(1))).toMatchObject({ amount: 25n, chainId: 8453n });
    }
    const forced = await create({ meta_address: bytesToHex(erc8441.metaAddress), scheme_id: 1000 });
    expect(forced.json.scheme_id).toBe(1000);
    expect(forced.json.ephemeral_ciphertext).toHaveLength(2176);
    const refused = await create({ meta_address: bytesToHex(identity.metaAddress), scheme_id: 3 });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details).toEqual([{ path: 'schemeId', issue: 'a 1218-byte meta-address offers scheme 1000 only' }]);
  });

  it('renders the EVM stealth address with its EIP-55 checksum', async () => {
    const { stealth_address } = await createPayment(keys.meta_address);
    expect(stealth_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(stealth_address).toBe(getAddress(stealth_address.toLowerCase())); // viem's EIP-55, independently
  });

  it('gives a different one-time address for every payment to the same meta-address', async () => {
    const a = await createPayment(keys.meta_address);
    const b = await createPayment(keys.meta_address);
    expect(a.stealth_address).not.toBe(b.stealth_address);
    expect(a.ephemeral_ciphertext).not.toBe(b.ephemeral_ciphertext);
  });

  it.each([
    ['0x-prefixed hex', () => `0x${keys.meta_address}`],
    ['upper-case hex', () => keys.meta_address.toUpperCase()],
    ['hex with surrounding whitespace', () => `  ${keys.meta_address}\n`],
    ['the ERC-5564 URI st:eth:0x…', () => formatMetaAddressUri(hexToBytes(keys.meta_address), 'eth')],
  ])('accepts the meta-address as %s', async (_, metaAddress) => {
    const response = await create({ meta_address: metaAddress() });
    expect(response.status).toBe(200);
  });

  it('accepts channel_id and ignores it', async () => {
    const response = await create({ meta_address: keys.meta_address, channel_id: 'ab'.repeat(32) });
    expect(response.status).toBe(200);
    expect(response.json.announcement.channel_id).toBeNull();
  });

  it('with note.token seals the note that names its asset (PROTOCOL.md 8.1): 113 bytes of metadata, which the recipient opens to the token', async () => {
    const recipient = sdkKeys();
    for (const [token, named] of [
      ['0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
      ['coin', 'coin'],
      [`0x${'00'.repeat(20)}`, 'coin'],
    ] as const) {
      const response = await create({ meta_address: bytesToHex(recipient.metaAddress), note: { amount: '100000000', chain_id: '8453', token } });
      expect(response.status).toBe(200);
      const payment = response.json;
      expect(payment.metadata).toMatch(/^[0-9a-f]{226}$/);
      expect(payment.announcement.metadata).toBe(payment.metadata.slice(2));
      const [found] = createScanner(recipient).scan([{ ...payment.announcement, id: 1 }]).discoveries;
      expect(found).toMatchObject({ noteStatus: 'opened', note: { amount: 100_000_000n, chainId: 8453n, token: named } });
    }
  });

  it.each([
    ['a 19-byte address', `0x${'11'.repeat(19)}`],
    ['a symbol', 'USDC'],
    ['an address without 0x', '833589fcd6edb6e08f4c7c32d4f71b54bda02913'],
    ['a number', 1],
  ])('refuses a note.token that is %s with 400 naming note.token', async (_, token) => {
    const response = await create({ meta_address: keys.meta_address, note: { amount: '1', token } });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('VALIDATION_ERROR');
    expect(response.json.error.details).toContainEqual(expect.objectContaining({ path: 'note.token' }));
  });

  it('publishes nothing', async () => {
    await createPayment(keys.meta_address);
    const list = await request('announcements', 'GET');
    expect(list.json.total).toBe(0);
  });

  it.each([
    ['not hex', 'zz'.repeat(1218)],
    ['too short', () => keys.meta_address.slice(0, -2)],
    ['too long', () => `${keys.meta_address}00`],
    ['an unknown version byte', () => `03${keys.meta_address.slice(2)}`],
    ['a spending key that is not a curve point', () => `0205${'ff'.repeat(32)}${keys.meta_address.slice(68)}`],
    ['a viewing key with a coefficient out of range', () => `${keys.meta_address.slice(0, 68)}ffff${keys.meta_address.slice(72)}`],
    ['a viewing key that is all zero (t_hat = 0)', () => `${keys.meta_address.slice(0, 68)}${'00'.repeat(1152)}${keys.meta_address.slice(68 + 2304)}`],
    ['empty', ''],
  ])('refuses a meta-address that is %s with 400 INVALID_META_ADDRESS', async (_, value) => {
    const response = await create({ meta_address: typeof value === 'function' ? value() : value });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_META_ADDRESS');
  });

  it('refuses a version-1 meta-address with 400 LEGACY_META_ADDRESS and says why', async () => {
    const legacy = `01${keys.viewing_pk}${keys.viewing_pk}`;
    const response = await create({ meta_address: legacy });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('LEGACY_META_ADDRESS');
    expect(response.json.error.message).toMatch(/sender/i);
    expect(response.text).not.toContain(keys.viewing_pk);
  });

  it('never echoes the submitted meta-address in an error', async () => {
    const response = await create({ meta_address: keys.meta_address.slice(0, -2) });
    expect(response.text).not.toContain(keys.meta_address.slice(0, 100));
  });

  it('answers a missing meta_address with 400 VALIDATION_ERROR naming the field', async () => {
    const response = await create({});
    expect(response.status).toBe(400);
    expect(response.json.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: expect.any(String),
      details: [{ path: 'meta_address', issue: 'is required' }],
    });
  });
});
