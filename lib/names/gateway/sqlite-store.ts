/**
 * The gateway's {@link NameStore} in the registry's SQLite / libSQL database (`REGISTRY_URL=file:`
 * or `libsql:`), in tables of its own with their own forward-only migrations
 * (`gateway_schema_version`, the registry's pattern: each migration one batch whose first
 * statement claims its version).
 *
 * `issue` runs in one write transaction (SQLite serialises writers), so the counter is reserved,
 * the cap checked and the row stored together, committed before the gateway answers. The SQL and
 * the decision are shared with the PostgreSQL store (sql-rows.ts).
 */
import { createClient, type Client, type InStatement, type InValue, type ResultSet, type Transaction } from '@libsql/client';
import { blob, decideIssue, ISSUED_COLUMNS, readIssued, readName } from './sql-rows.ts';
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
  /**
   * A local libSQL client has one connection: while a transaction holds it, any other statement
   * fails (TRANSACTION_ACTIVE), so concurrent lookups would fail. This store's statements and
   * transactions wait for each other instead (each is short; SQLite serialises writers anyway).
   */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(client: Client) {
    this.#client = client;
  }

  #queued<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  #execute(statement: InStatement): Promise<ResultSet> {
    return this.#queued(() => this.#client.execute(statement));
  }

  /** `work` in one write transaction, committed when it returns, rolled back when it throws. */
  #transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.#queued(async () => {
      const tx = await this.#client.transaction('write');
      try {
        const result = await work(tx);
        await tx.commit();
        return result;
      } catch (error) {
        await tx.rollback().catch(() => undefined);
        throw error;
      } finally {
        tx.close();
      }
    });
  }

  async getName(name: string): Promise<NameRecord | null> {
    const result = await this.#execute({
      sql: 'SELECT n.name, n.kind, n.meta_id, n.owner, n.nonce, m.meta_address FROM gateway_names n JOIN gateway_metas m ON m.id = n.meta_id WHERE n.name = ?',
      args: [name],
    });
    const row = result.rows[0];
    return row === undefined ? null : readName(row);
  }

  async nonceOf(name: string): Promise<number> {
    const result = await this.#execute({ sql: 'SELECT nonce FROM gateway_names WHERE name = ?', args: [name] });
    return Number(result.rows[0]?.['nonce'] ?? 0);
  }

  async setName(name: string, expectedNonce: number, change: NameChange, now: number): Promise<NameRecord | null> {
    await this.#transaction(async (tx) => {
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
    });
    return this.getName(name);
  }

  async issue(policy: IssuePolicy): Promise<IssueResult> {
    // Most lookups hand an address out again (same requester, or the cap reached): decided by
    // reads alone, without taking the write lock. A new address is decided again inside it.
    const answer = await decideIssue(async (sql, args) => (await this.#execute({ sql, args: args as InValue[] })).rows, policy, false);
    if (answer !== null) return answer;
    return this.#transaction(async (tx) => (await decideIssue(async (sql, args) => (await tx.execute({ sql, args: args as InValue[] })).rows, policy, true))!);
  }

  async metaAddressOf(metaId: number): Promise<Uint8Array | null> {
    const row = (await this.#execute({ sql: 'SELECT meta_address FROM gateway_metas WHERE id = ?', args: [metaId] })).rows[0];
    return row === undefined ? null : blob(row['meta_address']);
  }

  async watched(expiredAfter: number): Promise<IssuedAddress[]> {
    const result = await this.#execute({ sql: `SELECT ${ISSUED_COLUMNS} FROM gateway_addresses WHERE paid_tx_hash IS NULL AND expires_at > ? ORDER BY id`, args: [expiredAfter] });
    return result.rows.map(readIssued);
  }

  async markPaid(id: number, payment: { chainId: number; txHash: string; announcementId: number | null }): Promise<void> {
    await this.#execute({
      sql: 'UPDATE gateway_addresses SET paid_chain_id = ?, paid_tx_hash = ?, announcement_id = ? WHERE id = ? AND paid_tx_hash IS NULL',
      args: [payment.chainId, payment.txHash, payment.announcementId, id],
    });
  }

  async countIssued(name: string): Promise<number> {
    return Number((await this.#execute({ sql: 'SELECT COUNT(*) AS n FROM gateway_addresses WHERE name = ?', args: [name] })).rows[0]?.['n'] ?? 0);
  }

  async watchCursor(chainId: number): Promise<number | null> {
    const row = (await this.#execute({ sql: 'SELECT next_block FROM gateway_watch WHERE chain_id = ?', args: [chainId] })).rows[0];
    return row === undefined ? null : Number(row['next_block']);
  }

  async setWatchCursor(chainId: number, nextBlock: number): Promise<void> {
    await this.#execute({
      sql: 'INSERT INTO gateway_watch (chain_id, next_block) VALUES (?, ?) ON CONFLICT (chain_id) DO UPDATE SET next_block = excluded.next_block',
      args: [chainId, nextBlock],
    });
  }

  async close(): Promise<void> {
    await this.#tail;
    this.#client.close();
  }
}

