/**
 * GET /api/v1/yellow/config: the channel configuration a client needs to talk to the channel
 * network, from the `YELLOW_*` variables (lib/channels/config.ts). Public values only.
 */
import type { YellowConfigResponse } from '../schemas/channels.ts';
import type { YellowConfig } from './config.ts';

export function yellowConfigJson(config: YellowConfig): YellowConfigResponse {
  return {
    ws_url: config.wsUrl,
    custody_address: config.custodyAddress,
    adjudicator_address: config.adjudicatorAddress,
    chain_id: config.chainId,
    supported_tokens: config.tokens.map(({ symbol, address, decimals }) => ({ symbol, address, decimals })),
  };
}
