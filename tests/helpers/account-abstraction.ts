/**
 * A chain for gasless withdrawals (TOOLCHAIN.md "Gasless withdrawals"): anvil with the Prague
 * hardfork (EIP-7702) and the Announcer, EntryPoint v0.8 and Simple7702Account deployed by
 * CREATE2 from the npm bytecode of @account-abstraction/contracts@0.8.0 at their canonical
 * addresses (through the deterministic deployer anvil ships), a test token, the project's
 * paymaster (contracts/src/WraithTokenPaymaster.sol) listing it with a deposit at the EntryPoint,
 * and the alto bundler (@pimlico/alto, a test-only dev dependency) on loopback.
 *
 * alto runs with `--safe-mode false`: its ERC-7562 checks need `debug_traceCall` with a JS
 * tracer, which anvil lacks. It deploys its simulation contracts at start (dev account 9 pays);
 * dev account 8 sends the bundles.
 *
 * `{ node: 'op' }` puts the same stack on Hardhat's OP Stack node (op-node.ts) instead, with alto
 * as `--chain-type op-stack` (it then prices the L1 data fee into preVerificationGas from the
 * GasPriceOracle predeploy). That node has no CREATE2 deployer, so the helper places Arachnid's
 * runtime code at its usual address (as OP chains preinstall it), and alto reaches the node
 * through type4-relay.ts: the node executes EIP-7702 but refuses a raw type-4 transaction.
 *
 * @example
 * const chain = await startGaslessChain();
 * await chain.token.mint(stealthAddress, 100_000_000n);
 * ... withdrawGasless({ client: chain.chain.publicClient, bundler: chain.bundlerUrl, paymaster: chain.paymaster, ... }) ...
 * await chain.stop();
 */
import { readFileSync } from 'node:fs';
import { concat, getAddress, pad, type Address, type Hex, type TransactionReceipt } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { startAnnouncerChain, type AnnouncerChain } from './announcer-chain.ts';
import { startJsonRpcProcess, type JsonRpcProcess } from './json-rpc-process.ts';
import { startOpNode, type OpNode } from './op-node.ts';
import { freePort } from './server.ts';
import { startType4Relay } from './type4-relay.ts';

/** anvil's CREATE2 deployer (Arachnid's deterministic-deployment-proxy): calldata = salt || initCode. */
const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
/** Its runtime code (what anvil holds there; OP chains preinstall the same). */
const CREATE2_DEPLOYER_CODE: Hex = '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3';
export const ENTRY_POINT_V08: Address = '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108';
/** The salt eth-infinitism deployed EntryPoint v0.8 with (its canonical address). */
const ENTRY_POINT_SALT: Hex = '0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9';
/** Simple7702Account v0.8, salt 0: the implementation viem's toSimple7702SmartAccount uses. */
export const SIMPLE_7702_ACCOUNT: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B';

/** anvil's (and Hardhat's) dev accounts 8 and 9 (public test keys): alto's executor and utility accounts. */
const EXECUTOR_KEY: Hex = '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97';
const UTILITY_KEY: Hex = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';

const ALTO = new URL('../../node_modules/@pimlico/alto/esm/cli/alto.js', import.meta.url).pathname;
const AA_ARTIFACTS = new URL('../../node_modules/@account-abstraction/contracts/artifacts/', import.meta.url);
const BUILD = new URL('../../contracts/build/', import.meta.url);

/** The test token: 6 decimals, like most stablecoins. */
export const TOKEN_DECIMALS = 6;
/** The paymaster's price: 3,000 tokens (base units 3e9) per ETH. */
export const TOKEN_PER_ETH = 3_000n * 10n ** 6n;
/** Where the paymaster's fees go: an address nothing else touches. */
export const FEE_ACCOUNT: Address = '0x000000000000000000000000000000000000FEE0';
/** The paymaster's deposit at the EntryPoint. */
export const PAYMASTER_DEPOSIT = 10n ** 18n;

export type Artifact = { abi: readonly unknown[]; bytecode: Hex; deployedBytecode: Hex };

