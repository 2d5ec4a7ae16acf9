/**
 * GET /api/v1/ens/resolve/:name and GET /api/v1/suins/resolve/:name (INTERFACE.md 4.4).
 */
import { z } from 'zod';
import { hexOutput } from './fields.ts';

const resolvedFields = {
  meta_address: hexOutput(1218, 'Meta-address 0x02 || B || ek (1218 bytes), validated'),
  spending_pk: hexOutput(33, 'Spending public key B: secp256k1, compressed (33 bytes)'),
  viewing_pk: hexOutput(1184, 'Viewing public key: ML-KEM-768 encapsulation key (1184 bytes)'),
  ipfs_cid: z.string().describe('CID the meta-address bytes were downloaded from (and verified against)'),
};

export const ensResolveResponse = z
  .object({ ...resolvedFields, ens_name: z.string().describe('The name as resolved, ENSIP-15 normalised') })
  .describe('EnsResolveResponse');

export const suinsResolveResponse = z
  .object({ ...resolvedFields, suins_name: z.string().describe('The name as resolved, lower-case <label>.sui form') })
  .describe('SuinsResolveResponse');

export type EnsResolveResponse = z.output<typeof ensResolveResponse>;
export type SuinsResolveResponse = z.output<typeof suinsResolveResponse>;

export const suinsResolveQuery = z
  .object({
    no_cache: z.string().optional().describe('Present (any value, even empty): clear the CID download cache before the lookup'),
  })
  .describe('SuinsResolveQuery');
