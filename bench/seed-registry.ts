/**
 * A registry of N announcements in a SQLite file, for the end-to-end benchmarks (bench/stream.ts,
 * bench/scan-page.ts): random 1088-byte ciphertexts with random tags (foreign announcements: 1 in
 * 256 matches a key's tag and takes the full check, as on a real registry) plus 10 honest payments
 * to one recipient spread evenly. Written with SQL through one prepared statement in one
 * transaction, not through HTTP (the client's batches took ~170 s for 1M rows).
 *
 * With `chainEvents`, every row is stored as the indexer stores an ERC-5564 event (PROTOCOL.md
 * sections 6 and 7): tx hash, chain, stealth address (the payment's own for the honest rows),
 * block number and log index, origin 1. Binary pages then carry those fields for every row.
 */
import Database from 'libsql';
import { bytesToHex, createStealthPayment, generateKeys, type RecipientKeys } from '../sdk/src/index.ts';
import { createSqliteStore } from '../lib/registry/sqlite.ts';

export type SeededRegistry = {
  /** The recipient of the honest payments. */
  keys: RecipientKeys;
  /** Announcement id → stealth address of each honest payment. */
  honest: Map<number, string>;
};

export async function seedRegistry(url: string, n: number, options: { chainEvents?: boolean } = {}): Promise<SeededRegistry> {
  await (await createSqliteStore(url)).close(); // creates the schema
  const db = new Database(url.slice('file:'.length));
  const insert = options.chainEvents
    ? db.prepare(
        "INSERT INTO announcements (id, ephemeral_key, view_tag, timestamp, tx_hash, tx_hash_norm, chain, stealth_address, block_number, log_index, origin) VALUES (?, ?, ?, ?, ?, ?, 'eip155:1', ?, ?, ?, 1)",
      )
    : db.prepare('INSERT INTO announcements (id, ephemeral_key, view_tag, timestamp, tx_hash, tx_hash_norm) VALUES (?, ?, ?, ?, ?, ?)');
  const hex = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;
  const now = Math.floor(Date.now() / 1000);
  const honestAt = new Set(Array.from({ length: 10 }, (_, i) => Math.floor(((i + 0.5) * n) / 10)));
  const keys = generateKeys();
  const honest = new Map<number, string>();
  db.exec('BEGIN');
  for (let id = 1; id <= n; id++) {
    let ciphertext: Uint8Array;
    let viewTag: number;
    let stealthAddress: string;
    if (honestAt.has(id)) {
      const p = createStealthPayment(keys.metaAddress);
      ciphertext = p.ephemeralCiphertext;
      viewTag = p.viewTag;
      stealthAddress = p.stealthAddress;
      honest.set(id, p.stealthAddress);
    } else {
      ciphertext = crypto.getRandomValues(new Uint8Array(1088));
      viewTag = ciphertext[0]!; // random, independent of the key
      stealthAddress = hex(ciphertext.subarray(1, 21));
    }
    const blob = Buffer.from(ciphertext.buffer, ciphertext.byteOffset, ciphertext.length);
    if (options.chainEvents) {
      const txHash = hex(ciphertext.subarray(1000, 1032));
      insert.run(id, blob, viewTag, now, txHash, txHash, stealthAddress, 19_000_000 + Math.floor(id / 4), id % 4);
    } else {
      insert.run(id, blob, viewTag, now, `0x${id}`, `0x${id}`);
    }
  }
  db.exec('COMMIT');
  db.close();
  return { keys, honest };
}
