/**
 * GET /api/v1/chains: the followed chains' public settings (lib/schemas/chains.ts), so the web
 * app and the CLI know which tokens and which gasless route each chain offers.
 */
import { getAddress } from 'viem';
import type { ChainsResponse } from '../schemas/chains.ts';
import { followedChains } from '../server/chain.ts';
import { ENTRY_POINT_V08 } from '../server/gasless-check.ts';

export function chainsJson(): ChainsResponse {
  return {
    chains: followedChains()
      .filter((chain) => !chain.refused)
      .map(({ config, chainId }) => ({
        name: config.name,
        chain_id: chainId ?? null,
        tokens: (config.tokens ?? []).map(({ address, symbol, decimals }) => ({ address: getAddress(address), symbol, decimals })),
        gasless:
          config.gasless === undefined
            ? null
            : {
                bundler_url: config.gasless.bundlerUrl,
                entry_point: getAddress(ENTRY_POINT_V08),
                paymaster: getAddress(config.gasless.paymaster),
                tokens: config.gasless.tokens.map((address) => getAddress(address)),
              },
      })),
  };
}
