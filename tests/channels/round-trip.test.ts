/**
 * Create → discover: a channel opened to a recipient is found by that recipient's keys, with a
 * key that spends from its one-time address, and by nobody else; crafted and tampered channel
 * announcements are never discovered (PROTOCOL.md section 5, correctness bar).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { evmAddressOf, formatMetaAddressUri, hexToBytes, typescriptKernel } from '@wraith-pq/sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseViewingSecretKey } from '../../sdk/src/viewing-key.ts';
import { captureLog } from '../helpers/api.ts';
import { configureChannels, discoverKeys, newRecipient, openChannel, randomHex, send, type KeyBundle } from './helpers.ts';

beforeEach(() => configureChannels());

const discover = (keys: KeyBundle) => send('discover', discoverKeys(keys));

/** The view tag the recipient's scanner computes for a ciphertext: what an attacker aims for. */
function tagSeenBy(keys: KeyBundle, ciphertextHex: string): number {
  const kernel = typescriptKernel(parseViewingSecretKey(hexToBytes(keys.viewing_sk)));
  return kernel.candidate(hexToBytes(ciphertextHex), new Uint8Array(32));
}

/** Publish a channel announcement through the public registry endpoint, as anyone can. */
async function announceChannel(ephemeralKey: string, viewTag: number, channelId = randomHex(32)): Promise<void> {
  const response = await send('announcements', {
    ephemeral_key: ephemeralKey,
    view_tag: viewTag,
    channel_id: channelId,
    tx_hash: `channel:${channelId}`,
    amount: '1000000',
    chain: 'yellow',
  });
  expect(response.status).toBe(201);
}

