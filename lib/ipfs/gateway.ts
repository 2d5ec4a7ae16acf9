/**
 * Downloads through the dedicated gateway (API.md `PINNING_GATEWAY_URL` +
 * `PINNING_GATEWAY_TOKEN`): `GET {url}/ipfs/{cid}` with the token in Pinata's
 * `x-pinata-gateway-token` header (a header, not the `pinataGatewayToken` query parameter, so
 * it stays out of access logs).
 *
 * `Accept: application/vnd.ipld.raw` asks for the block itself (IPFS trustless gateway spec);
 * gateways that ignore it send the file, which the SDK verifies just as well. Either way the
 * bytes are untrusted until lib/ipfs/download.ts has checked them against the CID.
 */
import type { Cid } from '@wraith-pq/sdk';
import { discardBody, fetchUpstream, readCappedBody, upstreamError } from './upstream.ts';

const SERVICE = 'IPFS gateway';

export type GatewayParameters = { url: string; token: string; timeoutMs: number; maxBytes: number };

/**
 * The bytes the gateway serves for `cid`, or undefined when it does not have them (404/410).
 * @throws {HttpError} 502 UPSTREAM_ERROR, 504 UPSTREAM_TIMEOUT.
 */
export async function fetchFromGateway(cid: Cid, { url, token, timeoutMs, maxBytes }: GatewayParameters): Promise<Uint8Array | undefined> {
  const response = await fetchUpstream(
    SERVICE,
    `${url.replace(/\/+$/, '')}/ipfs/${cid.toString()}`,
    {
      headers: {
        'x-pinata-gateway-token': token,
        Accept: 'application/vnd.ipld.raw, application/octet-stream;q=0.9, */*;q=0.1',
      },
    },
    timeoutMs,
  );
  if (response.status === 404 || response.status === 410) {
    discardBody(response);
    return undefined;
  }
  if (!response.ok) {
    discardBody(response);
    if (response.status === 401 || response.status === 403) {
      throw upstreamError(SERVICE, 'rejected the server\'s gateway token (PINNING_GATEWAY_TOKEN)', `HTTP ${response.status}`);
    }
    throw upstreamError(SERVICE, `failed (HTTP ${response.status})`, `HTTP ${response.status}`);
  }
  return readCappedBody(SERVICE, response, maxBytes, timeoutMs);
}
