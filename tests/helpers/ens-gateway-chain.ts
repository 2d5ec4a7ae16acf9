/**
 * ENS with a CCIP-Read gateway on an anvil chain, for the gateway tests: the ENS registry
 * (@ensdomains/ens 0.6.2) and OffchainResolver (@ensdomains/offchain-resolver-contracts 0.2.1)
 * from their npm artifacts (tests/fixtures/ens-gateway/SOURCES.txt), and the project's
 * UniversalResolver stand-in (contracts/test/GatewayUniversalResolver.sol, compiled by
 * contracts/build.mjs). The deployer (the chain's first dev wallet) owns the root.
 *
 * @example
 * const ens = await deployGatewayEns(chain.wallets[0], chain.publicClient, { url, signer, parent: 'wraith.eth' });
 * const viem = createPublicClient({ chain: ens.viemChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl) });
 * await getEnsAddress(viem, { name: 'alice.wraith.eth' });
 */
import { readFileSync } from 'node:fs';
import { defineChain, type Abi, type Address, type Hex, type PublicClient, type WalletClient } from 'viem';
import { labelhash, namehash } from 'viem/ens';

type Artifact = { abi: Abi; bytecode: Hex };
const read = (url: URL): Artifact => JSON.parse(readFileSync(url, 'utf8')) as Artifact;
export const ENS_REGISTRY_ARTIFACT = read(new URL('../fixtures/ens-gateway/ENSRegistry.json', import.meta.url));
export const OFFCHAIN_RESOLVER_ARTIFACT = read(new URL('../fixtures/ens-gateway/OffchainResolver.json', import.meta.url));
export const UNIVERSAL_RESOLVER_ARTIFACT = read(new URL('../../contracts/build/GatewayUniversalResolver.json', import.meta.url));

export type GatewayEns = {
  registry: Address;
  resolver: Address;
  universalResolver: Address;
  /** Give `name` (and missing parents) to `owner` and set its resolver (default: the gateway's). */
  register(name: string, owner: Address, resolver?: Address): Promise<void>;
  /** A viem chain whose ENS contracts are these (viem needs `ensUniversalResolver` on a local chain). */
  viemChain(rpcUrl: string, chainId: number): ReturnType<typeof defineChain>;
};

export async function deployGatewayEns(wallet: WalletClient, client: PublicClient, options: { url: string; signers: Address[]; parent: string }): Promise<GatewayEns> {
  const account = wallet.account!;
  const deploy = async (artifact: Artifact, args: unknown[]): Promise<Address> => {
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, account, chain: wallet.chain } as never);
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.contractAddress == null) throw new Error('deployment failed');
    return receipt.contractAddress;
  };
  const send = async (address: Address, functionName: string, args: unknown[]) => {
    const hash = await wallet.writeContract({ address, abi: ENS_REGISTRY_ARTIFACT.abi, functionName, args, account, chain: wallet.chain } as never);
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
  };
  const registry = await deploy(ENS_REGISTRY_ARTIFACT, []);
  const resolver = await deploy(OFFCHAIN_RESOLVER_ARTIFACT, [options.url, options.signers]);
  const universalResolver = await deploy(UNIVERSAL_RESOLVER_ARTIFACT, [registry]);
  const register: GatewayEns['register'] = async (name, owner, nameResolver = resolver) => {
    const labels = name.split('.');
    for (let i = labels.length - 1; i >= 0; i--) {
      await send(registry, 'setSubnodeOwner', [namehash(labels.slice(i + 1).join('.')), labelhash(labels[i]!), account.address]);
    }
    await send(registry, 'setResolver', [namehash(name), nameResolver]);
    if (owner.toLowerCase() !== account.address.toLowerCase()) await send(registry, 'setOwner', [namehash(name), owner]);
  };
  await register(options.parent, account.address);
  return {
    registry,
    resolver,
    universalResolver,
    register,
    viemChain: (rpcUrl, chainId) =>
      defineChain({
        id: chainId,
        name: 'anvil with ENS',
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [rpcUrl] } },
        contracts: { ensUniversalResolver: { address: universalResolver } },
      }),
  };
}
