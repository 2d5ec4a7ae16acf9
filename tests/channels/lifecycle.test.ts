/**
 * Status, fund and close on known and unknown channels. Fund and close are placeholders: they
 * say so, submit nothing, and report the balances that would result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { resetServer } from '../helpers/api.ts';
import { configureChannels, discoverKeys, getStatus, newRecipient, openChannel, randomHex, send } from './helpers.ts';

beforeEach(() => configureChannels());

const fund = (channel_id: string, amount: string) => send('fund', { channel_id, amount });
const close = (channel_id: string) => send('close', { channel_id });

async function usdcChannel(amount = '10'): Promise<string> {
  const recipient = await newRecipient();
  return (await openChannel({ recipient: recipient.meta_address, token: 'USDC', amount })).channel_id;
}

describe('channel status', () => {
  it('reports an open channel with its token, amount, balance and creation time', async () => {
    const before = Math.floor(Date.now() / 1000);
    const id = await usdcChannel('10.25');
    const response = await getStatus(id);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      channel_id: id,
      status: 'open',
      token: 'USDC',
      amount: '10.25',
      balance: '10.25',
      created_at: expect.any(Number),
      closed_at: null,
    });
    expect(response.json.created_at).toBeGreaterThanOrEqual(before);
    expect(response.json.created_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('accepts the id with a 0x prefix and in upper case', async () => {
    const id = await usdcChannel();
    expect((await getStatus(`0x${id.toUpperCase()}`)).json).toMatchObject({ channel_id: id, status: 'open' });
  });

  it('answers 200 with status unknown and null fields for a well-formed id it has never seen', async () => {
    const id = randomHex(32);
    const response = await getStatus(id);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ channel_id: id, status: 'unknown', token: null, amount: null, balance: null, created_at: null, closed_at: null });
  });

  it('is a public read: no API key needed even when writes require one', async () => {
    await configureChannels({ API_KEY: 'k'.repeat(32) });
    expect((await getStatus(randomHex(32))).status).toBe(200);
  });
});

describe('channel fund (placeholder)', () => {
  it('says it is a placeholder, returns a non-chain tx id and the balance the funding would result in', async () => {
    const id = await usdcChannel('10');
    const response = await fund(id, '2.5');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      channel_id: id,
      placeholder: true,
      message: expect.stringMatching(/placeholder.*no transaction was submitted/i),
      tx_id: expect.stringMatching(/^placeholder:fund:[0-9a-f-]{36}$/),
      status: 'open',
      token: 'USDC',
      amount: '2.5',
      balance: '12.5',
    });
  });

  it('adds successive fundings up, exactly, and status shows the resulting balance', async () => {
    const id = await usdcChannel('0.1');
    const first = await fund(id, '0.2');
    const second = await fund(id, '0.000001');
    expect(first.json.balance).toBe('0.3');
    expect(second.json.balance).toBe('0.300001');
    expect(second.json.tx_id).not.toBe(first.json.tx_id);
    expect((await getStatus(id)).json).toMatchObject({ amount: '0.1', balance: '0.300001' });
  });

  it('counts every one of many concurrent fundings', async () => {
    const id = await usdcChannel('1');
    const responses = await Promise.all(Array.from({ length: 25 }, () => fund(id, '1')));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect((await getStatus(id)).json.balance).toBe('26');
  });

  it('answers 404 NOT_FOUND for a channel this instance does not know', async () => {
    const response = await fund(randomHex(32), '1');
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NOT_FOUND');
  });

  it('requires the API key when one is configured', async () => {
    await configureChannels({ API_KEY: 'k'.repeat(32) });
    const id = randomHex(32);
    expect((await fund(id, '1')).status).toBe(401);
    expect((await send('fund', { channel_id: id, amount: '1' }, { headers: { 'x-api-key': 'k'.repeat(32) } })).status).toBe(404);
  });
});

describe('channel close (placeholder)', () => {
  it('closes an open channel, says it is a placeholder and reports the final balance', async () => {
    const id = await usdcChannel('10');
    await fund(id, '5');
    const response = await close(id);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      channel_id: id,
      placeholder: true,
      message: expect.stringMatching(/placeholder.*no transaction was submitted/i),
      tx_id: expect.stringMatching(/^placeholder:close:[0-9a-f-]{36}$/),
      status: 'closed',
      already_closed: false,
      token: 'USDC',
      final_balance: '15',
      closed_at: expect.any(Number),
    });
    expect((await getStatus(id)).json).toMatchObject({ status: 'closed', balance: '15', closed_at: response.json.closed_at });
  });

  it('is idempotent: closing again answers the first close unchanged, marked already_closed', async () => {
    const id = await usdcChannel();
    const first = await close(id);
    const second = await close(id);
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ ...first.json, already_closed: true });
  });

  it('refuses to fund a closed channel with 409 CHANNEL_CLOSED', async () => {
    const id = await usdcChannel('3');
    await close(id);
    const response = await fund(id, '1');
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('CHANNEL_CLOSED');
    expect((await getStatus(id)).json.balance).toBe('3');
  });

  it('answers 404 NOT_FOUND for a channel this instance does not know', async () => {
    const response = await close(randomHex(32));
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NOT_FOUND');
  });

  it('is reflected in discovery: the recipient sees the channel as closed', async () => {
    const alice = await newRecipient();
    const { channel_id } = await openChannel({ recipient: alice.meta_address });
    await close(channel_id);
    const [channel] = (await send('discover', discoverKeys(alice))).json.channels;
    expect(channel).toMatchObject({ channel_id, status: 'closed', token: 'USDC' });
  });
});

describe('channel table persistence', () => {
  const directory = mkdtempSync(join(tmpdir(), 'wraith-channels-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('keeps channels, fundings and closes across a restart with a file registry', async () => {
    const registryUrl = `file:${directory}/registry.db`;
    await configureChannels({ REGISTRY_URL: registryUrl });
    const alice = await newRecipient();
    const open = await openChannel({ recipient: alice.meta_address, token: 'ETH', amount: '1.5' });
    const closed = await openChannel({ recipient: alice.meta_address, token: 'USDC', amount: '2' });
    await fund(open.channel_id, '0.25');
    await close(closed.channel_id);

    await resetServer(); // what a restart loses: every in-process singleton
    await configureChannels({ REGISTRY_URL: registryUrl });
    expect((await getStatus(open.channel_id)).json).toMatchObject({ status: 'open', token: 'ETH', amount: '1.5', balance: '1.75' });
    expect((await getStatus(closed.channel_id)).json).toMatchObject({ status: 'closed', token: 'USDC', balance: '2' });
    const discovered = (await send('discover', discoverKeys(alice))).json.channels;
    expect(discovered.map((c: { token: string; status: string }) => [c.token, c.status])).toEqual([
      ['ETH', 'open'],
      ['USDC', 'closed'],
    ]);
    const again = await send('create', { recipient: alice.meta_address, token: 'USDC', amount: '1', channel_id: open.channel_id });
    expect(again.status).toBe(409);
  });
});
