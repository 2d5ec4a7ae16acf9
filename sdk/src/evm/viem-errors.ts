/**
 * viem's errors recognised by what they carry, never by `instanceof`: an app's client may come
 * from another copy of viem than the one this entry imports (`require('viem')` loads viem's
 * CommonJS build while this entry loads its ESM build; a bundler or a lockfile may keep two
 * versions), and that copy's error classes are other objects. Every viem error names its class in
 * `name` and wraps the error it stems from in `cause`; a node's refusal carries its JSON-RPC
 * `code` (EIP-1474; 3 is "execution reverted", as geth and anvil answer a revert with data).
 * @module
 */

/** The fields of a viem error (or a node's JSON-RPC error) this entry reads; any may be absent. */
export type ErrorFacts = { name?: unknown; code?: unknown; shortMessage?: unknown; details?: unknown; cause?: unknown };

/** The JSON-RPC code of a call that reverted (EIP-1474 as geth implements it: code 3 with the revert data). */
const EXECUTION_REVERTED_CODE = 3;

/**
 * The first error along `error`'s cause chain (itself first) that `test` accepts, or null. At most
 * ten steps, so a cycle of causes ends.
 */
export function findCause(error: unknown, test: (error: ErrorFacts) => boolean): ErrorFacts | null {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && typeof current === 'object' && current !== null; depth++) {
    const facts = current as ErrorFacts;
    if (test(facts)) return facts;
    current = facts.cause;
  }
  return null;
}

/** Whether an error named one of `names` (viem's class names, e.g. `ContractFunctionZeroDataError`) is along `error`'s cause chain. */
export function causedBy(error: unknown, ...names: readonly string[]): boolean {
  return findCause(error, (e) => typeof e.name === 'string' && names.includes(e.name)) !== null;
}

/**
 * Whether the node ran the call and it reverted (as opposed to a transport or RPC failure): viem's
 * `ContractFunctionRevertedError` / `ExecutionRevertedError`, JSON-RPC code 3, or a viem error whose
 * own words say "execution reverted" (geth's -32000 answer to a revert without data).
 */
export function isRevert(error: unknown): boolean {
  return (
    findCause(
      error,
      (e) =>
        e.name === 'ContractFunctionRevertedError' ||
        e.name === 'ExecutionRevertedError' ||
        e.code === EXECUTION_REVERTED_CODE ||
        (typeof e.shortMessage === 'string' && /execution reverted/i.test(`${typeof e.details === 'string' ? e.details : ''} ${e.shortMessage}`)),
    ) !== null
  );
}

/** Whether a contract call found no contract to answer it: no code at the address, or a revert (not this chain's contract, or not this version's function). */
export function isNotAnswered(error: unknown): boolean {
  return causedBy(error, 'ContractFunctionZeroDataError') || isRevert(error);
}
