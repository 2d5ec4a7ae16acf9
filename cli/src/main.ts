/**
 * `wraith`: the command line of Wraith post-quantum stealth payments (Node >= 20.19).
 *
 *   wraith keys new|show|from-signature   recipient keys in an encrypted keystore file
 *   wraith resolve <name|address>         the meta-address of a .eth or .sui name, or of an ERC-6538 registrant
 *   wraith register                       publish the meta-address in the ERC-6538 registry
 *   wraith pay <name|address|meta-address> a one-time payment, announced through the API or the chain
 *   wraith scan                           find payments from a server's registry or a chain
 *   wraith withdraw                       move found payments (coin and ERC-20) to fresh addresses
 *   wraith history                        the withdrawals made, from the encrypted history
 *   wraith bench                          scan speed of this machine
 *
 * Every failure is one line on stderr, `wraith: <CODE>: <message> — <what to do>`, with exit
 * status 2 for usage mistakes and 1 otherwise (src/errors.ts).
 * @module
 */
import { formatError, UsageError } from './errors.js';
import { closest } from './suggest.js';

const HELP = `wraith — post-quantum stealth payments from the command line

Commands:
  wraith keys new --out <keystore.json>            new keys, sealed under a password
  wraith keys from-signature --out <keystore.json> keys from a wallet signature (WRAITH_SIGNATURE or stdin)
  wraith keys show --keystore <keystore.json> [--scheme 3|1000] [--tracking-key]
                                                   both meta-address forms (Wraith's 1218 bytes, ERC-8441's 1250)
  wraith resolve <name.eth|name.sui> --api <url>   the meta-address a name publishes
  wraith resolve <0x address> --rpc <url>          the meta-address it registered (ERC-6538)
  wraith register --keystore <file> --rpc <url> [--scheme 3|1000] [--clear] [--sign] [--yes]
  wraith register --relay <signature.json> --rpc <url> [--yes]
                                                   publish your meta-address in the ERC-6538 registry
  wraith pay <name|0x address|meta-address|payment link|CID> [--amount 0.5] [--token <address|coin>] [--announce none|api|chain] [--fingerprint <XXXX-…>] [--dry-run] …
  wraith scan --keystore <file> (--api <url> | --rpc <url>) [--cursor-file <file>] [--json]
  wraith withdraw --keystore <file> --rpc <url> [--discoveries <scan.json>] (--all | --address <a>…)
                  (--to-file <fresh addresses> | --to-derive <path template> | --to <address> [--allow-linking])
                  [--token <a>…] [--yes]
  wraith name (register|change|release|show) <name> --api <url> [--keystore <file>]
                                                   a name any wallet pays (the server's ENS gateway)
  wraith history --keystore <file> [--json | --csv] [--out <file>] [--import <file>]
                                                   payments received and withdrawals made, amounts and fees
  wraith bench [--count <n>]                       announcements scanned per second here

Secrets never go on the command line:
  WRAITH_PASSWORD         keystore password (else a hidden prompt)
  WRAITH_SIGNATURE        wallet signature for keys from-signature (else stdin)
  WRAITH_PRIVATE_KEY      the EVM account paying (pay --announce chain) or registering (register)
  WRAITH_DESTINATION_KEY  withdraw --to-derive: your wallet's xpub or recovery phrase (else a hidden prompt)
Also read: WRAITH_API_URL (for --api), WRAITH_API_KEY, WRAITH_RPC_URL (for --rpc).

Amounts are in the asset's unit: --amount 0.5 (ETH), 0.5ether, 100 (tokens, by the token's decimals);
base units only when said: 100wei, or --base-units.

Run \`wraith help <command>\` (or \`wraith <command> --help\`) for a command's options and an example.`;

