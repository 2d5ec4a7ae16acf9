/**
 * A real Ethereum chain with ENS, for tests: anvil (from @foundry-rs/anvil) on a free loopback
 * port, with the contracts of tests/fixtures/ens compiled by solc (wasm) and deployed:
 * the registry, a public-resolver-compatible resolver and a Universal Resolver with the
 * interface viem's ENS actions call. The deployer (anvil's first well-known dev account) owns
 * the root, so `register` can create any name.
 *
 * @example
 * const chain = await startEnsChain();
 * await chain.register('alice.eth');
 * await chain.setText('alice.eth', 'stealth-meta', 'ipfs://bafkrei…');
 * // ETH_RPC_URL=chain.rpcUrl, ENS_UNIVERSAL_RESOLVER=chain.universalResolver
 * await chain.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import solc from 'solc';
import {
  createPublicClient,
  createWalletClient,
  http,
  toHex,
  zeroAddress,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { labelhash, namehash } from 'viem/ens';

const ANVIL_BINARY = new URL('../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url).pathname;
const SOURCES = new URL('../fixtures/ens/', import.meta.url);
/** anvil's first dev account (a public, well-known test key; never holds real funds). */
const DEPLOYER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const READY_TIMEOUT_MS = 20_000;

type Artifact = { abi: Abi; bytecode: Hex };

export type EnsChain = {
  /** JSON-RPC URL of the chain (set ETH_RPC_URL to it). */
  rpcUrl: string;
  /** The Universal Resolver (set ENS_UNIVERSAL_RESOLVER to it). */
  universalResolver: Address;
  registry: Address;
  /** The resolver `register` sets by default. */
  publicResolver: Address;
  /** Create `name` (and its missing parents) owned by the deployer, with a resolver (default: the public resolver; `null` for none). */
  register(name: string, options?: { resolver?: Address | null }): Promise<void>;
  /** Set a text record on the public resolver. */
  setText(name: string, key: string, value: string): Promise<void>;
  /** Set the EIP-1577 content hash on the public resolver. */
  setContenthash(name: string, contenthash: Uint8Array | Hex): Promise<void>;
  /** Deploy an ENSIP-10 wildcard resolver answering `text` with `values` for every name under `name`, and set it on `name`. */
  setWildcardResolver(name: string, values: Record<string, string>): Promise<Address>;
  stop(): Promise<void>;
};

let compiled: Record<string, Artifact> | undefined;

/** Compile every contract of tests/fixtures/ens (once per process). */
export function compileEnsContracts(): Record<string, Artifact> {
  if (compiled) return compiled;
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(SOURCES).filter((f) => f.endsWith('.sol'))) {
    sources[file] = { content: readFileSync(new URL(file, SOURCES), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const artifacts: Record<string, Artifact> = {};
  for (const contracts of Object.values(output.contracts)) {
    for (const [name, contract] of Object.entries(contracts)) {
      artifacts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
    }
  }
  compiled = artifacts;
  return artifacts;
}

/** Start anvil and deploy ENS. Call `stop()` in afterAll. */
export async function startEnsChain(): Promise<EnsChain> {
  const artifacts = compileEnsContracts();
  const port = await freePort();
  const rpcUrl = `http://127.0.0.1:${port}`;
  const anvil = spawn(ANVIL_BINARY, ['--port', String(port), '--host', '127.0.0.1', '--silent'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => anvil.once('exit', () => resolve()));
  try {
    await waitForRpc(rpcUrl, anvil);
    const account = privateKeyToAccount(DEPLOYER_KEY);
    const transport = http(rpcUrl, { retryCount: 0 });
    const publicClient = createPublicClient({ chain: foundry, transport });
    const wallet = createWalletClient({ account, chain: foundry, transport });
    const deploy = async (name: string, args: unknown[] = []): Promise<Address> => {
      const { abi, bytecode } = artifacts[name]!;
      const hash = await wallet.deployContract({ abi, bytecode, args, account, chain: foundry });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.contractAddress == null) throw new Error(`deploying ${name} failed`);
      return receipt.contractAddress;
    };
    const registry = await deploy('ENSRegistry');
    const publicResolver = await deploy('PublicResolver', [registry]);
    const universalResolver = await deploy('UniversalResolver', [registry]);
    const send = sender(publicClient, wallet, account.address);

    const register: EnsChain['register'] = async (name, options = {}) => {
      const labels = name.split('.');
      for (let i = labels.length - 1; i >= 0; i--) {
        const parent = labels.slice(i + 1).join('.');
        await send(registry, artifacts.ENSRegistry!.abi, 'setSubnodeOwner', [namehash(parent), labelhash(labels[i]!), account.address]);
      }
      const resolver = options.resolver === undefined ? publicResolver : (options.resolver ?? zeroAddress);
      await send(registry, artifacts.ENSRegistry!.abi, 'setResolver', [namehash(name), resolver]);
    };

    return {
      rpcUrl,
      universalResolver,
      registry,
      publicResolver,
      register,
      setText: (name, key, value) => send(publicResolver, artifacts.PublicResolver!.abi, 'setText', [namehash(name), key, value]),
      setContenthash: (name, contenthash) =>
        send(publicResolver, artifacts.PublicResolver!.abi, 'setContenthash', [
          namehash(name),
          typeof contenthash === 'string' ? contenthash : toHex(contenthash),
        ]),
      setWildcardResolver: async (name, values) => {
        const wildcard = await deploy('WildcardResolver');
        for (const [key, value] of Object.entries(values)) await send(wildcard, artifacts.WildcardResolver!.abi, 'setValue', [key, value]);
        await register(name, { resolver: wildcard });
        return wildcard;
      },
      stop: async () => {
        anvil.kill('SIGTERM');
        await exited;
      },
    };
  } catch (error) {
    anvil.kill('SIGKILL');
    throw error;
  }
}

function sender(publicClient: PublicClient, wallet: WalletClient, from: Address) {
  return async (address: Address, abi: Abi, functionName: string, args: unknown[]): Promise<void> => {
    const hash = await wallet.writeContract({ address, abi, functionName, args, account: from, chain: foundry });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForRpc(rpcUrl: string, process: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (process.exitCode !== null) throw new Error(`anvil exited with code ${process.exitCode}`);
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`anvil did not start within ${READY_TIMEOUT_MS} ms`);
}
