/**
 * The hidden password prompt on a real terminal: the CLI runs under `script` (util-linux), which
 * gives it a pseudo-terminal, and the test types at the prompt only once it is shown. The typed
 * password is not echoed, a new keystore asks twice and refuses two different answers, and a
 * wrong password typed at the prompt fails like a wrong WRAITH_PASSWORD.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMetaAddressUri, openKeys } from '@wraith-pq/sdk';
import { PROJECT_DIR, temporaryDirectory } from '../helpers/server.ts';
import { requireCliBuild } from './run-cli.ts';

const dir = temporaryDirectory('wraith-cli-prompt-');
const BIN = join(PROJECT_DIR, 'cli', 'bin', 'wraith.js');

/** Run `wraith ...args` on a pseudo-terminal; each answer is typed when its prompt appears. */
function onTerminal(args: string[], answers: { prompt: string; type: string }[]): Promise<{ code: number | null; output: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WRAITH_'))) as NodeJS.ProcessEnv;
  const command = [process.execPath, BIN, ...args].join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: dir.path, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let next = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    const answer = answers[next];
    if (answer !== undefined && output.split(answer.prompt).length - 1 > countPrompts(answers.slice(0, next), answer.prompt)) {
      next += 1;
      child.stdin.write(`${answer.type}\r`);
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

/** How many of the earlier answers waited for the same prompt text. */
function countPrompts(earlier: { prompt: string }[], prompt: string): number {
  return earlier.filter((a) => a.prompt === prompt).length;
}

beforeAll(() => requireCliBuild());
afterAll(() => dir.remove());

describe('the password prompt', () => {
  const typed = 'typed-at-the-prompt-93';

  it('keys new asks twice without echoing, and the keystore opens with what was typed', async () => {
    const run = await onTerminal(['keys', 'new', '--out', 'typed.json'], [
      { prompt: 'New keystore password: ', type: typed },
      { prompt: 'Repeat the password: ', type: typed },
    ]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).not.toContain(typed);
    const keys = await openKeys(readFileSync(join(dir.path, 'typed.json'), 'utf8'), typed);
    expect(run.output).toContain(formatMetaAddressUri(keys.metaAddress));
  });

  it('two different answers are refused and nothing is written', async () => {
    const run = await onTerminal(['keys', 'new', '--out', 'mismatch.json'], [
      { prompt: 'New keystore password: ', type: 'first-answer' },
      { prompt: 'Repeat the password: ', type: 'second-answer' },
    ]);
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/wraith: PASSWORD_MISMATCH: the two passwords differ — /);
    expect(run.output).not.toMatch(/first-answer|second-answer/);
    expect(() => readFileSync(join(dir.path, 'mismatch.json'))).toThrow();
  });

  it('a wrong password typed at the prompt is WRONG_PASSWORD', async () => {
    const run = await onTerminal(['keys', 'show', '--keystore', 'typed.json'], [{ prompt: 'Keystore password: ', type: 'not-it' }]);
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/wraith: WRONG_PASSWORD: /);
    expect(run.output).not.toContain('not-it');
  });
});