/** One example per command, shown by `wraith help <command>` and `<command> --help`. */
const EXAMPLES: Record<string, string> = {
  keys: 'wraith keys new --out bob.json && wraith keys show --keystore bob.json',
  resolve: 'wraith resolve alice.eth --api https://wraith.example',
  register: 'WRAITH_PRIVATE_KEY=0x… wraith register --keystore bob.json --rpc http://127.0.0.1:8545',
  pay: 'WRAITH_PRIVATE_KEY=0x… wraith pay alice.eth --amount 0.5 --announce chain --rpc http://127.0.0.1:8545 --api https://wraith.example',
  scan: 'wraith scan --keystore bob.json --rpc http://127.0.0.1:8545 --out found.json --json',
  withdraw: 'wraith withdraw --keystore bob.json --rpc http://127.0.0.1:8545 --discoveries found.json --all --to-derive "m/44\'/60\'/0\'/0/{i}" --dry-run',
  name: 'wraith name register bob.wraith.eth --keystore bob.json --api https://wraith.example',
  history: 'wraith history --keystore bob.json --csv --out history.csv',
  bench: 'wraith bench --count 20000',
};

// Loaded on demand: viem (pay, scan, withdraw) alone takes longer to import than most commands take to run.
type Command = { run: (argv: string[]) => Promise<void>; usage: string };
const COMMANDS: Record<string, () => Promise<Command>> = {
  keys: async () => import('./commands/keys.js').then((m) => ({ run: m.keysCommand, usage: m.USAGE })),
  resolve: async () => import('./commands/resolve.js').then((m) => ({ run: m.resolveCommand, usage: m.USAGE })),
  register: async () => import('./commands/register.js').then((m) => ({ run: m.registerCommand, usage: m.USAGE })),
  pay: async () => import('./commands/pay.js').then((m) => ({ run: m.payCommand, usage: m.USAGE })),
  scan: async () => import('./commands/scan.js').then((m) => ({ run: m.scanCommand, usage: m.USAGE })),
  withdraw: async () => import('./commands/withdraw.js').then((m) => ({ run: m.withdrawCommand, usage: m.USAGE })),
  name: async () => import('./commands/name.js').then((m) => ({ run: m.nameCommand, usage: m.USAGE })),
  history: async () => import('./commands/history.js').then((m) => ({ run: m.historyCommand, usage: m.USAGE })),
  bench: async () => import('./commands/bench.js').then((m) => ({ run: m.benchCommand, usage: m.USAGE })),
};

/** The command named `name`, or a usage error with the command it most likely meant. */
async function commandOf(name: string): Promise<Command> {
  const load = COMMANDS[name];
  if (load === undefined) {
    const meant = closest(name, Object.keys(COMMANDS));
    throw new UsageError(`unknown command ${JSON.stringify(name)}${meant === null ? '' : ` (did you mean ${meant}?)`}`, meant === null ? 'run `wraith help` for the commands and their options' : `run \`wraith ${meant} --help\``);
  }
  return load();
}

/** A command's usage and example, on stdout. */
async function printUsage(name: string): Promise<void> {
  const { usage } = await commandOf(name);
  process.stdout.write(`usage: ${usage}\n\nexample:\n  ${EXAMPLES[name]}\n\nSee \`wraith help\` for the environment variables and amounts, and cli/README.md.\n`);
}

/** Exit once stdout and stderr are flushed (pipes are asynchronous on some systems). */
function exit(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

function fail(error: unknown): void {
  const { line, exitCode } = formatError(error);
  process.stderr.write(`${line}\n`);
  exit(exitCode);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'help' && rest[0] !== undefined) {
    await printUsage(rest[0]);
    return;
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write('0.1.0\n');
    return;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    await printUsage(command);
    return;
  }
  const { run } = await commandOf(command);
  await run(rest);
}

// Anything that escapes (a rejected promise in a library callback) still ends as one line.
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
// Exit explicitly: HTTP keep-alive sockets (viem, fetch) would otherwise hold the process open.
main(process.argv.slice(2)).then(() => exit(0), fail);