/** A compiled artifact of contracts/build (node contracts/build.mjs). */
export function projectArtifact(name: string): Artifact {
  return JSON.parse(readFileSync(new URL(`${name}.json`, BUILD), 'utf8')) as Artifact;
}

/** What the helper and its tests use of a node: anvil's AnnouncerChain and Hardhat's OpNode both have it. */
export type GaslessNode = Pick<AnnouncerChain, 'rpcUrl' | 'chainId' | 'publicClient' | 'wallets' | 'accounts' | 'rpc' | 'mine' | 'stop'>;

export type GaslessChain<Node extends GaslessNode = AnnouncerChain> = {
  chain: Node;
  /** The bundler's URL ('' when started with `bundler: false`). */
  bundlerUrl: string;
  bundler: JsonRpcProcess | undefined;
  paymaster: Address;
  token: Address;
  /** Mint test tokens to `to`. */
  mint(to: Address, amount: bigint): Promise<void>;
  tokenBalance(owner: Address): Promise<bigint>;
  /** Call the paymaster as its owner (dev account 0): setToken, updatePrice, withdrawDeposit, … */
  ownerCall(functionName: string, args: readonly unknown[], value?: bigint): Promise<TransactionReceipt>;
  /** The paymaster's deposit at the EntryPoint. */
  deposit(): Promise<bigint>;
  stop(): Promise<void>;
};

/** Deploy `initCode` through the CREATE2 deployer with `salt`, unless code is already at `expected`. */
async function create2(chain: GaslessNode, salt: Hex, initCode: Hex, expected: Address): Promise<void> {
  if (((await chain.publicClient.getCode({ address: expected })) ?? '0x') !== '0x') return;
  const hash = await chain.wallets[0]!.sendTransaction({ to: CREATE2_DEPLOYER, data: concat([salt, initCode]) });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  if (((await chain.publicClient.getCode({ address: expected })) ?? '0x') === '0x') throw new Error(`CREATE2 deployment did not land at ${expected}`);
}

/** Deploy a contract of contracts/build from dev account 0; its address. */
async function deploy(chain: GaslessNode, name: string, args: readonly unknown[]): Promise<Address> {
  const artifact = projectArtifact(name);
  const hash = await chain.wallets[0]!.deployContract({ abi: artifact.abi as never, bytecode: artifact.bytecode, args: args as never });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.contractAddress == null) throw new Error(`deploying ${name} failed`);
  return getAddress(receipt.contractAddress);
}

export type GaslessChainOptions = {
  chainId?: number;
  /** Start alto (default true); without it, tests call the EntryPoint themselves. */
  bundler?: boolean;
  /** anvil (default) or Hardhat's OP Stack node, which charges the L1 data fee. */
  node?: 'anvil' | 'op';
};

