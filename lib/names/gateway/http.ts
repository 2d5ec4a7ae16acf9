/**
 * The gateway route's glue: the store, the configuration and the client's IP for
 * {@link answerLookup}; 404 when this deployment runs no gateway.
 */
import { HttpError } from '../../http/errors.ts';
import { clientKey } from '../../http/client-ip.ts';
import { getConfig } from '../../server/config.ts';
import type { EnsGatewayConfig } from './config.ts';
import { answerLookup } from './lookup.ts';
import { getNameStore } from './open.ts';

/** The gateway's configuration. @throws {HttpError} 404 NOT_FOUND when the gateway is off. */
export function gatewayConfig(): EnsGatewayConfig {
  const config = getConfig().ensGateway;
  if (config === undefined) throw new HttpError(404, 'NOT_FOUND', 'This deployment runs no ENS gateway (ENS_GATEWAY_* are not set).');
  return config;
}

/** Answer a CCIP-Read lookup from `request`'s client. */
export async function answerCcipRequest(request: Request, sender: string, data: string): Promise<{ data: string }> {
  const config = gatewayConfig();
  const clientIp = clientKey(request.headers, getConfig().trustProxy);
  return answerLookup(config, await getNameStore(), { sender, data, clientIp, now: Math.floor(Date.now() / 1000) });
}

/** `{sender}` and `{data}` of `/api/v1/ccip/{sender}/{data}.json`. @throws {HttpError} 404 for another path. */
export function ccipPathValues(url: URL): { sender: string; data: string } {
  const match = /\/api\/v1\/ccip\/([^/]+)\/([^/]+?)(?:\.json)?$/.exec(url.pathname);
  if (match === null) throw new HttpError(404, 'NOT_FOUND', 'Gateway lookups are GET /api/v1/ccip/{sender}/{data}.json or POST /api/v1/ccip with {sender, data}.');
  return { sender: match[1]!, data: match[2]! };
}
