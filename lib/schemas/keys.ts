/**
 * POST /api/v1/keys/generate (INTERFACE.md 4.1, PROTOCOL.md section 2): no request body; the
 * response is a fresh key bundle. Nothing is stored.
 */
import { z } from 'zod';
import { hexOutput } from './fields.ts';

export const keyBundleResponse = z
  .object({
    spending_pk: hexOutput(33, 'Spending public key B: secp256k1, SEC1 compressed (33 bytes)'),
    spending_sk: hexOutput(32, 'Spending secret b (32 bytes). Secret: spends every payment'),
    viewing_pk: hexOutput(1184, 'Viewing public key: ML-KEM-768 encapsulation key (1184 bytes)'),
    viewing_sk: hexOutput(2400, 'Viewing secret key: ML-KEM-768 decapsulation key (2400 bytes). Secret: finds every payment'),
    meta_address: hexOutput(1218, 'Meta-address 0x02 || B || ek (1218 bytes), what the recipient publishes'),
    view_tag: z.int().min(0).max(255).describe('Base view tag of the viewing key (informational; not a registry filter)'),
    tracking_key: hexOutput(96, 'ERC-8441 tracking key viewing_ec || d || z (96 bytes): finds (cannot spend) the scheme-3 payments; may go to a scanning service'),
    erc8441_meta_address: hexOutput(1250, 'ERC-8441 meta-address spending_pk || viewing_pk_ec || ek (1250 bytes) of the same identity: register it with ERC-6538 under scheme 3'),
  })
  .describe('KeyBundle');

export type KeyBundle = z.output<typeof keyBundleResponse>;
