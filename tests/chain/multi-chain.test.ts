/**
 * One server, several chains (issue 24, API.md `CHAINS`): three anvil nodes with their own
 * `--chain-id`, each with the ERC-5564 Announcer at its canonical address, followed by the real
 * server (`node server.mjs`) with the registry in SQLite and in PostgreSQL. A dead RPC is the
 * fault proxy in front of one node answering every call with 5xx.
 *
 * The reference is each chain itself: the announcements `fetchAnnouncements` reads straight from
 * each node, compared with the registry's rows of that chain (read from the registry the server
 * writes, through the store, which gives each row's chain id).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, createStealthPayment, generateKeys } from '@wraith-pq/sdk';
import { fetchAnnouncements } from '@wraith-pq/sdk/evm';
import { createPostgresStore } from '../../lib/registry/postgres.ts';
import { createSqliteStore } from '../../lib/registry/sqlite.ts';
import type { RegistryStore, StoredAnnouncement } from '../../lib/registry/store.ts';
import { startAnnouncerChain, type AnnouncerChain } from '../helpers/announcer-chain.ts';
import { describeWithPostgres } from '../helpers/postgres.ts';
import { startRpcFaultProxy, type RpcFaultProxy } from '../helpers/rpc-fault-proxy.ts';
import { freePort, http, logLines, spawnServer, startServer, temporaryDirectory, type RunningServer } from '../helpers/server.ts';

/** EIP-155 ids of the three nodes (none is anvil's default 31337, so nothing passes by default). */
const CHAIN_IDS = [1_001, 1_002, 1_003] as const;
const NAMES = ['alpha', 'beta', 'gamma'] as const;

const keys = generateKeys();
let chains: AnnouncerChain[];
/** In front of gamma: the RPC the tests take down. */
let gammaProxy: RpcFaultProxy;
const dir = temporaryDirectory('wraith-multi-chain-');

beforeAll(async () => {
  chains = await Promise.all(CHAIN_IDS.map((chainId) => startAnnouncerChain({ chainId })));
  gammaProxy = await startRpcFaultProxy({ target: chains[2]!.rpcUrl });
});
afterAll(async () => {
  await gammaProxy?.close();
  await Promise.all((chains ?? []).map((chain) => chain.stop()));
  dir.remove();
});

