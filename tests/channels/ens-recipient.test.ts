/**
 * A channel can be opened to an ENS name: the name is resolved as GET /ens/resolve does (its
 * stealth-meta text record → CID → meta-address bytes), on a real chain (anvil with ENS
 * deployed, tests/helpers/ens-anvil.ts) and through the embedded content store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as uploadRoute from '../../app/api/v1/ipfs/upload/route.ts';
import { call } from '../helpers/api.ts';
import { startEnsChain, type EnsChain } from '../helpers/ens-anvil.ts';
import { configureChannels, discoverKeys, newRecipient, send, type KeyBundle } from './helpers.ts';

let chain: EnsChain;
const storeDir = mkdtempSync(join(tmpdir(), 'wraith-channels-ipfs-'));

beforeAll(async () => {
  chain = await startEnsChain();
});
afterAll(async () => {
  await chain?.stop();
  rmSync(storeDir, { recursive: true, force: true });
});
beforeEach(() =>
  configureChannels({ ETH_RPC_URL: chain.rpcUrl, ENS_UNIVERSAL_RESOLVER: chain.universalResolver, IPFS_STORE_DIR: storeDir }),
);

/** Publish a recipient's meta-address under an ENS name, as the recipient would. */
async function publishName(name: string, keys: KeyBundle): Promise<void> {
  const uploaded = await call(uploadRoute.POST, '/api/v1/ipfs/upload', { body: { meta_address: keys.meta_address } });
  expect(uploaded.status, uploaded.text).toBe(200);
  await chain.register(name);
  await chain.setText(name, 'stealth-meta', uploaded.json.text_record);
}

describe('channel create to an ENS name', () => {
  it('opens the channel to the meta-address the name publishes, and only its owner discovers it', async () => {
    const [alice, mallory] = [await newRecipient(), await newRecipient()];
    await publishName('alice-channels.eth', alice);

    const created = await send('create', { recipient: 'Alice-Channels.eth', token: 'ETH', amount: '0.25' });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ token: 'ETH', amount: '0.25' });

    const discovered = (await send('discover', discoverKeys(alice))).json.channels;
    expect(discovered).toHaveLength(1);
    expect(discovered[0]).toMatchObject({ channel_id: created.json.channel_id, stealth_address: created.json.stealth_address, token: 'ETH' });
    expect((await send('discover', discoverKeys(mallory))).json.channels).toEqual([]);
  });

  it('answers 404 NAME_NOT_FOUND for an unregistered name and announces nothing', async () => {
    const response = await send('create', { recipient: 'nobody-here.eth', token: 'USDC', amount: '1' });
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NAME_NOT_FOUND');
    const listed = await send('announcements');
    expect(listed.json.total).toBe(0);
  });

  it('answers 404 NO_STEALTH_RECORD for a name that publishes no meta-address', async () => {
    await chain.register('bare-name.eth');
    const response = await send('create', { recipient: 'bare-name.eth', token: 'USDC', amount: '1' });
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('NO_STEALTH_RECORD');
  });
});
