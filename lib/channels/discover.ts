/**
 * POST /api/v1/yellow/channel/discover: the channels opened to a recipient.
 *
 * This is the registry scan (lib/service/registry-scan.ts, PROTOCOL.md section 5) narrowed to
 * announcements that carry a channel id, so it inherits the scan's guarantee: a discovery needs
 * the ciphertext to pass the re-encryption check for the recipient's key, whatever the
 * announcement's view tag says. On top of it, only channel announcements count: those whose
 * tx_hash is `channel:<their channel id>` (lib/channels/create.ts). The registry keeps that
 * tx_hash unique, so a channel id appears at most once. A ciphertext is one one-time address:
 * anyone can re-publish a channel's ciphertext under a new channel id, so a one-time address
 * belongs to its first announcement only, and copies published later are not channels.
 *
 * Discoveries are joined with this instance's channel table for the token and status; a channel
 * opened through another instance reports token null and status open.
 */
import { hexToBytes } from '@wraith-pq/sdk';
import type { RegistryStore } from '../registry/store.ts';
import type { DiscoverChannelsRequest, DiscoverChannelsResponse, DiscoveredChannelJson } from '../schemas/channels.ts';
import type { DiscoveryJson } from '../schemas/stealth.ts';
import { scanRegistry } from '../service/registry-scan.ts';
import { channelTxHash } from './create.ts';
import type { ChannelStore } from './store.ts';

/**
 * Scan the registry's channel announcements with the recipient's keys.
 * @throws {WraithError} INVALID_KEY / KEY_MISMATCH (400) for keys that do not belong together.
 */
export async function discoverChannels(
  request: DiscoverChannelsRequest,
  { registry, channels }: { registry: RegistryStore; channels: ChannelStore },
): Promise<DiscoverChannelsResponse> {
  // The whole registry, under scheme 1000 (channels are announced with it, lib/channels/create.ts).
  const scanRequest = { ...request, view_tags: undefined, from_timestamp: undefined, to_timestamp: undefined, tracking_key: undefined, meta_address: undefined };
  const scan = await scanRegistry(registry, scanRequest, { channelsOnly: true });
  const discoveredAt = Math.floor(Date.now() / 1000);
  const found: DiscoveredChannelJson[] = [];
  const addresses = new Set<string>();
  for (const discovery of scan.discoveries) {
    // Discoveries come in registry id order, so the first announcement of an address wins.
    const channelId = discovery.channel_id;
    if (channelId === null || discovery.tx_hash?.toLowerCase() !== channelTxHash(hexToBytes(channelId))) continue;
    if (addresses.has(discovery.stealth_address)) continue;
    addresses.add(discovery.stealth_address);
    const record = await channels.get(hexToBytes(channelId));
    found.push(channelJson(discovery, channelId, discoveredAt, record?.token ?? null, record?.status ?? 'open'));
  }
  return {
    channels: found,
    stats: {
      total_scanned: scan.stats.total_scanned,
      view_tag_matches: scan.stats.view_tag_matches,
      discoveries: found.length,
      duration_ms: scan.stats.duration_ms,
    },
  };
}

function channelJson(
  discovery: DiscoveryJson,
  channelId: string,
  discoveredAt: number,
  token: string | null,
  status: 'open' | 'closed',
): DiscoveredChannelJson {
  if (discovery.eth_private_key === undefined) throw new Error('a channel scan always has the spending secret'); // schema requires spending_sk
  return {
    channel_id: channelId,
    stealth_address: discovery.stealth_address,
    stealth_sui_address: discovery.stealth_sui_address,
    eth_private_key: discovery.eth_private_key,
    status,
    discovered_at: discoveredAt,
    announced_at: discovery.timestamp,
    announcement_id: discovery.announcement_id,
    amount: discovery.amount,
    token,
    note_status: discovery.note_status,
    note: discovery.note,
  };
}
