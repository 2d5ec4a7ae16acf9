/**
 * `@wraith-pq/sdk/evm` on a real chain (PROTOCOL.md section 7): anvil with the ERC-5564
 * Announcer at its singleton address (tests/helpers/announcer-chain.ts), payments announced the
 * way a sender does (announceParameters + viem writeContract), read back, scanned straight from
 * the chain, and read through a provider that refuses large ranges and fails a third of its
 * requests (tests/helpers/rpc-fault-proxy.ts). No mocked RPC.
 */
import { createPublicClient, encodeEventTopics, http, numberToHex, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  announcementMetadata,
  createStealthPayment,
  generateKeys,
  openNote,
  scanRegistry,
  type Discovery,
  type RecipientKeys,
  type StealthPayment,
} from '@wraith-pq/sdk';
import {
  ANNOUNCEMENT_EVENT_TOPIC,
  ANNOUNCER_ADDRESS,
  ChainRpcError,
  WRAITH_SCHEME_ID,
  announceParameters,
  announcerAbi,
  chainAnnouncementPages,
  chainCursor,
  classifyRpcFault,
  cursorPosition,
  decodeAnnouncementLogs,
  fetchAnnouncements,
  type ChainAnnouncement,
  type ChainRpcClient,
  type RpcLogLike,
} from '@wraith-pq/sdk/evm';
import { startAnnouncerChain, type AnnouncerChain, type RawAnnouncement } from '../helpers/announcer-chain.ts';
import { startRpcFaultProxy, type RpcFaultProxy } from '../helpers/rpc-fault-proxy.ts';
import { freePort } from '../helpers/server.ts';

let chain: AnnouncerChain;
/** Receives the payments of the scanning tests only. */
let recipient: RecipientKeys;
/** Receives everything else (foreign payments, as far as `recipient` is concerned). */
let stranger: RecipientKeys;
const proxies: RpcFaultProxy[] = [];

beforeAll(async () => {
  chain = await startAnnouncerChain();
  recipient = generateKeys();
  stranger = generateKeys();
});
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await chain?.stop();
});

/** Fast retries, so fault tests take milliseconds per retry. */
const FAST_RETRY = { baseDelayMs: 10, maxDelayMs: 100, timeoutMs: 400 } as const;

const raw = (payment: StealthPayment, overrides: Partial<RawAnnouncement> = {}): RawAnnouncement => ({
  schemeId: WRAITH_SCHEME_ID,
  stealthAddress: payment.stealthAddress,
  ephemeralPubKey: payment.ephemeralCiphertext,
  metadata: announcementMetadata(payment),
  ...overrides,
});

async function logsOf(fromBlock: bigint, toBlock: bigint, address: Address | Address[] = ANNOUNCER_ADDRESS): Promise<RpcLogLike[]> {
  return chain.rpc<RpcLogLike[]>('eth_getLogs', [{ address, fromBlock: numberToHex(fromBlock), toBlock: numberToHex(toBlock) }]);
}

async function proxy(options: Omit<Parameters<typeof startRpcFaultProxy>[0], 'target'>): Promise<{ proxy: RpcFaultProxy; client: ChainRpcClient }> {
  const started = await startRpcFaultProxy({ target: chain.rpcUrl, ...options });
  proxies.push(started);
  return { proxy: started, client: createPublicClient({ chain: foundry, transport: http(started.url, { retryCount: 0 }) }) };
}

/** A bare EIP-1193 provider over fetch (what a browser wallet looks like), optionally dropping `blockTimestamp` from logs. */
function eip1193(url: string, options: { dropBlockTimestamp?: boolean } = {}): ChainRpcClient {
  let id = 0;
  return {
    async request({ method, params }) {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
      const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
      if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
      if (options.dropBlockTimestamp && method === 'eth_getLogs') for (const log of body.result as { blockTimestamp?: unknown }[]) delete log.blockTimestamp;
      return body.result;
    },
  };
}

