import { startServer, temporaryDirectory } from './tests/helpers/server.ts';
import { runExampleSequence } from './tests/helpers/openapi-contract.ts';
const dir = temporaryDirectory();
const s = await startServer({ env: { REGISTRY_URL: `file:${dir.path}/r.db`, IPFS_STORE_DIR: `${dir.path}/ipfs` } });
const doc = await (await fetch(`${s.url}/api/v1/openapi.json`)).json();
const results = await runExampleSequence(s.url, doc);
for (const r of results) {
  if (r.body instanceof Uint8Array) { console.log(r.step, r.status, 'bytes', r.body.length); continue; }
  const text = JSON.stringify(r.body);
  console.log(r.step, r.status, text.length > 600 ? text.replace(/[0-9a-f]{80,}/g, 'HEX') .slice(0, 900) : text);
}
await s.stop(); dir.remove();
