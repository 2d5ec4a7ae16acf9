/**
 * Flags through `node:util` `parseArgs`, its errors turned into {@link UsageError}s (exit 2).
 * Secrets have no flag on purpose: an argument is visible to every user of the machine (`ps`)
 * and lands in shell history, so passwords, signatures and private keys come from the
 * environment, stdin or a hidden prompt (src/secrets.ts).
 * @module
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.js';
import { closest } from './suggest.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export type ParsedArgs<O extends Options> = {
  values: { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : O[K] extends { multiple: true } ? string[] : string };
  positionals: string[];
};

/** Parse `argv` against `options`, allowing at most `maxPositionals` positionals. */
export function parseCommand<O extends Options>(argv: string[], options: O, maxPositionals: number, usage: string): ParsedArgs<O> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs names the flag; its message is about the command line, never a secret.
    const message = error instanceof Error ? error.message.split('\n', 1)[0]! : 'bad arguments';
    const unknown = /^Unknown option '(-{1,2}[^']*)'/.exec(message)?.[1];
    if (unknown !== undefined) throw unknownOption(unknown, options, usage);
    throw new UsageError(message.replace(/\.$/, ''), `usage: ${usage}`);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[maxPositionals])}`, `usage: ${usage}`);
  }
  return parsed as unknown as ParsedArgs<O>;
}

/** An unknown flag, with the known one it most likely meant. */
function unknownOption(flag: string, options: Options, usage: string): UsageError {
  const name = flag.replace(/^-+/, '').split('=', 1)[0]!;
  const meant = closest(name, Object.keys(options));
  return new UsageError(
    meant === null ? `unknown option ${flag}` : `unknown option ${flag} (did you mean --${meant}?)`,
    meant === null ? `usage: ${usage}` : `use --${meant}; usage: ${usage}`,
  );
}

/** A flag's value as a non-negative safe integer, or `fallback`. */
export function integerFlag(value: string | undefined, flag: string, fallback: number, usage: string): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new UsageError(`--${flag} must be a non-negative integer`, `usage: ${usage}`);
  return Number(value);
}

/** A flag's value as a non-negative bigint (wei, block numbers), or undefined. */
export function bigintFlag(value: string | undefined, flag: string, usage: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,78}$/.test(value)) throw new UsageError(`--${flag} must be a non-negative integer (base units)`, `usage: ${usage}`);
  return BigInt(value);
}

/** An http(s) URL from a flag or an environment variable. */
export function urlFlag(value: string | undefined, env: string | undefined, flag: string, envName: string, usage: string): string | undefined {
  const url = value ?? env;
  if (url === undefined || url === '') return undefined;
  if (!/^https?:\/\/[^\s]+$/i.test(url)) {
    throw new UsageError(`--${flag} must be an http(s) URL${value === undefined ? ` (from ${envName})` : ''}`, `usage: ${usage}`);
  }
  return url.replace(/\/+$/, '');
}
