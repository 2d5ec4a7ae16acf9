/**
 * Where secrets come from: the environment (`WRAITH_PASSWORD`, `WRAITH_SIGNATURE`,
 * `WRAITH_PRIVATE_KEY`), stdin, or a prompt that does not echo. Never from an argument, which
 * every user of the machine can read in the process list.
 * @module
 */
import { CliError } from './errors.js';

/** Keystrokes typed ahead of a prompt (e.g. both passwords at once): the next prompt reads them first. */
let typedAhead: string[] = [];

/** A line typed at the terminal without echo (raw mode); Ctrl-C cancels. */
export async function promptHidden(question: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) throw new CliError('NO_TERMINAL', 'cannot prompt: stdin is not a terminal', 'set the secret in the environment instead');
  // Echo off before the question shows: a reply typed the moment it appears must not be echoed.
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  process.stderr.write(question);
  return new Promise<string>((resolve, reject) => {
    let typed: string[] = [];
    const finish = (result: () => void) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      result();
    };
    /** Returns true once the line is complete (the rest stays in typedAhead). */
    const consume = (chars: string[]): boolean => {
      for (let i = 0; i < chars.length; i++) {
        const char = chars[i]!;
        if (char === '\r' || char === '\n') {
          typedAhead = chars.slice(i + 1);
          if (char === '\r' && typedAhead[0] === '\n') typedAhead.shift();
          finish(() => resolve(typed.join('')));
          return true;
        }
        if (char === '\u0003' || char === '\u0004') {
          typedAhead = [];
          finish(() => reject(new CliError('CANCELLED', 'cancelled at the prompt', 'run the command again')));
          return true;
        }
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else if (char >= ' ') typed.push(char);
      }
      return false;
    };
    const onData = (chunk: string) => void consume([...chunk]);
    input.on('data', onData);
    const ahead = typedAhead;
    typedAhead = [];
    consume(ahead);
  });
}

export type PasswordPurpose = 'open' | 'new';

/**
 * The keystore password: `WRAITH_PASSWORD`, else a hidden prompt (asked twice for a new
 * keystore, so a typo does not lock the keys away).
 */
export async function readPassword(purpose: PasswordPurpose): Promise<string> {
  const fromEnv = process.env.WRAITH_PASSWORD;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (!process.stdin.isTTY) {
    throw new CliError('PASSWORD_REQUIRED', 'no password: WRAITH_PASSWORD is not set and stdin is not a terminal', 'set WRAITH_PASSWORD or run the command in a terminal to be prompted');
  }
  const password = await promptHidden(purpose === 'new' ? 'New keystore password: ' : 'Keystore password: ');
  if (password === '') throw new CliError('PASSWORD_REQUIRED', 'the password is empty', 'type a password');
  if (purpose === 'new') {
    const again = await promptHidden('Repeat the password: ');
    if (again !== password) throw new CliError('PASSWORD_MISMATCH', 'the two passwords differ', 'run the command again and type the same password twice');
  }
  return password;
}

/** All of stdin as text (a piped secret). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A secret value from the environment variable `envName`, else piped stdin, else a hidden
 * prompt. `what` names it in messages ("wallet signature").
 */
export async function readSecretInput(envName: string, what: string): Promise<string> {
  const fromEnv = process.env[envName];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv.trim();
  const value = process.stdin.isTTY ? await promptHidden(`${what[0]!.toUpperCase()}${what.slice(1)}: `) : (await readStdin()).trim();
  if (value === '') throw new CliError('SECRET_REQUIRED', `no ${what}: ${envName} is not set and nothing came on stdin`, `set ${envName} or pipe the ${what} into the command`);
  return value;
}

/** The sender's EVM private key from `WRAITH_PRIVATE_KEY` (0x + 64 hex). */
export function readPrivateKey(): `0x${string}` {
  const key = process.env.WRAITH_PRIVATE_KEY?.trim();
  if (key === undefined || key === '') {
    throw new CliError('PRIVATE_KEY_REQUIRED', 'WRAITH_PRIVATE_KEY is not set', 'set WRAITH_PRIVATE_KEY to the paying account\'s key (0x + 64 hex) in the environment');
  }
  const hex = key.startsWith('0x') || key.startsWith('0X') ? key.slice(2) : key;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new CliError('INVALID_PRIVATE_KEY', 'WRAITH_PRIVATE_KEY is not 32 bytes of hex', 'set it to 0x followed by 64 hex digits');
  return `0x${hex.toLowerCase()}`;
}
