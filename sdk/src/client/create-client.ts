/**
 * `createClient`: a typed client of the Wraith HTTP API (INTERFACE.md section 4), one method per
 * endpoint. Requests and answers are the API's JSON (snake_case, hex), typed in ./types.ts;
 * hex fields of requests also take `Uint8Array`. Failures are {@link ApiError}s carrying the
 * server's `code`, status, details and request id.
 *
 * Every method takes {@link CallOptions} last: an `AbortSignal`, a timeout, a retry policy and
 * a request id. Safe reads (GET) are retried on 429/502/503/504 and network errors, honouring
 * `Retry-After`; writes are never repeated behind the caller's back.
 * @module
 */
import type { RegistryAnnouncement } from '../announcement-binary.ts';
import { bytesToHex, toBytes } from '../bytes.ts';
import { verifyCidBytes } from '../cid.ts';
import { nameRegistrationMessage, type NameAction } from '../name-registration.ts';
import { InvalidArgumentError } from '../errors.ts';
import { announcementPageSource, chainIdQuery, type AnnouncementPageSource, type AnnouncementPagesParameters } from './announcement-pages.ts';
import type { RetryOptions } from './retry.ts';
import { createTransport, type CallOptions, type Transport } from './transport.ts';
import type {
  ChainsJson,
  ChannelConfigJson,
  ChannelStatusJson,
  CloseChannelParameters,
  CloseChannelReturnType,
  CreateChannelParameters,
  CreateChannelReturnType,
  CreateStealthPaymentParameters,
  CreateStealthPaymentReturnType,
  DiscoverChannelsParameters,
  DiscoverChannelsReturnType,
  FundChannelParameters,
  FundChannelReturnType,
  HealthJson,
  KeyBundleJson,
  ListAnnouncementsParameters,
  ListAnnouncementsReturnType,
  OpenApiDocumentJson,
  PublishAnnouncementParameters,
  PublishAnnouncementReturnType,
  RegistryStatsJson,
  ResolveEnsReturnType,
  ResolveSuinsParameters,
  ResolveSuinsReturnType,
  ResolveEnsAddressReturnType,
  ReadErc6538Parameters,
  ReadErc6538ReturnType,
  GatewayNameJson,
  NameGatewayJson,
  GatewayNameChangeParameters,
  ScanParameters,
  ScanReturnType,
  UploadMetaAddressParameters,
  UploadMetaAddressReturnType,
} from './types.ts';

export type CreateClientParameters = {
  /** Where the API runs, e.g. `https://wraith.example` or `http://localhost:3001`. */
  baseUrl: string;
  /** Sent as `X-API-Key` on writes when the server sets `API_KEY`. Reads are public. */
  apiKey?: string;
  /** A `fetch` to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: typeof fetch;
  /** Milliseconds each attempt may take, answer body included (default 30000). */
  timeoutMs?: number;
  /** Retry policy of safe requests (GET), or `false` for none. */
  retry?: RetryOptions | false;
  /** Headers added to every request. */
  headers?: Record<string, string>;
};

