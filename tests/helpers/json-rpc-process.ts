/**
 * "A process that must answer JSON-RPC": spawn it, wait until one call answers (and, optionally,
 * answers what readiness means for it), kill it on stop or when the test process exits. anvil
 * (tests/helpers/anvil.ts), Hardhat's OP Stack node (op-node.ts) and the alto bundler
 * (account-abstraction.ts) all start through it.
 *
 * @example
 * const node = await startJsonRpcProcess({ name: 'anvil', command: ANVIL, args: ['--port', String(port)], url });
 * await node.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';

export type JsonRpcProcessOptions = {
  /** Named in errors. */
  name: string;
  command: string;
  args: readonly string[];
  /** The URL it will answer JSON-RPC on (a free loopback port chosen by the caller). */
  url: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The call that shows it is ready (default `eth_chainId`). */
  readyMethod?: string;
  /** Whether the call's result means ready (default: any result). */
  isReady?: (result: unknown) => boolean;
  timeoutMs?: number;
  /** How `stop()` ends it (default SIGTERM). */
  stopSignal?: NodeJS.Signals;
};

export type JsonRpcProcess = {
  url: string;
  child: ChildProcess;
  /** The last few kilobytes it wrote to stderr and stdout. */
  output(): string;
  /** End it and wait for the exit. */
  stop(): Promise<void>;
};

const POLL_MS = 100;
const OUTPUT_KEPT = 8_000;

/** Spawn `command` and resolve once `readyMethod` on `url` answers a result `isReady` accepts. */
export async function startJsonRpcProcess(options: JsonRpcProcessOptions): Promise<JsonRpcProcess> {
  const { name, url, readyMethod = 'eth_chainId', isReady = () => true, timeoutMs = 30_000, stopSignal = 'SIGTERM' } = options;
  const child = spawn(options.command, options.args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A test runner that dies without afterAll must not leave the process behind.
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    if (child.exitCode === null && child.signalCode === null) child.kill(stopSignal);
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before answering JSON-RPC:\n${output}`);
      const result = await call(url, readyMethod);
      if (result !== undefined && isReady(result)) break;
      if (Date.now() > deadline) throw new Error(`${name} did not answer ${readyMethod} within ${timeoutMs} ms:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, child, output: () => output, stop };
}

/** The result of one call, or undefined while it does not answer one. */
async function call(url: string, method: string): Promise<unknown> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
      signal: AbortSignal.timeout(5_000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { result?: unknown };
    return body.result;
  } catch {
    return undefined; // not listening yet
  }
}
