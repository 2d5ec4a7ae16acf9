/**
 * POST /api/v1/registry/announcements under the three publishing modes of `REGISTRY_PUBLISH`
 * (API.md "Configuration"):
 * - `open` (default): stored as given (the interface's rule, lib/service/registry-api.ts);
 * - `verified`: stored only when the chain proves it (lib/chain/verify-publication.ts), as the
 *   chain row it proved, so the indexer finds it already stored (PROTOCOL.md section 6);
 * - `closed`: refused with 403 PUBLISH_CLOSED; announcements come from the chain only.
 */
import { verifyPublication } from '../chain/verify-publication.ts';
import { HttpError, validationError } from '../http/errors.ts';
import { upstreamError } from '../ipfs/upstream.ts';
import type { RegistryStore } from '../registry/store.ts';
import type { PublishAnnouncementRequest } from '../schemas/registry.ts';
import { followedChainById, followedChains, type FollowedChain } from '../server/chain.ts';
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
      const chain = chainToVerifyOn(request.chain_id);
      if (chain.chainId === undefined) throw upstreamError('chain RPC', 'has not answered yet');
      const proved = await verifyPublication(request, { clients: chain.clients, config: chain.config, chainId: chain.chainId, timeoutMs: config.upstreamTimeoutMs });
      const stored = await store.publishVerified(proved);
      return { id: stored.id, success: true };
    }
  }
}

/**
 * The followed chain a verified publish is proved on (API.md "Several chains"): the one its
 * `chain_id` names (422 CHAIN_NOT_FOLLOWED when this server does not follow it), or the only one
 * when it names none; a server following several needs the publish to say which.
 */
function chainToVerifyOn(chainId: number | undefined): FollowedChain {
  if (chainId !== undefined) {
    const chain = followedChainById(chainId);
    if (chain === undefined) {
      const followed = followedChains().flatMap((c) => (c.chainId === undefined ? [] : [c.chainId]));
      throw new HttpError(422, 'CHAIN_NOT_FOLLOWED', `Not stored: this server does not follow the chain the publish names (it follows ${followed.join(', ') || 'no chain yet'}).`, {
        details: [{ path: 'chain_id', issue: 'is not a chain this server follows' }],
      });
    }
    return chain;
  }
  const chains = followedChains();
  if (chains.length === 1) return chains[0]!;
  if (chains.length === 0) throw new Error('REGISTRY_PUBLISH=verified without a chain'); // refused by loadConfig
  throw validationError([{ path: 'chain_id', issue: 'is required: this server follows several chains; name the one the transaction is on' }]);
}
