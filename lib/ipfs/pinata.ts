/**
 * Uploads to the pinning service (API.md `PINNING_JWT`): Pinata's pinning API.
 *
 *     POST {PINNING_API_URL}/pinning/pinFileToIPFS          (default https://api.pinata.cloud)
 *     Authorization: Bearer <PINNING_JWT>
 *     multipart/form-data: file, pinataMetadata = {"name": …}, pinataOptions = {"cidVersion": 1}
 *     → 200 {"IpfsHash": "<cid>", "PinSize": <bytes>, "Timestamp": "<ISO 8601>", "isDuplicate"?: bool}
 *
 * (docs.pinata.cloud, "Pin File to IPFS"; the same shape as `PinataPinResponse` of the
 * @pinata/sdk types). This endpoint is chosen over the v3 Files API (`uploads.pinata.cloud/v3/files`,
 * answering `{data: {cid, …}}`) because it pins to public IPFS unconditionally and takes the
 * CID version: `cidVersion: 1` makes a one-chunk file a single raw block, so Pinata reports the
 * same `bafkrei…` CID the embedded store computes. The reported CID is checked against the
 * uploaded bytes before it is returned: a record is never written for content it does not name.
 */
import { verifyCidBytes, parseCid, type Cid } from '@wraith-pq/sdk';
import { discardBody, fetchUpstream, readCappedBody, upstreamError } from './upstream.ts';

const SERVICE = 'pinning service';
/** The JSON answer is a few hundred bytes; anything far larger is not that answer. */
const MAX_RESPONSE_BYTES = 16 * 1024;

export type PinataPinResponse = { IpfsHash: string; PinSize: number; Timestamp: string; isDuplicate?: boolean };

export type PinFileParameters = {
  /** Base URL of the API, without a trailing slash. */
  apiUrl: string;
  jwt: string;
  /** Pin name shown in the Pinata dashboard. */
  name: string;
  timeoutMs: number;
};

/**
 * Pin `bytes` and return the CID the service reports.
 * @throws {HttpError} 502 UPSTREAM_ERROR (rejected credentials, service failure, an answer
 * without a CID of these bytes), 504 UPSTREAM_TIMEOUT.
 */
export async function pinFileToIpfs(bytes: Uint8Array, { apiUrl, jwt, name, timeoutMs }: PinFileParameters): Promise<Cid> {
  const form = new FormData();
  form.append('file', new Blob([bytes.slice()], { type: 'application/octet-stream' }), `${name}.bin`);
  form.append('pinataMetadata', JSON.stringify({ name }));
  form.append('pinataOptions', JSON.stringify({ cidVersion: 1 }));
  const response = await fetchUpstream(
    SERVICE,
    `${apiUrl}/pinning/pinFileToIPFS`,
    { method: 'POST', headers: { Authorization: `Bearer ${jwt}`, Accept: 'application/json' }, body: form },
    timeoutMs,
  );
  if (!response.ok) {
    discardBody(response);
    throw statusError(response.status);
  }
  const body = await readCappedBody(SERVICE, response, MAX_RESPONSE_BYTES, timeoutMs);
  const reported = reportedCid(body);
  try {
    verifyCidBytes(reported, bytes);
  } catch {
    throw upstreamError(SERVICE, 'reported a CID that does not name the uploaded bytes', 'CID mismatch');
  }
  return reported;
}

function statusError(status: number) {
  if (status === 401 || status === 403) return upstreamError(SERVICE, 'rejected the server\'s credentials (PINNING_JWT)', `HTTP ${status}`);
  if (status === 429) return upstreamError(SERVICE, 'is rate-limiting this server', 'HTTP 429');
  return upstreamError(SERVICE, `failed (HTTP ${status})`, `HTTP ${status}`);
}

function reportedCid(body: Uint8Array): Cid {
  const unusable = () => upstreamError(SERVICE, 'answered without a usable CID', 'unexpected response shape');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw unusable();
  }
  const hash = (parsed as Partial<PinataPinResponse> | null)?.IpfsHash;
  if (typeof hash !== 'string') throw unusable();
  try {
    return parseCid(hash);
  } catch {
    throw unusable();
  }
}