export type WraithClient = {
  /** The resolved settings. */
  readonly baseUrl: string;

  /** GET /health: liveness and registry state. A degraded instance (HTTP 503) answers `status: 'degraded'` rather than throwing. */
  getHealth(options?: CallOptions): Promise<HealthJson>;
  /** GET /api/v1/chains: each followed chain's tokens and gasless withdrawal settings (bundler, paymaster). */
  getChains(options?: CallOptions): Promise<ChainsJson>;

  /** GET /api/v1/openapi.json: the OpenAPI 3.1 document of this server (for tooling and discovery). */
  getOpenApiDocument(options?: CallOptions): Promise<OpenApiDocumentJson>;

  /** POST /api/v1/keys/generate: a fresh key bundle. Generating locally (`generateKeys`) keeps the secrets on this device. */
  generateKeys(options?: CallOptions): Promise<KeyBundleJson>;
  /** POST /api/v1/stealth/create: a one-time address and the announcement to publish for it. */
  createStealthPayment(params: CreateStealthPaymentParameters, options?: CallOptions): Promise<CreateStealthPaymentReturnType>;
  /** POST /api/v1/stealth/scan: the server scans its registry with these keys (they leave this device). */
  scan(params: ScanParameters, options?: CallOptions): Promise<ScanReturnType>;

  /** POST /api/v1/registry/announcements. A tx_hash already published fails with `DUPLICATE_ANNOUNCEMENT` (409). */
  publishAnnouncement(params: PublishAnnouncementParameters, options?: CallOptions): Promise<PublishAnnouncementReturnType>;
  /** GET /api/v1/registry/announcements: one page (JSON) with the selection's total. */
  listAnnouncements(params?: ListAnnouncementsParameters, options?: CallOptions): Promise<ListAnnouncementsReturnType>;
  /** GET /api/v1/registry/stats. */
  getRegistryStats(options?: CallOptions): Promise<RegistryStatsJson>;
  /**
   * The whole registry, page by page in id order, from `afterId` on: the page source of
   * `scanRegistry` (a `RegistryPageSource`). Binary pages when the server offers them, JSON otherwise.
   * Every chain the server follows (and HTTP rows without a chain), or only `chainIds`; each row
   * carries its `chainId`.
   *
   * @example
   * // Base and OP Mainnet only, resumable from one saved cursor (registry ids span the chains)
   * const source: RegistryPageSource<RegistryAnnouncement> = (request) => client.announcementPages({ ...request, chainIds: [8453, 10] });
   * for await (const batch of scanRegistry(source, keys, { fromCursor: saved })) {
   *   for (const found of batch.discoveries) console.log(found.announcement.chainId, found.stealthAddress);
   *   saved = batch.cursor;
   * }
   */
  announcementPages: AnnouncementPageSource;
  /** Every announcement from `afterId` on, one at a time (pages fetched as needed). */
  announcements(params?: AnnouncementPagesParameters): AsyncGenerator<RegistryAnnouncement>;

  /** POST /api/v1/ipfs/upload: store the meta-address bytes; write `text_record` into the name's record. */
  uploadMetaAddress(params: UploadMetaAddressParameters, options?: CallOptions): Promise<UploadMetaAddressReturnType>;
  /** GET /api/v1/ipfs/:cid: the bytes of a CID, checked against the CID here as well (a server cannot substitute content). */
  getIpfsContent(cid: string, options?: CallOptions): Promise<Uint8Array>;
  /** GET /api/v1/ens/resolve/:name: the meta-address a `.eth` name publishes. */
  resolveEns(name: string, options?: CallOptions): Promise<ResolveEnsReturnType>;
  /** GET /api/v1/suins/resolve/:name: the meta-address a `.sui` name publishes. */
  resolveSuins(name: string, params?: ResolveSuinsParameters, options?: CallOptions): Promise<ResolveSuinsReturnType>;
  /** GET /api/v1/ens/address/:name: the Ethereum address a `.eth` name sets (ENSIP-1), for a registry lookup. */
  resolveEnsAddress(name: string, options?: CallOptions): Promise<ResolveEnsAddressReturnType>;
  /**
   * GET /api/v1/erc6538/:address: the meta-address `address` registered in the ERC-6538 registry of
   * a chain the server follows (scheme 3 preferred). A wallet that wants the server not to learn
   * whom it pays reads the registry itself (`resolveRegisteredMetaAddress` in `/evm`).
   */
  readErc6538(address: string, params?: ReadErc6538Parameters, options?: CallOptions): Promise<ReadErc6538ReturnType>;

  /**
   * GET /api/v1/names/:name: a name at the server's ENS gateway (registered or not) and the nonce
   * its next change must sign. The gateway's operator sees every address it issues for the name.
   */
  showName(name: string, options?: CallOptions): Promise<GatewayNameJson>;
  /** GET /api/v1/names: whether the server runs an ENS gateway, and its parent name (answers 200 either way). */
  nameGateway(options?: CallOptions): Promise<NameGatewayJson>;
  /**
   * Register a name at the server's ENS gateway for a meta-address: reads the nonce, signs
   * `nameRegistrationMessage` with `sign`, posts it. Any wallet then pays the name at a fresh
   * one-time address per lookup; the operator sees each of those addresses (and so each payment).
   * @example
   * const account = privateKeyToAccount(`0x${bytesToHex(keys.spendingSecretKey)}`);
   * await client.registerName({ name: 'alice.wraith.eth', metaAddress: keys.metaAddress, sign: (message) => account.signMessage({ message }) });
   */
  registerName(params: GatewayNameChangeParameters & { metaAddress: string | Uint8Array }, options?: CallOptions): Promise<GatewayNameJson>;
  /** Point a registered name at another meta-address (signed by the key registered now). */
  changeName(params: GatewayNameChangeParameters & { metaAddress: string | Uint8Array }, options?: CallOptions): Promise<GatewayNameJson>;
  /** Release a name: lookups answer no address from then on (signed by the key registered now). */
  releaseName(params: Omit<GatewayNameChangeParameters, 'metaAddress'>, options?: CallOptions): Promise<GatewayNameJson>;

  /** POST /api/v1/yellow/channel/create: open a private channel to a name or meta-address (announced in the registry). */
  createChannel(params: CreateChannelParameters, options?: CallOptions): Promise<CreateChannelReturnType>;
  /** POST /api/v1/yellow/channel/discover: the channels opened to these keys. */
  discoverChannels(params: DiscoverChannelsParameters, options?: CallOptions): Promise<DiscoverChannelsReturnType>;
  /** GET /api/v1/yellow/channel/:id/status. */
  getChannelStatus(channelId: string, options?: CallOptions): Promise<ChannelStatusJson>;
  /** POST /api/v1/yellow/channel/fund: placeholder, submits nothing. */
  fundChannel(params: FundChannelParameters, options?: CallOptions): Promise<FundChannelReturnType>;
  /** POST /api/v1/yellow/channel/close: placeholder, submits nothing. */
  closeChannel(params: CloseChannelParameters, options?: CallOptions): Promise<CloseChannelReturnType>;
  /** GET /api/v1/yellow/config: the channel network's configuration. */
  getChannelConfig(options?: CallOptions): Promise<ChannelConfigJson>;
};

