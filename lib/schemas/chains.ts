/**
 * GET /api/v1/chains (API.md `CHAINS`): what each followed chain offers a client: the tokens the
 * operator names and the gasless withdrawals (ERC-4337 v0.8 bundler, paymaster, accepted tokens).
 * Public values only: never a chain's RPC URL (it may carry an API key).
 */
import { z } from 'zod';
import { evmAddressOutput } from './fields.ts';

const chainToken = z
  .object({
    address: evmAddressOutput('EIP-55 ERC-20 contract address'),
    symbol: z.string().describe('Symbol the operator names it by'),
    decimals: z.int().describe('Decimals of its amounts'),
  })
  .describe('ChainToken');

export const chainsResponse = z
  .object({
    chains: z
      .array(
        z.object({
          name: z.string().describe('The chain\'s name (`name` of its CHAINS entry, or CHAIN_NAME)'),
          chain_id: z.int().nullable().describe('EIP-155 id its RPC answered (or its entry\'s chain_id); null until known'),
          tokens: z.array(chainToken).describe('Tokens the operator names for this chain, shown by symbol'),
          gasless: z
            .object({
              bundler_url: z.string().describe('ERC-4337 bundler JSON-RPC URL: it receives the one-time address, the destination and the caller\'s IP'),
              entry_point: evmAddressOutput('EntryPoint v0.8 (EIP-55)'),
              paymaster: evmAddressOutput('EIP-55 address of the paymaster that pays the gas for a fee in an accepted token'),
              tokens: z.array(evmAddressOutput('EIP-55 token address')).describe('Tokens the paymaster takes its fee in'),
            })
            .nullable()
            .describe('Gasless withdrawals (EIP-7702 + ERC-4337 v0.8) on this chain; null when not offered'),
        }),
      )
      .describe('Every followed chain, in configuration order; empty when none is followed'),
  })
  .describe('Chains');

export type ChainsResponse = z.output<typeof chainsResponse>;
