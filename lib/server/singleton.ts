/**
 * Process-wide singletons.
 *
 * Next.js may load a module once per route chunk, so a module-level `let store` can exist
 * several times in one process: two registries, two sets of rate-limit buckets. Anything that
 * must be unique per process lives on `globalThis` under a `Symbol.for` key, which every copy
 * of this module (and server.mjs, which is not bundled) resolves to the same slot.
 */

const PREFIX = 'wraith.';

type Slots = Record<symbol, unknown>;

function slotKey(name: string): symbol {
  return Symbol.for(PREFIX + name);
}

/** The process's single value for `name`, created on first use. */
export function processSingleton<T>(name: string, create: () => T): T {
  const slots = globalThis as unknown as Slots;
  const key = slotKey(name);
  if (!(key in slots)) slots[key] = create();
  return slots[key] as T;
}

/** The current value for `name` without creating it. */
export function peekProcessSingleton<T>(name: string): T | undefined {
  return (globalThis as unknown as Slots)[slotKey(name)] as T | undefined;
}

/** Forget the value for `name` (tests, or a failed initialisation that should be retried). */
export function clearProcessSingleton(name: string): void {
  delete (globalThis as unknown as Slots)[slotKey(name)];
}
