/**
 * Pinata for msw: the pinning API and a dedicated gateway, answering with the real services'
 * shapes.
 *
 * - `POST {api}/pinning/pinFileToIPFS` (multipart `file`, `pinataMetadata`, `pinataOptions`,
 *   `Authorization: Bearer <JWT>`) → `{ IpfsHash, PinSize, Timestamp, isDuplicate? }`; a wrong
 *   JWT gets 401 with Pinata's error body. The CID is what IPFS gives the file: with
 *   `cidVersion: 1` one raw block (`bafkrei…`), otherwise the CIDv0 of a one-chunk UnixFS file.
 * - `GET {gateway}/ipfs/:cid` with `x-pinata-gateway-token` → the pinned content: the raw block
 *   when `Accept` asks for `application/vnd.ipld.raw`, else the file; 404 for unknown CIDs and
 *   401 for a wrong token.
 * CIDs are computed here with multiformats' own sha2-256, independently of the code under test.
 */
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';
import { http, HttpResponse } from 'msw';

export const PINATA_API_URL = 'https://api.pinata.cloud';
export const PINATA_GATEWAY_URL = 'https://wraith-test.mypinata.cloud';
export const PINATA_JWT = 'eyJhbGciOiJIUzI1NiJ9.test-jwt-secret.signature';
export const PINATA_GATEWAY_TOKEN = 'gateway-token-secret-0123456789';

/** A pinned file: its content and the block IPFS stores for it. */
type Pin = { content: Uint8Array; block: Uint8Array };

export type PinRequest = { authorization: string | null; file: Uint8Array; fileName: string; metadata: unknown; options: unknown };

export type PinataMock = {
  /** Pinned files by CID string. */
  pins: Map<string, Pin>;
  /** Every pin request received. */
  pinRequests: PinRequest[];
  /** Every gateway request received (CID path segment and headers). */
  gatewayRequests: { cid: string; token: string | null; accept: string | null }[];
  /** Pin `content` directly (as if uploaded elsewhere); returns its CID. */
  pin(content: Uint8Array, cidVersion?: 0 | 1): Promise<string>;
  /** Forget every pin and request. */
  reset(): void;
  handlers: ReturnType<typeof http.get>[];
};

/** The dag-pb block of a one-chunk UnixFS file (what `ipfs add` makes for CIDv0). */
export function unixfsFileBlock(content: Uint8Array): Uint8Array {
  const unixfs = [0x08, 0x02, ...(content.length > 0 ? [0x12, ...varint(content.length), ...content] : []), 0x18, ...varint(content.length)];
  return Uint8Array.from([0x0a, ...varint(unixfs.length), ...unixfs]);
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** The CID IPFS gives `content` (raw leaf for v1, UnixFS dag-pb for v0) and the stored block. */
export async function ipfsAdd(content: Uint8Array, cidVersion: 0 | 1): Promise<{ cid: string; block: Uint8Array }> {
  if (cidVersion === 1) return { cid: CID.createV1(0x55, await sha256.digest(content)).toString(), block: content };
  const block = unixfsFileBlock(content);
  return { cid: CID.createV0(await sha256.digest(block)).toString(), block };
}

export function createPinataMock(apiUrl: string = PINATA_API_URL, gatewayUrl: string = PINATA_GATEWAY_URL): PinataMock {
  const pins = new Map<string, Pin>();
  const pinRequests: PinRequest[] = [];
  const gatewayRequests: PinataMock['gatewayRequests'] = [];
  const pin = async (content: Uint8Array, cidVersion: 0 | 1 = 1) => {
    const { cid, block } = await ipfsAdd(content, cidVersion);
    pins.set(cid, { content, block });
    return cid;
  };

  const pinHandler = http.post(`${apiUrl}/pinning/pinFileToIPFS`, async ({ request }) => {
    const form = await request.formData();
    const file = form.get('file');
    const parse = (value: FormDataEntryValue | null) => (typeof value === 'string' ? JSON.parse(value) : undefined);
    const content = file instanceof Blob ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array(0);
    pinRequests.push({
      authorization: request.headers.get('authorization'),
      file: content,
      fileName: file instanceof File ? file.name : '',
      metadata: parse(form.get('pinataMetadata')),
      options: parse(form.get('pinataOptions')),
    });
    if (request.headers.get('authorization') !== `Bearer ${PINATA_JWT}`) {
      return HttpResponse.json({ error: { reason: 'INVALID_CREDENTIALS', details: 'Invalid/expired credentials' } }, { status: 401 });
    }
    if (!(file instanceof Blob)) return HttpResponse.json({ error: { reason: 'KEY_NOT_FOUND', details: 'No file was provided' } }, { status: 400 });
    const cidVersion = (parse(form.get('pinataOptions')) as { cidVersion?: 0 | 1 } | undefined)?.cidVersion === 1 ? 1 : 0;
    const { cid } = await ipfsAdd(content, cidVersion);
    const isDuplicate = pins.has(cid);
    await pin(content, cidVersion);
    return HttpResponse.json({ IpfsHash: cid, PinSize: content.length, Timestamp: new Date().toISOString(), ...(isDuplicate ? { isDuplicate: true } : {}) });
  });

  const gatewayHandler = http.get(`${gatewayUrl}/ipfs/:cid`, ({ request, params }) => {
    const cid = String(params.cid);
    const token = request.headers.get('x-pinata-gateway-token');
    const accept = request.headers.get('accept');
    gatewayRequests.push({ cid, token, accept });
    if (token !== PINATA_GATEWAY_TOKEN) return HttpResponse.json({ error: 'Unauthorized' }, { status: 401 });
    const found = pins.get(cid);
    if (found === undefined) return new HttpResponse('Not Found', { status: 404 });
    const raw = accept?.includes('application/vnd.ipld.raw') ?? false;
    return new HttpResponse(raw ? found.block : found.content, {
      headers: { 'content-type': raw ? 'application/vnd.ipld.raw' : 'application/octet-stream' },
    });
  });

  const reset = () => {
    pins.clear();
    pinRequests.length = 0;
    gatewayRequests.length = 0;
  };
  return { pins, pinRequests, gatewayRequests, pin, reset, handlers: [pinHandler, gatewayHandler] };
}
