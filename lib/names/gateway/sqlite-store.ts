/**
 * The gateway's {@link NameStore} in the registry's SQLite / libSQL database (`REGISTRY_URL=file:`
 * or `libsql:`), in tables of its own with their own forward-only migrations
 * (`gateway_schema_version`, the registry's pattern: each migration one batch whose first
 * statement claims its version).
 *
 * `issue` runs in one write transaction (SQLite serialises writers), so the counter is reserved,
 * the cap checked and the row stored together, committed before the gateway answers.
 */
import { createClient, type Client, type InValue, type Row, type Transaction } from '@libsql/client';
import { NameNonceError, type IssuedAddress, type IssuePolicy, type IssueResult, type NameChange, type NameRecord, type NameStore } from './store.ts';

const BUSY_TIMEOUT_MS = 5_000;

const MIGRATIONS: readonly { version: number; statements: readonly string[] }[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE gateway_names (
        name TEXT PRIMARY KEY,
        kind TEXT NULL,
        meta_id INTEGER NULL,
        owner TEXT NULL,
        nonce INTEGER NOT NULL,
        next_counter INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
      'CREATE TABLE gateway_metas (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, meta_address BLOB NOT NULL)',
      `CREATE TABLE gateway_addresses (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        counter INTEGER NOT NULL,
        meta_id INTEGER NOT NULL,
        address TEXT NOT NULL,
        requester BLOB NOT NULL,
        issued_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        paid_chain_id INTEGER NULL,
        paid_tx_hash TEXT NULL,
        announcement_id INTEGER NULL,
        UNIQUE (name, counter)
      )`,
      'CREATE INDEX gateway_addresses_open ON gateway_addresses (name, meta_id, expires_at) WHERE paid_tx_hash IS NULL',
      'CREATE INDEX gateway_addresses_watched ON gateway_addresses (expires_at) WHERE paid_tx_hash IS NULL',
      'CREATE TABLE gateway_watch (chain_id INTEGER PRIMARY KEY, next_block INTEGER NOT NULL)',
    ],
  },
];

const ISSUED_COLUMNS = 'id, name, counter, meta_id, address, issued_at, expires_at, paid_chain_id, paid_tx_hash, announcement_id';

/**
 * Open the gateway's tables in the database at `url` (creating them if needed).
 * @example
 * const names = await createSqliteNameStore('file:./data/registry.db');
 */
export async function createSqliteNameStore(url: string): Promise<NameStore> {
  const local = url.startsWith('file:');
  const client = createClient(local ? { url, concurrency: 1, timeout: BUSY_TIMEOUT_MS } : { url });
  try {
    if (local) await client.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    await migrate(client);
  } catch (error) {
    client.close();
    throw error;
  }
  return new SqliteNameStore(client);
}

async function migrate(client: Client): Promise<void> {
  await client.execute('CREATE TABLE IF NOT EXISTS gateway_schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const current = Number((await client.execute('SELECT COALESCE(MAX(version), 0) AS v FROM gateway_schema_version')).rows[0]?.['v'] ?? 0);
  if (current > MIGRATIONS.length) throw new Error(`The gateway tables have schema version ${current}; this build understands up to ${MIGRATIONS.length}.`);
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    try {
      await client.batch([{ sql: 'INSERT INTO gateway_schema_version (version, applied_at) VALUES (?, ?)', args: [migration.version, Math.floor(Date.now() / 1000)] }, ...migration.statements], 'write');
    } catch (error) {
      const now = Number((await client.execute('SELECT COALESCE(MAX(version), 0) AS v FROM gateway_schema_version')).rows[0]?.['v'] ?? 0);
      if (now < migration.version) throw error;
    }
  }
}

class SqliteNameStore implements NameStore {
  readonly #client: Client;

  constructor(client: Client) {
    this.#client = client;
  }

