/**
 * Publishing a meta-address (INTERFACE.md 4.5): validate it (PROTOCOL.md section 3), store its
 * 1218 raw bytes — not hex text — with the pinning service when `PINNING_JWT` is set, else in
 * the embedded store, and answer the CID and the `ipfs://<cid>` record to write into a name.
 */
import { decodeMetaAddress, formatIpfsTextRecord, type Cid } from '@wraith-pq/sdk';
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
  const cid: Cid =
    config.pinningJwt === undefined
      ? await new LocalContentStore(config.ipfsStoreDir).put(bytes)
      : await pinFileToIpfs(bytes, {
          apiUrl: config.pinningApiUrl,
          jwt: config.pinningJwt,
          name: name ?? DEFAULT_PIN_NAME,
          timeoutMs: config.upstreamTimeoutMs,
        });
  return { cid: cid.toString(), text_record: formatIpfsTextRecord(cid) };
}
