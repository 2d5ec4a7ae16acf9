/**
 * Where output goes: results on stdout (one per line, or JSON with `--json`), everything a
 * person reads along the way (progress, summaries, instructions) on stderr, so
 * `wraith … > file` keeps only results. `--out <file>` (captureResults) keeps them in a file
 * readable by its owner only, which a shell redirection does not.
 * @module
 */
import { writePrivateFile } from './files.js';

/** Results held for `--out` instead of stdout, or null. */
let captured: string[] | null = null;

/** Hold every result from now on, for {@link writeCapturedResults}. */
export function captureResults(): void {
  captured = [];
}

/** Write the held results to `path` (owner-only, replacing it) and stop holding them. */
export async function writeCapturedResults(path: string): Promise<void> {
  const text = (captured ?? []).join('');
  captured = null;
  await writePrivateFile(path, text, '--out', true);
}

function emit(text: string): void {
  if (captured !== null) captured.push(text);
  else process.stdout.write(text);
}

/** One result line on stdout. */
export function result(line: string): void {
  emit(`${line}\n`);
}

/** One JSON value on its own stdout line (bigints as decimal strings). */
export function resultJson(value: unknown): void {
  emit(`${JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`);
}

/** A line for the person at the terminal, on stderr. */
export function info(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * A progress line rewritten in place on stderr when stderr is a terminal; silent otherwise
 * (logs and pipes get the final summary only).
 */
export function createProgressLine(): { update(text: string): void; done(): void } {
  const live = process.stderr.isTTY === true;
  let shown = false;
  return {
    update(text) {
      if (!live) return;
      process.stderr.write(`\r\x1b[2K${text}`);
      shown = true;
    },
    done() {
      if (live && shown) process.stderr.write('\r\x1b[2K');
      shown = false;
    },
  };
}
