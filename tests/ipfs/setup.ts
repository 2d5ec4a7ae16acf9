/**
 * Shared set-up of the IPFS and name tests: a fresh embedded store per configuration, the route
 * handlers, and meta-addresses to publish.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex, generateKeys } from '@wraith-pq/sdk';
import { afterAll } from 'vitest';
import * as ensResolveRoute from '../../app/api/v1/ens/resolve/[name]/route.ts';
import * as ipfsGetRoute from '../../app/api/v1/ipfs/[cid]/route.ts';
import * as ipfsUploadRoute from '../../app/api/v1/ipfs/upload/route.ts';
import * as suinsResolveRoute from '../../app/api/v1/suins/resolve/[name]/route.ts';
import { PEER_IP_HEADER } from '../../lib/http/client-ip.ts';
import { clearProcessSingleton } from '../../lib/server/singleton.ts';
import { call, configure, type CallInit, type CallResult } from '../helpers/api.ts';

/** A fresh (version 2) meta-address: its bytes and lowercase hex. */
export function newMetaAddress(): { bytes: Uint8Array; hex: string } {
  const { metaAddress } = generateKeys();
  return { bytes: metaAddress, hex: bytesToHex(metaAddress) };
}

/** A legacy version-1 meta-address, `0x01 || ek || ek` (2369 bytes): insecure, must be refused. */
export function legacyMetaAddress(): Uint8Array {
  const { viewingPublicKey } = generateKeys();
  const bytes = new Uint8Array(1 + 2 * viewingPublicKey.length);
  bytes[0] = 0x01;
  bytes.set(viewingPublicKey, 1);
  bytes.set(viewingPublicKey, 1 + viewingPublicKey.length);
  return bytes;
}

const storeDirs: string[] = [];
afterAll(() => {
  for (const dir of storeDirs) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory for the embedded store. */
export function tempStoreDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wraith-ipfs-'));
  storeDirs.push(dir);
  return dir;
}

/**
 * Configure the server like tests/helpers/api.ts `configure`, with an empty embedded store
 * (unless IPFS_STORE_DIR is given) and an empty download cache.
 */
export async function configureIpfs(overrides: Record<string, string | undefined> = {}): Promise<{ storeDir: string }> {
  const storeDir = overrides.IPFS_STORE_DIR ?? tempStoreDir();
  await configure({ IPFS_STORE_DIR: storeDir, ...overrides });
  clearProcessSingleton('ipfsDownloadCache');
  return { storeDir };
}

export function upload(body: unknown, init: CallInit = {}): Promise<CallResult> {
  return call(ipfsUploadRoute.POST, '/api/v1/ipfs/upload', { ...init, body });
}

export function download(cid: string, init: CallInit = {}): Promise<CallResult & { bytes: Uint8Array }> {
  return callBytes(ipfsGetRoute.GET, `/api/v1/ipfs/${encodeURIComponent(cid)}`, init);
}

export function resolveEns(name: string): Promise<CallResult> {
  return call(ensResolveRoute.GET, `/api/v1/ens/resolve/${encodeURIComponent(name)}`);
}

export function resolveSuins(name: string, query = ''): Promise<CallResult> {
  return call(suinsResolveRoute.GET, `/api/v1/suins/resolve/${encodeURIComponent(name)}${query}`);
}

export const routes = { ensResolveRoute, ipfsGetRoute, ipfsUploadRoute, suinsResolveRoute };

async function callBytes(handler: (request: Request) => Promise<Response>, path: string, init: CallInit): Promise<CallResult & { bytes: Uint8Array }> {
  const headers = new Headers(init.headers);
  headers.set(PEER_IP_HEADER, '127.0.0.1');
  const response = await handler(new Request(`http://localhost${path}`, { method: init.method ?? 'GET', headers }));
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json, bytes };
}
