/**
 * The npm package as users get it: `npm pack` of sdk/ holds the built entry points, their type
 * declarations, README and CHANGELOG, and nothing else (no sources, tests, source maps or
 * server code); every subpath of the exports map resolves; and the packed package works from
 * ESM, from CommonJS through `require` (Node >= 20.19 loads ES modules with require), and
 * for TypeScript consumers. The packed tarball is installed into a throwaway project whose
 * dependencies link to this checkout's node_modules (no network); a second one lacks the optional
 * peer dependencies viem and @mysten/sui, which only the chain entries `/evm` and `/sui` need.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_DIR, temporaryDirectory } from '../helpers/server.ts';

const SDK_DIR = join(PROJECT_DIR, 'sdk');
const manifest = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  engines: { node: string };
  exports: Record<string, string | { types: string; default: string }>;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

type PackResult = { filename: string; files: { path: string; size: number }[]; unpackedSize: number };

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' } });
}

const work = temporaryDirectory('wraith-pack-');
let dryRun: PackResult;
let consumer: string;
/** A consumer without the optional peer dependencies (viem, @mysten/sui): the core entries must not need them. */
let coreOnly: string;

/** Unpack the tarball as `node_modules/<name>` of a new project `dir`, linking `dependencies` to this checkout's. */
function install(dir: string, tarball: string, dependencies: string[]): void {
  const installed = join(dir, 'node_modules', manifest.name);
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const dependency of dependencies) {
    const target = join(dir, 'node_modules', dependency);
    mkdirSync(join(target, '..'), { recursive: true });
    symlinkSync(join(PROJECT_DIR, 'node_modules', dependency), target);
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
}

beforeAll(() => {
  // prepack builds dist/ from the sources first, so the listing is of a fresh build.
  dryRun = (JSON.parse(npm(['pack', '--dry-run', '--json'], SDK_DIR)) as PackResult[])[0]!;
  const packed = (JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work.path], SDK_DIR)) as PackResult[])[0]!;

  consumer = join(work.path, 'consumer');
  install(consumer, join(work.path, packed.filename), [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies ?? {})]);
  coreOnly = join(work.path, 'core-only');
  install(coreOnly, join(work.path, packed.filename), Object.keys(manifest.dependencies));
}, 180_000);
afterAll(() => work.remove());

function run(file: string, source: string, dir = consumer): { stdout: string; stderr: string; status: number | null } {
  writeFileSync(join(dir, file), source);
  const result = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}

