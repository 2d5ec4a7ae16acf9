/**
 * Asking before money moves: a yes/no question on the terminal (stderr, so stdout keeps only
 * results). Without a terminal there is nobody to ask: the command is refused unless `--yes`.
 * @module
 */
import { createInterface } from 'node:readline/promises';
import { CliError } from './errors.js';

/** Ask `question` (answered y/yes to go on); refuse without a terminal. */
export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new CliError('CONFIRMATION_REQUIRED', 'cannot ask for confirmation: stdin is not a terminal', 'read the estimate above, then run again with --yes to confirm');
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    prompt.close();
  }
}
