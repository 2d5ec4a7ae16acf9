/**
 * Work to do when the process stops (closing the registry so SQLite checkpoints cleanly).
 *
 * server.mjs, which is plain JavaScript outside the bundle, runs the hooks after the last
 * in-flight request finished; it finds them under `Symbol.for('wraith.shutdownHooks')`.
 */
import { processSingleton } from './singleton.ts';

export type ShutdownHook = () => Promise<void> | void;

function hooks(): Map<string, ShutdownHook> {
  return processSingleton('shutdownHooks', () => new Map<string, ShutdownHook>());
}

/** Register (or replace) the hook called `name`. */
export function onShutdown(name: string, hook: ShutdownHook): void {
  hooks().set(name, hook);
}

/** Remove the hook called `name`. */
export function offShutdown(name: string): void {
  hooks().delete(name);
}

/** Run every hook once, in registration order; a failing hook does not stop the others. */
export async function runShutdownHooks(): Promise<void> {
  const pending = [...hooks().entries()];
  hooks().clear();
  for (const [, hook] of pending) {
    try {
      await hook();
    } catch {
      // Shutting down anyway; the hook's owner logs what matters.
    }
  }
}