  async getName(name: string): Promise<NameRecord | null> {
    const result = await this.#client.execute({
      sql: 'SELECT n.name, n.kind, n.meta_id, n.owner, n.nonce, m.meta_address FROM gateway_names n JOIN gateway_metas m ON m.id = n.meta_id WHERE n.name = ?',
      args: [name],
    });
    const row = result.rows[0];
    return row === undefined ? null : readName(row);
  }

  async nonceOf(name: string): Promise<number> {
    const result = await this.#client.execute({ sql: 'SELECT nonce FROM gateway_names WHERE name = ?', args: [name] });
    return Number(result.rows[0]?.['nonce'] ?? 0);
  }

  async setName(name: string, expectedNonce: number, change: NameChange, now: number): Promise<NameRecord | null> {
    const tx = await this.#client.transaction('write');
    try {
      const current = Number((await tx.execute({ sql: 'SELECT nonce FROM gateway_names WHERE name = ?', args: [name] })).rows[0]?.['nonce'] ?? 0);
      if (current !== expectedNonce) throw new NameNonceError();
      let metaId: number | null = null;
      if (change !== null) {
        const inserted = await tx.execute({ sql: 'INSERT INTO gateway_metas (name, meta_address) VALUES (?, ?) RETURNING id', args: [name, change.metaAddress] });
        metaId = Number(inserted.rows[0]!['id']);
      }
      await tx.execute({
        sql: `INSERT INTO gateway_names (name, kind, meta_id, owner, nonce, next_counter, updated_at) VALUES (?, ?, ?, ?, 1, 0, ?)
              ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, meta_id = excluded.meta_id, owner = excluded.owner, nonce = gateway_names.nonce + 1, updated_at = excluded.updated_at`,
        args: [name, change?.kind ?? null, metaId, change?.owner ?? null, now],
      });
      await tx.commit();
    } catch (error) {
      await tx.rollback().catch(() => undefined);
      throw error;
    } finally {
      tx.close();
    }
    return this.getName(name);
  }

  async issue(policy: IssuePolicy): Promise<IssueResult> {
    // Most lookups hand an address out again (same requester, or the cap reached): decided by
    // reads alone, without taking the write lock. A new address is decided again inside it.
    const read = async (sql: string, args: InValue[]) => (await this.#client.execute({ sql, args })).rows;
    const answer = await decideIssue(read, policy, null);
    if (answer !== null) return answer;
    const tx = await this.#client.transaction('write');
    try {
      const result = (await decideIssue(async (sql, args) => (await tx.execute({ sql, args })).rows, policy, tx))!;
      await tx.commit();
      return result;
    } catch (error) {
      await tx.rollback().catch(() => undefined);
      throw error;
    } finally {
      tx.close();
    }
  }

  async metaAddressOf(metaId: number): Promise<Uint8Array | null> {
    const row = (await this.#client.execute({ sql: 'SELECT meta_address FROM gateway_metas WHERE id = ?', args: [metaId] })).rows[0];
    return row === undefined ? null : bytes(row['meta_address']);
  }

  async watched(expiredAfter: number): Promise<IssuedAddress[]> {
    const result = await this.#client.execute({ sql: `SELECT ${ISSUED_COLUMNS} FROM gateway_addresses WHERE paid_tx_hash IS NULL AND expires_at > ? ORDER BY id`, args: [expiredAfter] });
    return result.rows.map(readIssued);
  }

  async markPaid(id: number, payment: { chainId: number; txHash: string; announcementId: number | null }): Promise<void> {
    await this.#client.execute({
      sql: 'UPDATE gateway_addresses SET paid_chain_id = ?, paid_tx_hash = ?, announcement_id = ? WHERE id = ? AND paid_tx_hash IS NULL',
      args: [payment.chainId, payment.txHash, payment.announcementId, id],
    });
  }

  async countIssued(name: string): Promise<number> {
    return Number((await this.#client.execute({ sql: 'SELECT COUNT(*) AS n FROM gateway_addresses WHERE name = ?', args: [name] })).rows[0]?.['n'] ?? 0);
  }

  async watchCursor(chainId: number): Promise<number | null> {
    const row = (await this.#client.execute({ sql: 'SELECT next_block FROM gateway_watch WHERE chain_id = ?', args: [chainId] })).rows[0];
    return row === undefined ? null : Number(row['next_block']);
  }

  async setWatchCursor(chainId: number, nextBlock: number): Promise<void> {
    await this.#client.execute({
      sql: 'INSERT INTO gateway_watch (chain_id, next_block) VALUES (?, ?) ON CONFLICT (chain_id) DO UPDATE SET next_block = excluded.next_block',
      args: [chainId, nextBlock],
    });
  }

  async close(): Promise<void> {
    this.#client.close();
  }
}

/**
 * The decision of {@link NameStore.issue} through `run`. With `tx` (the write transaction) it
 * issues a new address when the rules call for one; without, it returns null instead.
 */
async function decideIssue(run: (sql: string, args: InValue[]) => Promise<Row[]>, policy: IssuePolicy, tx: Transaction | null): Promise<IssueResult | null> {
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
  if (tx === null) return null;
  const counter = Number(state['next_counter']);
  await run('UPDATE gateway_names SET next_counter = next_counter + 1 WHERE name = ?', [policy.name]);
  const address = policy.derive(counter, bytes(state['meta_address']));
  const [row] = await run(
    `INSERT INTO gateway_addresses (name, counter, meta_id, address, requester, issued_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${ISSUED_COLUMNS}`,
    [policy.name, counter, metaId, address, policy.requester, policy.now, policy.now + policy.addressTtlSeconds],
  );
  return { address: readIssued(row!), fresh: true };
}

function readName(row: Row): NameRecord {
  return {
    name: String(row['name']),
    kind: String(row['kind']) === 'own' ? 'own' : 'label',
    metaId: Number(row['meta_id']),
    metaAddress: bytes(row['meta_address']),
    owner: row['owner'] === null ? null : String(row['owner']),
    nonce: Number(row['nonce']),
  };
}

function readIssued(row: Row): IssuedAddress {
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

function bytes(value: unknown): Uint8Array {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (value instanceof Uint8Array) return value.slice();
  throw new TypeError('gateway store: expected a BLOB');
}
