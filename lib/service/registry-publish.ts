/**
 * POST /api/v1/registry/announcements under the three publishing modes of `REGISTRY_PUBLISH`
 * (API.md "Configuration"):
 * - `open` (default): stored as given (the interface's rule, lib/service/registry-api.ts);
 * - `verified`: stored only when the chain proves it (lib/chain/verify-publication.ts), as the
 *   chain row it proved, so the indexer finds it already stored (PROTOCOL.md section 6);
 * - `closed`: refused with 403 PUBLISH_CLOSED; announcements come from the chain only.
 */
import { verifyPublication } from '../chain/verify-publication.ts';
import { HttpError } from '../http/errors.ts';
import type { RegistryStore } from '../registry/store.ts';
import type { PublishAnnouncementRequest } from '../schemas/registry.ts';
import { followedChains } from '../server/chain.ts';
import { getConfig } from '../server/config.ts';
import { publishAnnouncement } from './registry-api.ts';

export async function publishInMode(store: RegistryStore, request: PublishAnnouncementRequest): Promise<{ id: number; success: true }> {
  const config = getConfig();
  switch (config.registryPublish) {
    case 'open':
      return publishAnnouncement(store, request);
    case 'closed':
      throw new HttpError(403, 'PUBLISH_CLOSED', 'This registry takes announcements from the chain only (REGISTRY_PUBLISH=closed): announce the payment on the ERC-5564 Announcer instead; it appears here once indexed.');
    case 'verified': {
      // The first followed chain, until a publish names its chain_id (issue 24: the coordinator's
      // verify code picks the chain with followedChainById / chainClientsById).
      const chain = followedChains()[0];
      if (chain === undefined) throw new Error('REGISTRY_PUBLISH=verified without a chain'); // refused by loadConfig
      if (chain.chainId === undefined) throw new HttpError(503, 'SERVICE_UNAVAILABLE', 'The chain RPC has not answered yet; try again shortly.');
      const proved = await verifyPublication(request, { clients: chain.clients, config: chain.config, chainId: chain.chainId, timeoutMs: config.upstreamTimeoutMs });
      const stored = await store.publishVerified(proved);
      return { id: stored.id, success: true };
    }
  }
}
