/**
 * Every operation of the HTTP API with the zod schemas its handler validates requests with and
 * answers in: the one registry the OpenAPI document (document.ts) is generated from.
 *
 * The request schemas are the very objects the route files pass to `defineRoute`
 * (lib/http/route.ts), imported from lib/schemas; tests/api/openapi.test.ts checks that every
 * route file is listed here with the methods it serves, and that each handler refuses an empty
 * body or a bad query parameter on exactly the fields these schemas name, so the document cannot
 * drift from what the server does.
 */
import { z } from 'zod';
import {
  closeChannelRequest,
  closeChannelResponse,
  createChannelRequest,
  createChannelResponse,
  channelStatusResponse,
  discoverChannelsRequest,
  discoverChannelsResponse,
  fundChannelRequest,
  fundChannelResponse,
  yellowConfigResponse,
} from '../schemas/channels.ts';
import { chainsResponse } from '../schemas/chains.ts';
import { ccipRequest, ccipResponse, nameChangeRequest, nameGatewayResponse, nameResponse } from '../schemas/ccip.ts';
import { healthResponse } from '../schemas/health.ts';
import { uploadRequest, uploadResponse } from '../schemas/ipfs.ts';
import { keyBundleResponse } from '../schemas/keys.ts';
import { ensAddressResponse, erc6538Query, erc6538Response } from '../schemas/erc6538.ts';
import { ensResolveResponse, suinsResolveQuery, suinsResolveResponse } from '../schemas/names.ts';
import {
  listAnnouncementsQuery,
  listAnnouncementsResponse,
  publishAnnouncementRequest,
  publishAnnouncementResponse,
  registryStatsResponse,
} from '../schemas/registry.ts';
import { createStealthRequest, createStealthResponse, scanRequest, scanResponse } from '../schemas/stealth.ts';

export type Tag = 'Keys' | 'Stealth payments' | 'Registry' | 'Names' | 'IPFS' | 'Private channels' | 'Service';

/** One answer of an operation: JSON with a schema, or raw bytes of `mediaType`. */
export type OperationResponse = { status: number; description: string } & (
  | { schema: z.ZodType }
  | { mediaType: string; format: 'binary' }
  | { openapi: true }
);

export type PathParameter = { name: string; description: string; schema: z.ZodType };

export type Operation = {
  method: 'get' | 'post';
  /** OpenAPI path template (`/api/v1/ens/resolve/{name}`). */
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  pathParameters?: PathParameter[];
  query?: z.ZodObject<z.core.$ZodLooseShape>;
  body?: z.ZodType;
  responses: OperationResponse[];
  /** Error codes this operation answers besides the ones every request can get (400, 429, 500). */
  errors: ErrorCase[];
  /** Request or response carries secret keys: send it only over TLS, never log it. */
  secret?: boolean;
  /** Needs `X-API-Key` when the server sets API_KEY (every method but GET/HEAD/OPTIONS under /api/v1). */
  write?: boolean;
};

export type ErrorCase = { status: number; codes: string[] };

/** Errors of a JSON body: wrong content type, too large, not JSON. */
const BODY_ERRORS: ErrorCase[] = [
  { status: 413, codes: ['PAYLOAD_TOO_LARGE'] },
  { status: 415, codes: ['UNSUPPORTED_MEDIA_TYPE'] },
];
/** The registry is unreachable (or the shared rate limit's store, with RATE_LIMIT_FAIL_OPEN=false). */
const UNAVAILABLE: ErrorCase = { status: 503, codes: ['SERVICE_UNAVAILABLE'] };
const UPSTREAM: ErrorCase[] = [
  { status: 502, codes: ['UPSTREAM_ERROR'] },
  { status: 504, codes: ['UPSTREAM_TIMEOUT'] },
];

const nameParameter = (suffix: string): PathParameter => ({
  name: 'name',
  description: `The name to resolve, ending in ${suffix}`,
  schema: z.string().min(1).describe(`Name ending in ${suffix}`),
});