const DEFAULT_TIMEOUT_MS = 30_000;

/** One path segment, percent-encoded. */
const segment = (value: string, field: string): string => {
  if (typeof value !== 'string' || value.length === 0) throw new InvalidArgumentError(field, 'must be a non-empty string');
  return encodeURIComponent(value);
};

/**
 * Create a client of a Wraith server.
 *
 * @example
 * import { createClient, scanRegistry, generateKeys, announcementForPayment, createStealthPayment } from '@wraith-pq/sdk';
 *
 * const client = createClient({ baseUrl: 'http://localhost:3001' });
 * const keys = generateKeys();
 * // a sender pays keys.metaAddress and announces it
 * const payment = createStealthPayment(keys.metaAddress);
 * await client.publishAnnouncement(announcementForPayment(payment, { txHash: '0xabc…' }));
 * // the recipient scans the registry page by page, keys never leave the device
 * for await (const batch of scanRegistry(client.announcementPages, keys)) {
 *   for (const found of batch.discoveries) console.log(found.stealthAddress);
 * }
 */
export function createClient(parameters: CreateClientParameters): WraithClient {
  if (typeof parameters?.baseUrl !== 'string' || !/^https?:\/\//i.test(parameters.baseUrl)) {
    throw new InvalidArgumentError('baseUrl', 'must be an http(s) URL');
  }
  const fetchImpl = parameters.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const transport: Transport = createTransport({
    baseUrl: parameters.baseUrl,
    apiKey: parameters.apiKey,
    fetch: fetchImpl as typeof fetch,
    timeoutMs: parameters.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: parameters.retry ?? {},
    headers: parameters.headers ?? {},
  });
  const get = <T>(path: string, options?: CallOptions, query?: Record<string, string | number | boolean | undefined | null>) =>
    transport.requestJson<T>({ method: 'GET', path, ...(query ? { query } : {}) }, options);
  const post = <T>(path: string, body: unknown, options?: CallOptions) => transport.requestJson<T>({ method: 'POST', path, body }, options);
  const announcementPages = announcementPageSource(transport);
  /** Read the name's nonce and the resolver, sign the request, post it (lib/names/gateway/registration.ts). */
  const changeGatewayName = async (action: NameAction, params: GatewayNameChangeParameters, options?: CallOptions): Promise<GatewayNameJson> => {
    const current = await get<GatewayNameJson>(`/api/v1/names/${segment(params.name, 'name')}`, options);
    const metaAddress = params.metaAddress === undefined ? undefined : toBytes(params.metaAddress, 'metaAddress');
    const message = nameRegistrationMessage({ action, name: current.name, nonce: current.nonce, resolver: current.resolver, ...(metaAddress === undefined ? {} : { metaAddress }) });
    const signature = await params.sign(message);
    return post('/api/v1/names', { action, name: current.name, nonce: current.nonce, signature, ...(metaAddress === undefined ? {} : { meta_address: bytesToHex(metaAddress) }) }, options);
  };

  return {
    baseUrl: parameters.baseUrl,
    // A degraded instance is an answer: no retry, no throw.
    getChains: (options) => get('/api/v1/chains', options),
    getHealth: (options) => transport.requestJson<HealthJson>({ method: 'GET', path: '/health', okStatuses: [503] }, { retry: false, ...options }),

    getOpenApiDocument: (options) => get('/api/v1/openapi.json', options),

    generateKeys: (options) => post('/api/v1/keys/generate', undefined, options),
    createStealthPayment: (params, options) => post('/api/v1/stealth/create', params, options),
    scan: (params, options) => post('/api/v1/stealth/scan', params, options),

    publishAnnouncement: (params, options) => post('/api/v1/registry/announcements', params, options),
    // async: a bad chain_id rejects, as every failure of a method does.
    listAnnouncements: async ({ chain_id, ...params } = {}, options) =>
      get('/api/v1/registry/announcements', options, { ...params, chain_id: chain_id === undefined ? undefined : chainIdQuery(chain_id, 'chain_id') }),
    getRegistryStats: (options) => get('/api/v1/registry/stats', options),
    announcementPages,
    async *announcements(params) {
      for await (const page of announcementPages(params)) yield* page;
    },

    uploadMetaAddress: (params, options) => post('/api/v1/ipfs/upload', params, options),
    async getIpfsContent(cid, options) {
      const path = `/api/v1/ipfs/${segment(cid, 'cid')}`;
      const answer = await transport.request({ method: 'GET', path, accept: 'application/octet-stream' }, options);
      return verifyCidBytes(cid, answer.body);
    },
    resolveEns: (name, options) => get(`/api/v1/ens/resolve/${segment(name, 'name')}`, options),
    resolveSuins: (name, params = {}, options) => get(`/api/v1/suins/resolve/${segment(name, 'name')}`, options, { no_cache: params.no_cache }),
    resolveEnsAddress: (name, options) => get(`/api/v1/ens/address/${segment(name, 'name')}`, options),
    nameGateway: (options) => get('/api/v1/names', options),
    showName: (name, options) => get(`/api/v1/names/${segment(name, 'name')}`, options),
    registerName: (params, options) => changeGatewayName('register', params, options),
    changeName: (params, options) => changeGatewayName('change', params, options),
    releaseName: (params, options) => changeGatewayName('release', params, options),
    readErc6538: (address, params = {}, options) => get(`/api/v1/erc6538/${segment(address, 'address')}`, options, { chain_id: params.chain_id, scheme_id: params.scheme_id }),

    createChannel: (params, options) => post('/api/v1/yellow/channel/create', params, options),
    discoverChannels: (params, options) => post('/api/v1/yellow/channel/discover', params, options),
    getChannelStatus: (channelId, options) => get(`/api/v1/yellow/channel/${segment(channelId, 'channelId')}/status`, options),
    fundChannel: (params, options) => post('/api/v1/yellow/channel/fund', params, options),
    closeChannel: (params, options) => post('/api/v1/yellow/channel/close', params, options),
    getChannelConfig: (options) => get('/api/v1/yellow/config', options),
  };
}
