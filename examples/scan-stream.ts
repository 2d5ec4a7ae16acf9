/**
 * Receive, step 2: find payments by streaming the whole registry through the scanner on this
 * device (the keys are never sent anywhere), page by page, resumable from a saved cursor.
 *
 *   WRAITH_URL=http://localhost:3001 WRAITH_PASSWORD=… npx tsx examples/scan-stream.ts
 *
 * Reads the keystore written by examples/receive.ts (KEYSTORE_FILE). Pages come as compact
 * binary pages when the server offers them. The cursor is kept in CURSOR_FILE (default
 * ./wraith-cursor.json): a second run only scans what was announced since.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createClient, openKeys, scanRegistry } from '@wraith-pq/sdk';

const baseUrl = process.env.WRAITH_URL ?? 'http://localhost:3001';
const password = process.env.WRAITH_PASSWORD ?? 'correct horse battery staple';
const keystoreFile = process.env.KEYSTORE_FILE ?? 'wraith-keystore.json';
const cursorFile = process.env.CURSOR_FILE ?? 'wraith-cursor.json';

const keys = await openKeys(await readFile(keystoreFile, 'utf8'), password);
const fromCursor = await readFile(cursorFile, 'utf8').then((text) => Number(JSON.parse(text).cursor), () => 0);
const client = createClient({ baseUrl });

// Ctrl-C stops between pages; the cursor saved so far stays valid.
const controller = new AbortController();
process.once('SIGINT', () => controller.abort());

let found = 0;
let progress = { scanned: 0, cursor: fromCursor, rate: 0 };
for await (const batch of scanRegistry(client.announcementPages, keys, { fromCursor, signal: controller.signal })) {
  for (const discovery of batch.discoveries) {
    found++;
    const { txHash, amount } = discovery.announcement;
    // discovery.stealthSecretKey spends the payment: hand it to a wallet, never log it.
    console.log(`payment: ${discovery.stealthAddress} amount ${amount ?? '?'} tx ${txHash} (spend key: ${discovery.stealthSecretKey?.length ?? 0} bytes)`);
  }
  progress = batch.progress;
  await writeFile(cursorFile, JSON.stringify({ cursor: batch.cursor }));
}
console.log(`scanned ${progress.scanned} announcements from cursor ${fromCursor}, found ${found} payments, cursor now ${progress.cursor}`);
