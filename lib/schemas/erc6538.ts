/**
 * GET /api/v1/erc6538/:address (API.md "Several chains, two schemes"): the meta-address an
 * address registered in the ERC-6538 registry of a chain this server follows; and
 * GET /api/v1/ens/address/:name, the address of an ENS name, for a sender who then reads that
 * address's registration through their own wallet.
 */
import { z } from 'zod';
import { evmAddressOutput } from './fields.ts';

export const erc6538Query = z
  .object({
    chain_id: z
      .string()
      .regex(/^\d{1,15}$/, 'must be a chain id (a positive integer)')
      .transform(Number)
      .pipe(z.int().min(1).max(Number.MAX_SAFE_INTEGER))
      .optional()
      .describe('EIP-155 id of the followed chain whose registry is read; may be left out only when the server follows one chain'),
    scheme_id: z
      .string()
      .regex(/^(1000|3)$/, 'must be 1000 or 3')
      .transform(Number)
      .optional()
      .describe('Read only this scheme: 3 (ERC-8441, 1250 bytes) or 1000 (Wraith, 1218 bytes). Left out: scheme 3 when registered, else 1000, as a sender chooses (ERC-8441 Section 2.3)'),
  })
  .describe('Erc6538Query');

export type Erc6538Query = z.output<typeof erc6538Query>;

export const erc6538Response = z
  .object({
    registrant: evmAddressOutput('The address whose registration this is (EIP-55)'),
    chain_id: z.int().describe('EIP-155 id of the chain whose registry was read'),
    scheme_id: z.union([z.literal(3), z.literal(1000)]).describe('The scheme the meta-address is registered under: 3 (ERC-8441) or 1000 (Wraith)'),
    meta_address: z
      .string()
      .regex(/^([0-9a-f]{2500}|[0-9a-f]{2436})$/)
      .describe('The registered meta-address, validated by its form\'s decoder: 1250 bytes (scheme 3, B || V_ec || ek) or 1218 bytes (scheme 1000, 0x02 || B || ek)'),
  })
  .describe('Erc6538Registration');

export type Erc6538Response = z.output<typeof erc6538Response>;

export const ensAddressResponse = z
  .object({
    ens_name: z.string().describe('The name as resolved, ENSIP-15 normalised'),
    address: evmAddressOutput('The Ethereum address the name resolves to (ENSIP-1 addr record), EIP-55'),
  })
  .describe('EnsAddressResponse');

export type EnsAddressResponse = z.output<typeof ensAddressResponse>;
