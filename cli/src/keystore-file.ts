/**
 * Keystore files: the SDK's encrypted envelope (`sealKeys`, sdk/src/keystore.ts) on disk.
 * @module
 */
import { erc8441KeysOf, openKeys, sealKeys, type Erc8441Keys, type RecipientKeys, type SealableKeys, type SealKeysOptions } from '@wraith-pq/sdk';
import { readTextFile, writePrivateFile } from './files.js';
import { readPassword } from './secrets.js';

export type OpenedKeys = Awaited<ReturnType<typeof openKeys>>;

/** Read and decrypt a keystore file with the password from WRAITH_PASSWORD or the prompt. */
export async function openKeystoreFile(path: string): Promise<OpenedKeys> {
  const blob = await readTextFile(path, '--keystore');
  const password = await readPassword('open');
  return openKeys(blob, password);
}

/** Seal `keys` under a new password and write them to `path` (mode 0600). */
export async function writeKeystoreFile(path: string, keys: SealableKeys | RecipientKeys, options: { overwrite: boolean; kdf?: SealKeysOptions['kdf'] }): Promise<void> {
  const password = await readPassword('new');
  const blob = await sealKeys(keys, password, options.kdf === undefined ? {} : { kdf: options.kdf });
  await writePrivateFile(path, `${blob}\n`, '--out', options.overwrite);
}

/**
 * The keys and the password that opened them, for a command that also seals its own records
 * under that password (the withdrawal history): asked once, kept in memory for the run.
 */
export async function openKeystoreWithPassword(path: string): Promise<{ keys: OpenedKeys; password: string }> {
  const blob = await readTextFile(path, '--keystore');
  const password = await readPassword('open');
  return { keys: await openKeys(blob, password), password };
}

/**
 * The identity's ERC-8441 keys (PROTOCOL.md section 10: its scheme-3 viewing scalar is derived
 * from `b` and the ML-KEM seed), or null for a keystore without the seed (older keystores that
 * hold only the expanded viewing key): those receive under scheme 1000 alone.
 */
export function erc8441KeysOfKeystore(keys: OpenedKeys): Erc8441Keys | null {
  return 'viewingSeed' in keys ? erc8441KeysOf({ spendingSecretKey: keys.spendingSecretKey, viewingSeed: keys.viewingSeed }) : null;
}
