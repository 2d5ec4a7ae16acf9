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
import { compileContracts, startAnvil, type Artifact } from './anvil.ts';

const SOURCES = new URL('../fixtures/ens/', import.meta.url);
/** anvil's first dev account (a public, well-known test key; never holds real funds). */
const DEPLOYER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';


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

/** Compile every contract of tests/fixtures/ens (once per process). */
export function compileEnsContracts(): Record<string, Artifact> {
  return compileContracts(SOURCES);
}

/** Start anvil and deploy ENS. Call `stop()` in afterAll. */
export async function startEnsChain(): Promise<EnsChain> {
  const artifacts = compileEnsContracts();
  const anvil = await startAnvil();
  const { rpcUrl } = anvil;
  try {
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
        await anvil.stop();
      },
    };
  } catch (error) {
    await anvil.stop();
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
