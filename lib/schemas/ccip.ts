/**
 * The ENS gateway's CCIP-Read request (EIP-3668 "Gateway Interface"): POST `{sender, data}`;
 * GET carries the same two values in its path (`/api/v1/ccip/{sender}/{data}.json`).
 */
import { z } from 'zod';

export const ccipRequest = z
  .object({
    sender: z.string().max(64).describe('The resolver that raised the OffchainLookup (must be this gateway\'s, ENS_GATEWAY_RESOLVER)'),
    data: z.string().max(4_096).describe('The OffchainLookup callData: resolve(bytes name, bytes data), 0x-prefixed hex'),
  })
  .describe('CcipRequest');

export const ccipResponse = z
  .object({
    data: z.string().describe('abi.encode(bytes result, uint64 expires, bytes signature), checked by the resolver\'s resolveWithProof'),
  })
  .describe('CcipResponse');

/** GET /api/v1/names: whether this server runs the ENS gateway, and for which parent name. */
export const nameGatewayResponse = z
  .object({
    enabled: z.boolean().describe('True when this server runs the ENS gateway (ENS_GATEWAY_* set)'),
    parent: z.string().nullable().describe('The parent name labels are registered under, or null'),
    resolver: z.string().nullable().describe('The deployment\'s OffchainResolver, or null'),
  })
  .describe('NameGatewayResponse');

/** POST /api/v1/names: register, change or release a name at the gateway (lib/names/gateway/registration.ts). */
export const nameChangeRequest = z
  .object({
    action: z.enum(['register', 'change', 'release']).describe('What to do with the name'),
    name: z.string().max(255).describe('alice.<parent> (a label under the deployment\'s parent name) or an own ENS name whose resolver is the deployment\'s'),
    meta_address: z.string().max(4_096).optional().describe('Either meta-address form (hex or st: URI); required to register or change'),
    nonce: z.int().min(0).max(Number.MAX_SAFE_INTEGER).describe('The name\'s current nonce (GET /api/v1/names/:name)'),
    signature: z.string().max(4_096).describe('personal_sign of the SDK\'s nameRegistrationMessage: by the meta-address\'s spending key (labels) or the ENS owner (own names)'),
  })
  .describe('NameChangeRequest');

export const nameResponse = z
  .object({
    name: z.string(),
    registered: z.boolean(),
    kind: z.enum(['label', 'own']).nullable(),
    meta_address: z.string().nullable().describe('The meta-address lookups are paid to, hex'),
    nonce: z.int().describe('What the next register/change/release must sign'),
    resolver: z.string().describe('The deployment\'s OffchainResolver'),
    parent: z.string().describe('The parent name labels are registered under'),
  })
  .describe('NameResponse');
