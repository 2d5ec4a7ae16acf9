/**
 * Fetching the content of a CID: from the dedicated gateway when it is configured, and from the
 * embedded store otherwise or when the gateway does not have it (content published before the
 * gateway was set up). Always verified against the CID (sdk `verifyCidBytes`), so neither a
 * gateway nor a damaged file can pass off other bytes (422 CONTENT_MISMATCH). Verified content
 * is cached in memory by CID (LRU, `IPFS_CACHE_ENTRIES`; 0 disables): content addressing makes
 * a cached answer correct forever, which is why name lookups stay fresh and only this is cached.
 */
import { verifyCidBytes, type Cid } from '@wraith-pq/sdk';
import { HttpError } from '../http/errors.ts';
import { getConfig } from '../server/config.ts';
import { processSingleton } from '../server/singleton.ts';
import { fetchFromGateway } from './gateway.ts';
import { LocalContentStore } from './local-store.ts';
import { LruCache } from './lru-cache.ts';

/**
 * Largest download accepted. A meta-address is 1218 bytes (PROTOCOL.md section 3); its dag-pb
 * block a few bytes more. 64 KiB leaves room without letting a record point at a large file.
 */
export const MAX_DOWNLOAD_BYTES = 64 * 1024;

type CacheSlot = { cache: LruCache<string, Uint8Array> };

/** The process's download cache, resized when `IPFS_CACHE_ENTRIES` changes (tests reconfigure). */
function downloadCache(capacity: number): LruCache<string, Uint8Array> {
  const slot = processSingleton<CacheSlot>('ipfsDownloadCache', () => ({ cache: new LruCache(capacity) }));
  if (slot.cache.capacity !== capacity) slot.cache = new LruCache(capacity);
  return slot.cache;
}

/** Forget every cached download (`no_cache` on the SuiNS endpoint). */
export function clearDownloadCache(): void {
  downloadCache(getConfig().ipfsCacheEntries).clear();
}

/**
 * The verified content of `cid`.
 * @throws {HttpError} 404 NOT_FOUND when no source has it; 422 CONTENT_MISMATCH (via the SDK
 * error) when the bytes are not its content; 502/504 for gateway failures.
 */
export async function downloadVerified(cid: Cid): Promise<Uint8Array> {
  const config = getConfig();
  const cache = downloadCache(config.ipfsCacheEntries);
  const key = cid.toV1().toString();
  const cached = cache.get(key);
  if (cached !== undefined) return cached.slice();

  const gateway = config.pinningGatewayUrl !== undefined && config.pinningGatewayToken !== undefined;
  let fetched: Uint8Array | undefined;
  if (gateway) {
    fetched = await fetchFromGateway(cid, {
      url: config.pinningGatewayUrl!,
      token: config.pinningGatewayToken!,
      timeoutMs: config.upstreamTimeoutMs,
      maxBytes: MAX_DOWNLOAD_BYTES,
    });
  }
  // Content published before a gateway was configured stays readable; it is verified all the same.
  fetched ??= await new LocalContentStore(config.ipfsStoreDir).get(cid);
  if (fetched === undefined) {
    throw new HttpError(404, 'NOT_FOUND', `No content with this CID is available from the ${gateway ? 'IPFS gateway or the ' : ''}embedded IPFS store; upload it first (POST /api/v1/ipfs/upload).`);
  }
  const content = verifyCidBytes(cid, fetched);
  cache.set(key, content.slice());
  return content;
}
