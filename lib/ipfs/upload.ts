/**
 * Publishing a meta-address (INTERFACE.md 4.5): validate it (PROTOCOL.md section 3), store its
 * 1218 raw bytes — not hex text — with the pinning service when `PINNING_JWT` is set, else in
 * the embedded store, and answer the CID and the `ipfs://<cid>` record to write into a name.
 *
 * A pinned meta-address is also kept in the embedded store (1.2 KB), so this server resolves
 * names pointing at it without a gateway, and before the content has spread through IPFS. The
 * copy is best effort: the pin is what the client asked for, so a full disk only logs a warning.
 */
import { decodeMetaAddress, formatIpfsTextRecord, type Cid } from '@wraith-pq/sdk';
import { log } from '../http/log.ts';
import { getConfig } from '../server/config.ts';
import { LocalContentStore } from './local-store.ts';
import { pinFileToIpfs } from './pinata.ts';

/** Pin name when the request gives none. */
export const DEFAULT_PIN_NAME = 'wraith-meta-address';

export type UploadedMetaAddress = { cid: string; text_record: string };

/**
 * Upload a meta-address (hex or `st:<chain>:0x…`).
 * @throws INVALID_META_ADDRESS / LEGACY_META_ADDRESS (SDK errors, 400) before anything is
 * stored; HttpError 502/504 for pinning failures.
 */
export async function uploadMetaAddress(metaAddress: string, name: string | undefined): Promise<UploadedMetaAddress> {
  const { bytes } = decodeMetaAddress(metaAddress);
  const config = getConfig();
  const store = new LocalContentStore(config.ipfsStoreDir);
  if (config.pinningJwt === undefined) {
    const cid = await store.put(bytes);
    return { cid: cid.toString(), text_record: formatIpfsTextRecord(cid) };
  }
  const cid: Cid = await pinFileToIpfs(bytes, {
    apiUrl: config.pinningApiUrl,
    jwt: config.pinningJwt,
    name: name ?? DEFAULT_PIN_NAME,
    timeoutMs: config.upstreamTimeoutMs,
  });
  try {
    await store.put(bytes);
  } catch {
    log('warn', 'could not keep a copy of a pinned meta-address in the embedded store', { store: 'ipfs' });
  }
  return { cid: cid.toString(), text_record: formatIpfsTextRecord(cid) };
}