function flipOneBit(hex: string, bit: number): string {
  const bytes = hexToBytes(hex);
  bytes[bit >> 3]! ^= 1 << (bit & 7);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

describe('channel create → discover', () => {
  it('lets the recipient discover the channel at the address create returned, with its token and amount', async () => {
    const alice = await newRecipient();
    const created = await openChannel({ recipient: alice.meta_address, token: 'USDC', amount: '12.50' });
    expect(created).toMatchObject({ channel_id: expect.stringMatching(/^[0-9a-f]{64}$/), token: 'USDC', amount: '12.5' });
    expect(created.announcement).toMatchObject({
      id: expect.any(Number),
      channel_id: created.channel_id,
      tx_hash: `channel:${created.channel_id}`,
      chain: 'yellow',
      amount: '12.5',
    });

    const response = await discover(alice);
    expect(response.status).toBe(200);
    expect(response.json.channels).toEqual([
      {
        channel_id: created.channel_id,
        stealth_address: created.stealth_address,
        stealth_sui_address: created.stealth_sui_address,
        eth_private_key: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        status: 'open',
        discovered_at: expect.any(Number),
        announced_at: created.announcement.timestamp,
        announcement_id: created.announcement.id,
        amount: '12.5',
        token: 'USDC',
        // Sealed for the recipient: 12.5 USDC in base units (6 decimals) on the channel contracts' chain (Sepolia), naming the token.
        note_status: 'opened',
        note: { tx_hash: null, amount: '12500000', chain_id: '11155111', token: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' },
      },
    ]);
  });

  it('returns a private key that controls the channel’s stealth address', async () => {
    const alice = await newRecipient();
    const created = await openChannel({ recipient: alice.meta_address });
    const [channel] = (await discover(alice)).json.channels;
    expect(evmAddressOf(secp256k1.Point.BASE.multiply(BigInt(channel.eth_private_key)))).toBe(created.stealth_address);
  });

  it('accepts the st:<chain>:0x meta-address form and uses the client’s channel id', async () => {
    const alice = await newRecipient();
    const channelId = randomHex(32);
    const created = await openChannel({ recipient: formatMetaAddressUri(hexToBytes(alice.meta_address), 'eth'), channel_id: `0x${channelId.toUpperCase()}` });
    expect(created.channel_id).toBe(channelId);
    expect((await discover(alice)).json.channels.map((c: { channel_id: string }) => c.channel_id)).toEqual([channelId]);
  });

  it('shows each recipient only their own channels', async () => {
    const [alice, bob, carol] = [await newRecipient(), await newRecipient(), await newRecipient()];
    const toAlice = [await openChannel({ recipient: alice.meta_address }), await openChannel({ recipient: alice.meta_address, token: 'ETH', amount: '0.5' })];
    const toBob = await openChannel({ recipient: bob.meta_address });

    const aliceSees = (await discover(alice)).json.channels;
    expect(aliceSees.map((c: { channel_id: string }) => c.channel_id)).toEqual(toAlice.map((c) => c.channel_id));
    expect(aliceSees.map((c: { token: string }) => c.token)).toEqual(['USDC', 'ETH']);
    expect((await discover(bob)).json.channels.map((c: { stealth_address: string }) => c.stealth_address)).toEqual([toBob.stealth_address]);
    expect((await discover(carol)).json.channels).toEqual([]);
  });

  it("finds the same channels with mode 'constant' and refuses an unknown mode", async () => {
    const [alice, bob] = [await newRecipient(), await newRecipient()];
    await openChannel({ recipient: bob.meta_address });
    await openChannel({ recipient: alice.meta_address });
    const fast = (await discover(alice)).json;
    const constant = await send('discover', { ...discoverKeys(alice), mode: 'constant' });
    expect(constant.status).toBe(200);
    expect(constant.json.channels.map((c: { channel_id: string }) => c.channel_id)).toEqual(fast.channels.map((c: { channel_id: string }) => c.channel_id));
    expect(constant.json.channels).toHaveLength(1);
    const refused = await send('discover', { ...discoverKeys(alice), mode: 'quick' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json.error)).toContain('mode');
  });

  it('ignores ordinary stealth payments: only announcements with a channel id are channels', async () => {
    const alice = await newRecipient();
    const payment = (await send('stealthCreate', { meta_address: alice.meta_address })).json;
    const published = await send('announcements', { ephemeral_key: payment.ephemeral_ciphertext, view_tag: payment.view_tag, tx_hash: `0x${randomHex(32)}` });
    expect(published.status).toBe(201);

    const response = await discover(alice);
    expect(response.json.channels).toEqual([]);
    expect(response.json.stats.total_scanned).toBe(0);
  });

  it('never discovers random ciphertexts whose view tag was crafted to match the recipient’s scanner', async () => {
    const alice = await newRecipient();
    const honest = await openChannel({ recipient: alice.meta_address });
    const crafted = 12;
    for (let i = 0; i < crafted; i++) {
      const ciphertext = randomHex(1088);
      await announceChannel(ciphertext, tagSeenBy(alice, ciphertext));
    }

    const response = await discover(alice);
    expect(response.json.channels.map((c: { channel_id: string }) => c.channel_id)).toEqual([honest.channel_id]);
    // Every crafted tag matched, so each one reached the confirmation step and failed it there.
    expect(response.json.stats).toMatchObject({ total_scanned: crafted + 1, view_tag_matches: crafted + 1, discoveries: 1 });
  });

  it('never discovers an honest channel ciphertext with one bit flipped, wherever the bit is', async () => {
    const alice = await newRecipient();
    const honest = await openChannel({ recipient: alice.meta_address });
    const bits = [0, 7, 4000, 8 * 960 - 1, 8 * 960, 8 * 1088 - 1]; // u part, its last bit, v part, last bit
    for (const bit of bits) {
      const tampered = flipOneBit(honest.announcement.ephemeral_key, bit);
      await announceChannel(tampered, tagSeenBy(alice, tampered));
    }

    const response = await discover(alice);
    expect(response.json.channels.map((c: { channel_id: string }) => c.channel_id)).toEqual([honest.channel_id]);
    expect(response.json.stats).toMatchObject({ total_scanned: bits.length + 1, view_tag_matches: bits.length + 1, discoveries: 1 });
  });

  it('does not turn a copy of a channel’s ciphertext under another channel id into a second channel', async () => {
    const alice = await newRecipient();
    const honest = await openChannel({ recipient: alice.meta_address });
    await announceChannel(honest.announcement.ephemeral_key, honest.announcement.view_tag);

    const channels = (await discover(alice)).json.channels;
    expect(channels.map((c: { channel_id: string }) => c.channel_id)).toEqual([honest.channel_id]);
  });

  it('does not count a channel-id announcement whose tx_hash is not the channel’s', async () => {
    const alice = await newRecipient();
    const payment = (await send('stealthCreate', { meta_address: alice.meta_address })).json;
    const response = await send('announcements', {
      ephemeral_key: payment.ephemeral_ciphertext,
      view_tag: payment.view_tag,
      channel_id: randomHex(32),
      tx_hash: `0x${randomHex(32)}`,
    });
    expect(response.status).toBe(201);
    expect((await discover(alice)).json.channels).toEqual([]);
  });

  it('refuses a second channel with the same channel id with 409 DUPLICATE_ANNOUNCEMENT and announces it once', async () => {
    const [alice, bob] = [await newRecipient(), await newRecipient()];
    const channelId = randomHex(32);
    await openChannel({ recipient: alice.meta_address, channel_id: channelId });

    const again = await send('create', { recipient: bob.meta_address, token: 'USDC', amount: '1', channel_id: channelId });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('DUPLICATE_ANNOUNCEMENT');
    expect((await discover(bob)).json.channels).toEqual([]);
    expect((await discover(alice)).json.channels).toHaveLength(1);
  });

  it('answers 409 when the channel id was already taken by an announcement published directly', async () => {
    const alice = await newRecipient();
    const channelId = randomHex(32);
    await announceChannel(randomHex(1088), 0, channelId);
    const response = await send('create', { recipient: alice.meta_address, token: 'USDC', amount: '1', channel_id: channelId });
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('DUPLICATE_ANNOUNCEMENT');
  });

  it('serves discover with Cache-Control: no-store and never logs the keys or the discovered private key', async () => {
    await configureChannels({ LOG_LEVEL: 'debug' });
    const alice = await newRecipient();
    await openChannel({ recipient: alice.meta_address });
    const { result, log } = await captureLog(() => discover(alice));
    expect(result.status).toBe(200);
    expect(result.headers.get('cache-control')).toContain('no-store');
    expect(log).toContain('/api/v1/yellow/channel/discover');
    const secrets = [alice.viewing_sk.slice(0, 64), alice.spending_sk, result.json.channels[0].eth_private_key.slice(2)];
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