/** What the operator of an ENS gateway sees (issue 33), said in each of its operations. */
const GATEWAY_PRIVACY =
  'Privacy: the operator of this deployment sees every one-time address it issues for a name, hence every payment received that way and its amount; a lookup carries the payer\'s IP address (not their wallet address). It cannot spend (that needs the recipient\'s spending key). A recipient who wants no third party runs their own deployment.';

/** The ENS gateway (ENSIP-10 + EIP-3668) and its names, served when ENS_GATEWAY_* are set (404 otherwise). */
const ENS_GATEWAY_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/ccip/{sender}/{data}',
    operationId: 'ccipLookup',
    tag: 'Names',
    summary: 'CCIP-Read lookup of a name served by this gateway (EIP-3668)',
    description:
      'What a wallet calls when the deployment\'s OffchainResolver raises OffchainLookup. addr of a registered name answers a one-time address: the same one to the same client IP within ENS_GATEWAY_SAME_REQUESTER_S, a new one otherwise (at most ENS_GATEWAY_MAX_UNPAID unpaid per name; past it the newest is repeated). Only coin types of chains this server follows are answered: addr(bytes32) and coin type 60 when the ENS chain (ETH_RPC_URL, where the resolver is deployed; chain id 1 on mainnet) is followed, ENSIP-11 coin type 0x80000000 | id when chain id is followed, never ENSIP-19\'s 0x80000000. An unregistered name, any other coin type, text and contenthash answer an empty record (no address). The answer is signed for the resolver and expires after ENS_GATEWAY_ANSWER_TTL_S. When funds reach the address on a followed chain, within ENS_GATEWAY_ADDRESS_TTL_S plus ENS_GATEWAY_GRACE_S of the lookup, the server publishes its announcement, so the recipient\'s ordinary scan finds it. ' +
      GATEWAY_PRIVACY,
    pathParameters: [
      { name: 'sender', description: 'The resolver that raised the lookup: must be ENS_GATEWAY_RESOLVER', schema: z.string().min(1).describe('EVM address') },
      { name: 'data', description: 'The lookup callData, resolve(bytes name, bytes data), 0x-prefixed hex, followed by .json (the resolver\'s URL template is /api/v1/ccip/{sender}/{data}.json)', schema: z.string().min(1).describe('hex, then .json') },
    ],
    responses: [{ status: 200, description: 'The signed answer', schema: ccipResponse }],
    errors: [{ status: 400, codes: ['WRONG_SENDER'] }, { status: 404, codes: ['NOT_FOUND'] }, UNAVAILABLE],
  },
  {
    method: 'post',
    path: '/api/v1/ccip',
    operationId: 'ccipLookupPost',
    tag: 'Names',
    summary: 'CCIP-Read lookup, POST form (EIP-3668)',
    description: 'The same lookup as the GET form, with {sender, data} in the body. ' + GATEWAY_PRIVACY,
    body: ccipRequest,
    responses: [{ status: 200, description: 'The signed answer', schema: ccipResponse }],
    errors: [...BODY_ERRORS, { status: 400, codes: ['WRONG_SENDER'] }, { status: 404, codes: ['NOT_FOUND'] }, UNAVAILABLE],
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/names',
    operationId: 'nameGateway',
    tag: 'Names',
    summary: 'Whether this server runs the ENS gateway, and its parent name',
    description: GATEWAY_PRIVACY,
    responses: [{ status: 200, description: 'The gateway\'s state', schema: nameGatewayResponse }],
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/names/{name}',
    operationId: 'showGatewayName',
    tag: 'Names',
    summary: 'A name at this ENS gateway, and the nonce its next change must sign',
    pathParameters: [nameParameter('.eth')],
    responses: [{ status: 200, description: 'The name (registered or not), its meta-address and nonce, the resolver and parent name', schema: nameResponse }],
    errors: [{ status: 400, codes: ['INVALID_NAME'] }, { status: 404, codes: ['NOT_FOUND'] }, UNAVAILABLE],
  },
  {
    method: 'post',
    path: '/api/v1/names',
    operationId: 'changeGatewayName',
    tag: 'Names',
    summary: 'Register, change or release a name at this ENS gateway',
    description:
      'A label under the parent name (alice.<parent>) is proved by a signature of the meta-address\'s spending key (to change or release: the registered one\'s); an own ENS name, whose resolver must be this deployment\'s, by its owner in the ENS registry. The signed text is the SDK\'s nameRegistrationMessage (action, name, meta-address hash, nonce, resolver): each change advances the nonce, so a signature is good once. ' +
      GATEWAY_PRIVACY,
    body: nameChangeRequest,
    responses: [{ status: 200, description: 'The name after the change', schema: nameResponse }],
    errors: [
      ...BODY_ERRORS,
      { status: 400, codes: ['INVALID_NAME', 'INVALID_META_ADDRESS'] },
      { status: 401, codes: ['BAD_NAME_SIGNATURE'] },
      { status: 404, codes: ['NAME_NOT_FOUND', 'NOT_FOUND'] },
      { status: 409, codes: ['NAME_TAKEN', 'STALE_NAME_SIGNATURE'] },
      { status: 422, codes: ['RESOLVER_NOT_SET'] },
      ...UPSTREAM,
      UNAVAILABLE,
    ],
    write: true,
  },
];

