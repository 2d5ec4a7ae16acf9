/**
 * Where output goes: results on stdout (one per line, or JSON with `--json`), everything a
 * person reads along the way (progress, summaries, instructions) on stderr, so
 * `wraith … > file` keeps only results.
 * @module
 */

/** One result line on stdout. */
export function result(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** One JSON value on its own stdout line (bigints as decimal strings). */
export function resultJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`);
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