describe('announcing on chain', () => {
  it('a payment announced with announceParameters and writeContract reads back with its note', async () => {
    const payment = createStealthPayment(stranger.metaAddress);
    const note = { txHash: `0x${'ab'.repeat(32)}`, amount: 12_345n, chainId: 31_337n };
    const wallet = chain.wallets[1]!;
    const hash = await wallet.writeContract(announceParameters({ payment, note }));
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });

    const { announcements, skipped } = decodeAnnouncementLogs(await logsOf(receipt.blockNumber, receipt.blockNumber), { chain: 'anvil' });
    expect(skipped).toBe(0);
    expect(announcements).toHaveLength(1);
    const [announcement] = announcements as [ChainAnnouncement];
    expect(announcement.ephemeralKey).toEqual(payment.ephemeralCiphertext);
    expect(announcement.viewTag).toBe(payment.viewTag);
    expect(announcement.stealthAddress).toBe(payment.stealthAddress);
    expect(announcement.caller).toBe(wallet.account.address);
    expect(announcement.txHash).toBe(hash);
    expect(announcement.blockNumber).toBe(Number(receipt.blockNumber));
    expect(announcement.blockHash).toBe(receipt.blockHash);
    expect(announcement.id).toBe(chainCursor(receipt.blockNumber, announcement.logIndex));
    expect(announcement.timestamp).toBe(Number(block.timestamp));
    expect(announcement.chain).toBe('anvil');
    expect(announcement.metadata).toHaveLength(92);
    expect(openNote(payment.sharedSecret, announcement.metadata!)).toEqual({ txHash: note.txHash, amount: 12_345n, chainId: 31_337n, token: null });
  });

  it('a note that names its asset (113 bytes of metadata, PROTOCOL.md 8.1) is decoded from the log and opens to its token', async () => {
    const payment = createStealthPayment(stranger.metaAddress);
    const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    const hash = await chain.wallets[1]!.writeContract(announceParameters({ payment, note: { amount: 100_000_000n, chainId: 31_337n, token: usdc } }));
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    const { announcements, skipped } = decodeAnnouncementLogs(await logsOf(receipt.blockNumber, receipt.blockNumber), { chain: 'anvil' });
    expect(skipped).toBe(0);
    const [announcement] = announcements as [ChainAnnouncement];
    expect(announcement.metadata).toHaveLength(112);
    expect(openNote(payment.sharedSecret, announcement.metadata!)).toEqual({ txHash: null, amount: 100_000_000n, chainId: 31_337n, token: usdc });
  });

  it('a payment announced without a note carries the view tag alone', async () => {
    const payment = createStealthPayment(stranger.metaAddress);
    const call = announceParameters({ payment });
    expect(call.address).toBe(ANNOUNCER_ADDRESS);
    expect(call.args[0]).toBe(1000n);
    expect(call.args[3]).toBe(numberToHex(payment.viewTag, { size: 1 }));
    const receipt = await chain.announce(payment);
    const { announcements } = await fetchAnnouncements({ client: chain.publicClient, fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
    expect(announcements.map((a) => [a.stealthAddress, a.viewTag, a.metadata])).toEqual([[payment.stealthAddress, payment.viewTag, null]]);
  });

  it('the exported topic and ABI are those of the ERC-5564 Announcement event', () => {
    expect(encodeEventTopics({ abi: announcerAbi, eventName: 'Announcement' })[0]).toBe(ANNOUNCEMENT_EVENT_TOPIC);
  });

  it('two announcements in one transaction both decode, with distinct log indexes', async () => {
    const payments = [createStealthPayment(stranger.metaAddress), createStealthPayment(stranger.metaAddress)];
    const receipt = await chain.announceMany(payments.map((p) => raw(p)));
    const { announcements } = await fetchAnnouncements({ client: chain.publicClient, fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
    expect(announcements.map((a) => a.stealthAddress)).toEqual(payments.map((p) => p.stealthAddress));
    expect(new Set(announcements.map((a) => a.txHash))).toEqual(new Set([receipt.transactionHash]));
    expect(announcements[0]!.logIndex).toBeLessThan(announcements[1]!.logIndex);
    expect(announcements[0]!.id).not.toBe(announcements[1]!.id);
    expect(announcements.map((a) => a.caller)).toEqual([chain.multiAnnouncer, chain.multiAnnouncer]);
  });

  it('events that are not announcements of this format are skipped and counted by reason, never thrown', async () => {
    const p = () => createStealthPayment(stranger.metaAddress);
    const first = (await chain.blockNumber()) + 1n;
    const valid = p();
    await chain.announceRaw(raw(valid));
    await chain.announceRaw(raw(p(), { schemeId: 1n }));
    await chain.announceRaw(raw(p(), { schemeId: 999n }));
    await chain.announceRaw(raw(p(), { ephemeralPubKey: p().ephemeralCiphertext.slice(0, 1087) }));
    await chain.announceRaw(raw(p(), { ephemeralPubKey: new Uint8Array(1088) }));
    await chain.announceRaw(raw(p(), { metadata: '0x0102' }));
    await chain.announceRaw(raw(p(), { metadata: new Uint8Array(94) }));
    await chain.announceRaw(raw(p()), { announcer: chain.otherAnnouncer });
    const schemeTopic = numberToHex(WRAITH_SCHEME_ID, { size: 32 });
    await chain.emitJunk([ANNOUNCEMENT_EVENT_TOPIC], '0x');
    await chain.emitJunk([ANNOUNCEMENT_EVENT_TOPIC, schemeTopic, `0x${'00'.repeat(12)}${'11'.repeat(20)}`, `0x${'00'.repeat(12)}${'22'.repeat(20)}`], '0x1234');
    const last = await chain.blockNumber();

    const all = await logsOf(first, last, [ANNOUNCER_ADDRESS, chain.otherAnnouncer, chain.junkEmitter]);
    const decoded = decodeAnnouncementLogs(all);
    expect(decoded.announcements.map((a) => a.stealthAddress)).toEqual([valid.stealthAddress]);
    expect(decoded.skippedBy).toEqual({ scheme: 2, 'ephemeral-key-length': 2, 'invalid-epk': 0, 'metadata-length': 2, announcer: 3, undecodable: 0 });
    expect(decoded.skipped).toBe(9);

    // The junk emitter's logs, read as if it were the Announcer: topics and data do not decode.
    const junk = decodeAnnouncementLogs(await logsOf(first, last, chain.junkEmitter), { announcer: chain.junkEmitter });
    expect(junk.skippedBy.undecodable).toBe(2);
    expect(junk.announcements).toEqual([]);
    // Hand-broken logs: truncated data, a pending log, garbage.
    const good = (await logsOf(first, first))[0]!;
    const broken = [{ ...good, data: good.data.slice(0, 200) }, { ...good, blockNumber: null }, { ...good, removed: true }, null, {}] as unknown as RpcLogLike[];
    expect(decodeAnnouncementLogs(broken).skippedBy.undecodable).toBe(5);

    // Through eth_getLogs' own filter (address + scheme topic) only the length checks remain to count.
    const fetched = await fetchAnnouncements({ client: chain.publicClient, fromBlock: first, toBlock: last });
    expect(fetched.announcements.map((a) => a.stealthAddress)).toEqual([valid.stealthAddress]);
    expect(fetched.skippedBy).toEqual({ scheme: 0, 'ephemeral-key-length': 2, 'invalid-epk': 0, 'metadata-length': 2, announcer: 0, undecodable: 0 });
  });
});

describe('scanning the chain', () => {
  type Expected = { payment: StealthPayment; note: 'opened' | 'absent' | 'unreadable'; mismatch: boolean };
  const expected: Expected[] = [];
  let full: Discovery<ChainAnnouncement>[] = [];

  beforeAll(async () => {
    const pay = () => createStealthPayment(recipient.metaAddress);
    const withNote = pay();
    await chain.announce(createStealthPayment(stranger.metaAddress), { amount: 1n });
    await chain.announce(withNote, { amount: 5n, chainId: 31_337n, token: 'coin' }); // the note that names its asset (113 bytes)
    expected.push({ payment: withNote, note: 'opened', mismatch: false });
    const withoutNote = pay();
    await chain.announce(withoutNote);
    expected.push({ payment: withoutNote, note: 'absent', mismatch: false });
    // A sender announcing another stealth address than the one the payment derives.
    const altered = pay();
    await chain.announceRaw(raw(altered, { stealthAddress: chain.accounts[3]!.address, metadata: announcementMetadata(altered, { amount: 7n }) }));
    expected.push({ payment: altered, note: 'opened', mismatch: true });
    // A note sealed with another key: the payment is found, the note is unreadable.
    const badNote = pay();
    const foreignNote = announcementMetadata({ viewTag: badNote.viewTag, sharedSecret: new Uint8Array(32).fill(9) }, { amount: 3n });
    await chain.announceRaw(raw(badNote, { metadata: foreignNote }));
    expected.push({ payment: badNote, note: 'unreadable', mismatch: false });
    await chain.mine(5);
    // Two payments to the recipient in one transaction, between foreign ones.
    const pair = [pay(), pay()];
    await chain.announceMany([raw(createStealthPayment(stranger.metaAddress)), raw(pair[0]!), raw(createStealthPayment(stranger.metaAddress)), raw(pair[1]!)]);
    for (const payment of pair) expected.push({ payment, note: 'absent', mismatch: false });
    await chain.announce(createStealthPayment(stranger.metaAddress));

    for await (const batch of scanRegistry(chainAnnouncementPages({ client: chain.publicClient }), recipient)) full.push(...batch.discoveries);
  });

  it("finds exactly the recipient's payments among foreign and malformed announcements, notes opened", () => {
    expect(full.map((d) => d.stealthAddress).sort()).toEqual(expected.map((e) => e.payment.stealthAddress).sort());
    for (const { payment, note, mismatch } of expected) {
      const found = full.find((d) => d.stealthAddress === payment.stealthAddress)!;
      expect(found.noteStatus, payment.stealthAddress).toBe(note);
      expect(found.stealthAddressMismatch).toBe(mismatch);
      expect(found.announcement.ephemeralKey).toEqual(payment.ephemeralCiphertext);
    }
    const withNote = full.find((d) => d.stealthAddress === expected[0]!.payment.stealthAddress)!;
    expect(withNote.note).toEqual({ txHash: null, amount: 5n, chainId: 31_337n, token: 'coin' });
    const altered = full.find((d) => d.stealthAddressMismatch)!;
    expect(altered.announcement.stealthAddress).toBe(chain.accounts[3]!.address);
    expect(altered.note?.amount).toBe(7n);
    expect(full.filter((d) => d.noteStatus !== 'opened').every((d) => d.note === null)).toBe(true);
  });

  it('a scan stopped after its first batch resumes from the cursor, and together they equal a full scan', async () => {
    const source = chainAnnouncementPages({ client: chain.publicClient, pageBlocks: 4n });
    const first: Discovery<ChainAnnouncement>[] = [];
    let cursor = 0;
    let firstScanned = 0;
    for await (const batch of scanRegistry(source, recipient)) {
      first.push(...batch.discoveries);
      cursor = batch.cursor;
      firstScanned = batch.scanned;
      break;
    }
    expect(firstScanned).toBeGreaterThan(0);
    const rest: Discovery<ChainAnnouncement>[] = [];
    for await (const batch of scanRegistry(source, recipient, { fromCursor: cursor })) {
      expect(batch.discoveries.every((d) => d.announcement.id > cursor)).toBe(true);
      rest.push(...batch.discoveries);
    }
    const ids = [...first, ...rest].map((d) => d.announcement.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort((a, b) => a - b)).toEqual(full.map((d) => d.announcement.id).sort((a, b) => a - b));
  });

  it('a cursor inside a block resumes after that log, in the same block', async () => {
    const pairIds = full.slice(-2).map((d) => d.announcement.id);
    const [firstOfPair, secondOfPair] = full.slice(-2).map((d) => d.announcement) as [ChainAnnouncement, ChainAnnouncement];
    expect(firstOfPair.blockNumber).toBe(secondOfPair.blockNumber);
    expect(cursorPosition(pairIds[0]!)).toEqual({ blockNumber: firstOfPair.blockNumber, logIndex: firstOfPair.logIndex });
    const resumed: number[] = [];
    for await (const batch of scanRegistry(chainAnnouncementPages({ client: chain.publicClient }), recipient, { fromCursor: pairIds[0]! })) {
      resumed.push(...batch.discoveries.map((d) => d.announcement.id));
    }
    expect(resumed).toEqual([pairIds[1]]);
  });
});

describe('reading through unreliable providers', () => {
  it('through a provider refusing ranges over 5 blocks and failing 30 % of requests, the fetch returns exactly what a direct one does', async () => {
    await chain.mine(30);
    const head = await chain.blockNumber();
    const direct = await fetchAnnouncements({ client: chain.publicClient, fromBlock: 0n, toBlock: head });
    expect(direct.announcements.length).toBeGreaterThan(10);

    const { proxy: faulty, client } = await proxy({ failureRate: 0.3, maxLogRange: 5, seed: 7, hangMs: 2_000 });
    const ranges: { fromBlock: bigint; toBlock: bigint }[] = [];
    const retries: string[] = [];
    const through = await fetchAnnouncements({
      client,
      fromBlock: 0n,
      toBlock: head,
      retry: { ...FAST_RETRY, onRetry: (event) => retries.push(event.reason) },
      onRange: (range) => ranges.push(range),
    });
    expect(through).toEqual(direct);
    // Every block read exactly once, in order, in ranges the provider accepted.
    expect(ranges[0]!.fromBlock).toBe(0n);
    expect(ranges.at(-1)!.toBlock).toBe(head);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.fromBlock).toBe(ranges[i - 1]!.toBlock + 1n);
    expect(ranges.every((r) => r.toBlock - r.fromBlock + 1n <= 5n)).toBe(true);
    const { failed, refusedRanges } = faulty.stats;
    expect(refusedRanges).toBeGreaterThan(0);
    expect(failed['429'] + failed['5xx'] + failed.hang + failed.reset).toBeGreaterThan(0);
    expect(retries.length).toBe(failed['429'] + failed['5xx'] + failed.hang + failed.reset);
  });

  it('a bare EIP-1193 provider whose logs lack blockTimestamp gives the same announcements, timestamps read from the blocks', async () => {
    const head = await chain.blockNumber();
    const direct = await fetchAnnouncements({ client: chain.publicClient, fromBlock: 0n, toBlock: head });
    const bare = await fetchAnnouncements({ client: eip1193(chain.rpcUrl, { dropBlockTimestamp: true }), fromBlock: 0n, toBlock: head, maxBlockRange: 7n });
    expect(bare).toEqual(direct);
    expect(bare.announcements.every((a) => a.timestamp > 0)).toBe(true);
  });

  it('an aborted signal stops the fetch with the signal’s reason', async () => {
    const { client } = await proxy({ failureRate: 1, modes: ['hang'], hangMs: 10_000 });
    const controller = new AbortController();
    const reason = new Error('user left the page');
    setTimeout(() => controller.abort(reason), 200);
    const started = Date.now();
    await expect(fetchAnnouncements({ client, fromBlock: 0n, toBlock: 10n, signal: controller.signal })).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(fetchAnnouncements({ client: chain.publicClient, fromBlock: 0n, toBlock: 10n, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('a provider down for good ends with CHAIN_RPC_FAILED in bounded time, naming the range to resume from', async () => {
    const { client } = await proxy({ failureRate: 1, modes: ['5xx', 'reset'] });
    const started = Date.now();
    const error = await fetchAnnouncements({ client, fromBlock: 3n, toBlock: 40n, retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 20 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainRpcError);
    expect(error).toMatchObject({ code: 'CHAIN_RPC_FAILED', method: 'eth_getLogs', fromBlock: 3n, attempts: 3 });
    expect((error as Error).message).toMatch(/blocks 3\.\.40 .*resume/);
    expect(Date.now() - started).toBeLessThan(3_000);

    // Nobody listening at all.
    const closed = createPublicClient({ transport: http(`http://127.0.0.1:${await freePort()}`, { retryCount: 0 }) });
    const refused = await fetchAnnouncements({ client: closed, fromBlock: 0n, toBlock: 1n, retry: { attempts: 2, baseDelayMs: 10 } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'CHAIN_RPC_FAILED', reason: 'connection failed' });
  });

  it('a provider refusing even single blocks ends with CHAIN_RPC_FAILED after splitting down to one block', async () => {
    const { client } = await proxy({ maxLogRange: 0 });
    const error = await fetchAnnouncements({ client, fromBlock: 0n, toBlock: 20n, retry: { attempts: 2, baseDelayMs: 10 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CHAIN_RPC_FAILED', fromBlock: 0n, toBlock: 0n });
    expect((error as ChainRpcError).reason).toMatch(/range refused|HTTP 413/);
  });

  it('after a reorg, a re-read no longer returns the announcements of the replaced blocks', async () => {
    const payment = createStealthPayment(stranger.metaAddress);
    const receipt = await chain.announce(payment);
    const read = () => fetchAnnouncements({ client: chain.publicClient, fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
    expect((await read()).announcements.map((a) => a.stealthAddress)).toEqual([payment.stealthAddress]);
    await chain.reorg(1);
    expect((await read()).announcements).toEqual([]);
  });
});

describe('provider errors', () => {
  it.each([
    { name: 'a result-count refusal (Infura)', error: { code: -32005, message: 'query returned more than 10000 results' }, kind: 'range' },
    { name: 'a response-size refusal (Alchemy)', error: { code: -32600, message: 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range' }, kind: 'range' },
    { name: 'a range limit (QuickNode)', error: { code: -32614, message: 'eth_getLogs is limited to a 10,000 range' }, kind: 'range' },
    { name: 'HTTP 413', error: { status: 413 }, kind: 'range' },
    { name: "a response over viem's body limit", error: { name: 'HttpRequestError', shortMessage: 'HTTP request failed.', cause: { name: 'ResponseBodyTooLargeError', shortMessage: 'HTTP response body exceeded the size limit.' } }, kind: 'range' },
    { name: 'a rate limit sent as -32005', error: { code: -32005, message: 'daily request count exceeded, request rate limited' }, kind: 'transient' },
    { name: 'HTTP 429', error: { status: 429 }, kind: 'transient' },
    { name: 'HTTP 503', error: { status: 503 }, kind: 'transient' },
    { name: 'a node behind the requested block', error: { code: -32602, message: 'BlockOutOfRangeError: block height is 1 but requested was 5' }, kind: 'transient' },
    { name: 'a dropped connection', error: new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }), kind: 'transient' },
    { name: 'an unknown method', error: { code: -32601, message: 'the method eth_getLogs does not exist/is not available' }, kind: 'fatal' },
    { name: 'HTTP 401', error: { status: 401 }, kind: 'fatal' },
    { name: 'a user rejection in a wallet', error: { code: 4001, message: 'User rejected the request.' }, kind: 'fatal' },
  ])('$name is classified $kind', ({ error, kind }) => {
    expect(classifyRpcFault(error).kind).toBe(kind);
  });

  it('an empty range (fromBlock after toBlock) reads nothing and makes no call', async () => {
    const silent: ChainRpcClient = { request: () => Promise.reject(new Error('no call expected')) };
    expect(await fetchAnnouncements({ client: silent, fromBlock: 10n, toBlock: 9n })).toEqual({ announcements: [], skipped: 0, skippedBy: { scheme: 0, 'ephemeral-key-length': 0, 'invalid-epk': 0, 'metadata-length': 0, undecodable: 0, announcer: 0 } });
  });
});

describe('cursors', () => {
  it('a cursor orders by block, then log index, and converts back', () => {
    expect(chainCursor(5n, 3)).toBeLessThan(chainCursor(5n, 4));
    expect(chainCursor(5n, 1_000_000)).toBeLessThan(chainCursor(6n, 0));
    expect(cursorPosition(chainCursor(23_000_000n, 812))).toEqual({ blockNumber: 23_000_000, logIndex: 812 });
    expect(() => chainCursor(1n, 2 ** 20)).toThrow(/logIndex/);
    expect(() => cursorPosition(-1)).toThrow(/cursor/);
  });

  it('announceParameters refuses a payment that is not one', () => {
    const payment = createStealthPayment(stranger.metaAddress);
    expect(() => announceParameters({ payment: { ...payment, ephemeralCiphertext: new Uint8Array(10) } })).toThrow(/1088 bytes/);
    expect(() => announceParameters({ payment: { ...payment, stealthAddress: '0x1234' } })).toThrow(/stealthAddress/);
    expect(() => announceParameters({ payment, schemeId: -1n })).toThrow(/schemeId/);
  });
});