/** Start the chain, the contracts and the bundler. Call `stop()` in afterAll. */
export async function startGaslessChain(options?: GaslessChainOptions & { node?: 'anvil' }): Promise<GaslessChain>;
export async function startGaslessChain(options: GaslessChainOptions & { node: 'op' }): Promise<GaslessChain<OpNode>>;
export async function startGaslessChain(options: GaslessChainOptions = {}): Promise<GaslessChain<GaslessNode>> {
  const chainId = options.chainId === undefined ? {} : { chainId: options.chainId };
  const op = options.node === 'op';
  const chain: GaslessNode = op ? await startOpNode(chainId) : await startAnnouncerChain({ hardfork: 'prague', ...chainId });
  try {
    if (op) await (chain as OpNode).setCode(CREATE2_DEPLOYER, CREATE2_DEPLOYER_CODE);
    const aa = (name: string) => JSON.parse(readFileSync(new URL(`${name}.json`, AA_ARTIFACTS), 'utf8')) as Artifact;
    await create2(chain, ENTRY_POINT_SALT, aa('EntryPoint').bytecode, ENTRY_POINT_V08);
    await create2(chain, pad('0x0', { size: 32 }), aa('Simple7702Account').bytecode, SIMPLE_7702_ACCOUNT);
    const token = await deploy(chain, 'MintableToken', ['Test USD', 'TUSD', TOKEN_DECIMALS]);
    const owner = chain.accounts[0]!.address;
    const paymaster = await deploy(chain, 'WraithTokenPaymaster', [owner, FEE_ACCOUNT]);
    const paymasterAbi = projectArtifact('WraithTokenPaymaster').abi as never;
    const tokenAbi = projectArtifact('MintableToken').abi as never;
    const write = async (address: Address, abi: never, functionName: string, args: readonly unknown[], value?: bigint) => {
      const hash = await chain.wallets[0]!.writeContract({ address, abi, functionName, args, ...(value === undefined ? {} : { value }) } as never);
      const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
      return receipt;
    };
    const now = (await chain.publicClient.getBlock()).timestamp;
    await write(paymaster, paymasterAbi, 'setToken', [token, TOKEN_PER_ETH, Number(now) + 86_400, 2_000]);
    await write(paymaster, paymasterAbi, 'deposit', [], PAYMASTER_DEPOSIT);

    const bundler = options.bundler === false ? undefined : op ? await startOpAlto(chain) : await startAlto(chain.rpcUrl);
    const entryPointAbi = aa('EntryPoint').abi as never;
    return {
      chain,
      bundlerUrl: bundler?.url ?? '',
      bundler,
      paymaster,
      token,
      async mint(to, amount) {
        await write(token, tokenAbi, 'mint', [to, amount]);
      },
      tokenBalance: (holder) => chain.publicClient.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [holder] } as never) as Promise<bigint>,
      ownerCall: (functionName, args, value) => write(paymaster, paymasterAbi, functionName, args, value),
      deposit: () => chain.publicClient.readContract({ address: ENTRY_POINT_V08, abi: entryPointAbi, functionName: 'balanceOf', args: [paymaster] } as never) as Promise<bigint>,
      async stop() {
        await bundler?.stop();
        await chain.stop();
      },
    };
  } catch (error) {
    await chain.stop();
    throw error;
  }
}

/** alto as an OP Stack bundler, in front of the node through the type-4 relay (stopped with it). */
async function startOpAlto(node: GaslessNode): Promise<JsonRpcProcess> {
  // alto's executor is one of Hardhat's 20 unlocked dev accounts (the same keys as anvil's).
  const relay = await startType4Relay(node.rpcUrl, [privateKeyToAddress(EXECUTOR_KEY)]);
  try {
    const alto = await startAlto(relay.url, { chainType: 'op-stack' });
    return {
      ...alto,
      async stop() {
        await alto.stop();
        await relay.stop();
      },
    };
  } catch (error) {
    await relay.stop();
    throw error;
  }
}

/** alto on a free loopback port in front of `rpcUrl`, ready once it lists EntryPoint v0.8. */
export async function startAlto(rpcUrl: string, options: { chainType?: 'default' | 'op-stack' } = {}): Promise<JsonRpcProcess> {
  const port = await freePort();
  return startJsonRpcProcess({
    name: 'alto',
    command: process.execPath,
    args: [
      ALTO,
      '--entrypoints', ENTRY_POINT_V08,
      '--executor-private-keys', EXECUTOR_KEY,
      '--utility-private-key', UTILITY_KEY,
      '--rpc-url', rpcUrl,
      '--port', String(port),
      '--safe-mode', 'false',
      '--log-level', 'warn',
      // The Scan page calls the bundler from the browser (another origin), as it calls a public bundler.
      '--enable-cors', 'true',
      '--chain-type', options.chainType ?? 'default',
    ],
    url: `http://127.0.0.1:${port}`,
    readyMethod: 'eth_supportedEntryPoints',
    isReady: (result) => Array.isArray(result) && result.some((entry) => typeof entry === 'string' && entry.toLowerCase() === ENTRY_POINT_V08.toLowerCase()),
    timeoutMs: 60_000,
  });
}
