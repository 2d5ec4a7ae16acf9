/**
 * Files the command line reads and writes: keystores (owner-only, never overwritten by
 * accident) and JSON state written atomically (cursor and payment files), so an interrupted
 * write leaves the previous version rather than half a file.
 * @module
 */
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { CliError } from './errors.js';

/** Read a text file; a missing or unreadable file is a one-line error naming the flag. */
export async function readTextFile(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CliError('FILE_NOT_FOUND', `${flag} ${path}: no such file`, `check the path given to ${flag}`);
    throw new CliError('FILE_UNREADABLE', `${flag} ${path}: cannot read it (${code ?? 'error'})`, 'check the path and its permissions');
  }
}

/** Create a file readable by its owner only; refuse to replace one unless `overwrite`. */
export async function writePrivateFile(path: string, text: string, flag: string, overwrite: boolean): Promise<void> {
  try {
    await writeFile(path, text, { mode: 0o600, flag: overwrite ? 'w' : 'wx' });
    // `mode` applies only when the file is created: a replaced file keeps its old permissions.
    await chmod(path, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new CliError('FILE_EXISTS', `${flag} ${path} already exists`, 'choose another path, or pass --force to replace it');
    throw new CliError('FILE_UNWRITABLE', `${flag} ${path}: cannot write it (${code ?? 'error'})`, 'check the directory exists and is writable');
  }
}

/** Replace `path` with `text` atomically (write a sibling, then rename over it). */
export async function writeFileAtomic(path: string, text: string, flag: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, text, { mode: 0o600 });
    await rename(temporary, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError('FILE_UNWRITABLE', `${flag} ${path}: cannot write it (${code ?? 'error'})`, 'check the directory exists and is writable');
  }
}

/** Parse JSON read from `path`, as a one-line error when it is not JSON. */
export function parseJsonFile(text: string, path: string, flag: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliError('INVALID_FILE', `${flag} ${path} is not JSON`, `pass a file written by wraith`);
  }
}
