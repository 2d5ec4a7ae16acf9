/**
 * The real server (`node server.mjs`) with CHAIN_RPC_URL pointing at anvil, where the ERC-5564
 * Announcer sits at its canonical address: the indexer feeds the registry, publishing modes
 * (REGISTRY_PUBLISH open / verified / closed), /health, and the SDK finding the same payments
 * through the server's registry and straight from the RPC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, createClient, createStealthPayment, generateKeys, hexToBytes, scanRegistry, type Discovery } from '@wraith-pq/sdk';
import { announceParameters, chainAnnouncementPages } from '@wraith-pq/sdk/evm';
import { startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { describeWithPostgres } from '../helpers/postgres.ts';
import { http, startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';

let chain: AnnouncerChain;
const dir = temporaryDirectory('wraith-chain-server-');
beforeAll(async () => {
  chain = await startAnnouncerChain();
});
afterAll(async () => {
  await chain?.stop();
  dir.remove();
});

function chainEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    CHAIN_RPC_URL: chain.rpcUrl,
    CHAIN_NAME: 'anvil',
    INDEXER_CONFIRMATIONS: '0',
    INDEXER_POLL_MS: '100',
    RATE_LIMIT_RPS: '0',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** Wait until /health says the registry covers the chain head. */
async function waitIndexed(server: RunningServer): Promise<void> {
  const head = Number(await chain.blockNumber());
  await expect
    .poll(async () => (await http(server, '/health')).json.chain?.indexed_block ?? -1, { timeout: 30_000, interval: 100 })
    .toBeGreaterThanOrEqual(head);
}

function publishBody(payment: ReturnType<typeof createStealthPayment>, txHash: string) {
  return { ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash: txHash };
}

/** What a user compares between two scans: where the money is and what the note says. */
function summary(discoveries: Discovery<{ txHash?: string | null }>[]) {
  return discoveries
    .map((d) => ({
      address: d.stealthAddress,
      key: bytesToHex(d.stealthSecretKey!),
      tx: d.announcement.txHash?.toLowerCase(),
      noteStatus: d.noteStatus,
      note: d.note,
      mismatch: d.stealthAddressMismatch,
    }))
    .sort((a, b) => a.address.localeCompare(b.address));
}

