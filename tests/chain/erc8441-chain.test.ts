/**
 * ERC-8441 (scheme 3) on anvil beside this format (scheme 1000): a sender pays an ERC-8441
 * recipient with payStealth (scheme 3, sealed note), the chain is read for both schemes in one
 * filter, the recipient finds the payment with its tracking key, and malformed scheme-3 events
 * (the ERC's Section 2.7) are skipped and counted, never reported or thrown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import { createErc8441Scanner, createStealthPayment, erc8441KeysOf, erc8441StealthKey, generateKeys, openNote } from '@wraith-pq/sdk';
import { fetchAnnouncements, payStealth, withdrawNative } from '@wraith-pq/sdk/evm';
import { startIndexer } from '../../lib/chain/indexer.ts';
import { createMemoryStore } from '../../lib/registry/memory.ts';
import { createSqliteStore } from '../../lib/registry/sqlite.ts';
import { ANNOUNCER_ADDRESS } from '@wraith-pq/sdk/evm';
import { startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { temporaryDirectory } from '../helpers/server.ts';

let chain: AnnouncerChain;
beforeAll(async () => {
  chain = await startAnnouncerChain();
});
afterAll(() => chain?.stop());

describe('ERC-8441 on chain, beside scheme 1000', () => {
  it('pays an ERC-8441 recipient with scheme 3, finds it in a mixed read of both schemes, and withdraws it to 0 wei', async () => {
    const recipient = generateKeys();
    const erc8441 = erc8441KeysOf(recipient);
    const payment = createStealthPayment(erc8441.metaAddress);
    expect(payment.schemeId).toBe(3);
    const from = await chain.blockNumber();
    const paid = await payStealth({ wallet: chain.wallets[0]!, client: chain.publicClient, payment, asset: { type: 'native', value: parseEther('0.25') } });
    // A scheme-1000 payment to someone else in the same range.
    await payStealth({ wallet: chain.wallets[1]!, client: chain.publicClient, payment: createStealthPayment(generateKeys().metaAddress), asset: { type: 'native', value: 1000n } });

    const { announcements, skippedBy } = await fetchAnnouncements({ client: chain.publicClient, fromBlock: from, toBlock: await chain.blockNumber(), schemeId: [1000n, 3n] });
    expect(announcements.map((a) => a.schemeId)).toEqual([3, 1000]);
    expect(Object.values(skippedBy).reduce((a, b) => a + b, 0)).toBe(0);
    const byDefault = await fetchAnnouncements({ client: chain.publicClient, fromBlock: from, toBlock: await chain.blockNumber() });
    expect(byDefault.announcements.map((a) => a.schemeId)).toEqual([3, 1000]); // one identity receives under both
    const only1000 = await fetchAnnouncements({ client: chain.publicClient, fromBlock: from, toBlock: await chain.blockNumber(), schemeId: 1000n });
    expect(only1000.announcements.map((a) => a.schemeId)).toEqual([1000]);

    const scanner = createErc8441Scanner({ trackingKey: erc8441.trackingKey, metaAddress: erc8441.metaAddress });
    const [row] = announcements;
    const found = scanner.check({ ephemeralPubKey: row!.ephemeralKey, metadata: Uint8Array.of(row!.viewTag, ...(row!.metadata ?? [])), stealthAddress: row!.stealthAddress });
    expect(found).toMatchObject({ match: true, stealthAddress: payment.stealthAddress });
    if (!found.match) return;
    expect(openNote(found.sharedSecret, row!.metadata!)).toMatchObject({ amount: parseEther('0.25'), txHash: paid.paymentHash, chainId: BigInt(chain.chainId) });
    const key = erc8441StealthKey({ spendingSecretKey: recipient.spendingSecretKey, sharedSecret: found.sharedSecret, stealthAddress: found.stealthAddress });
    const destination = chain.accounts[3]!.address;
    const before = await chain.publicClient.getBalance({ address: destination });
    const withdrawal = await withdrawNative({ client: chain.publicClient, stealthSecretKey: key, to: destination });
    // withdrawNative returns once the node took the transaction; anvil may mine it a moment later.
    await chain.publicClient.waitForTransactionReceipt({ hash: withdrawal.hash });
    expect(await chain.publicClient.getBalance({ address: payment.stealthAddress as `0x${string}` })).toBe(0n);
    expect((await chain.publicClient.getBalance({ address: destination })) - before).toBe(withdrawal.amount);
  });

  it('skips and counts malformed scheme-3 events: wrong key length, empty metadata, an epk off the curve', async () => {
    const erc8441 = erc8441KeysOf(generateKeys());
    const good = createStealthPayment(erc8441.metaAddress);
    const from = await chain.blockNumber();
    const base = { schemeId: 3n, stealthAddress: good.stealthAddress };
    await chain.announceMany([
      { ...base, ephemeralPubKey: good.ephemeralCiphertext.subarray(0, 1120), metadata: Uint8Array.of(good.viewTag) },
      { ...base, ephemeralPubKey: good.ephemeralCiphertext, metadata: new Uint8Array(0) },
      { ...base, ephemeralPubKey: Uint8Array.of(0x02, ...new Uint8Array(31), 0x05, ...good.ephemeralCiphertext.subarray(33)), metadata: Uint8Array.of(good.viewTag) },
      // A valid one with 57 bytes of metadata (view tag + ERC-5564 token block): kept, its tail as metadata.
      { ...base, ephemeralPubKey: good.ephemeralCiphertext, metadata: Uint8Array.of(good.viewTag, ...new Uint8Array(56).fill(0xee)) },
    ]);
    const { announcements, skippedBy } = await fetchAnnouncements({ client: chain.publicClient, fromBlock: from, toBlock: await chain.blockNumber(), schemeId: [1000n, 3n] });
    expect(skippedBy).toMatchObject({ 'ephemeral-key-length': 1, 'metadata-length': 1, 'invalid-epk': 1 });
    expect(announcements).toHaveLength(1);
    expect(announcements[0]!.metadata).toHaveLength(56);
    const scanner = createErc8441Scanner({ trackingKey: erc8441.trackingKey, metaAddress: erc8441.metaAddress });
    expect(scanner.check({ ephemeralPubKey: announcements[0]!.ephemeralKey, metadata: Uint8Array.of(announcements[0]!.viewTag), stealthAddress: announcements[0]!.stealthAddress }).match).toBe(true);
  });

  it('is indexed beside scheme 1000 (ANNOUNCER_SCHEME_IDS 1000,3) and found in one scan of the registry by the identity that receives both', async () => {
    const recipient = generateKeys();
    const from = Number(await chain.blockNumber()) + 1;
    const three = createStealthPayment(erc8441KeysOf(recipient).metaAddress);
    const thousand = createStealthPayment(recipient.metaAddress);
    await chain.announce(three, { amount: 3n });
    await chain.announce(thousand, { amount: 1000n });
    const dir = temporaryDirectory('wraith-erc8441-index-');
    for (const store of [createMemoryStore(), await createSqliteStore(`file:${dir.path}/r.db`)]) {
      const indexer = startIndexer({
        store,
        chainId: chain.chainId,
        timeoutMs: 5_000,
        config: { rpcUrl: chain.rpcUrl, name: 'anvil', announcer: ANNOUNCER_ADDRESS.toLowerCase() as `0x${string}`, schemeId: 1000n, schemeIds: [1000n, 3n], startBlock: from, confirmations: 0, pollMs: 50, maxBlockRange: 100, leaseMs: 5_000 },
      });
      try {
        await indexer.waitForBlock(Number(await chain.blockNumber()));
        const { announcements } = await store.list({}, { limit: 10 });
        expect(announcements.map((r) => [r.schemeId, r.ephemeralKey.length, r.stealthAddress])).toEqual([
          [3, 1121, three.stealthAddress],
          [1000, 1088, thousand.stealthAddress],
        ]);
        // One scan of the registry's rows, with the identity's keys, finds both payments under their schemes.
        const { createScanner } = await import('@wraith-pq/sdk');
        const { discoveries, stats } = createScanner(recipient).scan(announcements);
        expect(discoveries.map((d) => [d.schemeId, d.stealthAddress, d.note?.amount])).toEqual([
          [3, three.stealthAddress, 3n],
          [1000, thousand.stealthAddress, 1000n],
        ]);
        expect(stats).toMatchObject({ malformed: 0, erc8441: 1 });
      } finally {
        await indexer.stop();
        await store.close();
      }
    }
    dir.remove();
  });
});
