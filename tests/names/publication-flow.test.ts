/**
 * The whole publication flow of INTERFACE.md 4.5 with nothing configured but a chain: a
 * recipient generates keys, uploads the meta-address (embedded store), writes the returned
 * record into their ENS name; a sender resolves the name, pays the resolved meta-address and
 * publishes the announcement; the recipient's scan finds the payment.
 */
import { encodeContenthash } from '@wraith-pq/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEnsChain, type EnsChain } from '../helpers/ens-anvil.ts';
import { createPayment, generateKeys, publish, request, scanKeys, type KeyBundle } from '../helpers/routes.ts';
import { configureIpfs, resolveEns, upload } from '../ipfs/setup.ts';

let chain: EnsChain;
beforeAll(async () => {
  chain = await startEnsChain();
});
afterAll(async () => {
  await chain?.stop();
});
beforeEach(async () => {
  await configureIpfs({ ETH_RPC_URL: chain.rpcUrl, ENS_UNIVERSAL_RESOLVER: chain.universalResolver });
});

async function scan(keys: KeyBundle) {
  const response = await request('scan', 'POST', { body: scanKeys(keys) });
  expect(response.status).toBe(200);
  return response.json as { discoveries: { stealth_address: string; eth_private_key: string }[] };
}

describe('publish a meta-address under a name, get paid at the name', () => {
  it('keys → upload → text record → resolve → pay → publish → the recipient finds the payment', async () => {
    // Recipient: keys, upload, record.
    const alice = await generateKeys();
    const uploaded = await upload({ meta_address: alice.meta_address, name: 'alice.eth' });
    expect(uploaded.status).toBe(200);
    await chain.register('alice.eth');
    await chain.setText('alice.eth', 'stealth-meta', uploaded.json.text_record);

    // Sender: resolve the name, pay what it publishes, announce.
    const resolved = await resolveEns('alice.eth');
    expect(resolved.status).toBe(200);
    expect(resolved.json).toMatchObject({
      meta_address: alice.meta_address,
      spending_pk: alice.spending_pk,
      viewing_pk: alice.viewing_pk,
      ipfs_cid: uploaded.json.cid,
      ens_name: 'alice.eth',
    });
    const payment = await createPayment(resolved.json.meta_address);
    await publish(payment, { chain: 'ethereum', amount: '0.1' });

    // Recipient: scan finds it, with the key that spends it; someone else finds nothing.
    const found = await scan(alice);
    expect(found.discoveries).toHaveLength(1);
    expect(found.discoveries[0]!.stealth_address).toBe(payment.stealth_address);
    expect(found.discoveries[0]!.eth_private_key).toMatch(/^0x[0-9a-f]{64}$/);
    const mallory = await generateKeys();
    expect((await scan(mallory)).discoveries).toEqual([]);
  });

  it('works the same with the CID written as the name\'s EIP-1577 content hash', async () => {
    const bob = await generateKeys();
    const uploaded = await upload({ meta_address: bob.meta_address });
    await chain.register('bob.eth');
    await chain.setContenthash('bob.eth', encodeContenthash(uploaded.json.cid));

    const resolved = await resolveEns('bob.eth');
    expect(resolved.status).toBe(200);
    expect(resolved.json.meta_address).toBe(bob.meta_address);
    const payment = await createPayment(resolved.json.meta_address);
    await publish(payment);
    const found = await scan(bob);
    expect(found.discoveries.map((d) => d.stealth_address)).toEqual([payment.stealth_address]);
  });
});
