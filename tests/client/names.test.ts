/**
 * The publication flow through the client against the real server: upload a meta-address,
 * point a name at it, resolve the name, pay it. ENS runs on a real chain (anvil with ENS
 * deployed, tests/helpers/ens-anvil.ts); SuiNS on the msw Sui full node of
 * tests/helpers/msw-sui.ts served on a loopback port; bytes in the server's embedded store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, bytesToHex, createClient, createStealthPayment, generateKeys, scanAnnouncements, type WraithClient } from '@wraith-pq/sdk';
import { startEnsChain, type EnsChain } from '../helpers/ens-anvil.ts';
import { createSuiRpcMock } from '../helpers/msw-sui.ts';
import { startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';
import { serveHandlers, type LoopbackHandlers } from './loopback-handlers.ts';

let chain: EnsChain;
let suiNode: LoopbackHandlers;
let sui: ReturnType<typeof createSuiRpcMock>;
let server: RunningServer;
let client: WraithClient;
const ipfsDir = temporaryDirectory('wraith-client-names-');

beforeAll(async () => {
  chain = await startEnsChain();
  suiNode = await serveHandlers((url) => {
    sui = createSuiRpcMock(url);
    return sui.handlers;
  });
  server = await startServer({
    env: {
      REGISTRY_URL: 'memory:',
      RATE_LIMIT_RPS: '0',
      IPFS_STORE_DIR: ipfsDir.path,
      ETH_RPC_URL: chain.rpcUrl,
      ENS_UNIVERSAL_RESOLVER: chain.universalResolver,
      SUI_RPC_URL: suiNode.url,
      SUI_NETWORK: 'mainnet',
    },
  });
  client = createClient({ baseUrl: server.url });
});
afterAll(async () => {
  await server?.stop();
  await suiNode?.close();
  await chain?.stop();
  ipfsDir.remove();
});

describe('names', () => {
  it('a meta-address uploaded and set as an ENS stealth-meta record resolves by name, and a payment to it is found by its owner', async () => {
    const alice = generateKeys();
    const { text_record } = await client.uploadMetaAddress({ meta_address: alice.metaAddress });
    await chain.register('alice-client.eth');
    await chain.setText('alice-client.eth', 'stealth-meta', text_record);

    const resolved = await client.resolveEns('Alice-Client.eth');
    expect(resolved).toEqual({
      meta_address: bytesToHex(alice.metaAddress),
      spending_pk: bytesToHex(alice.spendingPublicKey),
      viewing_pk: bytesToHex(alice.viewingPublicKey),
      ipfs_cid: text_record.replace('ipfs://', ''),
      ens_name: 'alice-client.eth',
    });
    const payment = createStealthPayment(resolved.meta_address);
    const rows = [{ id: 1, ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag }];
    expect(scanAnnouncements(alice, rows).discoveries.map((d) => d.stealthAddress)).toEqual([payment.stealthAddress]);
  });

  it('an unregistered ENS name is a 404 NAME_NOT_FOUND, one without a record a 404 NO_STEALTH_RECORD, a bad name a 400 INVALID_NAME', async () => {
    await chain.register('bare-client.eth');
    const codes = await Promise.all(
      ['nobody-client.eth', 'bare-client.eth', 'not a name'].map((name) =>
        client.resolveEns(name).then(
          () => 'resolved',
          (e: ApiError) => `${e.status} ${e.code}`,
        ),
      ),
    );
    expect(codes).toEqual(['404 NAME_NOT_FOUND', '404 NO_STEALTH_RECORD', '400 INVALID_NAME']);
  });

  it('a .sui name whose content hash points at the uploaded meta-address resolves by name', async () => {
    const bob = generateKeys();
    const { cid } = await client.uploadMetaAddress({ meta_address: bytesToHex(bob.metaAddress) });
    sui.names.set('bob-client.sui', { contentHash: `ipfs://${cid}` });
    const resolved = await client.resolveSuins('bob-client.sui', { no_cache: true });
    expect(resolved).toMatchObject({ meta_address: bytesToHex(bob.metaAddress), ipfs_cid: cid, suins_name: 'bob-client.sui' });
    expect(sui.calls).toContain('sui_multiGetObjects');
    await expect(client.resolveSuins('nobody-client.sui')).rejects.toMatchObject({ status: 404, code: 'NAME_NOT_FOUND' });
  });
});