describe('a server that indexes the chain (REGISTRY_PUBLISH=open)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ env: chainEnv({ REGISTRY_URL: `file:${dir.path}/open.db` }) });
  });
  afterAll(() => server?.stop());

  it('finds payments announced on chain through the registry and straight from the RPC, with identical discoveries and opened notes', async () => {
    const keys = generateKeys();
    const other = generateKeys();
    // One payment through the API's create with a note, two through the SDK, one to someone else.
    const created = (
      await http(server, '/api/v1/stealth/create', {
        body: { meta_address: bytesToHex(keys.metaAddress), note: { amount: '1500000000000000000', chain_id: 31337, token: 'coin' } },
      })
    ).json;
    expect(created.metadata).toHaveLength(226); // 113 bytes: the note names its asset (PROTOCOL.md 8.1)
    expect(created.metadata.slice(0, 2)).toBe(created.view_tag.toString(16).padStart(2, '0'));
    await chain.announceRaw({
      schemeId: 1000n,
      stealthAddress: created.stealth_address,
      ephemeralPubKey: hexToBytes(created.ephemeral_ciphertext),
      metadata: hexToBytes(created.metadata),
    });
    await chain.announce(createStealthPayment(keys.metaAddress), { amount: 100n, chainId: 31337n });
    await chain.announce(createStealthPayment(keys.metaAddress));
    await chain.announce(createStealthPayment(other.metaAddress), { amount: 7n });
    await waitIndexed(server);

    const client = createClient({ baseUrl: server.url });
    const viaRegistry: Discovery<any>[] = [];
    for await (const batch of scanRegistry(client.announcementPages, keys)) viaRegistry.push(...batch.discoveries);
    const viaRpc: Discovery<any>[] = [];
    for await (const batch of scanRegistry(chainAnnouncementPages({ client: chain.publicClient }), keys)) viaRpc.push(...batch.discoveries);

    expect(viaRegistry).toHaveLength(3);
    expect(summary(viaRegistry)).toEqual(summary(viaRpc));
    const fromCreate = viaRegistry.find((d) => d.stealthAddress === created.stealth_address)!;
    expect(fromCreate.noteStatus).toBe('opened');
    expect(fromCreate.note).toEqual({ txHash: null, amount: 1_500_000_000_000_000_000n, chainId: 31337n, token: 'coin' });
    expect(viaRegistry.map((d) => d.noteStatus).sort()).toEqual(['absent', 'opened', 'opened']);

    // The server's own scan opens the notes too.
    const scanned = (
      await http(server, '/api/v1/stealth/scan', {
        body: { viewing_sk: bytesToHex(keys.viewingSecretKey), spending_pk: bytesToHex(keys.spendingPublicKey), spending_sk: bytesToHex(keys.spendingSecretKey) },
      })
    ).json;
    const listed = scanned.discoveries.find((d: { stealth_address: string }) => d.stealth_address === created.stealth_address);
    expect(listed).toMatchObject({
      note_status: 'opened',
      note: { tx_hash: null, amount: '1500000000000000000', chain_id: '31337', token: 'coin' },
      stealth_address_mismatch: false,
      chain: 'anvil',
    });
    expect(listed.block_number).toBeGreaterThan(0);
  });

  it('reports the indexed block and the lag in /health', async () => {
    await chain.mine(1);
    await waitIndexed(server);
    const health = (await http(server, '/health')).json;
    expect(health).toMatchObject({ status: 'ok', chain: { name: 'anvil', indexing: true, ok: true, error: null } });
    expect(health.chain.lag_blocks).toBe(health.chain.head_block - health.chain.indexed_block);
    // The same, per chain, with the id the RPC answered (CHAIN_RPC_URL is one chain of `chains`).
    expect(health.chains).toEqual([{ ...health.chain, chain_id: 31337, ok: undefined }].map(({ ok: _, ...entry }) => entry));
  });

  it('stores once an announcement published over HTTP and then indexed from the chain', async () => {
    const payment = createStealthPayment(generateKeys().metaAddress);
    await chain.setAutomine(false);
    let hash: `0x${string}`;
    try {
      // Sent but not mined: the publish reaches the registry before the indexer can see the event.
      hash = await chain.wallets[0]!.writeContract(announceParameters({ payment }));
      const published = await http(server, '/api/v1/registry/announcements', { body: publishBody(payment, hash) });
      expect(published.status).toBe(201);
      await chain.mine(1);
    } finally {
      await chain.setAutomine(true);
    }
    await waitIndexed(server);
    const rows = (await http(server, `/api/v1/registry/announcements?view_tag=${payment.viewTag}&limit=1000`)).json.announcements.filter(
      (row: { ephemeral_key: string }) => row.ephemeral_key === bytesToHex(payment.ephemeralCiphertext),
    );
    // One row: the HTTP one, completed in place with what the chain says.
    expect(rows).toEqual([expect.objectContaining({ tx_hash: hash, stealth_address: payment.stealthAddress, log_index: expect.any(Number) })]);
  });
});

