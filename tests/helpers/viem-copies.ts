/**
 * viem as an app may hand it to the SDK, other than the module instance the SDK's `/evm` entry
 * imports (issue 32, item 3): viem's CommonJS build, as `require('viem')` loads it in a CommonJS
 * app (the SDK loads the ESM build), and a second copy of the package in another node_modules,
 * as a bundler or a lockfile with two versions gives. Either way viem's classes (its errors
 * above all) are other objects than the SDK's, so only names and codes can recognise them.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { temporaryDirectory } from './server.ts';

export type ViemFlavor = {
  label: string;
  viem: typeof import('viem');
  accounts: typeof import('viem/accounts');
  chains: typeof import('viem/chains');
  /** Delete what was copied (nothing for the CommonJS build). */
  remove(): void;
};

const require = createRequire(import.meta.url);
/** The project's viem, where both flavours come from. */
const VIEM_DIR = dirname(require.resolve('viem/package.json'));

/** The CommonJS build of the project's viem, loaded with `require`. */
export function commonJsViem(): ViemFlavor {
  return { label: "CommonJS require('viem')", viem: require('viem'), accounts: require('viem/accounts'), chains: require('viem/chains'), remove() {} };
}

/**
 * A copy of viem's package (its ESM build and its own nested dependencies) in a temporary
 * node_modules, its other dependencies linked from the project's, imported from there.
 */
export async function copiedViem(): Promise<ViemFlavor> {
  const directory = temporaryDirectory('wraith-viem-copy-');
  const modules = join(directory.path, 'node_modules');
  const copy = join(modules, 'viem');
  for (const part of ['package.json', '_esm', 'node_modules']) if (existsSync(join(VIEM_DIR, part))) cpSync(join(VIEM_DIR, part), join(copy, part), { recursive: true });
  const { dependencies } = JSON.parse(readFileSync(join(VIEM_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of Object.keys(dependencies)) {
    if (existsSync(join(copy, 'node_modules', name))) continue;
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(dirname(VIEM_DIR), name), join(modules, name), 'dir');
  }
  const load = (path: string) => import(pathToFileURL(join(copy, '_esm', path)).href);
  const [viem, accounts, chains] = await Promise.all([load('index.js'), load('accounts/index.js'), load('chains/index.js')]);
  return { label: 'a second copy of viem', viem, accounts, chains, remove: directory.remove };
}
