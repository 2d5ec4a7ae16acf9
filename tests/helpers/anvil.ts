/**
 * The two pieces every chain fixture needs: anvil (the real Ethereum node from
 * @foundry-rs/anvil) on a free loopback port, and Solidity sources compiled with solc (wasm, from
 * npm), once per directory and process. tests/helpers/ens-anvil.ts, tests/helpers/announcer-chain.ts
 * and bench/indexer.ts build on them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import solc from 'solc';
import type { Abi, Hex } from 'viem';
import { startJsonRpcProcess } from './json-rpc-process.ts';
import { freePort } from './server.ts';

const ANVIL_BINARY = new URL('../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url).pathname;
const READY_TIMEOUT_MS = 20_000;

export type Anvil = {
  rpcUrl: string;
  /** Stop the node and wait for it to exit. */
  stop(): Promise<void>;
};

/** Start anvil on 127.0.0.1 with `args` added (e.g. `--block-time 1`); resolves once it answers JSON-RPC. */
export async function startAnvil(args: readonly string[] = []): Promise<Anvil> {
  const port = await freePort();
  const node = await startJsonRpcProcess({
    name: 'anvil',
    command: ANVIL_BINARY,
    args: ['--port', String(port), '--host', '127.0.0.1', '--silent', ...args],
    url: `http://127.0.0.1:${port}`,
    timeoutMs: READY_TIMEOUT_MS,
  });
  return { rpcUrl: node.url, stop: node.stop };
}

export type Artifact = { abi: Abi; bytecode: Hex; deployedBytecode: Hex };

const compiled = new Map<string, Record<string, Artifact>>();

/** Compile every `.sol` file of `directory` (optimizer on), once per process; contracts by name. */
export function compileContracts(directory: URL): Record<string, Artifact> {
  const cached = compiled.get(directory.href);
  if (cached) return cached;
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(directory).filter((f) => f.endsWith('.sol'))) sources[file] = { content: readFileSync(new URL(file, directory), 'utf8') };
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const artifacts: Record<string, Artifact> = {};
  for (const contracts of Object.values(output.contracts)) {
    for (const [name, contract] of Object.entries(contracts)) {
      artifacts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}`, deployedBytecode: `0x${contract.evm.deployedBytecode.object}` };
    }
  }
  compiled.set(directory.href, artifacts);
  return artifacts;
}
