/**
 * A real chain with the ERC-5564 Announcer, for tests (PROTOCOL.md section 7): anvil (from
 * @foundry-rs/anvil) on a free loopback port, the Announcer of tests/fixtures/erc5564 compiled
 * by solc (wasm, once per process) with its runtime bytecode placed at the singleton address
 * 0x55649E01B5Df198D18D95b5cc5051630cfD45564 (as on every real chain), plus test contracts:
 * a second Announcer elsewhere (events from "another announcer"), MultiAnnouncer (several
 * announcements in one transaction) and JunkEmitter (any log, e.g. `Announcement`-shaped garbage).
 * Wallets are anvil's well-known dev accounts (public keys, no real funds).
 *
 * @example
 * const chain = await startAnnouncerChain();
 * const payment = createStealthPayment(keys.metaAddress);
 * const receipt = await chain.announce(payment, { amount: 10n ** 16n, chainId: 31337n });
 * await chain.announceRaw({ schemeId: 1000n, stealthAddress: payment.stealthAddress, ephemeralPubKey: new Uint8Array(1087), metadata: '0x01' });
 * const id = await chain.snapshot(); ...; await chain.revert(id);
 * await chain.reorg(2); // replace the last 2 blocks with empty ones
 * await chain.stop();
 */
import {
  bytesToHex,
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
  type Transport,
  type Chain,
  type Account,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import type { PaymentNoteInput, StealthPayment } from '@wraith-pq/sdk';
import { ANNOUNCER_ADDRESS, announceParameters } from '@wraith-pq/sdk/evm';
import { compileContracts, startAnvil, type Artifact } from './anvil.ts';

const SOURCES = new URL('../fixtures/erc5564/', import.meta.url);

/** anvil's first dev accounts: public, well-known test keys (never hold real funds). */
export const DEV_KEYS: readonly Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
];

type Wallet = WalletClient<Transport, Chain, Account>;

/** Any announcement, valid or not: the Announcer accepts any bytes. */
export type RawAnnouncement = {
  schemeId: bigint;
  stealthAddress: string;
  ephemeralPubKey: Uint8Array | Hex;
  metadata: Uint8Array | Hex;
};

/** Who sends a transaction: a dev account index (default 0) or a wallet. */
export type SendOptions = { from?: number | Wallet };

export type AnnouncerChainOptions = {
  /** Mine a block every `blockTime` seconds (anvil `--block-time`) instead of one per transaction. */
  blockTime?: number;
  /** false: no mining until `mine()` (anvil `--no-mining`); the helper's own writes then mine their block. Default true. */
  automine?: boolean;
  /** The node's EIP-155 id (anvil `--chain-id`; default 31337), for several chains at once. */
  chainId?: number;
  /** anvil `--hardfork` (default: its newest), e.g. `prague` for EIP-7702. */
  hardfork?: string;
};

