/**
 * The resume point of `wraith scan --cursor-file f`: the cursor of the last batch scanned
 * (a registry id, or `chainCursor(block, logIndex)` on a chain) and the source it belongs to,
 * so a cursor saved for one server or chain is never applied to another.
 * @module
 */
import { existsSync } from 'node:fs';
import { CliError } from './errors.js';
import { parseJsonFile, readTextFile, writeFileAtomic } from './files.js';

type CursorFileJson = { kind: 'wraith-scan-cursor'; version: 1; source: string; cursor: number; updated_at: string };

/** The saved cursor for `source`, or 0 when the file does not exist yet. */
export async function readCursorFile(path: string, source: string): Promise<number> {
  if (!existsSync(path)) return 0;
  const json = parseJsonFile(await readTextFile(path, '--cursor-file'), path, '--cursor-file') as Partial<CursorFileJson> | null;
  if (typeof json !== 'object' || json === null || json.kind !== 'wraith-scan-cursor' || !Number.isSafeInteger(json.cursor) || json.cursor! < 0) {
    throw new CliError('INVALID_FILE', `--cursor-file ${path} is not a scan cursor file`, 'pass a file written by `wraith scan --cursor-file`, or a new path');
  }
  if (json.source !== source) {
    throw new CliError('CURSOR_MISMATCH', `--cursor-file ${path} belongs to ${json.source}, not ${source}`, 'use one cursor file per server or chain');
  }
  return json.cursor!;
}

export async function writeCursorFile(path: string, source: string, cursor: number): Promise<void> {
  const json: CursorFileJson = { kind: 'wraith-scan-cursor', version: 1, source, cursor, updated_at: new Date().toISOString() };
  await writeFileAtomic(path, `${JSON.stringify(json)}\n`, '--cursor-file');
}
