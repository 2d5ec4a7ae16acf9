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
import { bytesToHex, createScanner, type Discovery, type PaymentNote } from '@wraith-pq/sdk';
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
  const scanner = createScanner({
    viewingSecretKey: request.viewing_sk,
    spendingPublicKey: request.spending_pk,
    ...(request.spending_sk === undefined ? {} : { spendingSecretKey: request.spending_sk }),
  }, request.mode === undefined ? {} : { mode: request.mode });
  const filter: AnnouncementFilter = { ...scanSelection(request), ...(options.channelsOnly === true ? { withChannelId: true } : {}) };
  const discoveries: DiscoveryJson[] = [];
  let totalScanned = 0;
  let viewTagMatches = 0;
  let afterId: number | undefined;
  for (;;) {
    const { announcements } = await store.list(filter, { limit: SCAN_PAGE_SIZE, countTotal: false, ...(afterId === undefined ? {} : { afterId }) });
    if (announcements.length === 0) break;
    const result = scanner.scan(announcements);
    totalScanned += result.stats.totalScanned;
    viewTagMatches += result.stats.viewTagMatches;
    for (const discovery of result.discoveries) discoveries.push(discoveryToJson(discovery));
    afterId = announcements[announcements.length - 1]!.id;
    if (announcements.length < SCAN_PAGE_SIZE) break;
    // The store and the scanner run on this thread without yielding to the event loop (the
    // SQLite driver is synchronous), so let other requests in between pages: a scan of a large
    // registry must not stall the server for its whole duration.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
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

function discoveryToJson(discovery: Discovery<StoredAnnouncement>): DiscoveryJson {
  const row = discovery.announcement;
  const json: DiscoveryJson = {
    stealth_address: discovery.stealthAddress,
    stealth_sui_address: discovery.stealthSuiAddress,
    announcement_id: row.id,
    timestamp: row.timestamp,
    channel_id: row.channelId === null ? null : bytesToHex(row.channelId),
    tx_hash: row.txHash,
    amount: row.amount,
    chain: row.chain,
    stealth_address_announced: row.stealthAddress,
    stealth_address_mismatch: discovery.stealthAddressMismatch,
    note_status: discovery.noteStatus,
    note: noteToJson(discovery.note),
    block_number: row.blockNumber,
    log_index: row.logIndex,
  };
  if (discovery.stealthSecretKey !== undefined) {
    const p = bytesToHex(discovery.stealthSecretKey);
    json.stealth_sk = p;
    json.eth_private_key = `0x${p}`; // PROTOCOL.md section 5: the form EVM wallets import
  }
  if (discovery.sharedSecret !== undefined) json.shared_secret = bytesToHex(discovery.sharedSecret);
  return json;
}

/** A sealed note opened by the scanner, in JSON (PROTOCOL.md section 8): decimal strings, null for absent fields. */
export function noteToJson(note: PaymentNote | null): OpenedNoteJson | null {
  if (note === null) return null;
  return {
    tx_hash: note.txHash,
    amount: note.amount === null ? null : note.amount.toString(),
    chain_id: note.chainId === null ? null : note.chainId.toString(),
  };
}
