/**
 * The withdrawal history kept with a keystore: `<keystore>.history`, one record per withdrawal
 * transaction and per failure (date, chain, stealth address, destination, asset, amount, fee
 * paid, hash). It holds no key, but it does tie the stealth addresses to their owner's
 * destinations, which is exactly what stealth payments hide, so it is encrypted under the
 * keystore's password: scrypt (N = 2^15, r = 8, p = 1) to an AES-256-GCM key, a fresh nonce
 * every write, the header authenticated. Written atomically, owner-only; never sent anywhere.
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCallback, type ScryptOptions } from 'node:crypto';
import { existsSync } from 'node:fs';
import { CliError } from './errors.js';
import { parseJsonFile, readTextFile, writeFileAtomic } from './files.js';

/** One line of the history. Amounts and fees in base units (fees in wei), as decimal strings. */
export type HistoryRecord = {
  date: string;
  chain_id: number;
  stealth_address: string;
  destination: string;
  status: 'withdrawn' | 'failed';
  /** `native` or the token's address; null for a failure. */
  asset: string | null;
  symbol: string | null;
  decimals: number | null;
  amount: string | null;
  fee_paid: string | null;
  /** The fee bound signed (exact or a maximum, `fee_kind`). */
  fee_bound: string | null;
  fee_kind: 'exact' | 'maximum' | null;
  hash: string | null;
  error: string | null;
};

/**
 * The destination index a `withdraw --to-derive` run gave a payment, kept before anything is
 * signed so a resumed run gives it the same one (src/derivation.ts).
 */
export type DestinationAssignment = {
  stealth_address: string;
  chain_id: number;
  /** The path template (`m/44'/60'/0'/0/{i}`), never the key it was applied to. */
  rule: string;
  index: number;
  destination: string;
};

/** Everything the sealed file holds. */
export type HistoryState = { records: HistoryRecord[]; assignments: DestinationAssignment[] };

type HistoryFileJson = {
  kind: 'wraith-history';
  version: 1;
  kdf: { name: 'scrypt'; n: number; r: number; p: number; salt: string };
  nonce: string;
  ciphertext: string;
};

const KDF = { name: 'scrypt', n: 2 ** 15, r: 8, p: 1 } as const; // ~0.1 s here, 32 MiB: one open per command
const SCRYPT_MAXMEM = 64 * 1024 * 1024; // 128 · N · r = 32 MiB, above Node's default limit

/** `<keystore>.history`: the history of the keys in that keystore. */
export function historyPath(keystorePath: string): string {
  return `${keystorePath}.history`;
}

function deriveKey(password: string, salt: Buffer, kdf: { n: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: kdf.n, r: kdf.r, p: kdf.p, maxmem: SCRYPT_MAXMEM };
  return new Promise((resolve, reject) => scryptCallback(password, salt, 32, options, (error, key) => (error ? reject(error) : resolve(key))));
}

function header(file: Pick<HistoryFileJson, 'kind' | 'version' | 'kdf'>): Buffer {
  return Buffer.from(JSON.stringify({ kind: file.kind, version: file.version, kdf: file.kdf }));
}

/** The records of `keystorePath`'s history, oldest first; none when there is no history yet. */
export async function readHistory(keystorePath: string, password: string): Promise<HistoryRecord[]> {
  return (await readHistoryState(keystorePath, password)).records;
}

/** The records and destination assignments of `keystorePath`'s history. */
export async function readHistoryState(keystorePath: string, password: string): Promise<HistoryState> {
  const path = historyPath(keystorePath);
  if (!existsSync(path)) return { records: [], assignments: [] };
  const json = parseJsonFile(await readTextFile(path, 'history'), path, 'history') as Partial<HistoryFileJson> | null;
  const bad = () => new CliError('INVALID_FILE', `${path} is not a withdrawal history`, 'move it aside: withdraw writes a new one');
  if (typeof json !== 'object' || json === null || json.kind !== 'wraith-history' || json.version !== 1 || json.kdf?.name !== 'scrypt') throw bad();
  if (typeof json.nonce !== 'string' || typeof json.ciphertext !== 'string' || typeof json.kdf.salt !== 'string') throw bad();
  const key = await deriveKey(password, Buffer.from(json.kdf.salt, 'base64'), json.kdf);
  const sealed = Buffer.from(json.ciphertext, 'base64');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(json.nonce, 'base64'));
    decipher.setAAD(header(json as HistoryFileJson));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
    const state = JSON.parse(plain.toString('utf8')) as { records: HistoryRecord[]; assignments?: DestinationAssignment[] };
    return { records: state.records, assignments: state.assignments ?? [] };
  } catch {
    throw new CliError('HISTORY_UNREADABLE', `${path} does not open with this password, or was modified`, 'use the password of the keystore it belongs to');
  }
}

/**
 * Add `records` to the history of `keystorePath` (re-sealed under `password`), and `assignments`
 * (replacing an earlier one of the same payment and rule).
 */
export async function appendHistory(keystorePath: string, password: string, records: HistoryRecord[], assignments: DestinationAssignment[] = []): Promise<void> {
  if (records.length === 0 && assignments.length === 0) return;
  const before = await readHistoryState(keystorePath, password);
  const replaced = (a: DestinationAssignment) => assignments.some((b) => b.stealth_address === a.stealth_address && b.rule === a.rule && b.chain_id === a.chain_id);
  const all = { records: [...before.records, ...records], assignments: [...before.assignments.filter((a) => !replaced(a)), ...assignments] };
  const kdf = { ...KDF, salt: randomBytes(16).toString('base64') };
  const key = await deriveKey(password, Buffer.from(kdf.salt, 'base64'), kdf);
  const nonce = randomBytes(12);
  const file = { kind: 'wraith-history' as const, version: 1 as const, kdf };
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(header(file));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(all), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  const json: HistoryFileJson = { ...file, nonce: nonce.toString('base64'), ciphertext: ciphertext.toString('base64') };
  await writeFileAtomic(historyPath(keystorePath), `${JSON.stringify(json)}\n`, 'history');
}