const exportTargets = () =>
  Object.entries(manifest.exports).flatMap(([, target]) => (typeof target === 'string' ? [target] : [target.types, target.default])).map((p) => p.replace(/^\.\//, ''));

describe('npm pack', () => {
  it('holds only dist JavaScript and declarations, README, CHANGELOG and package.json', () => {
    const paths = dryRun.files.map((f) => f.path);
    const unexpected = paths.filter((p) => !/^(package\.json|README\.md|CHANGELOG\.md|dist\/.+\.(js|d\.ts))$/.test(p));
    expect(unexpected).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'CHANGELOG.md']));
  });

  it('leaves out sources, tests, source maps, WebAssembly sources and anything from the server', () => {
    const paths = dryRun.files.map((f) => f.path);
    expect(paths.filter((p) => /(^|\/)(src|test|tests|assembly|scripts|lib|app|docs)\//.test(p) || /\.(map|ts)$/.test(p.replace(/\.d\.ts$/, '')) || /\.env/.test(p))).toEqual([]);
  });

  it('contains every file the exports map points at', () => {
    const paths = new Set(dryRun.files.map((f) => f.path));
    expect(exportTargets().filter((target) => !paths.has(target))).toEqual([]);
  });

  it('ships a declaration file beside every JavaScript file', () => {
    const paths = new Set(dryRun.files.map((f) => f.path));
    const js = [...paths].filter((p) => p.endsWith('.js'));
    expect(js.filter((p) => !paths.has(p.replace(/\.js$/, '.d.ts')))).toEqual([]);
  });

  // 400 kB until issue 16 added the @wraith-pq/sdk/evm entry, sealed notes and their docs (407 kB then);
  // 440 kB until issue 18's pay/balances/withdraw and issue 19's scan-input reporting (447 kB then).
  // The Sui entry of issue 18 (code, declarations, README section) took it to 473 kB, and issue 17's
  // faster page decoding (raw-byte checksums, the ASCII text path, their docs) to 483 kB. Issue 24's
  // per-chain fee pricing took it to 512 kB; issue 25's ERC-8441 core, ERC-6538 registration, the
  // scanner's scheme-3 path and the layout-2 decoder with its reference (code, declarations, README
  // sections) to 631 kB, and its WebAssembly scheme-3 scanner (the module's secp256k1 batch and
  // combiner, 9.5 -> 19.2 kB of WebAssembly shipped as base64 in two builds' files, the recoding
  // and batch glue with declarations and maps) to 681 kB; feePaidOf and the review's fixes to 703 kB.
  // estimatePayment with PaymentFees (code, declarations, maps, README and CHANGELOG) took it to 718 kB.
  // Issue 32's SDK part (viem errors by name, checksumProblem, pricedAt, worker types, the README's
  // compiled Node worker example and fee words, CHANGELOG) to 739 kB. Issues 30-33 together took it
  // to 881 kB: gasless withdrawals (gasless.js 18.7 kB with its declarations and map), WraithPay (its
  // init code and ABI as TypeScript, the contract route), the note that names its asset, the shared
  // history records, fingerprints and name registration, with their README and CHANGELOG sections.
  // The paymaster's fee by permit (permit.js), the OP Stack quote room, the allowance reset and
  // PaymentNotAnnouncedError's hash, with their README and CHANGELOG lines: 902 kB.
  it('stays small: under 940 kB unpacked', () => {
    expect(dryRun.unpackedSize).toBeLessThan(940_000);
  });
});

describe('the packed package', () => {
  it('works with require() from CommonJS on this Node (>= 20.19): keys, payment, scan and the client', () => {
    expect(manifest.engines.node).toBe('>=20.19');
    const { stdout, stderr, status } = run(
      'check.cjs',
      `const sdk = require('${manifest.name}');
       const { createClient } = require('${manifest.name}/client');
       const { scanAnnouncements } = require('${manifest.name}/scan');
       const { sealKeys } = require('${manifest.name}/keystore');
       const keys = sdk.generateKeys();
       const payment = sdk.createStealthPayment(keys.metaAddress);
       const rows = [{ id: 1, ephemeral_key: sdk.bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag }];
       const found = scanAnnouncements(keys, rows).discoveries[0].stealthAddress === payment.stealthAddress;
       console.log(JSON.stringify({ found, client: typeof createClient({ baseUrl: 'http://localhost:3001' }).scan, seal: typeof sealKeys, same: sdk.createClient === createClient }));`,
    );
    expect(stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, '')).toBe('');
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ found: true, client: 'function', seal: 'function', same: true });
  });

  it('imports every subpath of the exports map from ESM', () => {
    const subpaths = Object.keys(manifest.exports).filter((s) => s !== './package.json');
    const { stdout, status, stderr } = run(
      'check.mjs',
      `const names = ${JSON.stringify(subpaths)};
       const out = {};
       for (const s of names) out[s] = Object.keys(await import('${manifest.name}' + s.slice(1))).length;
       console.log(JSON.stringify(out));`,
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const counts = JSON.parse(stdout) as Record<string, number>;
    expect(Object.keys(counts).sort()).toEqual([...subpaths].sort());
    for (const subpath of subpaths.filter((s) => s !== './scan-worker')) expect(counts[subpath], subpath).toBeGreaterThan(0);
  });

  it('declares viem and @mysten/sui as optional peer dependencies of the chain entries only', () => {
    expect(manifest.peerDependencies).toEqual({ viem: expect.stringMatching(/^\^2\./), '@mysten/sui': expect.stringMatching(/^\^2\./) });
    expect((manifest as { peerDependenciesMeta?: unknown }).peerDependenciesMeta).toEqual({ viem: { optional: true }, '@mysten/sui': { optional: true } });
    expect(Object.keys(manifest.dependencies)).not.toContain('viem');
    expect(Object.keys(manifest.dependencies)).not.toContain('@mysten/sui');
  });

  it('the chain entry works with viem beside it, from ESM and CommonJS', () => {
    const check = (sdk: string, evm: string) => `
       const keys = ${sdk}.generateKeys();
       const payment = ${sdk}.createStealthPayment(keys.metaAddress);
       const call = ${evm}.announceParameters({ payment, note: { amount: 1n } });
       console.log(JSON.stringify({ fn: call.functionName, to: call.address, scheme: String(call.args[0]), metadata: call.args[3].length, cursor: ${evm}.chainCursor(2n, 1) }));`;
    const expected = { fn: 'announce', to: '0x55649E01B5Df198D18D95b5cc5051630cfD45564', scheme: '1000', metadata: 2 + 2 * 93, cursor: 2 * 2 ** 20 + 1 };
    const esm = run('evm.mjs', `import * as sdk from '${manifest.name}'; import * as evm from '${manifest.name}/evm';${check('sdk', 'evm')}`);
    expect(esm.stderr).toBe('');
    expect(JSON.parse(esm.stdout)).toEqual(expected);
    const cjs = run('evm.cjs', `const sdk = require('${manifest.name}'); const evm = require('${manifest.name}/evm');${check('sdk', 'evm')}`);
    expect(cjs.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, '')).toBe('');
    expect(JSON.parse(cjs.stdout)).toEqual(expected);
  });

  it('the Sui entry works with @mysten/sui beside it, from ESM and CommonJS: the one-time key signs for the payment\'s Sui address', () => {
    const check = (sdk: string, sui: string) => `
       const keys = ${sdk}.generateKeys();
       const payment = ${sdk}.createStealthPayment(keys.metaAddress);
       const rows = [{ id: 1, ephemeral_key: ${sdk}.bytesToHex(payment.ephemeralCiphertext), view_tag: payment.viewTag }];
       const [discovery] = ${sdk}.scanAnnouncements(keys, rows).discoveries;
       const keypair = ${sui}.suiStealthKeypair(discovery.stealthSecretKey);
       let refused = null;
       try { ${sui}.suiStealthKeypair(new Uint8Array(32)); } catch (e) { refused = e.code; }
       console.log(JSON.stringify({ same: keypair.toSuiAddress() === payment.stealthSuiAddress, scheme: keypair.getKeyScheme(), withdraw: typeof ${sui}.withdrawSui, refused }));`;
    const expected = { same: true, scheme: 'Secp256k1', withdraw: 'function', refused: 'INVALID_ARGUMENT' };
    const esm = run('sui.mjs', `import * as sdk from '${manifest.name}'; import * as sui from '${manifest.name}/sui';${check('sdk', 'sui')}`);
    expect(esm.stderr).toBe('');
    expect(JSON.parse(esm.stdout)).toEqual(expected);
    const cjs = run('sui.cjs', `const sdk = require('${manifest.name}'); const sui = require('${manifest.name}/sui');${check('sdk', 'sui')}`);
    expect(cjs.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, '')).toBe('');
    expect(JSON.parse(cjs.stdout)).toEqual(expected);
  });

  it('every entry but the chain entries loads without viem and @mysten/sui installed', () => {
    const subpaths = Object.keys(manifest.exports).filter((s) => s !== './package.json');
    const { stdout, stderr, status } = run(
      'core.mjs',
      `const out = {};
       for (const s of ${JSON.stringify(subpaths)}) {
         try { await import('${manifest.name}' + s.slice(1)); out[s] = 'ok'; } catch (e) {
           const missing = e.code === 'ERR_MODULE_NOT_FOUND' && /'(viem|@mysten\\/sui)'/.exec(e.message);
           out[s] = missing ? 'needs ' + missing[1] : String(e);
         }
       }
       console.log(JSON.stringify(out));`,
      coreOnly,
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const needs: Record<string, string> = { './evm': 'needs viem', './sui': 'needs @mysten/sui' };
    expect(JSON.parse(stdout)).toEqual(Object.fromEntries(subpaths.map((s) => [s, needs[s] ?? 'ok'])));
  });

  it('gives TypeScript consumers types, from ESM and from CommonJS (module nodenext)', () => {
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: [], lib: ['ES2022', 'DOM'] } }));
    writeFileSync(
      join(consumer, 'esm.mts'),
      `import { createStealthPayment, generateKeys, type RecipientKeys } from '${manifest.name}';
       import { createClient, ApiError, type WraithClient } from '${manifest.name}/client';
       import { scanRegistry } from '${manifest.name}/scan';
       const keys: RecipientKeys = generateKeys();
       const client: WraithClient = createClient({ baseUrl: 'http://localhost:3001' });
       export const run = async () => { for await (const batch of scanRegistry(client.announcementPages, keys)) batch.cursor.toFixed(); };
       export const isApi = (e: unknown) => e instanceof ApiError && e.code === 'RATE_LIMITED';
       // @ts-expect-error the client returns typed JSON: no such field
       export const wrong = async () => (await client.getRegistryStats()).totalAnnouncements;
       import { announceParameters, chainAnnouncementPages, type ChainAnnouncement } from '${manifest.name}/evm';
       export const call = announceParameters({ payment: createStealthPayment(keys.metaAddress) }).args;
       export const pages = (provider: { request(args: { method: string; params?: unknown }): Promise<unknown> }) => scanRegistry(chainAnnouncementPages({ client: provider }), keys);
       export const blockOf = (a: ChainAnnouncement): number => a.blockNumber;
       import { suiStealthKeypair, withdrawSui, SuiInsufficientGasError, type WithdrawSuiReturnType } from '${manifest.name}/sui';
       import type { SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
       export const suiAddress: string = suiStealthKeypair(new Uint8Array(32).fill(1)).toSuiAddress();
       export const sweep = (client: SuiJsonRpcClient, key: Uint8Array): Promise<WithdrawSuiReturnType> => withdrawSui({ client, stealthSecretKey: key, to: suiAddress });
       export const short = (e: unknown): bigint | null => (e instanceof SuiInsufficientGasError ? e.required : null);
       // @ts-expect-error the sweep returns no such field
       export const wrongSui = async (client: SuiJsonRpcClient) => (await withdrawSui({ client, stealthSecretKey: '0x', to: suiAddress })).hash;`,
    );
    writeFileSync(
      join(consumer, 'cjs.cts'),
      `import sdk = require('${manifest.name}');
       export const keys: Uint8Array = sdk.generateKeys().metaAddress;`,
    );
    const tsc = spawnSync(process.execPath, [join(PROJECT_DIR, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: consumer, encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    // Checking @mysten/sui's declarations too (skipLibCheck false) adds ~10 s of CPU to this compile
    // (measured 12 s user for the Sui lines alone); on a loaded 2-core machine that passed 60 s.
  }, 240_000);
});
