/**
 * The command line as users run it: `node cli/bin/wraith.js …` in a child process (the compiled
 * cli/dist, built by `npm run build`), with its own environment (no WRAITH_* variable leaks in
 * from the test runner), optional stdin, and its exit status, stdout and stderr.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_DIR } from '../helpers/server.ts';

const BIN = join(PROJECT_DIR, 'cli', 'bin', 'wraith.js');

export type CliRun = { code: number | null; stdout: string; stderr: string };

export function requireCliBuild(): void {
  if (!existsSync(join(PROJECT_DIR, 'cli', 'dist', 'main.js'))) throw new Error('cli/dist is missing: run `npm run build` (it builds the SDK and the CLI) first.');
}

/** Run `wraith ...args` in `cwd` with `env` added to a clean environment; `input` is piped to stdin. */
export function runCli(args: string[], options: { env?: Record<string, string>; input?: string; cwd?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WRAITH_'))) as NodeJS.ProcessEnv;
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? PROJECT_DIR,
    env: { ...base, ...options.env } as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** The JSON lines of a `--json` run. */
export function jsonLines(stdout: string): Record<string, any>[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** The one-line error format: `wraith: CODE: message — what to do`. */
export const ERROR_LINE = /^wraith: [A-Z_]+: [^\n]+ — [^\n]+\n$/;

/**
 * `runCli` in `cwd` with `env` (plus what each call adds) that keeps every run, so a test can
 * check at the end that no run printed a secret.
 */
export function recordingCli(cwd: string, env: Record<string, string>): { cli: (args: string[], extra?: Record<string, string>) => Promise<CliRun>; runs: CliRun[] } {
  const runs: CliRun[] = [];
  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const run = await runCli(args, { env: { ...env, ...extra }, cwd });
    runs.push(run);
    return run;
  };
  return { cli, runs };
}

/**
 * `wraith ...args` on a pseudo-terminal (`script`, util-linux), as an interactive shell runs it,
 * typing `answer` at the first `[y/N] ` question; stdout and stderr arrive mixed, as on a screen.
 */
export function runOnTerminal(args: string[], answer: string, options: { env?: Record<string, string>; cwd?: string } = {}): Promise<{ code: number | null; output: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WRAITH_'))) as NodeJS.ProcessEnv;
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', quoted, '/dev/null'], { cwd: options.cwd ?? PROJECT_DIR, env: { ...base, ...options.env } as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let answered = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    if (!answered && output.includes('[y/N] ')) {
      answered = true;
      child.stdin.write(`${answer}\r`);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}