export const OPERATIONS: readonly Operation[] = [
  {
    method: 'post',
    path: '/api/v1/keys/generate',
    operationId: 'generateKeys',
    tag: 'Keys',
    summary: 'Generate a key bundle',
    description: 'A fresh spending and viewing key pair and the meta-address to publish. Nothing is stored.',
    responses: [{ status: 200, description: 'A new key bundle (contains secret keys)', schema: keyBundleResponse }],
    errors: [],
    secret: true,
    write: true,
  },
  {
    method: 'post',
    path: '/api/v1/stealth/create',
    operationId: 'createStealthPayment',
    tag: 'Stealth payments',
    summary: 'Create a one-time address for a meta-address',
    description: 'Encapsulates to the recipient\'s viewing key and derives the one-time address to pay, with the announcement to publish once paid. Publishes nothing.',
    body: createStealthRequest,
    responses: [{ status: 200, description: 'The address to pay and the announcement to publish', schema: createStealthResponse }],
    errors: [...BODY_ERRORS, { status: 400, codes: ['INVALID_META_ADDRESS', 'LEGACY_META_ADDRESS'] }],
    write: true,
  },
  {
    method: 'post',
    path: '/api/v1/stealth/scan',
    operationId: 'scanRegistry',
    tag: 'Stealth payments',
    summary: 'Find the payments to a viewing key',
    description: 'Scans the registry (optionally narrowed by view tags or a time window) with the viewing secret key; with the spending secret, each discovery carries its one-time secret key.',
    body: scanRequest,
    responses: [{ status: 200, description: 'The payments found (may contain secret keys)', schema: scanResponse }],
    errors: [...BODY_ERRORS, UNAVAILABLE],
    secret: true,
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/registry/announcements',
    operationId: 'listAnnouncements',
    tag: 'Registry',
    summary: 'List announcements',
    description:
      'One page of the selection, ordered by id. Selection: view_tag when given, else the time range when both bounds are given, else everything. Page with after_id (cursor) and limit. With `Accept: application/octet-stream` the page comes in the compact binary format (no total; full cursor pages are immutable and cacheable, with ETag).',
    query: listAnnouncementsQuery,
    responses: [
      { status: 200, description: 'A page of announcements and the selection\'s total', schema: listAnnouncementsResponse },
      { status: 200, description: 'The same page in the binary page format (Accept: application/octet-stream)', mediaType: 'application/octet-stream', format: 'binary' },
    ],
    errors: [UNAVAILABLE],
  },
  {
    method: 'post',
    path: '/api/v1/registry/announcements',
    operationId: 'publishAnnouncement',
    tag: 'Registry',
    summary: 'Publish an announcement',
    description:
      'Stores the announcement of a payment. The server sets the timestamp; tx_hash is unique after trimming and lowercasing. A 201 means it is durably stored. ' +
      'Under REGISTRY_PUBLISH=verified the tx_hash must be a mined, successful transaction that announced exactly this ephemeral_key and view_tag on the ERC-5564 Announcer of the chain chain_id names (422 TX_NOT_VERIFIED otherwise, 422 CHAIN_NOT_FOLLOWED for a chain the server does not follow; chain_id may be left out when the server follows one chain), and the row is stored as that chain event; under REGISTRY_PUBLISH=closed publishing is refused (403 PUBLISH_CLOSED) and announcements come from the chain only.',
    body: publishAnnouncementRequest,
    responses: [{ status: 201, description: 'Stored, with its registry id', schema: publishAnnouncementResponse }],
    errors: [
      ...BODY_ERRORS,
      { status: 403, codes: ['PUBLISH_CLOSED'] },
      { status: 409, codes: ['DUPLICATE_ANNOUNCEMENT'] },
      { status: 422, codes: ['TX_NOT_VERIFIED', 'CHAIN_NOT_FOLLOWED'] },
      ...UPSTREAM,
      UNAVAILABLE,
    ],
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/registry/stats',
    operationId: 'registryStats',
    tag: 'Registry',
    summary: 'Registry statistics',
    description: 'Total announcements and how many carry each view tag.',
    responses: [{ status: 200, description: 'Counts', schema: registryStatsResponse }],
    errors: [UNAVAILABLE],
  },
  {
    method: 'get',
    path: '/api/v1/ens/resolve/{name}',
    operationId: 'resolveEnsName',
    tag: 'Names',
    summary: 'Resolve a .eth name to its meta-address',
    description: 'Reads the name\'s stealth-meta text record (then its content hash), downloads the meta-address from IPFS and verifies it.',
    pathParameters: [nameParameter('.eth')],
    responses: [{ status: 200, description: 'The validated meta-address', schema: ensResolveResponse }],
    errors: [{ status: 400, codes: ['INVALID_NAME'] }, { status: 404, codes: ['NAME_NOT_FOUND', 'NO_STEALTH_RECORD'] }, { status: 422, codes: ['CONTENT_MISMATCH'] }, ...UPSTREAM],
  },
  {
    method: 'get',
    path: '/api/v1/suins/resolve/{name}',
    operationId: 'resolveSuinsName',
    tag: 'Names',
    summary: 'Resolve a .sui name to its meta-address',
    description: 'Reads the name\'s content hash from SuiNS, downloads the meta-address from IPFS and verifies it.',
    pathParameters: [nameParameter('.sui')],
    query: suinsResolveQuery,
    responses: [{ status: 200, description: 'The validated meta-address', schema: suinsResolveResponse }],
    errors: [{ status: 400, codes: ['INVALID_NAME'] }, { status: 404, codes: ['NAME_NOT_FOUND', 'NO_STEALTH_RECORD'] }, { status: 422, codes: ['CONTENT_MISMATCH'] }, ...UPSTREAM],
  },
  {
    method: 'get',
    path: '/api/v1/ens/address/{name}',
    operationId: 'resolveEnsAddress',
    tag: 'Names',
    summary: 'Resolve a .eth name to its Ethereum address',
    description: 'Reads the name\'s ENSIP-1 address record through the Universal Resolver: the address a sender then looks up in the ERC-6538 registry (through their own wallet, or GET /api/v1/erc6538/{address}).',
    pathParameters: [nameParameter('.eth')],
    responses: [{ status: 200, description: 'The name and its address', schema: ensAddressResponse }],
    errors: [{ status: 400, codes: ['INVALID_NAME'] }, { status: 404, codes: ['NAME_NOT_FOUND'] }, ...UPSTREAM],
  },
  ...ENS_GATEWAY_OPERATIONS,
  {
    method: 'get',
    path: '/api/v1/erc6538/{address}',
    operationId: 'resolveErc6538Registration',
    tag: 'Names',
    summary: 'Read an address\'s meta-address from the ERC-6538 registry',
    description:
      'Reads the ERC-6538 registry (0x6538E6bf4B0eBd30A8Ea093027Ac2422ce5d6538) on a chain this server follows, through that chain\'s RPC: the meta-address the address registered, scheme 3 (ERC-8441, 1250 bytes) preferred to 1000 (1218 bytes) unless scheme_id names one. An empty value (a cleared scheme) reads as none. A registered value that is not a valid meta-address of its scheme is refused with INVALID_META_ADDRESS. Asking a server tells it whom you are about to pay: a wallet can read the registry through its own provider instead.',
    pathParameters: [{ name: 'address', description: 'The registrant: an EVM address (0x and 40 hex digits; mixed case must be a valid EIP-55 checksum)', schema: z.string().min(1).describe('EVM address') }],
    query: erc6538Query,
    responses: [{ status: 200, description: 'The registered meta-address, validated, and its scheme', schema: erc6538Response }],
    errors: [
      { status: 400, codes: ['INVALID_META_ADDRESS'] },
      { status: 404, codes: ['NO_STEALTH_RECORD'] },
      { status: 422, codes: ['CHAIN_NOT_FOLLOWED'] },
      ...UPSTREAM,
    ],
  },
  {
    method: 'post',
    path: '/api/v1/ipfs/upload',
    operationId: 'uploadMetaAddress',
    tag: 'IPFS',
    summary: 'Upload a meta-address to IPFS',
    description: 'Validates the meta-address and stores its raw bytes (pinning service, or the embedded store); answers the CID and the record to write into a name.',
    body: uploadRequest,
    responses: [{ status: 200, description: 'The CID and the ipfs:// record', schema: uploadResponse }],
    errors: [...BODY_ERRORS, { status: 400, codes: ['INVALID_META_ADDRESS', 'LEGACY_META_ADDRESS'] }, ...UPSTREAM],
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/ipfs/{cid}',
    operationId: 'downloadCid',
    tag: 'IPFS',
    summary: 'Download the bytes of a CID',
    description: 'From the dedicated gateway (or the embedded store), verified against the CID and cached.',
    pathParameters: [{ name: 'cid', description: 'A CID (v0 or v1)', schema: z.string().min(1).describe('CID') }],
    responses: [{ status: 200, description: 'The verified bytes', mediaType: 'application/octet-stream', format: 'binary' }],
    errors: [{ status: 400, codes: ['INVALID_CID'] }, { status: 404, codes: ['NOT_FOUND'] }, { status: 422, codes: ['CONTENT_MISMATCH'] }, ...UPSTREAM],
  },
  {
    method: 'post',
    path: '/api/v1/yellow/channel/create',
    operationId: 'createChannel',
    tag: 'Private channels',
    summary: 'Open a channel to a recipient\'s one-time address',
    description: 'Resolves the recipient (name or meta-address), derives a one-time address and announces the channel (tx_hash channel:<channel_id>).',
    body: createChannelRequest,
    responses: [{ status: 201, description: 'The channel and its announcement', schema: createChannelResponse }],
    errors: [
      ...BODY_ERRORS,
      { status: 400, codes: ['INVALID_NAME', 'INVALID_META_ADDRESS', 'LEGACY_META_ADDRESS'] },
      { status: 404, codes: ['NAME_NOT_FOUND', 'NO_STEALTH_RECORD'] },
      { status: 409, codes: ['DUPLICATE_ANNOUNCEMENT'] },
      ...UPSTREAM,
      UNAVAILABLE,
    ],
    write: true,
  },
  {
    method: 'post',
    path: '/api/v1/yellow/channel/discover',
    operationId: 'discoverChannels',
    tag: 'Private channels',
    summary: 'Find the channels opened to a viewing key',
    body: discoverChannelsRequest,
    responses: [{ status: 200, description: 'The channels found (contain secret keys)', schema: discoverChannelsResponse }],
    errors: [...BODY_ERRORS, UNAVAILABLE],
    secret: true,
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/yellow/channel/{id}/status',
    operationId: 'channelStatus',
    tag: 'Private channels',
    summary: 'Status of a channel',
    description: 'What this instance knows about the channel; status "unknown" for a well-formed id it has no record of.',
    pathParameters: [{ name: 'id', description: '32-byte channel id, hex', schema: z.string().describe('32-byte channel id (64 hex digits, 0x optional)') }],
    responses: [{ status: 200, description: 'The channel\'s status', schema: channelStatusResponse }],
    errors: [UNAVAILABLE],
  },
  {
    method: 'post',
    path: '/api/v1/yellow/channel/fund',
    operationId: 'fundChannel',
    tag: 'Private channels',
    summary: 'Fund a channel (placeholder)',
    description: 'Records a placeholder funding; nothing is submitted to any chain.',
    body: fundChannelRequest,
    responses: [{ status: 200, description: 'The placeholder funding', schema: fundChannelResponse }],
    errors: [...BODY_ERRORS, { status: 404, codes: ['NOT_FOUND'] }, { status: 409, codes: ['CHANNEL_CLOSED'] }, UNAVAILABLE],
    write: true,
  },
  {
    method: 'post',
    path: '/api/v1/yellow/channel/close',
    operationId: 'closeChannel',
    tag: 'Private channels',
    summary: 'Close a channel (placeholder)',
    description: 'Records a placeholder close; idempotent. Nothing is submitted to any chain.',
    body: closeChannelRequest,
    responses: [{ status: 200, description: 'The placeholder close', schema: closeChannelResponse }],
    errors: [...BODY_ERRORS, { status: 404, codes: ['NOT_FOUND'] }, UNAVAILABLE],
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/yellow/config',
    operationId: 'yellowConfig',
    tag: 'Private channels',
    summary: 'Channel network configuration',
    responses: [{ status: 200, description: 'Endpoint, contracts and supported tokens', schema: yellowConfigResponse }],
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/chains',
    operationId: 'listChains',
    tag: 'Service',
    summary: 'Followed chains, their tokens and gasless withdrawals',
    description:
      'Every chain this server follows (CHAINS): its EIP-155 id, the tokens the operator names for it, and, when offered, the ERC-4337 v0.8 bundler and the paymaster that pays a withdrawal\'s gas for a fee in one of the accepted tokens. Never an RPC URL.',
    responses: [{ status: 200, description: 'The followed chains', schema: chainsResponse }],
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'openApiDocument',
    tag: 'Service',
    summary: 'This document',
    description: 'The OpenAPI 3.1 description of the API, generated from the schemas the handlers validate with. Rendered for people at /api-docs.',
    responses: [{ status: 200, description: 'OpenAPI 3.1 document', openapi: true }],
    errors: [],
  },
  {
    method: 'get',
    path: '/health',
    operationId: 'health',
    tag: 'Service',
    summary: 'Liveness and registry state',
    description: 'Unversioned and public. 503 with status "degraded" when the registry does not answer, so a load balancer takes the instance out of rotation.',
    responses: [
      { status: 200, description: 'Alive and the registry answers', schema: healthResponse },
      { status: 503, description: 'Alive, but the registry does not answer', schema: healthResponse },
    ],
    errors: [],
  },
];