export type AnnouncerChain = {
  rpcUrl: string;
  chainId: number;
  /** viem public client on `rpcUrl` (no retries, 50 ms polling). */
  publicClient: PublicClient;
  /** Wallet clients of the dev accounts in DEV_KEYS order. */
  wallets: Wallet[];
  accounts: PrivateKeyAccount[];
  /** The singleton Announcer (ANNOUNCER_ADDRESS). */
  announcer: Address;
  /** A second copy of the Announcer at another address: its events are "from another announcer". */
  otherAnnouncer: Address;
  multiAnnouncer: Address;
  junkEmitter: Address;
  /** Announce a payment the way a sender does (announceParameters + writeContract); waits for the receipt. */
  announce(payment: Pick<StealthPayment, 'stealthAddress' | 'ephemeralCiphertext' | 'viewTag' | 'sharedSecret'>, note?: PaymentNoteInput, options?: SendOptions & { schemeId?: bigint }): Promise<TransactionReceipt>;
  /** Call `announce` with any arguments (default: the singleton Announcer). */
  announceRaw(announcement: RawAnnouncement, options?: SendOptions & { announcer?: Address }): Promise<TransactionReceipt>;
  /** Several announcements in one transaction (MultiAnnouncer calling the singleton Announcer). */
  announceMany(announcements: RawAnnouncement[], options?: SendOptions): Promise<TransactionReceipt>;
  /** Emit one raw log (0..4 topics, any data) from JunkEmitter. */
  emitJunk(topics: Hex[], data: Hex, options?: SendOptions): Promise<TransactionReceipt>;
  /** Mine `blocks` empty blocks (default 1). */
  mine(blocks?: number): Promise<void>;
  blockNumber(): Promise<bigint>;
  /** evm_snapshot: returns the snapshot id. */
  snapshot(): Promise<Hex>;
  /** evm_revert to a snapshot (ids are single use). */
  revert(id: Hex): Promise<void>;
  /** anvil_reorg: replace the last `depth` blocks with new empty ones (new hashes, same height). */
  reorg(depth: number): Promise<void>;
  /** Turn automatic mining on or off (evm_setAutomine). */
  setAutomine(enabled: boolean): Promise<void>;
  /** One raw JSON-RPC call. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
};

/** Compile every contract of tests/fixtures/erc5564 (once per process). */
export function compileAnnouncerContracts(): Record<string, Artifact> {
  return compileContracts(SOURCES);
}

const hex = (value: Uint8Array | Hex): Hex => (typeof value === 'string' ? value : bytesToHex(value));

/** Start anvil with the Announcer in place. Call `stop()` in afterAll. */
export async function startAnnouncerChain(options: AnnouncerChainOptions = {}): Promise<AnnouncerChain> {
  const artifacts = compileAnnouncerContracts();
  const args: string[] = [];
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  let automine = options.automine ?? true;
  if (!automine) args.push('--no-mining');
  const chain: Chain = options.chainId === undefined ? foundry : { ...foundry, id: options.chainId };
  if (options.chainId !== undefined) args.push('--chain-id', String(options.chainId));
  if (options.hardfork !== undefined) args.push('--hardfork', options.hardfork);
  const anvil = await startAnvil(args);
  const { rpcUrl } = anvil;
  try {
    const transport = http(rpcUrl, { retryCount: 0 });
    const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
    const accounts = DEV_KEYS.map((key) => privateKeyToAccount(key));
    const wallets = accounts.map((account) => createWalletClient({ account, chain, transport, pollingInterval: 50 }));
    const rpc = <T>(method: string, params: unknown[] = []) => publicClient.request({ method, params } as never) as Promise<T>;
    const mine = async (blocks = 1) => {
      await rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
    };
    const walletOf = (from: SendOptions['from']): Wallet => (typeof from === 'object' ? from : wallets[from ?? 0]!);
    const confirm = async (hash: Hex): Promise<TransactionReceipt> => {
      if (!automine && options.blockTime === undefined) await mine(1);
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
      return receipt;
    };
    const write = async (from: SendOptions['from'], address: Address, abi: Abi, functionName: string, callArgs: unknown[]) => {
      const wallet = walletOf(from);
      // Gas given: estimating needs the pending state, which `--no-mining` keeps back.
      return confirm(await wallet.writeContract({ address, abi, functionName, args: callArgs, gas: 3_000_000n } as never));
    };
    const deploy = async (name: string, deployArgs: unknown[] = []): Promise<Address> => {
      const { abi, bytecode } = artifacts[name]!;
      const receipt = await confirm(await wallets[0]!.deployContract({ abi, bytecode, args: deployArgs, gas: 3_000_000n } as never));
      if (receipt.contractAddress == null) throw new Error(`deploying ${name} failed`);
      return getAddress(receipt.contractAddress);
    };

    await rpc('anvil_setCode', [ANNOUNCER_ADDRESS, artifacts.ERC5564Announcer!.deployedBytecode]);
    const otherAnnouncer = await deploy('ERC5564Announcer');
    const multiAnnouncer = await deploy('MultiAnnouncer');
    const junkEmitter = await deploy('JunkEmitter');
    const announcerAbi = artifacts.ERC5564Announcer!.abi;

    return {
      rpcUrl,
      chainId: chain.id,
      publicClient: publicClient as PublicClient,
      wallets,
      accounts,
      announcer: ANNOUNCER_ADDRESS,
      otherAnnouncer,
      multiAnnouncer,
      junkEmitter,
      announce: async (payment, note, sendOptions = {}) => {
        const call = announceParameters({ payment, ...(note === undefined ? {} : { note }), ...(sendOptions.schemeId === undefined ? {} : { schemeId: sendOptions.schemeId }) });
        return write(sendOptions.from, call.address, call.abi as Abi, call.functionName, [...call.args]);
      },
      announceRaw: (a, sendOptions = {}) =>
        write(sendOptions.from, sendOptions.announcer ?? ANNOUNCER_ADDRESS, announcerAbi, 'announce', [a.schemeId, getAddress(a.stealthAddress), hex(a.ephemeralPubKey), hex(a.metadata)]),
      announceMany: (list, sendOptions = {}) =>
        write(sendOptions.from, multiAnnouncer, artifacts.MultiAnnouncer!.abi, 'announceMany', [
          ANNOUNCER_ADDRESS,
          list.map((a) => a.schemeId),
          list.map((a) => getAddress(a.stealthAddress)),
          list.map((a) => hex(a.ephemeralPubKey)),
          list.map((a) => hex(a.metadata)),
        ]),
      emitJunk: (topics, data, sendOptions = {}) => write(sendOptions.from, junkEmitter, artifacts.JunkEmitter!.abi, 'emitRaw', [topics, data]),
      mine,
      blockNumber: () => publicClient.getBlockNumber({ cacheTime: 0 }),
      snapshot: () => rpc<Hex>('evm_snapshot'),
      revert: async (id) => {
        const reverted = await rpc<boolean>('evm_revert', [id]);
        if (!reverted) throw new Error(`evm_revert ${id} failed`);
      },
      reorg: async (depth) => {
        await rpc('anvil_reorg', [depth, []]);
      },
      setAutomine: async (enabled) => {
        await rpc('evm_setAutomine', [enabled]);
        automine = enabled;
      },
      rpc,
      stop: async () => {
        await anvil.stop();
      },
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
