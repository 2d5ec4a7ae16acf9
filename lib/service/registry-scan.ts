/**
 * POST /api/v1/stealth/scan (PROTOCOL.md section 5): scan the registry for a recipient's
 * payments.
 *
 * Selection (INTERFACE.md 4.2), in order: `view_tags` when given and non-empty; else the
 * inclusive range when both timestamps are given; else the whole registry. The keys are checked
 * and prepared once (`createScanner`), then the selection is read page by page with an id
 * cursor, so memory stays bounded by one page whatever the registry's size, and announcements
 * published during the scan are not skipped or read twice.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  bytesToHex,
  createErc8441Scanner,
  createScanner,
  decodeErc8441MetaAddress,
  erc8441Offset,
  erc8441RowOf,
  erc8441StealthKey,
  isSealedNoteLength,
  KeyMismatchError,
  readNote,
  suiAddressOf,
  type Discovery,
  type Erc8441Announcement,
  type Erc8441Scanner,
  type PaymentNote,
} from '@wraith-pq/sdk';
import { HttpError } from '../http/errors.ts';
import type { AnnouncementFilter, RegistryStore, StoredAnnouncement } from '../registry/store.ts';
import type { DiscoveryJson, OpenedNoteJson, ScanRequest, ScanResponse } from '../schemas/stealth.ts';

/** Announcements read from the store per page. */
export const SCAN_PAGE_SIZE = 1000;

/** The store filter for a scan request: only the rule that applies is passed on. */
export function scanSelection(request: Pick<ScanRequest, 'view_tags' | 'from_timestamp' | 'to_timestamp'>): AnnouncementFilter {
  if (request.view_tags !== undefined && request.view_tags.length > 0) return { viewTags: [...new Set(request.view_tags)] };
  if (request.from_timestamp !== undefined && request.to_timestamp !== undefined) {
    return { fromTimestamp: request.from_timestamp, toTimestamp: request.to_timestamp };
  }
  return {};
}

export type ScanRegistryOptions = {
  /** Scan only announcements that carry a channel id (private channels, lib/channels). */
  channelsOnly?: boolean;
};

/**
 * Scan the registry with the request's keys.
 * @throws {WraithError} INVALID_KEY / KEY_MISMATCH for keys that do not belong together.
 */
