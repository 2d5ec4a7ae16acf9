/**
 * Receive, step 1: create a recipient's keys on this device, keep them in an encrypted
 * keystore, and publish the meta-address so senders can pay it.
 *
 *   WRAITH_URL=http://localhost:3001 WRAITH_PASSWORD=… npx tsx examples/receive.ts
 *
 * Writes the keystore to KEYSTORE_FILE (default ./wraith-keystore.json). Then point a name at
 * the printed text record (ENS: the `stealth-meta` text record; SuiNS: the content hash), or
 * hand out the meta-address itself. Find payments with examples/scan-stream.ts.
 */
import { writeFile } from 'node:fs/promises';
import { bytesToHex, createClient, formatMetaAddressUri, generateKeys, sealKeys } from '@wraith-pq/sdk';

const baseUrl = process.env.WRAITH_URL ?? 'http://localhost:3001';
const password = process.env.WRAITH_PASSWORD ?? 'correct horse battery staple'; // example only: ask the user
const keystoreFile = process.env.KEYSTORE_FILE ?? 'wraith-keystore.json';

const client = createClient({ baseUrl, ...(process.env.WRAITH_API_KEY ? { apiKey: process.env.WRAITH_API_KEY } : {}) });

// 1. Keys are made here; the secrets never leave this device.
const keys = generateKeys();

// 2. Keep them encrypted under a password (PBKDF2-SHA256 + AES-256-GCM).
await writeFile(keystoreFile, await sealKeys(keys, password), { mode: 0o600 });

// 3. Publish the meta-address (public) through the server's content-addressed store.
const { cid, text_record } = await client.uploadMetaAddress({ meta_address: keys.metaAddress, name: 'wraith example' });

console.log(`keystore: ${keystoreFile}`);
console.log(`meta-address: ${bytesToHex(keys.metaAddress)}`);
console.log(`meta-address URI: ${formatMetaAddressUri(keys.metaAddress).slice(0, 40)}…`);
console.log(`cid: ${cid}`);
console.log(`text record: ${text_record}`);
