#!/usr/bin/env node
// Compiles the project's Solidity with the npm `solc` pinned in package.json and writes one
// artifact per contract to contracts/build/<Name>.json ({ contractName, source, abi, bytecode,
// deployedBytecode, compiler }). Every `*.sol` under contracts/src (shipped contracts) and
// contracts/test (test-only stand-ins) is compiled; imports resolve from node_modules
// (`@openzeppelin/contracts/...`, `@account-abstraction/contracts/...`).
//
//   node contracts/build.mjs           rebuild the artifacts
//   node contracts/build.mjs --check   rebuild in memory and fail if any artifact differs
//
// The settings are fixed (optimizer 200 runs, EVM cancun, no metadata hash) so a rebuild is
// byte for byte the same on every machine.
import { readFileSync, readdirSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const solc = require('solc');
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const outDir = join(here, 'build');
const check = process.argv.includes('--check');

const sources = {};
for (const dir of ['src', 'test']) {
  const full = join(here, dir);
  if (!existsSync(full)) continue;
  for (const file of readdirSync(full).filter((f) => f.endsWith('.sol')).sort()) {
    sources[`contracts/${dir}/${file}`] = { content: readFileSync(join(full, file), 'utf8') };
  }
}

if (Object.keys(sources).length === 0) {
  console.log('no contracts to build');
  process.exit(0);
}

const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    metadata: { bytecodeHash: 'none' },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  },
};

function findImport(path) {
  for (const base of [root, join(root, 'node_modules')]) {
    const file = join(base, path);
    if (existsSync(file)) return { contents: readFileSync(file, 'utf8') };
  }
  return { error: `not found: ${path}` };
}

const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport }));
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
for (const e of output.errors ?? []) if (e.severity !== 'error') console.warn(e.formattedMessage);
if (errors.length) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}

mkdirSync(outDir, { recursive: true });
let differ = 0;
let written = 0;
for (const source of Object.keys(sources)) {
  for (const [name, contract] of Object.entries(output.contracts[source] ?? {})) {
    if (!contract.evm.bytecode.object) continue; // interfaces and abstract contracts
    const artifact = `${JSON.stringify({
      contractName: name,
      source,
      compiler: `solc ${solc.version()}`,
      abi: contract.abi,
      bytecode: `0x${contract.evm.bytecode.object}`,
      deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
    }, null, 2)}\n`;
    const file = join(outDir, `${name}.json`);
    if (check) {
      const same = existsSync(file) && readFileSync(file, 'utf8') === artifact;
      if (!same) {
        console.error(`differs from a fresh build: ${relative(root, file)}`);
        differ++;
      }
    } else {
      writeFileSync(file, artifact);
    }
    written++;
  }
}
if (check && differ) process.exit(1);
console.log(`${check ? 'checked' : 'wrote'} ${written} artifact(s) with solc ${solc.version()}`);
