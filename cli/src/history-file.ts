/**
 * The history kept with a keystore: `<keystore>.history`, the SDK's history records
 * (sdk/src/history.ts, the web app's too): one per payment found by `wraith scan` (incoming) and
 * one per withdrawal transaction and per failure (outgoing: date, chain, stealth address,
 * destination, asset, amount, fee paid, hash). It holds no key, but it does tie the stealth addresses to their owner's
 * destinations, which is exactly what stealth payments hide, so it is encrypted under the
 * keystore's password: scrypt (N = 2^15, r = 8, p = 1) to an AES-256-GCM key, a fresh nonce
 * every write, the header authenticated. Written atomically, owner-only; never sent anywhere.
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCallback, type ScryptOptions } from 'node:crypto';
import { existsSync } from 'node:fs';
import { parseHistoryRecords, upsertPayment, type HistoryRecords, type PaymentRecord, type WithdrawalRecord } from '@wraith-pq/sdk';
import { CliError } from './errors.js';
import { parseJsonFile, readTextFile, writeFileAtomic } from './files.js';

/** A withdrawal line as the history kept it before the shared record type (plaintext version 1): read, converted. */
type LegacyRecord = {
  date: string;
  chain_id: number;
  stealth_address: string;
  destination: string;
  status: 'withdrawn' | 'failed';
  asset: string | null;
  symbol: string | null;
  decimals: number | null;
  amount: string | null;
  fee_paid: string | null;
  fee_bound: string | null;
  fee_kind: 'exact' | 'maximum' | null;
  hash: string | null;
  error: string | null;
};

function fromLegacy(r: LegacyRecord): WithdrawalRecord {
  return {
    date: r.date,
    announcementId: null,
    chainId: r.chain_id,
    stealthAddress: r.stealth_address,
    destination: r.destination,
    status: r.status,
    // A failure before the shared type named no asset: the coin is what every payment holds.
    asset: r.asset ?? 'native',
    symbol: r.symbol,
    decimals: r.decimals,
    amount: r.amount,
    feePaid: r.fee_paid,
    feeBound: r.fee_bound,
    feeKind: r.fee_kind,
    hash: r.hash,
    error: r.error,
  };
}

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

/** Everything the sealed file holds: the records (incoming and outgoing) and the destination assignments. */
export type HistoryState = HistoryRecords & { assignments: DestinationAssignment[] };

/** What the sealed plaintext is: version 2 holds the shared records; version 1 (no version field) legacy withdrawal lines. */
type Plaintext = { version: 2; payments: unknown; withdrawals: unknown; assignments?: DestinationAssignment[] } | { version?: undefined; records: LegacyRecord[]; assignments?: DestinationAssignment[] };

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

/** The records of `keystorePath`'s history; none when there is no history yet. */
export async function readHistory(keystorePath: string, password: string): Promise<HistoryRecords> {
  const { payments, withdrawals } = await readHistoryState(keystorePath, password);
  return { payments, withdrawals };
}

/** The records and destination assignments of `keystorePath`'s history. */
export async function readHistoryState(keystorePath: string, password: string): Promise<HistoryState> {
  const path = historyPath(keystorePath);
  if (!existsSync(path)) return { payments: [], withdrawals: [], assignments: [] };
  const json = parseJsonFile(await readTextFile(path, 'history'), path, 'history') as Partial<HistoryFileJson> | null;
  const bad = () => new CliError('INVALID_FILE', `${path} is not a withdrawal history`, 'move it aside: withdraw writes a new one');
  if (typeof json !== 'object' || json === null || json.kind !== 'wraith-history' || json.version !== 1 || json.kdf?.name !== 'scrypt') throw bad();
  if (typeof json.nonce !== 'string' || typeof json.ciphertext !== 'string' || typeof json.kdf.salt !== 'string') throw bad();
  const key = await deriveKey(password, Buffer.from(json.kdf.salt, 'base64'), json.kdf);
  const sealed = Buffer.from(json.ciphertext, 'base64');
  let state: Plaintext;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(json.nonce, 'base64'));
    decipher.setAAD(header(json as HistoryFileJson));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
    state = JSON.parse(plain.toString('utf8')) as Plaintext;
  } catch {
    throw new CliError('HISTORY_UNREADABLE', `${path} does not open with this password, or was modified`, 'use the password of the keystore it belongs to');
  }
  const assignments = state.assignments ?? [];
  if (state.version === undefined) return { payments: [], withdrawals: state.records.map(fromLegacy), assignments };
  // Checked as any history file is: the same parse reads the web app's exports.
  return { ...parseHistoryRecords({ version: 1, payments: state.payments, withdrawals: state.withdrawals }), assignments };
}

/**
 * Add `withdrawals` to the history of `keystorePath` (re-sealed under `password`), `assignments`
 * (replacing an earlier one of the same payment and rule), and `payments` (merged into the record
 * of the same payment, `upsertPayment`).
 */
export async function appendHistory(keystorePath: string, password: string, withdrawals: WithdrawalRecord[], assignments: DestinationAssignment[] = [], payments: PaymentRecord[] = []): Promise<void> {
  if (withdrawals.length === 0 && assignments.length === 0 && payments.length === 0) return;
  const before = await readHistoryState(keystorePath, password);
  await writeHistoryState(keystorePath, password, {
    ...payments.reduce<HistoryRecords>((history, p) => upsertPayment(history, p), before),
    withdrawals: [...before.withdrawals, ...withdrawals],
    assignments: [...before.assignments.filter((a) => !assignments.some((b) => b.stealth_address === a.stealth_address && b.rule === a.rule && b.chain_id === a.chain_id)), ...assignments],
  });
}

/** Seal `state` as the history of `keystorePath` under `password` (a fresh salt and nonce), replacing the file atomically. */
export async function writeHistoryState(keystorePath: string, password: string, state: HistoryState): Promise<void> {
  const all = { version: 2, payments: state.payments, withdrawals: state.withdrawals, assignments: state.assignments };
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
