/**
 * The recipient of a channel: a `.eth` / `.sui` name that publishes a meta-address (resolved as
 * GET /ens/resolve and /suins/resolve do, lib/names/resolve.ts) or a meta-address itself (hex or
 * `st:<chain>:0x…`, PROTOCOL.md section 3). Meta-addresses never contain a dot, so a dot means a
 * name; a name of another service is refused rather than read as a broken meta-address.
 */
import { decodeMetaAddress, type MetaAddress } from '@wraith-pq/sdk';
import { HttpError } from '../http/errors.ts';
import { resolveRecipientName } from '../names/resolve.ts';

const SUPPORTED_NAME = /\.(eth|sui)$/i;

/**
 * The recipient's decoded meta-address.
 * @throws {HttpError} 400 INVALID_NAME for a name that is neither .eth nor .sui; name errors
 * (NAME_NOT_FOUND, NO_STEALTH_RECORD, UPSTREAM_*) and meta-address errors (INVALID_META_ADDRESS,
 * LEGACY_META_ADDRESS) as their own modules raise them.
 */
export async function recipientMetaAddress(recipient: string): Promise<MetaAddress> {
  if (SUPPORTED_NAME.test(recipient)) return (await resolveRecipientName(recipient)).metaAddress;
  if (recipient.includes('.')) {
    throw new HttpError(400, 'INVALID_NAME', 'recipient must be a .eth or .sui name, or a meta-address (hex or st:<chain>:0x<hex>).', {
      details: [{ path: 'recipient', issue: 'names must end in .eth or .sui' }],
    });
  }
  return decodeMetaAddress(recipient);
}
