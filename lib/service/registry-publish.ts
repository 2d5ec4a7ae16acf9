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
import { upstreamError } from '../ipfs/upstream.ts';
import type { RegistryStore } from '../registry/store.ts';
import type { PublishAnnouncementRequest } from '../schemas/registry.ts';
import { chainNamedBy, type ChainPurpose } from '../server/chain.ts';
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
      const chain = chainNamedBy(request.chain_id, VERIFY_CHAIN);
      if (chain.chainId === undefined) throw upstreamError('chain RPC', 'has not answered yet');
      const proved = await verifyPublication(request, { clients: chain.clients, config: chain.config, chainId: chain.chainId, timeoutMs: config.upstreamTimeoutMs });
      const stored = await store.publishVerified(proved);
      return { id: stored.id, success: true };
    }
  }
}

/** The followed chain a verified publish is proved on: the one its `chain_id` names, or the only one (lib/server/chain.ts). */
const VERIFY_CHAIN: ChainPurpose = {
  notFollowed: (followed) => `Not stored: this server does not follow the chain the publish names (it follows ${followed}).`,
  noChain: 'Not stored: this server follows no chain yet, so it cannot verify a publication.', // REGISTRY_PUBLISH=verified without one is refused by loadConfig
  several: 'is required: this server follows several chains; name the one the transaction is on',
};
