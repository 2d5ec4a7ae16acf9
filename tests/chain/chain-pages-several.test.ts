/**
 * One scan of several chains straight from their RPCs (`chainAnnouncementPages({ chains })`,
 * issue 24 scope 3): three anvils with different `--chain-id`s, each with the Announcer at its
 * singleton address; payments to the recipient on each. The scan finds every payment tagged with
 * the chain it was paid on, keeps a cursor per chain, and a scan stopped in the middle resumes
 * from the saved cursors of every chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, defineChain, http, type Abi, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createStealthPayment, generateKeys, scanRegistry, type ChainCursors, type Discovery, type RecipientKeys } from '@wraith-pq/sdk';
import { ANNOUNCER_ADDRESS, announceParameters, chainAnnouncementPages, cursorPosition, type ChainAnnouncement } from '@wraith-pq/sdk/evm';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { compileAnnouncerContracts, DEV_KEYS } from '../helpers/announcer-chain.ts';

/** OP Mainnet, Base and Arbitrum One's ids, on local anvils. */
const CHAIN_IDS = [10, 8453, 42161] as const;

type LocalChain = { chainId: number; anvil: Anvil; client: PublicClient; pay(keys: RecipientKeys): Promise<string>; mine(blocks: number): Promise<void> };

async function startChain(chainId: number): Promise<LocalChain> {
  const anvil = await startAnvil(['--chain-id', String(chainId)]);
  const chain = defineChain({ id: chainId, name: `anvil ${chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } });
  const transport = http(anvil.rpcUrl, { retryCount: 0 });
  const client = createPublicClient({ chain, transport, pollingInterval: 50 }) as PublicClient;
  const wallet = createWalletClient({ account: privateKeyToAccount(DEV_KEYS[0]!), chain, transport });
  await client.request({ method: 'anvil_setCode', params: [ANNOUNCER_ADDRESS, compileAnnouncerContracts().ERC5564Announcer!.deployedBytecode] } as never);
  return {
    chainId,
    anvil,
    client,
    async pay(keys) {
      const payment = createStealthPayment(keys.metaAddress);
      const call = announceParameters({ payment, note: { amount: 1n, chainId: BigInt(chainId) } });
      const hash = await wallet.writeContract({ ...call, abi: call.abi as Abi, args: [...call.args], gas: 3_000_000n } as never);
      expect((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe('success');
      return payment.stealthAddress;
    },
    async mine(blocks) {
      await client.request({ method: 'anvil_mine', params: [`0x${blocks.toString(16)}`] } as never);
    },
  };
}

let chains: LocalChain[] = [];
const recipient = generateKeys();
const stranger = generateKeys();
/** Stealth address → chain id of each payment to the recipient. */
const paid = new Map<string, number>();

beforeAll(async () => {
  chains = await Promise.all(CHAIN_IDS.map(startChain));
  // Payments spread over blocks (pages of 3 blocks below), foreign ones between them.
  for (const [round, chain] of [0, 1, 2, 0, 1, 2].map((i, round) => [round, chains[i]!] as const)) {
    paid.set(await chain.pay(recipient), chain.chainId);
    await chain.pay(stranger);
    await chain.mine(round + 2);
  }
  paid.set(await chains[2]!.pay(recipient), chains[2]!.chainId);
}, 120_000);

afterAll(async () => {
  await Promise.all(chains.map((chain) => chain.anvil.stop()));
});

const source = () => chainAnnouncementPages({ chains: chains.map(({ client }) => ({ client })), pageBlocks: 3n });

describe('chainAnnouncementPages over several chains', () => {
  it('finds every payment on every chain in one scan, each tagged with the chain it was paid on', async () => {
    const found: Discovery<ChainAnnouncement>[] = [];
    let last: ChainCursors | undefined;
    let scanned = 0;
    for await (const batch of scanRegistry(source(), recipient)) {
      found.push(...batch.discoveries);
      scanned += batch.scanned;
      last = batch.cursors;
      // A page holds one chain's rows.
      expect(new Set(batch.discoveries.map((d) => d.announcement.chainId)).size).toBeLessThanOrEqual(1);
    }
    expect(scanned).toBe(2 * paid.size - 1);
    expect(new Map(found.map((d) => [d.stealthAddress, d.announcement.chainId]))).toEqual(paid);
    for (const d of found) expect(d.note?.chainId).toBe(BigInt(d.announcement.chainId!));
    // One cursor per chain: the position of that chain's last announcement.
    expect(Object.keys(last!).map(Number).sort((a, b) => a - b)).toEqual([...CHAIN_IDS]);
    for (const chain of chains) {
      const lastOnChain = found.filter((d) => d.announcement.chainId === chain.chainId).at(-1)!.announcement;
      expect(cursorPosition(last![chain.chainId]!).blockNumber).toBeGreaterThanOrEqual(lastOnChain.blockNumber);
    }
  });

  it('a scan stopped in the middle resumes from every chain’s saved cursor: together they find each payment exactly once', async () => {
    const first: Discovery<ChainAnnouncement>[] = [];
    let saved: ChainCursors = {};
    let batches = 0;
    for await (const batch of scanRegistry(source(), recipient)) {
      first.push(...batch.discoveries);
      saved = batch.cursors!;
      if (++batches === 4) break;
    }
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(paid.size);
    // Some chains have started, not every one is done: the saved state must carry them all.
    expect(Object.keys(saved).length).toBeGreaterThanOrEqual(2);
    const restored = JSON.parse(JSON.stringify(saved)) as ChainCursors; // as an app would store it

    const rest: Discovery<ChainAnnouncement>[] = [];
    for await (const batch of scanRegistry(source(), recipient, { fromCursors: restored })) {
      for (const d of batch.discoveries) expect(d.announcement.id).toBeGreaterThan(restored[d.announcement.chainId!] ?? 0);
      rest.push(...batch.discoveries);
    }
    const all = [...first, ...rest].map((d) => d.stealthAddress);
    expect(all.length).toBe(paid.size);
    expect(new Set(all)).toEqual(new Set(paid.keys()));
  });

  it('refuses an entry whose RPC answers another chain id, a chain listed twice, and a consumer with one cursor', async () => {
    const wrong = chainAnnouncementPages({ chains: [{ client: chains[0]!.client, chainId: 1 }] });
    await expect(scanRegistry(wrong, recipient).next()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('answers chain 10') });
    const twice = chainAnnouncementPages({ chains: [{ client: chains[1]!.client }, { client: chains[1]!.client }] });
    await expect(scanRegistry(twice, recipient).next()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('chain 8453 twice') });
    expect(() => chainAnnouncementPages({ chains: [] })).toThrow('at least one chain');
    // A wrapper that hides cursorPerChain would resume every chain from one chain's cursor.
    const wrapped = (request: { afterId: number; signal?: AbortSignal }) => source()(request);
    await expect(scanRegistry(wrapped, recipient).next()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('cursor per chain') });
  });

  it('one chain alone keeps its single cursor, and is tagged when its chain id is given', async () => {
    const one = chainAnnouncementPages({ client: chains[1]!.client, chainId: 8453 });
    const found: Discovery<ChainAnnouncement>[] = [];
    for await (const batch of scanRegistry(one, recipient)) {
      expect(batch.cursors).toBeUndefined();
      found.push(...batch.discoveries);
    }
    expect(found.map((d) => d.announcement.chainId)).toEqual([8453, 8453]);
    await expect(scanRegistry(one, recipient, { fromCursors: { 8453: 1 } }).next()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
