/**
 * From a name's record to a validated meta-address (INTERFACE.md 4.4 rules 2 and 3): parse the
 * CID (`ipfs://<cid>`, `/ipfs/<cid>` or a bare CID), download and verify the bytes
 * (lib/ipfs/download.ts), decode them (PROTOCOL.md section 3). Errors say that the *record* is
 * at fault, so the caller knows the name's owner has to fix it.
 */
import { decodeMetaAddress, parseCid, type Cid, type MetaAddress } from '@wraith-pq/sdk';
import { HttpError } from '../http/errors.ts';
import { downloadVerified } from '../ipfs/download.ts';

/**
 * The CID in a record value.
 * @throws {HttpError} 400 INVALID_CID naming the record (`what`, e.g. "stealth-meta text record").
 */
export function cidFromRecord(value: string, what: string): Cid {
  try {
    return parseCid(value);
  } catch (cause) {
    throw new HttpError(400, 'INVALID_CID', `The name's ${what} is not an IPFS CID (expected ipfs://<cid>, /ipfs/<cid> or a bare CID); its owner must update it.`, {
      details: [{ path: 'record', issue: 'not a parseable CID of a raw or dag-pb block (sha2-256)' }],
      cause,
    });
  }
}

/**
 * Download the content of `cid` and decode it as a meta-address.
 * @throws {HttpError} 400 INVALID_META_ADDRESS when the content is not one; the SDK's
 * LEGACY_META_ADDRESS for a version-1 meta-address; download errors (404, 422, 502, 504).
 */
export async function metaAddressAtCid(cid: Cid): Promise<MetaAddress> {
  const content = await downloadVerified(cid);
  try {
    return decodeMetaAddress(content);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'INVALID_META_ADDRESS') throw error;
    throw new HttpError(400, 'INVALID_META_ADDRESS', 'The name\'s record points to content that is not a valid meta-address (PROTOCOL.md section 3); its owner must publish a new one.', {
      details: (error as { details?: { path: string; issue: string }[] }).details ?? [],
      cause: error,
    });
  }
}
