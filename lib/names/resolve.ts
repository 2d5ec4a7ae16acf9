/**
 * Name → meta-address resolution (INTERFACE.md 4.4): `.eth` names through ENS, `.sui` names
 * through SuiNS. Work in progress: the real implementation follows.
 */
import type { MetaAddress } from '@wraith-pq/sdk';
import { HttpError } from '../http/errors.ts';

/** A name's published meta-address and where it came from. */
export type ResolvedMetaAddress = {
  metaAddress: MetaAddress;
  /** CID the meta-address bytes were downloaded from. */
  cid: string;
  /** The name as resolved (normalised). */
  name: string;
  service: 'ens' | 'suins';
};

/**
 * Resolve a `.eth` or `.sui` name to its meta-address.
 * @throws {HttpError} 400 INVALID_NAME for any other name.
 */
export async function resolveRecipientName(name: string, options: { noCache?: boolean } = {}): Promise<ResolvedMetaAddress> {
  void options;
  if (!/\.(eth|sui)$/i.test(name.trim())) {
    throw new HttpError(400, 'INVALID_NAME', 'The name must be a .eth (ENS) or .sui (SuiNS) name.');
  }
  throw new HttpError(502, 'UPSTREAM_ERROR', 'Name resolution is not available yet.');
}
