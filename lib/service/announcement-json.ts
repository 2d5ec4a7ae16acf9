/**
 * Stored announcements (bytes) in their JSON form (PROTOCOL.md section 6): hex without `0x`,
 * absent optional values as `null`.
 */
import { bytesToHex } from '@wraith-pq/sdk';
import type { StoredAnnouncement } from '../registry/store.ts';
import type { AnnouncementJson } from '../schemas/announcement.ts';

export function announcementToJson(row: StoredAnnouncement): AnnouncementJson {
  return {
    id: row.id,
    scheme_id: row.schemeId === 3 ? 3 : 1000,
    ephemeral_key: bytesToHex(row.ephemeralKey),
    view_tag: row.viewTag,
    timestamp: row.timestamp,
    channel_id: row.channelId === null ? null : bytesToHex(row.channelId),
    tx_hash: row.txHash,
    amount: row.amount,
    chain: row.chain,
    chain_id: row.chainId,
    stealth_address: row.stealthAddress,
    metadata: row.metadata === null ? null : bytesToHex(row.metadata),
    block_number: row.blockNumber,
    log_index: row.logIndex,
  };
}
