/**
 * Name → meta-address resolution (INTERFACE.md 4.4): `.eth` names through ENS
 * (lib/names/ens.ts), `.sui` names through SuiNS (lib/names/suins.ts); then the record's CID is
 * downloaded, verified and decoded (lib/names/record.ts). Used by GET /ens/resolve/:name,
 * GET /suins/resolve/:name and the private-channel recipient (lib/channels/recipient.ts).
 *
 * Name lookups are always fresh; only downloads by CID are cached (lib/ipfs/download.ts), and
 * `noCache` clears that cache first.
 */
import { bytesToHex, decodeContenthash, isIpfsContenthash, type MetaAddress } from '@wraith-pq/sdk';
import { HttpError } from '../http/errors.ts';
import { clearDownloadCache } from '../ipfs/download.ts';
import { getConfig } from '../server/config.ts';
import type { EnsResolveResponse, SuinsResolveResponse } from '../schemas/names.ts';
import { normalizeEnsName, readEnsStealthRecord } from './ens.ts';
import { cidFromRecord, metaAddressAtCid } from './record.ts';
import { normalizeSuiName, readSuinsContentHash } from './suins.ts';

/** A name's published meta-address and where it came from. */
export type ResolvedMetaAddress = {
  metaAddress: MetaAddress;
  /** CID the meta-address bytes were downloaded from (and verified against). */
  cid: string;
  /** The name as resolved (normalised). */
  name: string;
  service: 'ens' | 'suins';
};

export type ResolveOptions = {
  /** Clear the CID download cache before the lookup. */
  noCache?: boolean;
};

/**
 * Resolve a `.eth` or `.sui` name to its meta-address.
 * @throws {HttpError} 400 INVALID_NAME for any other name; 404 NAME_NOT_FOUND /
 * NO_STEALTH_RECORD / NOT_FOUND; 400 INVALID_CID / INVALID_META_ADDRESS / LEGACY_META_ADDRESS
 * for a bad record; 422 CONTENT_MISMATCH; 502 / 504 for upstream failures.
 */
export async function resolveRecipientName(name: string, options: ResolveOptions = {}): Promise<ResolvedMetaAddress> {
  const suffix = /\.([a-z]+)$/i.exec(name.trim())?.[1]?.toLowerCase();
  if (suffix === 'eth') return resolveEnsName(name, options);
  if (suffix === 'sui') return resolveSuinsName(name, options);
  throw new HttpError(400, 'INVALID_NAME', 'The name must be a .eth (ENS) or .sui (SuiNS) name.', {
    details: [{ path: 'name', issue: 'must end in .eth or .sui' }],
  });
}

/** Resolve a `.eth` name: `ENS_TEXT_KEY` text record, else the EIP-1577 content hash. */
export async function resolveEnsName(input: string, options: ResolveOptions = {}): Promise<ResolvedMetaAddress> {
  const name = normalizeEnsName(input);
  if (options.noCache) clearDownloadCache();
  const record = await readEnsStealthRecord(name);
  let cid;
  if (record.kind === 'text') {
    cid = cidFromRecord(record.value, `${record.key} text record`);
  } else {
    if (!isIpfsContenthash(record.contenthash)) {
      throw new HttpError(404, 'NO_STEALTH_RECORD', `The name has no ${getConfig().ensTextKey} text record, and its content hash is not an IPFS CID (EIP-1577 ipfs-ns); its owner must publish a meta-address.`);
    }
    try {
      cid = decodeContenthash(record.contenthash);
    } catch (cause) {
      throw new HttpError(400, 'INVALID_CID', 'The name\'s content hash does not hold a usable IPFS CID; its owner must update it.', { cause });
    }
  }
  return { metaAddress: await metaAddressAtCid(cid), cid: cid.toString(), name, service: 'ens' };
}

/** Resolve a `.sui` name through its content hash. */
export async function resolveSuinsName(input: string, options: ResolveOptions = {}): Promise<ResolvedMetaAddress> {
  const name = normalizeSuiName(input);
  if (options.noCache) clearDownloadCache();
  const cid = cidFromRecord(await readSuinsContentHash(name), 'content hash');
  return { metaAddress: await metaAddressAtCid(cid), cid: cid.toString(), name, service: 'suins' };
}

/** The JSON of GET /ens/resolve/:name. */
export function ensResolveJson(resolved: ResolvedMetaAddress): EnsResolveResponse {
  return { ...commonJson(resolved), ens_name: resolved.name };
}

/** The JSON of GET /suins/resolve/:name. */
export function suinsResolveJson(resolved: ResolvedMetaAddress): SuinsResolveResponse {
  return { ...commonJson(resolved), suins_name: resolved.name };
}

function commonJson({ metaAddress, cid }: ResolvedMetaAddress) {
  return {
    meta_address: bytesToHex(metaAddress.bytes),
    spending_pk: bytesToHex(metaAddress.spendingPublicKey),
    viewing_pk: bytesToHex(metaAddress.viewingPublicKey),
    ipfs_cid: cid,
  };
}
