/**
 * The SDK README as a user copies it (issue 32, item 7): every ```ts snippet of sdk/README.md
 * type-checks under `strict`, against the built SDK's declarations, the DOM lib and
 * `@types/node` 20 (the engines minimum), with TypeScript's own compiler. Each snippet is its own
 * module; what it takes as given (keys, a discovery, a wallet) is declared in
 * tests/client/readme/context.d.ts with the SDK's types. And every link of the README works from
 * the npm package, where the repository's other files are not: an absolute URL, an anchor of the
 * README itself, or a file the package ships.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_DIR, temporaryDirectory } from '../helpers/server.ts';

const SDK_DIR = join(PROJECT_DIR, 'sdk');
const README = readFileSync(join(SDK_DIR, 'README.md'), 'utf8');
const TYPES_NODE = JSON.parse(readFileSync(join(PROJECT_DIR, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string };
const ENGINES = (JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

type Snippet = { line: number; code: string };

/** The ```ts blocks of `markdown` (also indented ones, inside lists), each with the line its code starts on. */
export function tsSnippets(markdown: string): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```ts\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    snippets.push({ line: start + 1, code: lines.slice(start, end).map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length))).join('\n') });
    i = end;
  }
  return snippets;
}

const work = temporaryDirectory('wraith-readme-');
let snippets: Snippet[];

beforeAll(() => {
  if (!existsSync(join(SDK_DIR, 'dist/index.d.ts'))) throw new Error('No SDK build: run `npm run build -w @wraith-pq/sdk` first.');
  snippets = tsSnippets(README);
  // A consumer project: the SDK as installed (its package.json exports, its declarations), viem,
  // @mysten/sui and @types/node from this checkout.
  const modules = join(work.path, 'node_modules');
  for (const [name, target] of [
    ['@wraith-pq/sdk', SDK_DIR],
    ['viem', join(PROJECT_DIR, 'node_modules/viem')],
    ['@mysten/sui', join(PROJECT_DIR, 'node_modules/@mysten/sui')],
    ['@types/node', join(PROJECT_DIR, 'node_modules/@types/node')],
  ] as const) {
    mkdirSync(join(modules, name, '..'), { recursive: true });
    symlinkSync(target, join(modules, name), 'dir');
  }
  copyFileSync(new URL('./readme/context.d.ts', import.meta.url), join(work.path, 'context.d.ts'));
  snippets.forEach((snippet, i) => writeFileSync(join(work.path, `snippet-${i}.ts`), `${snippet.code}\nexport {};\n`));
  writeFileSync(join(work.path, 'package.json'), JSON.stringify({ name: 'readme-consumer', private: true, type: 'module' }));
  writeFileSync(
    join(work.path, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        types: ['node'],
        // The snippets are checked, not the libraries' own declarations.
        skipLibCheck: true,
      },
      include: ['context.d.ts', 'snippet-*.ts'],
    }),
  );
});
afterAll(() => work.remove());

describe('the SDK README', () => {
  it(`checks against @types/node of the engines minimum (${ENGINES})`, () => {
    expect(TYPES_NODE.version.split('.')[0]).toBe(/\d+/.exec(ENGINES)![0]);
  });

  it('has TypeScript snippets, every one of which compiles under strict with the DOM lib and @types/node 20', { timeout: 180_000 }, () => {
    expect(snippets.length).toBeGreaterThan(10);
    const tsc = spawnSync(process.execPath, [join(PROJECT_DIR, 'node_modules/typescript/bin/tsc'), '-p', work.path, '--pretty', 'false'], { cwd: work.path, encoding: 'utf8' });
    // Errors named by the README line they are on.
    const errors = tsc.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        const at = /^snippet-(\d+)\.ts\((\d+),(\d+)\): (.*)$/.exec(l);
        return at ? `README.md:${snippets[Number(at[1])]!.line + Number(at[2]) - 1}:${at[3]} ${at[4]}` : l;
      });
    expect(errors).toEqual([]);
    expect(tsc.status).toBe(0);
  });

  it('links only to what the npm package holds: absolute URLs, its own anchors, or files it ships', () => {
    const { files } = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as { files: string[] };
    const links = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    const broken = links.filter((link) => {
      if (/^https:\/\//.test(link) || link.startsWith('#')) return false;
      const path = link.replace(/^\.\//, '').replace(/#.*$/, '');
      return !(files.includes(path) && existsSync(join(SDK_DIR, path)));
    });
    expect(broken).toEqual([]);
  });
});