/** CHAINS for the three nodes (gamma through its proxy unless `gammaUrl` says otherwise). */
function chainsEnv(extra: Record<string, string> = {}, gammaUrl = gammaProxy.url): Record<string, string> {
  const urls = [chains[0]!.rpcUrl, chains[1]!.rpcUrl, gammaUrl];
  return {
    CHAINS: JSON.stringify(NAMES.map((name, i) => ({ name, rpc_url: urls[i], confirmations: 0, max_block_range: 50, ...(i === 0 ? { chain_id: CHAIN_IDS[0] } : {}) }))),
    INDEXER_POLL_MS: '100',
    RATE_LIMIT_RPS: '0',
    UPSTREAM_TIMEOUT_MS: '1000',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** One payment announced on chain `i`; its transaction hash. */
async function pay(i: number): Promise<string> {
  const receipt = await chains[i]!.announce(createStealthPayment(keys.metaAddress));
  return receipt.transactionHash.toLowerCase();
}

type ChainHealth = { name: string; chain_id: number | null; indexed_block: number | null; head_block: number | null; lag_blocks: number | null; indexing: boolean; error: string | null };

async function health(server: RunningServer): Promise<{ status: number; body: { status: string; chains: ChainHealth[] } }> {
  const response = await http(server, '/health');
  return { status: response.status, body: response.json };
}

async function chainHealth(server: RunningServer, i: number): Promise<ChainHealth> {
  return (await health(server)).body.chains.find((c) => c.name === NAMES[i])!;
}

/** Wait until /health of `server` says chain `i` is indexed up to its head. */
async function waitIndexed(server: RunningServer, i: number, timeout = 30_000): Promise<void> {
  const head = Number(await chains[i]!.blockNumber());
  await expect.poll(async () => (await chainHealth(server, i))?.indexed_block ?? -1, { timeout, interval: 100 }).toBeGreaterThanOrEqual(head);
}

async function allRows(store: RegistryStore): Promise<StoredAnnouncement[]> {
  const rows: StoredAnnouncement[] = [];
  for (;;) {
    const { announcements } = await store.list({}, { limit: 1000, afterId: rows.at(-1)?.id ?? 0 });
    rows.push(...announcements);
    if (announcements.length < 1000) return rows;
  }
}

/** `tx:logIndex` of every valid announcement on chain `i` now. */
async function onChain(i: number): Promise<string[]> {
  const chain = chains[i]!;
  const { announcements } = await fetchAnnouncements({ client: chain.publicClient, fromBlock: 0n, toBlock: await chain.blockNumber() });
  return announcements.map((a) => `${a.txHash.toLowerCase()}:${a.logIndex}`).sort();
}

/** `tx:logIndex` of the registry's rows of chain `i` (by chain id), checking each carries its chain's name too. */
function ofChain(rows: StoredAnnouncement[], i: number): string[] {
  const mine = rows.filter((row) => row.chainId === CHAIN_IDS[i]);
  for (const row of mine) expect(row.chain).toBe(NAMES[i]);
  return mine.map((row) => `${row.txHash.toLowerCase()}:${row.logIndex}`).sort();
}

async function expectRegistryEqualsChains(store: RegistryStore): Promise<void> {
  const rows = await allRows(store);
  for (let i = 0; i < 3; i++) expect(ofChain(rows, i), NAMES[i]).toEqual(await onChain(i));
  expect(rows.every((row) => CHAIN_IDS.includes(row.chainId as (typeof CHAIN_IDS)[number]))).toBe(true);
  expect(new Set(rows.map((row) => `${row.chainId}:${row.txHash.toLowerCase()}:${row.logIndex}`)).size).toBe(rows.length);
}

describe('one server following three chains (SQLite)', () => {
  const url = `file:${dir.path}/three.db`;
  let server: RunningServer;
  let store: RegistryStore;
  beforeAll(async () => {
    server = await startServer({ env: chainsEnv({ REGISTRY_URL: url }) });
    store = await createSqliteStore(url);
  });
  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  it('stores the announcements of all three chains, each row with its chain id and name', async () => {
    for (let i = 0; i < 3; i++) for (let n = 0; n < 2; n++) await pay(i);
    for (let i = 0; i < 3; i++) await waitIndexed(server, i);
    await expectRegistryEqualsChains(store);
    // Over HTTP: each row's chain_id, and the chain_id filter.
    const beta = (await http(server, `/api/v1/registry/announcements?chain_id=${CHAIN_IDS[1]}&limit=1000`)).json.announcements;
    expect(beta.map((row: { tx_hash: string; log_index: number }) => `${row.tx_hash.toLowerCase()}:${row.log_index}`).sort()).toEqual(await onChain(1));
    expect(new Set(beta.map((row: { chain_id: number; chain: string }) => `${row.chain_id}:${row.chain}`))).toEqual(new Set([`${CHAIN_IDS[1]}:beta`]));
    const { status, body } = await health(server);
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(body.chains.map((c) => [c.name, c.chain_id, c.indexing, c.error])).toEqual(NAMES.map((name, i) => [name, CHAIN_IDS[i], true, null]));
  });

  it('undoes on a reorganisation of one chain only that chain\'s rows', async () => {
    const doomed = [await pay(1), await pay(1)];
    await waitIndexed(server, 1);
    const before = await allRows(store);
    const others = [ofChain(before, 0), ofChain(before, 2)];
    for (const hash of doomed) expect(ofChain(before, 1).join()).toContain(hash);

    await chains[1]!.reorg(2); // beta's last two blocks, one payment each, become empty blocks
    await chains[1]!.mine(1);
    await expect.poll(async () => ofChain(await allRows(store), 1).join(), { timeout: 30_000 }).not.toContain(doomed[0]);
    await waitIndexed(server, 1);
    const after = await allRows(store);
    for (const hash of doomed) expect(ofChain(after, 1).join()).not.toContain(hash);
    expect([ofChain(after, 0), ofChain(after, 2)]).toEqual(others);
    await expectRegistryEqualsChains(store);
  });

  it('stalls only the chain whose RPC is down, says which in /health (degraded, 200), and catches it up once it is back', async () => {
    await waitIndexed(server, 2);
    gammaProxy.configure({ failureRate: 1, modes: ['5xx'] });
    try {
      const gammaStuck = Number(await chains[2]!.blockNumber());
      await pay(2); // announced while gamma's RPC is down
      await expect.poll(async () => (await chainHealth(server, 2)).error, { timeout: 15_000 }).not.toBeNull();
      const gammaRows = ofChain(await allRows(store), 2);
      // For 8 s (a shorter outage than a minute behaves the same: gamma's backoff grows, the
      // others never wait for it), the other two keep indexing the payments that keep coming.
      const outageEnds = Date.now() + 8_000;
      while (Date.now() < outageEnds) {
        const during = [await pay(0), await pay(1)];
        await waitIndexed(server, 0, 5_000);
        await waitIndexed(server, 1, 5_000);
        const rows = await allRows(store);
        expect(ofChain(rows, 0).join()).toContain(during[0]);
        expect(ofChain(rows, 1).join()).toContain(during[1]);
        expect(ofChain(rows, 2)).toEqual(gammaRows);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      const { status, body } = await health(server);
      expect(status).toBe(200);
      expect(body.status).toBe('degraded');
      const gamma = body.chains.find((c) => c.name === 'gamma')!;
      expect(gamma.indexed_block).toBe(gammaStuck);
      expect(gamma.error).not.toMatch(/127\.0\.0\.1|http/); // no URL: RPC URLs carry API keys
      expect(body.chains.filter((c) => c.error !== null).map((c) => c.name)).toEqual(['gamma']);
    } finally {
      gammaProxy.configure({ failureRate: 0 });
    }
    await waitIndexed(server, 2);
    await expect.poll(async () => (await health(server)).body.status, { timeout: 10_000 }).toBe('ok');
    await expectRegistryEqualsChains(store);
  });

  it('resumes every chain after a restart exactly where it stopped', async () => {
    for (let i = 0; i < 3; i++) await waitIndexed(server, i);
    const stoppedAt = (await health(server)).body.chains.map((c) => c.indexed_block!);
    await server.stop();
    for (let i = 0; i < 3; i++) await pay(i);
    server = await startServer({ env: chainsEnv({ REGISTRY_URL: url }) });
    for (let i = 0; i < 3; i++) await waitIndexed(server, i);
    // Each chain's indexer took up at the block after the last one it had stored.
    const resumed = logLines(server).filter((line) => line['msg'] === 'indexer leading');
    expect(NAMES.map((name) => resumed.find((line) => line['chain'] === name)?.['next_block'])).toEqual(stoppedAt.map((block) => block + 1));
    await expectRegistryEqualsChains(store);
  });
});

describe('REGISTRY_PUBLISH=verified with several chains', () => {
  let server: RunningServer;
  beforeAll(async () => {
    // The indexers stay far behind (confirmations), so every row here comes from a verified publish.
    const urls = [chains[0]!.rpcUrl, chains[1]!.rpcUrl];
    const CHAINS = JSON.stringify(urls.map((rpc_url, i) => ({ name: NAMES[i], rpc_url, confirmations: 10_000 })));
    server = await startServer({ env: { ...chainsEnv({ REGISTRY_URL: 'memory:', REGISTRY_PUBLISH: 'verified' }), CHAINS } });
  });
  afterAll(() => server?.stop());

  /** A payment announced on chain `i`, as its sender publishes it. */
  async function announced(i: number): Promise<Record<string, unknown>> {
    const payment = createStealthPayment(keys.metaAddress);
    const receipt = await chains[i]!.announce(payment);
    return { ephemeral_key: bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag, tx_hash: receipt.transactionHash };
  }

  it('proves a publish on the chain it names, and stores it with that chain id', async () => {
    const body = await announced(1);
    const stored = await http(server, '/api/v1/registry/announcements', { body: { ...body, chain_id: CHAIN_IDS[1] } });
    expect(stored.status).toBe(201);
    const { json } = await http(server, `/api/v1/registry/announcements?chain_id=${CHAIN_IDS[1]}`);
    expect(json.announcements).toEqual([expect.objectContaining({ id: stored.json.id, chain_id: CHAIN_IDS[1], chain: NAMES[1], tx_hash: (body['tx_hash'] as string).toLowerCase() })]);
  });

  it('refuses a publish naming the wrong followed chain (not proved there), a chain it does not follow (422 CHAIN_NOT_FOLLOWED), or none (400)', async () => {
    const body = await announced(0);
    const elsewhere = await http(server, '/api/v1/registry/announcements', { body: { ...body, chain_id: CHAIN_IDS[1] } });
    expect([elsewhere.status, elsewhere.json.error.code]).toEqual([422, 'TX_NOT_VERIFIED']);
    const unfollowed = await http(server, '/api/v1/registry/announcements', { body: { ...body, chain_id: CHAIN_IDS[2] } });
    expect([unfollowed.status, unfollowed.json.error.code]).toEqual([422, 'CHAIN_NOT_FOLLOWED']);
    expect(unfollowed.json.error.message).not.toContain(chains[0]!.rpcUrl);
    const unnamed = await http(server, '/api/v1/registry/announcements', { body });
    expect([unnamed.status, unnamed.json.error.details]).toEqual([400, [{ path: 'chain_id', issue: 'is required: this server follows several chains; name the one the transaction is on' }]]);
    expect((await http(server, '/api/v1/registry/announcements?chain_id=1001')).json.total).toBe(0);
    expect((await http(server, '/api/v1/registry/announcements', { body: { ...body, chain_id: CHAIN_IDS[0] } })).status).toBe(201);
  });
});

describe('moving a one-chain deployment to CHAINS', () => {
  it('resumes the chain where CHAIN_RPC_URL left it when its entry keeps the CHAIN_NAME it had', async () => {
    const url = `file:${dir.path}/upgrade.db`;
    const common = { REGISTRY_URL: url, INDEXER_POLL_MS: '100', RATE_LIMIT_RPS: '0', LOG_LEVEL: 'info' };
    await pay(0);
    const before = await startServer({ env: { ...common, CHAIN_RPC_URL: chains[0]!.rpcUrl, CHAIN_NAME: 'alpha', INDEXER_CONFIRMATIONS: '0' } });
    let indexedBlock: number;
    try {
      await waitIndexed(before, 0);
      indexedBlock = (await chainHealth(before, 0)).indexed_block!;
    } finally {
      await before.stop();
    }
    await pay(0);
    const after = await startServer({ env: { ...common, CHAINS: chainsEnv({}, chains[2]!.rpcUrl).CHAINS! } });
    const store = await createSqliteStore(url);
    try {
      for (let i = 0; i < 3; i++) await waitIndexed(after, i);
      const alpha = logLines(after).find((line) => line['msg'] === 'indexer leading' && line['chain'] === 'alpha');
      expect(alpha?.['next_block']).toBe(indexedBlock + 1);
      await expectRegistryEqualsChains(store);
    } finally {
      await store.close();
      await after.stop();
    }
  });
});

describe('start-up checks of the chains', () => {
  it('stops the server when two entries answer one chain id, naming both and no URL', async () => {
    const env = chainsEnv({ REGISTRY_URL: 'memory:' });
    const twice = JSON.stringify([
      { name: 'alpha', rpc_url: chains[0]!.rpcUrl },
      { name: 'alpha-again', rpc_url: `${chains[0]!.rpcUrl}/` },
    ]);
    const { server } = await spawnServer({ ...env, CHAINS: twice }, await freePort());
    expect((await server.exited).code).toBe(1);
    expect(server.stderr()).toMatch(/alpha and alpha-again: both RPCs answer chain id 1001/);
    expect(server.stderr() + server.log()).not.toContain(chains[0]!.rpcUrl);
  });

  it('stops the server when an RPC answers another id than its entry\'s chain_id', async () => {
    const wrong = JSON.stringify([{ name: 'beta', rpc_url: chains[1]!.rpcUrl, chain_id: 10 }]);
    await expect(startServer({ env: { ...chainsEnv({ REGISTRY_URL: 'memory:' }), CHAINS: wrong }, timeoutMs: 30_000 })).rejects.toThrow(
      /beta: its RPC answers chain id 1002, but its entry says chain_id 10/,
    );
  });

  it('starts with an RPC that does not answer, indexes the others, and follows it once it answers', async () => {
    gammaProxy.configure({ failureRate: 1, modes: ['5xx'] });
    const server = await startServer({ env: chainsEnv({ REGISTRY_URL: 'memory:' }) });
    try {
      await waitIndexed(server, 0);
      const gamma = await chainHealth(server, 2);
      expect(gamma).toMatchObject({ chain_id: null, indexing: false, error: expect.stringMatching(/^RPC unreachable/) });
      expect((await health(server)).body.status).toBe('degraded');
      gammaProxy.configure({ failureRate: 0 });
      await waitIndexed(server, 2);
      expect(await chainHealth(server, 2)).toMatchObject({ chain_id: CHAIN_IDS[2], error: null });
    } finally {
      gammaProxy.configure({ failureRate: 0 });
      await server.stop();
    }
  });
});

describe('an RPC that answers late with a chain id already followed', () => {
  it('is not indexed: /health names the chain that has the id, the others run on', async () => {
    const late = await startRpcFaultProxy({ target: chains[0]!.rpcUrl, failureRate: 1, modes: ['5xx'] });
    const env = chainsEnv({ REGISTRY_URL: 'memory:' }, chains[2]!.rpcUrl);
    const entries = [...JSON.parse(env.CHAINS!), { name: 'alpha-copy', rpc_url: late.url, confirmations: 0 }];
    const server = await startServer({ env: { ...env, CHAINS: JSON.stringify(entries) } });
    try {
      await waitIndexed(server, 0);
      late.configure({ failureRate: 0 }); // now it answers: chain id 1001, alpha's
      await expect.poll(async () => (await health(server)).body.chains.find((c) => c.name === 'alpha-copy')?.error, { timeout: 20_000 }).toBe(
        'refused: its RPC answers chain id 1001, which alpha already follows',
      );
      const copy = (await health(server)).body.chains.find((c) => c.name === 'alpha-copy')!;
      expect(copy).toMatchObject({ chain_id: null, indexing: false, indexed_block: null });
      expect((await health(server)).body.status).toBe('degraded');
      await pay(0);
      await waitIndexed(server, 0);
      expect(logLines(server)).toContainEqual(expect.objectContaining({ level: 'error', msg: 'chain not indexed', chain: 'alpha-copy', chain_id: 1001 }));
    } finally {
      await server.stop();
      await late.close();
    }
  });
});

describeWithPostgres('two instances following three chains on one PostgreSQL registry', (cluster) => {

  it('each instance may lead a chain; a killed leader\'s chains are taken over; every announcement stored once', async () => {
    const url = await cluster().freshSchema();
    const store = await createPostgresStore(url, { timeoutMs: 5_000 });
    // X reaches gamma only through the proxy, which is down; Y reaches it directly. X starts first.
    gammaProxy.configure({ failureRate: 1, modes: ['5xx'] });
    const x = await startServer({ env: chainsEnv({ REGISTRY_URL: url, INDEXER_LEASE_MS: '2000' }) });
    const leading = async (server: RunningServer) => (await health(server)).body.chains.filter((c) => c.indexing).map((c) => c.name);
    let y: RunningServer | undefined;
    try {
      await expect.poll(() => leading(x), { timeout: 15_000 }).toEqual(['alpha', 'beta']);
      y = await startServer({ env: chainsEnv({ REGISTRY_URL: url, INDEXER_LEASE_MS: '2000' }, chains[2]!.rpcUrl) });
      for (let i = 0; i < 3; i++) await pay(i);
      // Each leads a chain: X alpha and beta (it came first), Y gamma, which X cannot reach.
      await expect.poll(() => leading(y!), { timeout: 15_000 }).toEqual(['gamma']);
      expect(await leading(x)).toEqual(['alpha', 'beta']);
      for (let i = 0; i < 3; i++) await waitIndexed(y, i);

      // X dies without releasing its leases: Y takes alpha and beta over once they lapse.
      await x.stop('SIGKILL');
      for (let i = 0; i < 3; i++) await pay(i);
      await expect.poll(() => leading(y!), { timeout: 15_000 }).toEqual(['alpha', 'beta', 'gamma']);
      for (let i = 0; i < 3; i++) await waitIndexed(y, i);
      await expectRegistryEqualsChains(store);
    } finally {
      gammaProxy.configure({ failureRate: 0 });
      await y?.stop();
      await x.stop();
      await store.close();
    }
  });
});