describe('REGISTRY_PUBLISH=verified', () => {
  let server: RunningServer;
  beforeAll(async () => {
    // The indexer stays far behind (confirmations), so what is stored here came through the publish.
    server = await startServer({ env: chainEnv({ REGISTRY_URL: `file:${dir.path}/verified.db`, REGISTRY_PUBLISH: 'verified', INDEXER_CONFIRMATIONS: '1000' }) });
  });
  afterAll(() => server?.stop());

  it('refuses an unknown transaction with 422 TX_NOT_VERIFIED', async () => {
    const payment = createStealthPayment(generateKeys().metaAddress);
    const response = await http(server, '/api/v1/registry/announcements', { body: publishBody(payment, `0x${'ab'.repeat(32)}`) });
    expect(response.status).toBe(422);
    expect(response.json.error.code).toBe('TX_NOT_VERIFIED');
    expect(response.json.error.message).toMatch(/no mined transaction/);
  });

  it('refuses a real transaction that announced nothing', async () => {
    const payment = createStealthPayment(generateKeys().metaAddress);
    const hash = await chain.wallets[1]!.sendTransaction({ to: payment.stealthAddress as `0x${string}`, value: 10n ** 15n });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    const response = await http(server, '/api/v1/registry/announcements', { body: publishBody(payment, hash) });
    expect(response.status).toBe(422);
    expect(response.json.error).toMatchObject({ code: 'TX_NOT_VERIFIED', message: expect.stringMatching(/no announcement/) });
  });

  it('refuses a real announcement transaction published with another ciphertext', async () => {
    const keys = generateKeys();
    const announced = createStealthPayment(keys.metaAddress);
    const receipt = await chain.announce(announced);
    const other = createStealthPayment(keys.metaAddress);
    const response = await http(server, '/api/v1/registry/announcements', { body: publishBody(other, receipt.transactionHash) });
    expect(response.status).toBe(422);
    expect(response.json.error).toMatchObject({ code: 'TX_NOT_VERIFIED', message: expect.stringMatching(/another ephemeral_key/) });
  });

  it('stores the genuine one as the chain event it proved, once', async () => {
    const payment = createStealthPayment(generateKeys().metaAddress);
    const receipt = await chain.announce(payment, { amount: 42n });
    const response = await http(server, '/api/v1/registry/announcements', { body: { ...publishBody(payment, receipt.transactionHash), amount: '42 wei' } });
    expect(response.status).toBe(201);
    const again = await http(server, '/api/v1/registry/announcements', { body: publishBody(payment, receipt.transactionHash.toUpperCase().replace('0X', '0x')) });
    expect(again.status).toBe(409);
    const rows = (await http(server, `/api/v1/registry/announcements?view_tag=${payment.viewTag}&limit=1000`)).json.announcements;
    expect(rows.filter((r: { id: number }) => r.id === response.json.id)).toEqual([
      expect.objectContaining({
        tx_hash: receipt.transactionHash,
        block_number: Number(receipt.blockNumber),
        stealth_address: payment.stealthAddress,
        amount: '42 wei',
        chain: 'anvil',
      }),
    ]);
    expect(rows.find((r: { id: number }) => r.id === response.json.id).metadata).toHaveLength(184);
  });
});

describe('REGISTRY_PUBLISH=closed', () => {
  it('refuses every publish with 403 PUBLISH_CLOSED and still indexes the chain', async () => {
    const server = await startServer({ env: chainEnv({ REGISTRY_URL: `file:${dir.path}/closed.db`, REGISTRY_PUBLISH: 'closed' }) });
    try {
      const payment = createStealthPayment(generateKeys().metaAddress);
      const receipt = await chain.announce(payment);
      const response = await http(server, '/api/v1/registry/announcements', { body: publishBody(payment, receipt.transactionHash) });
      expect(response.status).toBe(403);
      expect(response.json.error.code).toBe('PUBLISH_CLOSED');
      await waitIndexed(server);
      const rows = (await http(server, `/api/v1/registry/announcements?view_tag=${payment.viewTag}&limit=1000`)).json.announcements;
      expect(rows.map((r: { tx_hash: string }) => r.tx_hash)).toContain(receipt.transactionHash);
    } finally {
      await server.stop();
    }
  });

  it('refuses to start in verified or closed mode without CHAIN_RPC_URL', async () => {
    await expect(startServer({ env: { REGISTRY_URL: 'memory:', REGISTRY_PUBLISH: 'closed' }, timeoutMs: 20_000 })).rejects.toThrow(/REGISTRY_PUBLISH/);
  });
});

describeWithPostgres('two server instances on one PostgreSQL registry', (cluster) => {

  it('one indexes; when it is killed the other takes over; each announcement is stored once', async () => {
    const url = await cluster().freshSchema();
    const env = chainEnv({ REGISTRY_URL: url, INDEXER_LEASE_MS: '2000' });
    const a = await startServer({ env });
    const b = await startServer({ env });
    try {
      const keys = generateKeys();
      for (let i = 0; i < 3; i++) await chain.announce(createStealthPayment(keys.metaAddress));
      await waitIndexed(a);
      const leaders = async () => [(await http(a, '/health')).json.chain.indexing, (await http(b, '/health')).json.chain.indexing];
      await expect.poll(async () => (await leaders()).filter(Boolean).length, { timeout: 10_000 }).toBe(1);
      const [aLeads] = await leaders();
      const [leader, follower] = aLeads ? [a, b] : [b, a];

      await leader.stop('SIGKILL');
      for (let i = 0; i < 3; i++) await chain.announce(createStealthPayment(keys.metaAddress));
      await waitIndexed(follower);
      expect((await http(follower, '/health')).json.chain.indexing).toBe(true);

      const found: Discovery<any>[] = [];
      for await (const batch of scanRegistry(createClient({ baseUrl: follower.url }).announcementPages, keys)) found.push(...batch.discoveries);
      expect(found).toHaveLength(6);
      expect(new Set(found.map((d) => d.stealthAddress)).size).toBe(6);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