export async function scanRegistry(store: RegistryStore, request: ScanRequest, options: ScanRegistryOptions = {}): Promise<ScanResponse> {
  const started = performance.now();
  const erc8441 = erc8441ScannerOf(request);
  const scheme1000 = request.viewing_sk !== undefined && request.spending_pk !== undefined;
  const scanner = scheme1000
    ? createScanner(
        {
          viewingSecretKey: request.viewing_sk!,
          spendingPublicKey: request.spending_pk!,
          ...(request.spending_sk === undefined ? {} : { spendingSecretKey: request.spending_sk }),
        },
        request.mode === undefined ? {} : { mode: request.mode },
      )
    : undefined;
  // Only the schemes whose keys were given are read (API.md "Several chains, two schemes").
  const schemeIds = [...(scheme1000 ? [1000] : []), ...(erc8441 === undefined ? [] : [3])];
  const filter: AnnouncementFilter = {
    ...scanSelection(request),
    ...(options.channelsOnly === true ? { withChannelId: true } : {}),
    ...(schemeIds.length === 2 ? {} : { schemeIds }),
  };
  if (erc8441 !== undefined && request.spending_sk !== undefined && !isSpendingKeyOf(erc8441, request.spending_sk)) {
    throw new HttpError(400, 'VALIDATION_ERROR', 'spending_sk does not belong to meta_address.', { details: [{ path: 'spending_sk', issue: 'does not belong to meta_address' }] });
  }
  const discoveries: DiscoveryJson[] = [];
  const seen = new Set<string>();
  let totalScanned = 0;
  let viewTagMatches = 0;
  let afterId: number | undefined;
  for (;;) {
    const { announcements } = await store.list(filter, { limit: SCAN_PAGE_SIZE, countTotal: false, ...(afterId === undefined ? {} : { afterId }) });
    if (announcements.length === 0) break;
    totalScanned += announcements.length;
    // Each row under its own scheme: scheme-3 rows by the ERC-8441 scanner (one batch per page,
    // the WebAssembly ECDH in lockstep), the rest by this format's.
    const rest: StoredAnnouncement[] = [];
    const erc8441Rows: { row: StoredAnnouncement; announcement: Erc8441Announcement }[] = [];
    for (const row of announcements) {
      const erc8441Row = row.schemeId === 3 ? erc8441RowOf(row) : undefined;
      if (erc8441Row === undefined) rest.push(row);
      else if (erc8441 !== undefined) erc8441Rows.push({ row, announcement: erc8441Row });
    }
    if (erc8441 !== undefined && erc8441Rows.length > 0) {
      const checks = erc8441.checkBatch(erc8441Rows.map((r) => r.announcement));
      checks.forEach((found, i) => {
        if (found.match || found.reason === 'address_mismatch' || found.reason === 'offset_out_of_range') viewTagMatches++;
        // Deduplicated by stealth address, the earliest row kept (ERC-8441 Section 2.5).
        if (!found.match || seen.has(found.stealthAddress)) return;
        seen.add(found.stealthAddress);
        discoveries.push(erc8441DiscoveryJson(erc8441Rows[i]!.row, erc8441, found.stealthAddress, found.sharedSecret, request.spending_sk));
      });
    }
    if (scanner !== undefined && rest.length > 0) {
      const result = scanner.scan(rest);
      viewTagMatches += result.stats.viewTagMatches;
      for (const discovery of result.discoveries) discoveries.push(discoveryToJson(discovery));
    }
    afterId = announcements[announcements.length - 1]!.id;
    if (announcements.length < SCAN_PAGE_SIZE) break;
    // The store and the scanner run on this thread without yielding to the event loop (the
    // SQLite driver is synchronous), so let other requests in between pages: a scan of a large
    // registry must not stall the server for its whole duration.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  discoveries.sort((a, b) => a.announcement_id - b.announcement_id);
  const elapsedMs = performance.now() - started;
  return {
    discoveries,
    stats: {
      total_scanned: totalScanned,
      view_tag_matches: viewTagMatches,
      discoveries: discoveries.length,
      duration_ms: Math.round(elapsedMs),
      rate: elapsedMs > 0 ? Math.round((totalScanned * 1000) / elapsedMs) : 0,
    },
  };
}

/** The request's ERC-8441 scanner, its tracking key checked against the meta-address (400 TRACKING_KEY_MISMATCH). */
function erc8441ScannerOf(request: ScanRequest): Erc8441Scanner | undefined {
  if (request.tracking_key === undefined || request.meta_address === undefined) return undefined;
  const metaAddress = decodeErc8441MetaAddress(request.meta_address);
  try {
    return createErc8441Scanner({ trackingKey: request.tracking_key, metaAddress });
  } catch (error) {
    if (!(error instanceof KeyMismatchError)) throw error;
    throw new HttpError(400, 'TRACKING_KEY_MISMATCH', 'The tracking key does not belong to meta_address (viewing_ec·G or ek differ).', {
      details: [{ path: 'tracking_key', issue: 'does not belong to meta_address' }],
    });
  }
}

/** Whether `spendingSecret` is the meta-address's spending key (b·G = spending_pk). */
function isSpendingKeyOf(scanner: Erc8441Scanner, spendingSecret: Uint8Array): boolean {
  try {
    return bytesToHex(secp256k1.getPublicKey(spendingSecret, true)) === bytesToHex(scanner.meta.spendingPublicKey);
  } catch {
    return false;
  }
}

/**
 * A scheme-3 discovery: with spending_sk its one-time key; never `ss`, `H(ss)` or anything else
 * from which the spending key follows (ERC-8441 Section 2.6).
 */
function erc8441DiscoveryJson(row: StoredAnnouncement, scanner: Erc8441Scanner, stealthAddress: string, ss: Uint8Array, spendingSecret: Uint8Array | undefined): DiscoveryJson {
  // A match passed the offset's range check, so H(ss) is a valid scalar (ERC-8441 Section 1).
  const stealthPoint = secp256k1.Point.fromBytes(scanner.meta.spendingPublicKey).add(secp256k1.Point.BASE.multiply(erc8441Offset(ss)!));
  // What follows a scheme-3 view tag is a note only at a note's length (PROTOCOL.md section 10).
  const { noteStatus, note } = readNote(ss, row.metadata !== null && isSealedNoteLength(row.metadata.length) ? row.metadata : undefined);
  const json = discoveryFields({ scheme_id: 3, stealth_address: stealthAddress, stealth_sui_address: suiAddressOf(stealthPoint) }, row, {
    stealth_address_mismatch: false,
    note_status: noteStatus,
    note: noteToJson(note),
  });
  if (spendingSecret !== undefined) {
    const p = bytesToHex(erc8441StealthKey({ spendingSecretKey: spendingSecret, sharedSecret: ss, stealthAddress }));
    json.stealth_sk = p;
    json.eth_private_key = `0x${p}`;
  }
  return json;
}

/** A discovery's fields in the documented order: what was found, where its announcement sits, what it said. */
function discoveryFields(
  found: Pick<DiscoveryJson, 'scheme_id' | 'stealth_address' | 'stealth_sui_address'>,
  row: StoredAnnouncement,
  said: Pick<DiscoveryJson, 'stealth_address_mismatch' | 'note_status' | 'note'>,
): DiscoveryJson {
  return {
    ...found,
    announcement_id: row.id,
    timestamp: row.timestamp,
    channel_id: row.channelId === null ? null : bytesToHex(row.channelId),
    tx_hash: row.txHash,
    amount: row.amount,
    chain: row.chain,
    chain_id: row.chainId,
    view_tag: row.viewTag,
    stealth_address_announced: row.stealthAddress,
    ...said,
    block_number: row.blockNumber,
    log_index: row.logIndex,
  };
}

function discoveryToJson(discovery: Discovery<StoredAnnouncement>): DiscoveryJson {
  const json = discoveryFields(
    { scheme_id: 1000, stealth_address: discovery.stealthAddress, stealth_sui_address: discovery.stealthSuiAddress },
    discovery.announcement,
    { stealth_address_mismatch: discovery.stealthAddressMismatch, note_status: discovery.noteStatus, note: noteToJson(discovery.note) },
  );
  if (discovery.stealthSecretKey !== undefined) {
    const p = bytesToHex(discovery.stealthSecretKey);
    json.stealth_sk = p;
    json.eth_private_key = `0x${p}`; // PROTOCOL.md section 5: the form EVM wallets import
  }
  if (discovery.sharedSecret !== undefined) json.shared_secret = bytesToHex(discovery.sharedSecret);
  return json;
}

/**
 * A sealed note opened by the scanner, in JSON (PROTOCOL.md section 8): decimal strings, null for
 * absent fields; `token` the asset a version-1 note names (8.1: `coin` or the token's EIP-55
 * address), null for a version-0 note.
 */
export function noteToJson(note: PaymentNote | null): OpenedNoteJson | null {
  if (note === null) return null;
  return {
    tx_hash: note.txHash,
    amount: note.amount === null ? null : note.amount.toString(),
    chain_id: note.chainId === null ? null : note.chainId.toString(),
    token: note.token,
  };
}
