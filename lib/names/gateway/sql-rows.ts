/**
 * What the SQL gateway stores (SQLite/libSQL, sqlite-store.ts; PostgreSQL, postgres-store.ts)
 * share: the decision of `issue` over their rows, and reading those rows. The SQL is portable:
 * `?` placeholders (the PostgreSQL store numbers them), and the same tables in both.
 */
import type { IssuedAddress, IssuePolicy, IssueResult, NameRecord } from './store.ts';

/** A result row: column name to value. */
export type Row = Record<string, unknown>;

export const ISSUED_COLUMNS = 'id, name, counter, meta_id, address, issued_at, expires_at, paid_chain_id, paid_tx_hash, announcement_id';

/**
 * The decision of {@link NameStore.issue} through `run` (SQL with `?` placeholders). `mayWrite`
 * (inside the write transaction, holding the name) issues a new address when the rules call for
 * one; without it, null is returned instead.
 */
export async function decideIssue(run: (sql: string, args: unknown[]) => Promise<Row[]>, policy: IssuePolicy, mayWrite: boolean): Promise<IssueResult | null> {
  const [state] = await run(
    'SELECT n.meta_id, n.next_counter, m.meta_address FROM gateway_names n JOIN gateway_metas m ON m.id = n.meta_id WHERE n.name = ?',
    [policy.name],
  );
  if (state === undefined) return { address: null, reason: 'unknown-name' };
  const metaId = Number(state['meta_id']);
  const open = `FROM gateway_addresses WHERE name = ? AND meta_id = ? AND paid_tx_hash IS NULL AND expires_at > ?`;
  const [mine] = await run(`SELECT ${ISSUED_COLUMNS} ${open} AND requester = ? ORDER BY id DESC LIMIT 1`, [policy.name, metaId, policy.now, policy.requester]);
  if (mine !== undefined && Number(mine['issued_at']) > policy.now - policy.sameRequesterSeconds) return { address: readIssued(mine), fresh: false };
  const openCount = Number((await run(`SELECT COUNT(*) AS n ${open}`, [policy.name, metaId, policy.now]))[0]?.['n'] ?? 0);
  if (openCount >= policy.maxUnpaid) {
    const [newest] = await run(`SELECT ${ISSUED_COLUMNS} ${open} ORDER BY id DESC LIMIT 1`, [policy.name, metaId, policy.now]);
    return { address: readIssued(newest!), fresh: false };
  }
  if (!policy.mayIssueNew) return mine === undefined ? { address: null, reason: 'requester-limit' } : { address: readIssued(mine), fresh: false };
  if (!mayWrite) return null;
  const counter = Number(state['next_counter']);
  await run('UPDATE gateway_names SET next_counter = next_counter + 1 WHERE name = ?', [policy.name]);
  const address = policy.derive(counter, blob(state['meta_address']));
  const [row] = await run(
    `INSERT INTO gateway_addresses (name, counter, meta_id, address, requester, issued_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${ISSUED_COLUMNS}`,
    [policy.name, counter, metaId, address, policy.requester, policy.now, policy.now + policy.addressTtlSeconds],
  );
  return { address: readIssued(row!), fresh: true };
}

export function readName(row: Row): NameRecord {
  return {
    name: String(row['name']),
    kind: String(row['kind']) === 'own' ? 'own' : 'label',
    metaId: Number(row['meta_id']),
    metaAddress: blob(row['meta_address']),
    owner: row['owner'] === null ? null : String(row['owner']),
    nonce: Number(row['nonce']),
  };
}

export function readIssued(row: Row): IssuedAddress {
  const optionalNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    id: Number(row['id']),
    name: String(row['name']),
    counter: Number(row['counter']),
    metaId: Number(row['meta_id']),
    address: String(row['address']),
    issuedAt: Number(row['issued_at']),
    expiresAt: Number(row['expires_at']),
    paidChainId: optionalNumber(row['paid_chain_id']),
    paidTxHash: row['paid_tx_hash'] === null ? null : String(row['paid_tx_hash']),
    announcementId: optionalNumber(row['announcement_id']),
  };
}

/** A BLOB / BYTEA column as a fresh Uint8Array (libSQL answers ArrayBuffers, pg Buffers). */
export function blob(value: unknown): Uint8Array {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (value instanceof Uint8Array) return new Uint8Array(value);
  throw new TypeError('gateway store: expected a BLOB');
}
